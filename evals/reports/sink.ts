/**
 * Atomic, streamed report output: text is buffered in small batches and
 * written to a temporary file beside the target, which is flushed and renamed
 * into place only when the whole report is complete. A reader never sees a
 * half-written report, and a failed write leaves the previous one untouched.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { WorkbenchError } from '../../core/errors';

const FLUSH_AT = 1 << 20;

/** A report being written. `write` may be awaited for backpressure; the text is UTF-8. */
export interface ReportSink {
  write(text: string): Promise<void>;
  /** Bytes written so far (after commit: the file size). */
  readonly bytes: number;
}

class FileSink implements ReportSink {
  private parts: string[] = [];
  private buffered = 0;
  bytes = 0;

  constructor(private readonly handle: FileHandle) {}

  async write(text: string): Promise<void> {
    this.parts.push(text);
    // String length undercounts multi-byte text, which only makes batches a little larger.
    this.buffered += text.length;
    if (this.buffered >= FLUSH_AT) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.parts.length === 0) return;
    const data = Buffer.from(this.parts.join(''), 'utf8');
    this.parts = [];
    this.buffered = 0;
    let offset = 0;
    while (offset < data.length) {
      const { bytesWritten } = await this.handle.write(data, offset, data.length - offset);
      offset += bytesWritten;
    }
    this.bytes += data.length;
  }
}

/**
 * Writes the report at `path` through `produce`, atomically: writes a temporary
 * sibling in the folder, which must exist (a missing folder is `invalid_request`
 * naming it; no parent is created), flushes it to disk and renames
 * it over `path`. Returns the number of bytes written. Any error removes the
 * temporary file and is rethrown (I/O failures as `WorkbenchError` `unavailable`).
 */
export async function writeReportFile(path: string, produce: (sink: ReportSink) => Promise<void>): Promise<number> {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  let handle: FileHandle | undefined;
  try {
    try {
      handle = await open(tmp, 'wx');
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') throw new WorkbenchError('invalid_request', `cannot write the report ${path}: the folder ${dir} does not exist`, { cause: error });
      throw error;
    }
    const sink = new FileSink(handle);
    await produce(sink);
    await sink.flush();
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(tmp, path);
    return sink.bytes;
  } catch (error) {
    if (handle) await handle.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    if (error instanceof WorkbenchError) throw error;
    throw new WorkbenchError('unavailable', `could not write the report ${path}: ${(error as Error).message}`, { cause: error });
  }
}
