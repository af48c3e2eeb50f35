/**
 * Bounded reads of user-named files (packages, guidance, bindings, cases,
 * templates): a file is never read past the size it may have, so a wrong path
 * (a log, a disk image, `/dev/zero`) fails fast instead of filling memory, and
 * a FIFO or a device is refused instead of blocking the command.
 *
 * Node-only: uses node:fs.
 */
import { constants as fsConstants, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { WorkbenchError } from '../errors';
import { DEFAULT_AUTHORING_LIMITS } from '../package/limits';

/** The largest package file read (the default authoring limit on package bytes). */
export const PACKAGE_FILE_MAX_BYTES = DEFAULT_AUTHORING_LIMITS.maxPackageBytes;

/** The largest side file read: bindings, selector limits, prompt templates, extra cases. */
export const SIDE_FILE_MAX_BYTES = 4 * 1024 * 1024;

const CHUNK_BYTES = 64 * 1024;

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

function tooLarge(label: string, maxBytes: number, bytes?: number): WorkbenchError {
  const size = bytes === undefined ? 'larger than' : `${bytes} bytes, above`;
  return new WorkbenchError('payload_too_large', `${shownPath(label)} is ${size} the limit of ${maxBytes} bytes`, {
    details: { ...(bytes !== undefined && { bytes }), max: maxBytes },
  });
}

/** What a file system error code means, in words that quote no path (Node's own messages quote the absolute one). */
const FS_REASONS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ELOOP: 'a loop of symbolic links',
  ENAMETOOLONG: 'a name in the path is longer than the file system allows',
  EMFILE: 'too many files are open at once; try again',
  ENFILE: 'too many files are open at once; try again',
  EIO: 'the disk reported an input/output error',
  EBUSY: 'the file is busy',
  ENXIO: 'no device is behind it',
  EAGAIN: 'the file is not ready to be read; try again',
  EOVERFLOW: 'the file is too large to read',
};

/**
 * `label` as a message may show it: a NUL byte written `\0`, at most 1024
 * characters (the longest workspace path).
 */
export function shownPath(label: string): string {
  const shown = label.replace(/\0/g, '\\0');
  return shown.length > 1024 ? `${shown.slice(0, 1024)}…` : shown;
}

/**
 * The refusal of a file system call on the file `label` names (the path as the
 * user or the workspace shows it): `not_found` for a missing file or a file
 * where a folder was expected on the way, `invalid_request` otherwise, with a
 * reason in words. Never Node's message, which quotes the absolute path, so an
 * error reaching a client says nothing about where this machine keeps things.
 */
export function fileSystemRefusal(error: unknown, label: string, details?: Record<string, unknown>): WorkbenchError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
  const name = shownPath(label);
  const options = { cause: error, ...(details && { details }) };
  if (label.includes('\0') || code === 'ERR_INVALID_ARG_VALUE') return new WorkbenchError('invalid_request', `${name}: a path cannot hold a NUL byte`, options);
  if (code === 'ENOENT') return new WorkbenchError('not_found', `${name}: no such file`, options);
  if (code === 'ENOTDIR') return new WorkbenchError('not_found', `${name}: no such file (a part of its path is a file, not a folder)`, options);
  if (code === 'EISDIR') return new WorkbenchError('invalid_request', `${name} is a folder, not a file`, options);
  const reason = FS_REASONS[code] ?? `the file system refused it${/^E[A-Z]+$/.test(code) ? ` (${code})` : ''}`;
  return new WorkbenchError('invalid_request', `${name}: cannot read it: ${reason}`, options);
}

/** Options of {@link readFileBounded}. */
export interface ReadBoundedOptions {
  /**
   * Refuse a symbolic link at `path` itself (O_NOFOLLOW) instead of reading
   * its target: for callers that checked where a path leads and must not be
   * sent elsewhere by a link swapped in afterwards.
   */
  noFollow?: boolean;
}

/**
 * Reads at most `maxBytes` of the regular file at `path`; never more than
 * `maxBytes + 1` bytes are read, even from a file that grows meanwhile. Throws
 * `payload_too_large` (with `details.max`) for a larger file, `not_found` when
 * there is no such file, and `invalid_request` for a folder, a FIFO, a device or
 * an unreadable file. The file is opened without blocking, so a FIFO with no
 * writer is refused at once. `label` names the file in messages (default: the path).
 */
export async function readFileBounded(path: string, maxBytes: number, label: string = path, options: ReadBoundedOptions = {}): Promise<Uint8Array> {
  let handle;
  try {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
    handle = await open(path, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) | (options.noFollow ? (fsConstants.O_NOFOLLOW ?? 0) : 0));
  } catch (error) {
    if (options.noFollow && (error as NodeJS.ErrnoException).code === 'ELOOP') throw new WorkbenchError('invalid_request', `${shownPath(label)} is a symbolic link: not followed`, { cause: error });
    throw fileSystemRefusal(error, label);
  }
  try {
    return await readHandleBounded(handle, maxBytes, label);
  } finally {
    await handle.close();
  }
}

/**
 * {@link readFileBounded} of a file already open (the caller opened it its own
 * way, e.g. without following a link, and closes it): the same refusals of
 * anything but a regular file, and the same bound.
 */
export async function readHandleBounded(handle: FileHandle, maxBytes: number, label: string): Promise<Uint8Array> {
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) {
      throw new WorkbenchError('invalid_request', `${shownPath(label)} is ${kindOf(stats)}, not a regular file: only regular files of at most ${maxBytes} bytes are read`);
    }
    if (stats.size > maxBytes) throw tooLarge(label, maxBytes, stats.size);
    const chunks: Uint8Array[] = [];
    let length = 0;
    if (stats.size > 0) {
      // One read of the size the stat gave, plus a byte to notice growth.
      const want = stats.size + 1;
      const first = new Uint8Array(want);
      const { bytesRead } = await handle.read(first, 0, want, null);
      // Exactly that size: the whole file, without a second read to find its end.
      if (bytesRead === stats.size) return first.subarray(0, bytesRead);
      // It grew or shrank since the stat, or the read stopped early: go on in chunks to the end.
      chunks.push(first.subarray(0, bytesRead));
      length = bytesRead;
    }
    // The size can lie (files under /proc say 0) or change: read in chunks up to one byte past the limit.
    for (;;) {
      const want = Math.min(CHUNK_BYTES, maxBytes + 1 - length);
      if (want <= 0) break;
      const chunk = new Uint8Array(want);
      const { bytesRead } = await handle.read(chunk, 0, want, null);
      if (bytesRead === 0) break;
      chunks.push(bytesRead === want ? chunk : chunk.subarray(0, bytesRead));
      length += bytesRead;
    }
    if (length > maxBytes) throw tooLarge(label, maxBytes);
    if (chunks.length === 1) return chunks[0]!;
    const out = new Uint8Array(length);
    let offset = 0;
    for (const c of chunks) {
      out.set(c, offset);
      offset += c.length;
    }
    return out;
  } catch (error) {
    if (error instanceof WorkbenchError) throw error;
    throw fileSystemRefusal(error, label);
  }
}

/** {@link readFileBounded} decoded as UTF-8 (invalid sequences become U+FFFD, as `readFile(…, 'utf8')` does). */
export async function readTextBounded(path: string, maxBytes: number, label: string = path, options: ReadBoundedOptions = {}): Promise<string> {
  return new TextDecoder('utf-8').decode(await readFileBounded(path, maxBytes, label, options));
}
