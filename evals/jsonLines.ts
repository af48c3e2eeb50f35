/**
 * The lines of a JSON Lines file, read in chunks with bounded memory: the one
 * line splitter behind both readers of `cells.jsonl` (`readCells` for the
 * reports, `scanCells` for a resuming run).
 *
 * Node-only: uses node:fs.
 */
import { createReadStream } from 'node:fs';

/** One line of a file. */
export interface FileLine {
  /** 1-based line number. */
  number: number;
  /** The line's bytes without its newline; null for a line longer than the limit, which is never held. */
  bytes: Buffer | null;
  /** The line's length in bytes, without its newline. */
  length: number;
  /** False for a last line that has no newline (a write cut short). */
  complete: boolean;
}

/** Options of {@link fileLines}. */
export interface FileLinesOptions {
  /** Longest line held in memory, in bytes. */
  maxLineBytes: number;
  /**
   * The error to throw as soon as line `number` grows past the limit (a file
   * that is not JSON Lines, say); without it, such a line is skipped and
   * yielded with `bytes: null`.
   */
  tooLong?: (number: number) => Error;
  /** A missing file yields no line (default: the read's ENOENT error is thrown). */
  missingIsEmpty?: boolean;
}

const NEWLINE = 0x0a;

/**
 * Yields every line of `file` in order, blank ones included; a last line
 * without its newline comes last with `complete: false`. The pieces of a line
 * that spans read chunks are joined once, when the line ends.
 */
export async function* fileLines(file: string, options: FileLinesOptions): AsyncGenerator<FileLine> {
  const { maxLineBytes, tooLong } = options;
  const stream = createReadStream(file, { highWaterMark: 1 << 18 });
  let pieces: Buffer[] = [];
  let pending = 0;
  let skipping = false;
  let number = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let start = 0;
      for (let nl = chunk.indexOf(NEWLINE); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
        const part = chunk.subarray(start, nl);
        const length = pending + part.length;
        number++;
        if (length > maxLineBytes && tooLong) throw tooLong(number);
        const bytes = skipping || length > maxLineBytes ? null : pieces.length === 0 ? part : Buffer.concat([...pieces, part], length);
        pieces = [];
        pending = 0;
        skipping = false;
        start = nl + 1;
        yield { number, bytes, length, complete: true };
      }
      if (start < chunk.length) {
        pending += chunk.length - start;
        if (pending > maxLineBytes) {
          if (tooLong) throw tooLong(number + 1);
          pieces = [];
          skipping = true;
        } else if (!skipping) {
          // Copy: a held subarray would pin the whole chunk.
          pieces.push(Buffer.from(chunk.subarray(start)));
        }
      }
    }
  } catch (error) {
    if (!(options.missingIsEmpty && (error as NodeJS.ErrnoException).code === 'ENOENT')) throw error;
  } finally {
    stream.destroy();
  }
  if (pending > 0) yield { number: number + 1, bytes: skipping ? null : Buffer.concat(pieces, pending), length: pending, complete: false };
}
