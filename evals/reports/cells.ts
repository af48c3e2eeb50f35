/**
 * Streaming reader of a run's `cells.jsonl`: one {@link CellRecord} per line,
 * read in chunks so a run of any size is read in constant memory.
 *
 * A runner appends one line per finished cell; a crash or kill can leave the
 * last line incomplete. That torn last line is skipped (and reported through
 * `onTornLine`), because the cell it held is simply not finished yet. A bad
 * line anywhere else is corruption and fails with its line number.
 */
import { WorkbenchError } from '../../core/errors';
import type { CellRecord } from '../types';
import { fileLines } from '../jsonLines';

/** Options of {@link readCells}. */
export interface ReadCellsOptions {
  /** Called once when the last line is incomplete and was skipped. */
  onTornLine?: (info: { line: number; bytes: number }) => void;
  /** Longest accepted line in bytes (default 256 MiB): a guard against a file that is not JSON Lines. */
  maxLineBytes?: number;
}

/** The longest line a cells file may hold (a guard against a file that is not JSON Lines): 256 MiB. */
export const MAX_CELL_LINE_BYTES = 256 * 1024 * 1024;

const OUTCOMES = new Set(['activated', 'not_activated', 'error']);
const EXPECTS = new Set(['activate', 'not_activate']);

/** Why `value` is not a cell record, or null when it is one. */
export function cellShapeProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'a cell record is a JSON object';
  const c = value as Record<string, unknown>;
  for (const field of ['key', 'model', 'variant', 'case', 'skill'] as const) {
    if (typeof c[field] !== 'string') return `"${field}" must be a string`;
  }
  if (typeof c.repeat !== 'number' || !Number.isInteger(c.repeat)) return '"repeat" must be an integer';
  if (typeof c.expect !== 'string' || !EXPECTS.has(c.expect)) return '"expect" must be "activate" or "not_activate"';
  if (typeof c.outcome !== 'string' || !OUTCOMES.has(c.outcome)) return '"outcome" must be "activated", "not_activated" or "error"';
  if (!Array.isArray(c.activated) || !c.activated.every((s) => typeof s === 'string')) return '"activated" must be an array of strings';
  if (typeof c.latency_ms !== 'number' || !Number.isFinite(c.latency_ms)) return '"latency_ms" must be a number';
  if (c.trace !== undefined && (typeof c.trace !== 'object' || c.trace === null)) return '"trace" must be an object';
  return null;
}

/**
 * Reads the cell records of `cellsFile` one at a time, in file order. Blank
 * lines are ignored. Throws `WorkbenchError` `not_found` for a missing file and
 * `invalid_request` with `file:line` for a line that is not a cell record
 * (other than a torn last line).
 */
export async function* readCells(cellsFile: string, options: ReadCellsOptions = {}): AsyncGenerator<CellRecord> {
  const maxLineBytes = options.maxLineBytes ?? MAX_CELL_LINE_BYTES;
  const parse = (bytes: Buffer, last: boolean, lineNo: number): CellRecord | null => {
    const text = bytes.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return null;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      if (last) {
        options.onTornLine?.({ line: lineNo, bytes: bytes.length });
        return null;
      }
      throw new WorkbenchError('invalid_request', `${cellsFile}:${lineNo}: not a JSON cell record (${(error as Error).message})`, {
        details: { file: cellsFile, line: lineNo },
      });
    }
    const problem = cellShapeProblem(value);
    if (problem) {
      throw new WorkbenchError('invalid_request', `${cellsFile}:${lineNo}: not a cell record: ${problem}`, { details: { file: cellsFile, line: lineNo } });
    }
    return value as CellRecord;
  };

  const tooLong = (line: number) =>
    new WorkbenchError('invalid_request', `${cellsFile}:${line}: line longer than ${maxLineBytes} bytes; is this a cells.jsonl file?`, { details: { file: cellsFile, line } });
  try {
    for await (const line of fileLines(cellsFile, { maxLineBytes, tooLong })) {
      // With `tooLong`, every line comes with its bytes.
      const cell = parse(line.bytes!, !line.complete, line.number);
      if (cell) yield cell;
    }
  } catch (error) {
    if (error instanceof WorkbenchError) throw error;
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT') throw new WorkbenchError('not_found', `cells file not found: ${cellsFile}`, { cause: error });
    if (code === 'EISDIR') throw new WorkbenchError('invalid_request', `${cellsFile} is a directory, not a cells.jsonl file`, { cause: error });
    throw new WorkbenchError('unavailable', `could not read ${cellsFile}: ${(error as Error).message}`, { cause: error });
  }
}
