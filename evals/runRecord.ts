/**
 * Recording and resume of an evaluation run in its directory: the header that
 * binds the folder to one configuration, and the recorded cells read back so a
 * rerun runs only the missing ones. The file formats are in `runFiles.ts`.
 */
import { WorkbenchError } from '../core/errors';
import { CellWriter, cutTornTail, readHeader, scanCells, writeHeader } from './runFiles';
import type { CellRecord, RunHeader } from './types';

/**
 * The header of the run in `runDir`: the recorded one when its configuration
 * hash is `hash`, else a new one (`create()`) written now. Throws `conflict`
 * when the folder holds another configuration's run.
 */
export async function openRunHeader(runDir: string, hash: string, create: () => RunHeader): Promise<RunHeader> {
  const recorded = await readHeader(runDir);
  if (recorded && recorded.config_hash !== hash) {
    throw new WorkbenchError('conflict', `${runDir} holds the run of another configuration (config ${recorded.config_hash}, this one is ${hash}); use another --out folder`);
  }
  if (recorded) return recorded;
  const header = create();
  await writeHeader(runDir, header);
  return header;
}

/** What {@link resumeCells} found and opened. */
export interface ResumedCells {
  /** Appends the cells this process runs; the caller closes it. */
  writer: CellWriter;
  /** A torn last line (a kill mid-write) was cut off. */
  tornLine: boolean;
}

/**
 * Reads back the cells recorded in `cellsFile` by an earlier attempt, passes
 * each cell of this matrix to `onResumed` once (`locate` gives its index, or
 * undefined for a cell of no current slot; a second record of one slot is
 * ignored), cuts a torn last line, and opens the file for appending.
 */
export async function resumeCells(
  cellsFile: string,
  done: Uint8Array,
  locate: (cell: CellRecord) => number | undefined,
  onResumed: (cell: CellRecord) => void,
): Promise<ResumedCells> {
  const scan = await scanCells(cellsFile, (cell) => {
    const index = locate(cell);
    if (index === undefined || done[index]) return;
    done[index] = 1;
    onResumed(cell);
  });
  await cutTornTail(cellsFile, scan);
  const writer = await CellWriter.open(cellsFile);
  return { writer, tornLine: scan.totalBytes > scan.validBytes };
}
