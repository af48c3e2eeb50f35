/**
 * Small files of the app-data folder (profiles, sealed secrets): bounded
 * reads that never create anything, and atomic replacements (a temp file in
 * the same folder, fsync, rename, fsync of the folder) with the mode given, so
 * a crash leaves either the old file or the new one, never a torn one.
 *
 * Node-only: uses node:fs.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { WorkbenchError } from '../errors';
import { readFileBounded } from '../workspace/read';

/** Reads a UTF-8 file of at most `maxBytes`, or returns `undefined` when it does not exist. */
export async function readSmallFile(path: string, maxBytes: number, label: string): Promise<string | undefined> {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(await readFileBounded(path, maxBytes, label));
  } catch (error) {
    if (error instanceof WorkbenchError && error.code === 'not_found') return undefined;
    if (error instanceof TypeError) throw new WorkbenchError('invalid_request', `${label} is not UTF-8 text`);
    throw error;
  }
}

async function fsyncDir(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some platforms cannot open or flush a folder; the rename is still atomic there.
  }
}

/**
 * Replaces `path` with `data` atomically, the file created with `mode` (its
 * folder, created when missing, with 0700). A failure leaves the old file.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(tmp, 'wx', mode);
  try {
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    // The umask may have narrowed or (on some file systems) ignored the mode.
    await chmod(tmp, mode);
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
  await fsyncDir(dir);
}

/** Runs async jobs one after another (one writer per file within a process). */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(job: () => Promise<T>): Promise<T> {
    const next = this.tail.then(job, job);
    this.tail = next.catch(() => undefined);
    return next;
  }
}
