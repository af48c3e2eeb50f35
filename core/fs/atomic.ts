/**
 * Atomic file replacement, the one implementation every writer uses (workspace
 * packages, drafts, the embedded registry, run files, the answer cache and
 * reports): the bytes go to a temporary file in the same folder, the file is
 * flushed to the disk, renamed over the target, and the folder itself is
 * flushed so the rename survives a power cut. A reader (or a process killed at
 * any instant) sees the old bytes or the new ones, never a torn file. On
 * failure the temporary file is removed and the target is untouched.
 *
 * Opening, renaming and closing are synchronous system calls (microseconds
 * each, and the registry makes many of them under its lock); only the
 * flushes and streamed writes go through the thread pool.
 *
 * Node-only: uses node:fs.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants as fsConstants, fchmodSync, fsync as fsyncCallback, openSync, renameSync, unlinkSync, write as writeCallback, writeFileSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { processGone, selfIdentity } from './processIdentity';
import { isErrno } from './errno';

const fsyncAsync = promisify(fsyncCallback);
const writeAsync = promisify(writeCallback);

/** Options of {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /**
   * Permission bits of the file, exactly (the umask does not narrow them), as
   * secret files need. Default: 0o666 minus the umask.
   */
  mode?: number;
  /** Create missing parent folders (default false: a missing folder is an error). */
  mkdirs?: boolean;
  /** Permission bits of the folders `mkdirs` creates (default 0o777 minus the umask). */
  dirMode?: number;
  /**
   * Flush the file and its folder before returning (default true). `false` keeps
   * atomicity against a dying process but not against power loss.
   */
  durable?: boolean;
  /**
   * Called with the temporary file's descriptor and path once it is created,
   * before anything is written: throwing aborts the write (the temporary file is
   * removed). Confined writers check there that the file is where they resolved it.
   */
  checkOpened?: (fd: number, tmp: string) => void;
  /**
   * Called with the temporary file's descriptor once every byte is written (and
   * flushed, when durable), before it replaces `path`: a caller can take the
   * identity of what it wrote (fstat) without another read. Throwing aborts the write.
   */
  written?: (fd: number) => void;
}

/** Where a streamed atomic write puts its bytes (see {@link writeFileAtomic}). */
export interface AtomicOutput {
  /** Appends `data` (text as UTF-8) to the temporary file. */
  write(data: string | Uint8Array): Promise<void>;
}

/** The content of an atomic write: the bytes, or a producer that streams them. */
export type AtomicContent = string | Uint8Array | ((out: AtomicOutput) => Promise<void>);

/**
 * Creates the temporary file `tmp`. With `mkdirs`, its folder is created only
 * when the first attempt finds it missing: a recursive mkdir before every write
 * was most of the cost of writing into a folder that already exists.
 */
async function openTemporary(tmp: string, options: AtomicWriteOptions): Promise<number> {
  try {
    return openSync(tmp, 'wx', options.mode ?? 0o666);
  } catch (error) {
    if (!options.mkdirs || !isErrno(error, 'ENOENT')) throw error;
  }
  await mkdir(dirname(tmp), { recursive: true, ...(options.dirMode !== undefined && { mode: options.dirMode }) });
  return openSync(tmp, 'wx', options.mode ?? 0o666);
}

/** Flushes a folder's entries (a rename); a no-op where folders cannot be opened or flushed (Windows). */
export async function fsyncDir(dir: string): Promise<void> {
  let fd: number | undefined;
  try {
    fd = openSync(dir, fsConstants.O_RDONLY);
    await fsyncAsync(fd);
  } catch (error) {
    if (!isErrno(error, 'EISDIR', 'EPERM', 'EACCES', 'EINVAL', 'EBADF')) throw error;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The name of a temporary file beside `path`: hidden (a leading dot, so
 * package discovery and watchers ignore it), unique per writer, and naming the
 * writer (pid and, where known, start time) so a sweep can tell whether it is gone.
 */
export function temporaryNameFor(path: string): string {
  const start = selfIdentity().start;
  const writer = start === undefined ? `${process.pid}` : `${process.pid}-${start}`;
  return join(dirname(path), `.${basename(path)}.${writer}.${randomBytes(6).toString('hex')}.tmp`);
}

/** True for a temporary file {@link writeFileAtomic} leaves behind when its process dies mid-write. */
export function isTemporaryName(name: string): boolean {
  return name.startsWith('.') && name.endsWith('.tmp');
}

/** `.<name>.<pid>[-<start>].<12 hex>.tmp`: the writer's pid, and its start time where the system tells it. */
const TEMPORARY = /^\..+\.(\d+)(?:-(\d+))?\.[0-9a-f]{12}\.tmp$/;

/**
 * Removes the temporary files of {@link writeFileAtomic} that a process killed
 * mid-write left in `dir` (only those whose writer is no longer running: a pid
 * that is free, a zombie, or now another process started at another time), so
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
    if (!m || !processGone({ pid: Number(m[1]), ...(m[2] !== undefined && { start: m[2] }) })) continue;
    await rm(join(dir, name), { force: true }).catch(() => undefined);
    removed++;
  }
  return removed;
}

async function writeAll(fd: number, data: string | Uint8Array): Promise<number> {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await writeAsync(fd, bytes, offset, bytes.length - offset, null);
    offset += bytesWritten;
  }
  return bytes.length;
}

/**
 * Replaces `path` with `content` atomically (temp file, fsync, rename, fsync of
 * the folder) and returns the number of bytes written. `content` is the bytes
 * (text as UTF-8) or a producer that streams them through `out.write`; a
 * producer that throws aborts the write. On any failure the temporary file is
 * removed, `path` keeps its previous bytes, and the error is rethrown.
 */
export async function writeFileAtomic(path: string, content: AtomicContent, options: AtomicWriteOptions = {}): Promise<number> {
  const durable = options.durable ?? true;
  const tmp = temporaryNameFor(path);
  let fd: number | undefined;
  let bytes = 0;
  try {
    fd = await openTemporary(tmp, options);
    const out = fd;
    options.checkOpened?.(out, tmp);
    // The umask may have narrowed the mode given (or a file system ignored it).
    if (options.mode !== undefined) fchmodSync(out, options.mode);
    if (typeof content === 'function') {
      await content({ write: async (data) => void (bytes += await writeAll(out, data)) });
    } else {
      writeFileSync(out, content);
      bytes = typeof content === 'string' ? Buffer.byteLength(content, 'utf8') : content.byteLength;
    }
    if (durable) await fsyncAsync(out);
    options.written?.(out);
    closeSync(out);
    fd = undefined;
    renameSync(tmp, path);
  } catch (error) {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // Already failing: the original error is the one to report.
      }
    }
    try {
      unlinkSync(tmp);
    } catch {
      // Never created, or already gone.
    }
    throw error;
  }
  if (durable) await fsyncDir(dirname(path));
  return bytes;
}
