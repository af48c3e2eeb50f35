/**
 * Parameter schemas every domain shares: identities, names, revisions, paths.
 *
 * Isomorphic: no `node:` imports (the renderer and the preload import it).
 */
import { z } from 'zod';
import { noControlCharacters } from '../../textRules';
import { slug } from './internal';

/** A skill identity `{namespace, name}`. */
export const skillIdSchema = z.strictObject({ namespace: slug('a namespace'), name: slug('a name') });

export { connectionNameSchema } from '../../connections/types';

/** A package's JSON text as the editor holds it (bounded: the largest package limit is far below). */
export const packageTextSchema = z.string().max(16 * 1024 * 1024);

/** A strong or weak quoted entity tag as stores return it. */
export const etagSchema = z.string().min(2).max(256).regex(/^(W\/)?"[^"]*"$/, 'an ETag is a quoted entity tag such as "v3-…"');

/** A positive revision number. */
export const versionSchema = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

/** An Idempotency-Key: 1..255 visible ASCII characters. */
export const idempotencyKeySchema = z.string().min(1).max(255).regex(/^[\x21-\x7e]+$/, 'an idempotency key is visible ASCII without spaces');

export { noControlCharacters } from '../../textRules';

/** A workspace-relative path with `/` separators (never absolute, never `..`). */
export const workspacePathSchema = z
  .string()
  .min(1)
  .max(1024)
  .refine(...noControlCharacters('a workspace path'))
  .refine((p) => !p.startsWith('/') && !/^[a-zA-Z]:/.test(p) && !p.includes('\\') && !p.split('/').includes('..'), 'a path relative to the workspace, with / separators and no ..');

/** A folder on this machine, as the user typed or picked it. */
export const folderSchema = z.string().min(1).max(4096).refine(...noControlCharacters('a folder'));

/** The revision a draft was opened from: what publish sends as If-Match. */
export const draftBaseSchema = z.strictObject({ version: versionSchema, etag: etagSchema });
