/**
 * File primitives of the embedded registry (see docs/local-layout.md): atomic
 * replacement, flushes, JSON reads, reads that carry the identity of the bytes
 * read, and clean-up of temp files.
 *
 * Node-only: uses node:fs.
 */
import {
  closeSync,
  constants as fsConstants,
  fdatasync as fdatasyncCallback,
  fsync as fsyncCallback,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { open, readFile, readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

export function isErrno(error: unknown, ...codes: string[]): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && codes.includes(code);
}

// Inside the registry lock, small metadata operations are synchronous system calls:
// each asynchronous one costs a thread-pool round trip, and a publication makes
// dozens of them. Only the flushes (milliseconds each) go through the thread pool.
export const fsyncAsync = promisify(fsyncCallback);
export const fdatasyncAsync = promisify(fdatasyncCallback);

export async function fsyncDir(dir: string): Promise<void> {
  let fd: number | undefined;
  try {
    fd = openSync(dir, fsConstants.O_RDONLY);
    await fsyncAsync(fd);
  } catch (error) {
    // Some platforms (Windows) cannot open or flush a directory; the rename is still atomic there.
    if (!isErrno(error, 'EISDIR', 'EPERM', 'EACCES', 'EINVAL', 'EBADF')) throw error;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Writes `path` so readers see either the old or the new bytes, never a torn file. */
export async function writeAtomic(path: string, data: string, durable = true): Promise<void> {
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeFileSync(fd, data);
    if (durable) await fsyncAsync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  if (durable) await fsyncDir(dirname(path));
}

/** Identity of one version of a file: writers always rename a new inode into place. */
export function fileKey(s: { ino: bigint; size: bigint; mtimeNs: bigint }): string {
  return `${s.ino}:${s.size}:${s.mtimeNs}`;
}

/**
 * Reads a whole file with the identity of exactly the bytes read (fstat on the same
 * descriptor), in four system calls: open, fstat, read, close.
 */
export async function readWithKey(path: string): Promise<{ key: string; text: string }> {
  const handle = await open(path, 'r');
  try {
    const s = await handle.stat({ bigint: true });
    const size = Number(s.size);
    const buffer = Buffer.allocUnsafe(size);
    let offset = 0;
    while (offset < size) {
      const { bytesRead } = await handle.read(buffer, offset, size - offset, offset);
      if (bytesRead === 0) break;
      offset += bytesRead;
    }
    return { key: fileKey(s), text: buffer.toString('utf8', 0, offset) };
  } finally {
    await handle.close();
  }
}

/** Reads a small JSON file synchronously (under the lock); `undefined` when absent. */
export function readJsonSync<T>(path: string): T | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (isErrno(error, 'ENOENT', 'ENOTDIR')) return undefined;
    throw error;
  }
  return JSON.parse(text) as T;
}

export async function readJson<T>(path: string): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (isErrno(error, 'ENOENT', 'ENOTDIR')) return undefined;
    throw error;
  }
  return JSON.parse(text) as T;
}

export function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone (or never created): nothing to release.
  }
}

/** Removes every `*.tmp` file directly in `dir` (none when it does not exist). */
export async function removeTemps(dir: string): Promise<void> {
  const names = await readdir(dir).catch((): string[] => []);
  await Promise.all(names.filter((n) => n.endsWith('.tmp')).map((n) => rm(join(dir, n), { force: true })));
}
