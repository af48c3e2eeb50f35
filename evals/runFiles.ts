/**
 * The files of a run directory: `header.json` (written once, atomically),
 * `cells.jsonl` (one finished cell per line, appended in whole lines),
 * `summary.json` (rewritten atomically at the end) and `lock` (the runner
 * using the folder, see {@link lockRunDir}).
 *
 * A kill can leave at most one torn line at the end of `cells.jsonl`: readers
 * skip it, and a resuming runner cuts it off before appending.
 */
import { mkdir, open, readFile, truncate, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { WorkbenchError } from '../core/errors';
import { writeFileAtomic } from '../core/fs/atomic';
import { FileLock } from '../core/fs/fileLock';
import type { CellRecord, EvalSummary, RunHeader } from './types';
import { jsonOf } from '../core/frozen';
import { fileLines } from './jsonLines';
import { cellShapeProblem, MAX_CELL_LINE_BYTES } from './reports/cells';

/** File names inside a run directory. */
export const RUN_FILES = Object.freeze({ header: 'header.json', cells: 'cells.jsonl', summary: 'summary.json', lock: 'lock' });

/** The header of the run in `dir`, or undefined when there is none yet. A header that does not parse is an error. */
export async function readHeader(dir: string): Promise<RunHeader | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, RUN_FILES.header), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let header: RunHeader;
  try {
    header = JSON.parse(text) as RunHeader;
  } catch (error) {
    throw new WorkbenchError('conflict', `${join(dir, RUN_FILES.header)} is not a run header (${(error as Error).message}); use another --out folder`);
  }
  if (header?.format !== 'skillbench.eval/v1' || typeof header.config_hash !== 'string') {
    throw new WorkbenchError('conflict', `${join(dir, RUN_FILES.header)} is not a skillbench.eval/v1 run header; use another --out folder`);
  }
  return header;
}

/** Writes the header of a new run. */
export async function writeHeader(dir: string, header: RunHeader): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFileAtomic(join(dir, RUN_FILES.header), `${JSON.stringify(header, null, 2)}\n`);
}

/** Writes the summary of a run. */
export async function writeSummary(dir: string, summary: EvalSummary): Promise<void> {
  await writeFileAtomic(join(dir, RUN_FILES.summary), `${JSON.stringify(summary, null, 2)}\n`);
}

/** What a scan of `cells.jsonl` found. */
export interface CellsScan {
  /** Complete, parseable lines. */
  cells: number;
  /** Bytes up to the end of the last complete line. */
  validBytes: number;
  /** Bytes in the file. */
  totalBytes: number;
  /** Complete lines that did not parse (skipped). */
  corrupt: number;
}

function parseCell(line: Buffer | null): CellRecord | undefined {
  // A line past the limit was never read into memory: not a cell.
  if (line === null) return undefined;
  let cell: unknown;
  try {
    cell = JSON.parse(line.toString('utf8'));
  } catch {
    return undefined;
  }
  // The rule the reports' reader applies: a line that is not a whole cell record is not a finished cell.
  return cellShapeProblem(cell) === null ? (cell as CellRecord) : undefined;
}

/**
 * Streams the complete lines of a cells file to `onCell`, in file order, with
 * flat memory. A last line without its newline (a torn write) is not passed on;
 * nor is any line that is not a whole cell record (the shape the reports'
 * reader checks), nor one longer than `maxLineBytes` (default
 * {@link MAX_CELL_LINE_BYTES}), which is skipped without being held: each
 * counts as `corrupt`. A missing file scans as empty.
 */
export async function scanCells(file: string, onCell: (cell: CellRecord) => void | Promise<void>, options: { maxLineBytes?: number } = {}): Promise<CellsScan> {
  const scan: CellsScan = { cells: 0, validBytes: 0, totalBytes: 0, corrupt: 0 };
  for await (const line of fileLines(file, { maxLineBytes: options.maxLineBytes ?? MAX_CELL_LINE_BYTES, missingIsEmpty: true })) {
    if (!line.complete) {
      scan.totalBytes += line.length;
      break;
    }
    scan.validBytes += line.length + 1;
    scan.totalBytes += line.length + 1;
    if (line.length === 0) continue;
    const cell = parseCell(line.bytes);
    if (!cell) {
      scan.corrupt++;
      continue;
    }
    scan.cells++;
    await onCell(cell);
  }
  return scan;
}

/** Cuts a torn last line off a cells file so appends start on a fresh line. */
export async function cutTornTail(file: string, scan: CellsScan): Promise<void> {
  if (scan.totalBytes > scan.validBytes) await truncate(file, scan.validBytes);
}

/**
 * `JSON.stringify(value)`: numbers and flags without a call per field (most
 * fields of a cell are), deeply frozen values through {@link jsonOf}, which
 * reuses their text (a variant's pinning table, the candidate list offered to
 * the model, the prompt messages the selector rendered).
 */
function valueJson(value: unknown): string | undefined {
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      // String(-0) is '0' too; a number that is not finite is written null.
      return Number.isFinite(value) ? String(value) : 'null';
    case 'string':
      return JSON.stringify(value);
    default:
      return jsonOf(value);
  }
}

/** The JSON texts of field names, with their colon: a cell's names are the same few dozen, line after line. */
const keyJson = new Map<string, string>();

function fieldName(key: string): string {
  let text = keyJson.get(key);
  if (text === undefined) {
    text = `${JSON.stringify(key)}:`;
    // Names come from the record's shape, but a bound keeps an odd record from growing the map.
    if (keyJson.size < 1024) keyJson.set(key, text);
  }
  return text;
}

/** `JSON.stringify` of a plain object, with each field's text made by `field` (same keys, same order, same omissions). */
function objectJson(value: object, field: (key: string, v: unknown) => string | undefined): string {
  let out = '';
  for (const key of Object.keys(value)) {
    const text = field(key, (value as Record<string, unknown>)[key]);
    // What JSON.stringify leaves out of an object: undefined, functions, symbols.
    if (text === undefined) continue;
    out += `${out === '' ? '{' : ','}${fieldName(key)}${text}`;
  }
  return out === '' ? '{}' : `${out}}`;
}

const isPlainObject = (v: unknown): v is object => v !== null && typeof v === 'object' && !Array.isArray(v) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';

function callsJson(calls: unknown): string | undefined {
  if (!Array.isArray(calls) || Object.isFrozen(calls) || !calls.every(isPlainObject)) return valueJson(calls);
  // Joined by concatenation, as objectJson does: the text is copied once, into the batch a write takes.
  let out = '[';
  for (let i = 0; i < calls.length; i++) out += `${i === 0 ? '' : ','}${objectJson(calls[i] as object, (_, v) => valueJson(v))}`;
  return `${out}]`;
}

function traceJson(trace: unknown): string | undefined {
  if (!isPlainObject(trace)) return valueJson(trace);
  return objectJson(trace, (key, v) => (key === 'calls' ? callsJson(v) : valueJson(v)));
}

/**
 * The line of a cell in `cells.jsonl`: exactly `JSON.stringify(cell)`, built
 * field by field so the parts cells share (deeply frozen, see {@link valueJson})
 * are serialized once per run instead of once per cell.
 */
export function cellLine(cell: CellRecord): string {
  if (!isPlainObject(cell)) return JSON.stringify(cell);
  return objectJson(cell, (key, v) => (key === 'trace' ? traceJson(v) : valueJson(v)));
}

/** Bytes a write takes at most (the writer's buffer grows past it only for a longer line). */
const CELL_WRITE_BYTES = 1 << 20;

/**
 * Appends cells to a cells file. Writes are serialized so lines never
 * interleave; cells that finish while a write is in flight go out together in
 * the next one (group commit), so many concurrent cells cost few system calls
 * while each still reaches the file as soon as the write before it is done.
 * Lines are whole within a write, so a kill can still tear only the last line.
 *
 * Lines are encoded straight into one buffer the writer keeps and reuses: the
 * text of a batch is never joined into one string first (a batch of long lines
 * would be a large, short-lived heap object each time), and the encoding gives
 * the byte count a short write is checked against.
 */
export class CellWriter {
  /** Serialized lines waiting for a write, without their newlines. */
  private pending: string[] = [];
  private waiters: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  private flushing: Promise<void> | undefined;
  private buffer = Buffer.allocUnsafeSlow(0);

  private constructor(private readonly handle: FileHandle) {}

  /** Opens `file` for appending (created when missing). */
  static async open(file: string): Promise<CellWriter> {
    return new CellWriter(await open(file, 'a'));
  }

  /**
   * Appends one cell; resolves when its line is written. `line`, when the
   * caller made it already, must be `cellLine(cell)`.
   */
  append(cell: CellRecord, line: string = cellLine(cell)): Promise<void> {
    // Serialized now, so a cell changed after this call is recorded as it was.
    return new Promise<void>((resolve, reject) => {
      this.pending.push(line);
      this.waiters.push({ resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  /**
   * Encodes `lines` from `from` into the buffer, each with its newline, until
   * the next would pass {@link CELL_WRITE_BYTES} (at least one goes in);
   * returns how many it took and the bytes they make.
   */
  private encode(lines: readonly string[], from: number): { taken: number; bytes: number } {
    let bytes = 0;
    let taken = 0;
    for (let i = from; i < lines.length; i++) {
      const line = lines[i]!;
      // UTF-8 takes at most 3 bytes per UTF-16 unit (a surrogate pair, 2 units, takes 4).
      const most = 3 * line.length + 1;
      if (taken > 0 && bytes + most > CELL_WRITE_BYTES) break;
      if (bytes + most > this.buffer.length) {
        const grown = Buffer.allocUnsafeSlow(Math.max(64 * 1024, 2 * this.buffer.length, bytes + most));
        this.buffer.copy(grown, 0, 0, bytes);
        this.buffer = grown;
      }
      bytes += this.buffer.write(line, bytes, 'utf8');
      this.buffer[bytes++] = 0x0a;
      taken++;
    }
    return { taken, bytes };
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      // This round writes the lines pending now; cells that finish during its writes wait for the next.
      const lines = this.pending;
      const waiters = this.waiters;
      this.pending = [];
      this.waiters = [];
      let done = 0;
      try {
        while (done < lines.length) {
          const { taken, bytes } = this.encode(lines, done);
          const { bytesWritten } = await this.handle.write(this.buffer, 0, bytes, null);
          if (bytesWritten !== bytes) throw new Error(`short write: ${bytesWritten} of ${bytes} bytes`);
          for (let i = done; i < done + taken; i++) waiters[i]!.resolve();
          done += taken;
        }
      } catch (error) {
        // The cells of a failed write (and the rest of its round) see the failure; later ones still get their own attempt.
        for (let i = done; i < lines.length; i++) waiters[i]!.reject(error);
      }
    }
    this.flushing = undefined;
  }

  /** Waits for pending writes and closes the file. */
  async close(): Promise<void> {
    while (this.flushing) await this.flushing;
    await this.handle.close();
  }
}

/** How old a lock written on another machine (a shared folder) must be before it counts as abandoned. */
const FOREIGN_RUN_LOCK_STALE_MS = 24 * 3600 * 1000;

/**
 * Takes the run directory's lock (core/fs/fileLock: complete when linked into
 * place, its holder named by pid, start time and boot id): one runner per
 * folder, so two processes never append the same cells. A lock whose holder is
 * gone is taken over; a live holder makes this fail at once with `conflict`.
 * Returns the release function.
 */
export async function lockRunDir(dir: string): Promise<() => Promise<void>> {
  await mkdir(dir, { recursive: true });
  const lock = new FileLock(dir, {
    timeoutMs: 0,
    foreignStaleMs: FOREIGN_RUN_LOCK_STALE_MS,
    timeoutError: (holder) =>
      new WorkbenchError(
        'conflict',
        `another evaluation${holder ? ` (pid ${holder.pid}${holder.host === hostname() ? '' : ` on ${holder.host}`}, since ${holder.at})` : ''} is writing to ${dir}; wait for it or use another --out folder`,
      ),
  });
  const held = await lock.acquire({ purpose: 'evaluation run' });
  if (held.abandoned) await lock.removeStaleCandidates();
  return async () => lock.release(held.token);
}
