/**
 * Progress of an evaluation run: counters kept as cells are recorded, and the
 * snapshot every reader sees (a terminal bar, the workbench, `--json`).
 *
 * Counting is a few integer increments per cell; the snapshot (rates, ETAs,
 * one column per model) is built only when someone asks for it, so a run
 * without a progress display pays nothing for it.
 */
import type { CellRecord } from './types';

/** One model's share of a run's progress: its column of the matrix. */
export interface ModelProgress {
  spec: string;
  /** Cells of this model recorded, including those found from an earlier attempt. */
  done: number;
  total: number;
  errors: number;
  /** Cells of this model run by this process. */
  executed: number;
  /** Cells per second of this model run by this process so far. */
  rate: number;
  /** Estimated milliseconds until this model's cells are recorded: 0 when done, null while unknown or once stopped. */
  etaMs: number | null;
  /**
   * `complete`: every cell recorded; `stopped`: its cells were stopped before
   * they were all recorded (never shown as complete); `running` otherwise.
   */
  status: 'running' | 'stopped' | 'complete';
}

/** Progress of a run. */
export interface RunProgress {
  /** Cells recorded, including those found from an earlier attempt. */
  done: number;
  total: number;
  /** Error cells among `done`. */
  errors: number;
  /** Cells run by this process. */
  executed: number;
  /** Cells found from an earlier attempt. */
  resumed: number;
  /** Milliseconds since this process started the run. */
  elapsedMs: number;
  /** Cells per second run by this process so far (0 before the first finishes). */
  rate: number;
  /**
   * Estimated milliseconds until every cell still scheduled is recorded at
   * that rate (a stopped model's missing cells are not scheduled): 0 when
   * nothing is left, null while there is no rate yet.
   */
  etaMs: number | null;
  /** Each model's column, in the order of the models given. */
  models: ModelProgress[];
}

interface Column {
  done: number;
  errors: number;
  executed: number;
}

/**
 * The counters of one run. Rate and ETA are computed here, once, so every
 * reader shows the same numbers.
 */
export class ProgressTracker {
  private readonly counts = { done: 0, errors: 0, executed: 0, resumed: 0 };
  private readonly columns: Column[];
  private started = performance.now();

  /**
   * @param specs the models, in matrix order
   * @param perModel cells per model (repeats × units)
   * @param stopped whether model `m` gets no new cells (the run's or its own stop)
   */
  constructor(
    private readonly specs: readonly string[],
    private readonly perModel: number,
    private readonly stopped: (m: number) => boolean,
  ) {
    this.columns = specs.map(() => ({ done: 0, errors: 0, executed: 0 }));
  }

  /** Cells in the whole matrix. */
  get total(): number {
    return this.perModel * this.specs.length;
  }

  /** Cells recorded so far, resumed ones included. */
  get done(): number {
    return this.counts.done;
  }

  /** Restarts the clock: rates count from the first cell this process schedules, not from the resume scan. */
  restartClock(): void {
    this.started = performance.now();
  }

  /** Counts a recorded cell of model `m`; `resumed` when it was found from an earlier attempt. */
  count(m: number, cell: Pick<CellRecord, 'outcome'>, resumed: boolean): void {
    const column = this.columns[m]!;
    this.counts.done++;
    column.done++;
    if (resumed) this.counts.resumed++;
    else {
      this.counts.executed++;
      column.executed++;
    }
    if (cell.outcome === 'error') {
      this.counts.errors++;
      column.errors++;
    }
  }

  /** The progress now. */
  snapshot(): RunProgress {
    const elapsedMs = performance.now() - this.started;
    const perSecond = (n: number) => (elapsedMs > 0 ? n / (elapsedMs / 1000) : 0);
    const rate = perSecond(this.counts.executed);
    let scheduled = 0;
    const models = this.columns.map((c, m): ModelProgress => {
      const left = this.perModel - c.done;
      const stopped = left > 0 && this.stopped(m);
      if (!stopped) scheduled += left;
      const modelRate = perSecond(c.executed);
      const etaMs = left === 0 ? 0 : stopped ? null : modelRate > 0 ? (left / modelRate) * 1000 : null;
      return { spec: this.specs[m]!, done: c.done, total: this.perModel, errors: c.errors, executed: c.executed, rate: modelRate, etaMs, status: left === 0 ? 'complete' : stopped ? 'stopped' : 'running' };
    });
    const etaMs = scheduled === 0 ? 0 : rate > 0 ? (scheduled / rate) * 1000 : null;
    return { done: this.counts.done, total: this.total, errors: this.counts.errors, executed: this.counts.executed, resumed: this.counts.resumed, elapsedMs, rate, etaMs, models };
  }
}
