/**
 * The identity of a package file from its path: `.../<namespace>/<name>.json`
 * (ARCHITECTURE.md section 6). One rule for every command that takes a file:
 * validate, publish and eval read the same identity from the same path.
 *
 * Node-only: uses node:path.
 */
import { basename, dirname } from 'node:path';
import { isSlug } from '../package/rules';
import type { SkillId } from '../package/types';

/** The identity a path gives, and why it cannot serve as one when it cannot. */
export interface PathIdentity {
  /** Namespace from the parent folder, name from the file name without `.json`. */
  id: SkillId;
  /**
   * Present when the path is not `.../<namespace>/<name>.json` with slug names:
   * commands that need a real identity refuse the file with this message;
   * validation reports it through its own identity findings instead.
   */
  problem?: string;
}

const JSON_EXTENSION = /\.json$/i;

/**
 * Reads the identity of the package file at `path`. Always returns the
 * identity the path spells (so a validator can report what is wrong with it),
 * plus a `problem` when that identity is unusable.
 */
export function identityFromPath(path: string): PathIdentity {
  const file = basename(path);
  const id: SkillId = { namespace: basename(dirname(path)), name: file.replace(JSON_EXTENSION, '') };
  if (!JSON_EXTENSION.test(file) || !isSlug(id.namespace) || !isSlug(id.name)) {
    return { id, problem: 'a package file must be .../<namespace>/<name>.json with slug names, to give its identity' };
  }
  return { id };
}

/**
 * Parses `<namespace>/<name>` (two slugs); undefined for anything else.
 */
export function parseSkillId(text: string): SkillId | undefined {
  const parts = text.split('/');
  if (parts.length !== 2 || !isSlug(parts[0]!) || !isSlug(parts[1]!)) return undefined;
  return { namespace: parts[0]!, name: parts[1]! };
}
