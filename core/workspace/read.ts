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
  return new WorkbenchError('payload_too_large', `${label} is ${size} the limit of ${maxBytes} bytes`, {
    details: { ...(bytes !== undefined && { bytes }), max: maxBytes },
  });
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
    const code = (error as NodeJS.ErrnoException).code;
    if (options.noFollow && code === 'ELOOP') throw new WorkbenchError('invalid_request', `${label} is a symbolic link: not followed`, { cause: error });
    if (code === 'ENOENT') throw new WorkbenchError('not_found', `${label}: no such file`, { cause: error });
    if (code === 'EISDIR') throw new WorkbenchError('invalid_request', `${label} is a folder, not a file`, { cause: error });
    throw new WorkbenchError('invalid_request', `${label}: cannot read it: ${code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (error as Error).message}`, { cause: error });
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
      throw new WorkbenchError('invalid_request', `${label} is ${kindOf(stats)}, not a regular file: only regular files of at most ${maxBytes} bytes are read`);
    }
    if (stats.size > maxBytes) throw tooLarge(label, maxBytes, stats.size);
    // The size can lie (files under /proc say 0) or change: read in chunks up to one byte past the limit.
    const chunks: Uint8Array[] = [];
    let length = 0;
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
    throw new WorkbenchError('invalid_request', `${label}: cannot read it: ${(error as Error).message}`, { cause: error });
  }
}

/** {@link readFileBounded} decoded as UTF-8 (invalid sequences become U+FFFD, as `readFile(…, 'utf8')` does). */
export async function readTextBounded(path: string, maxBytes: number, label: string = path, options: ReadBoundedOptions = {}): Promise<string> {
  return new TextDecoder('utf-8').decode(await readFileBounded(path, maxBytes, label, options));
}
