/**
 * Atomic, streamed report output: text is buffered in small batches and
 * written to a temporary file beside the target, which is flushed and renamed
 * into place only when the whole report is complete. A reader never sees a
 * half-written report, and a failed write leaves the previous one untouched.
 */
import { dirname } from 'node:path';
import { WorkbenchError } from '../../core/errors';
import { writeFileAtomic, type AtomicOutput } from '../../core/fs/atomic';

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

  constructor(private readonly out: AtomicOutput) {}

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
    await this.out.write(data);
    this.bytes += data.length;
  }
}

/**
 * Writes the report at `path` through `produce`, atomically (core/fs/atomic.ts):
 * streams into a temporary sibling in the folder, which must exist (a missing
 * folder is `invalid_request` naming it; no parent is created), flushes it to
 * disk and renames it over `path`. Returns the number of bytes written. Any
 * error removes the temporary file and is rethrown (I/O failures as
 * `WorkbenchError` `unavailable`).
 */
export async function writeReportFile(path: string, produce: (sink: ReportSink) => Promise<void>): Promise<number> {
  let started = false;
  try {
    return await writeFileAtomic(path, async (out) => {
      started = true;
      const sink = new FileSink(out);
      await produce(sink);
      await sink.flush();
    });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (!started && (code === 'ENOENT' || code === 'ENOTDIR')) {
      throw new WorkbenchError('invalid_request', `cannot write the report ${path}: the folder ${dirname(path)} does not exist`, { cause: error });
    }
    if (error instanceof WorkbenchError) throw error;
    throw new WorkbenchError('unavailable', `could not write the report ${path}: ${(error as Error).message}`, { cause: error });
  }
}
