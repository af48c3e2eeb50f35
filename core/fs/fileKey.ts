/**
 * The identity of one version of a file, for caches of what was read from it.
 * Writers that replace a file by renaming a new one into place (core/fs/atomic)
 * give every version a new inode, so an unchanged key means unchanged bytes.
 *
 * Node-only: the key comes from node:fs stats.
 */

/** Identity of one version of a file (from stats taken with `bigint: true`). */
export function fileKey(s: { ino: bigint; size: bigint; mtimeNs: bigint }): string {
  return `${s.ino}:${s.size}:${s.mtimeNs}`;
}
