/**
 * Text rules the zod schemas of several domains share (connection profiles,
 * the API contract): one wording of each refusal everywhere.
 *
 * Isomorphic: no `node:` imports.
 */
import { z } from 'zod';

const SLUG = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/** A lowercase slug of letters, digits and internal hyphens (namespaces, names, connection names), at most 64 characters. */
export const slug = (what: string) => z.string().max(64).regex(SLUG, `${what} is a lowercase slug of letters, digits and internal hyphens`);

/**
 * No NUL or other control character: no file system stores one in a name, and
 * Node's refusal of a NUL would quote the whole absolute path back. A zod
 * `refine` pair: `schema.refine(...noControlCharacters('a folder'))`.
 */
export const noControlCharacters = (what: string) =>
  [(p: string) => ![...p].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f), `${what} must not contain a NUL or another control character`] as const;
