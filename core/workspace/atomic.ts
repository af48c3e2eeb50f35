/**
 * Atomic file replacement for files a person edits or the workbench keeps
 * (workspace packages, autosaved drafts): the bytes go to a temporary file in
 * the same folder, are flushed to the disk, and the temporary file is renamed
 * over the target; then the folder itself is flushed so the rename survives a
 * power cut. A reader (or a process killed at any instant) sees the old bytes
 * or the new ones, never a torn file.
 *
 * Node-only: uses node:fs.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Options of {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /** Permission bits of a newly written file (default 0o666 minus the umask). */
  mode?: number;
  /** Create missing parent folders (default false: a missing folder is an error). */
  mkdirs?: boolean;
  /**
   * Flush the file and its folder before returning (default true). `false` keeps
   * atomicity against a dying process but not against power loss.
   */
  durable?: boolean;
}

function isErrno(error: unknown, ...codes: string[]): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && codes.includes(code);
}

/** Flushes a folder's entries (the rename); a no-op where folders cannot be opened or flushed (Windows). */
async function fsyncDir(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch (error) {
    if (!isErrno(error, 'EISDIR', 'EPERM', 'EACCES', 'EINVAL', 'EBADF')) throw error;
  } finally {
    await handle?.close();
  }
}

/**
 * The name of the temporary file beside `path`: hidden (a leading dot, so
 * package discovery and watchers ignore it) and unique per writer.
 */
export function temporaryNameFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

/** True for a temporary file {@link writeFileAtomic} leaves behind when its process dies mid-write. */
export function isTemporaryName(name: string): boolean {
  return name.startsWith('.') && name.endsWith('.tmp');
}

const TEMPORARY = /^\..+\.(\d+)\.[0-9a-f]{12}\.tmp$/;

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return isErrno(error, 'EPERM');
  }
}

/**
 * Removes the temporary files of {@link writeFileAtomic} that a process killed
 * mid-write left in `dir` (only those whose writer is no longer running), so
 * they do not pile up in a Git folder. Returns how many were removed; a
 * missing or unreadable folder removes nothing.
 */
export async function removeStaleTemporaries(dir: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const m = TEMPORARY.exec(name);
    if (!m || isAlive(Number(m[1]))) continue;
    await rm(join(dir, name), { force: true }).catch(() => undefined);
    removed++;
  }
  return removed;
}

/**
 * Replaces `path` with `data` atomically (temp file, fsync, rename, fsync of the
 * folder). On failure the temporary file is removed and `path` is untouched.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const durable = options.durable ?? true;
  if (options.mkdirs) await mkdir(dirname(path), { recursive: true });
  const tmp = temporaryNameFor(path);
  try {
    const handle = await open(tmp, 'wx', options.mode ?? 0o666);
    try {
      await handle.writeFile(data);
      if (durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw error;
  }
  if (durable) await fsyncDir(dirname(path));
}
