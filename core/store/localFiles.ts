/**
 * File primitives of the embedded registry (see docs/local-layout.md): flushes,
 * JSON reads, reads that carry the identity of the bytes read, and clean-up of
 * temp files. Atomic replacement is core/fs/atomic.ts.
 *
 * Node-only: uses node:fs.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fdatasync as fdatasyncCallback, fsync as fsyncCallback, linkSync, openSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { open, readFile, readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { fsyncDir } from '../fs/atomic';
import { isErrno } from '../fs/errno';
import { fileKey } from '../fs/fileKey';

// Inside the registry lock, small metadata operations are synchronous system calls:
// each asynchronous one costs a thread-pool round trip, and a publication makes
// dozens of them. Only the flushes (milliseconds each) go through the thread pool.
export const fsyncAsync = promisify(fsyncCallback);
export const fdatasyncAsync = promisify(fdatasyncCallback);

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

/**
 * Creates `path` with `text` unless it exists, without a lock: written complete
 * and flushed under a unique name, then linked into place, so several processes
 * creating it at once all succeed, one wins, and none ever sees it torn.
 * Returns whether this call created it.
 */
export async function createOnce(path: string, text: string): Promise<boolean> {
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx');
  try {
    writeFileSync(fd, text);
    await fsyncAsync(fd);
  } finally {
    closeSync(fd);
  }
  let created = true;
  try {
    linkSync(tmp, path);
  } catch (error) {
    if (!isErrno(error, 'EEXIST')) throw error;
    created = false;
  } finally {
    unlinkQuietly(tmp);
  }
  await fsyncDir(dirname(path));
  return created;
}
