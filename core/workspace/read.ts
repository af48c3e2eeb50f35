/**
 * Bounded reads of workspace files: a file is never read past the size it may
 * have, so a wrong path (a log, a disk image) fails fast instead of filling
 * memory.
 *
 * Node-only: uses node:fs.
 */
import { open } from 'node:fs/promises';
import { WorkbenchError } from '../errors';

/**
 * Reads at most `maxBytes` of the file at `path`. Throws `payload_too_large`
 * (with `details.bytes` and `details.max`) for a larger file, `not_found` when
 * there is no such file, and `invalid_request` for a folder or an unreadable
 * file. `label` names the file in messages (default: the path).
 */
export async function readFileBounded(path: string, maxBytes: number, label: string = path): Promise<Uint8Array> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new WorkbenchError('not_found', `${label}: no such file`, { cause: error });
    throw new WorkbenchError('invalid_request', `${label}: cannot read it: ${code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (error as Error).message}`, { cause: error });
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new WorkbenchError('invalid_request', `${label}: not a file`);
    if (stats.size > maxBytes) throw new WorkbenchError('payload_too_large', `${label} is ${stats.size} bytes, above the ${maxBytes} bytes it may have`, { details: { bytes: stats.size, max: maxBytes } });
    // One byte more than the size just read: a full buffer means the file grew meanwhile.
    const buffer = new Uint8Array(stats.size + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length === buffer.length) throw new WorkbenchError('conflict', `${label} changed while it was being read; try again`);
    return buffer.subarray(0, length);
  } catch (error) {
    if (error instanceof WorkbenchError) throw error;
    throw new WorkbenchError('invalid_request', `${label}: cannot read it: ${(error as Error).message}`, { cause: error });
  } finally {
    await handle.close();
  }
}
