/**
 * A small benchmark harness for `npm run bench`: each case is timed against a
 * baseline measured in the same run, interleaved, and reported as medians plus
 * the ratio case/baseline, so a slower or noisier machine moves both together.
 */
import { performance } from 'node:perf_hooks';

/** One row of the bench table. */
export interface BenchRow {
  suite: string;
  name: string;
  /** Median time of one operation in milliseconds (or a figure in `unit`). */
  medianMs: number;
  baselineName: string;
  baselineMs: number;
  /** The unit of `medianMs` and `baselineMs` when they are not milliseconds (a size row says "KB"). */
  unit?: string;
  /** medianMs / baselineMs. */
  ratio: number;
  /** The figure an issue asks for, in words (e.g. "< 2 ms", "ratio <= 4"). */
  target: string;
  /** Whether the target is met, when it can be judged from this row. */
  met?: boolean;
  /** Extra figures (throughput, round trips, memory). */
  note?: string;
}

/** Options of {@link compare}. */
export interface CompareOptions {
  /** Timed rounds; each round runs both functions `batch` times. */
  rounds?: number;
  /** Operations per round, to lift very short operations above timer resolution. */
  batch?: number;
  warmup?: number;
}

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Times `subject` and `baseline` alternately (A B A B ...) and returns the
 * median time per operation of each, in milliseconds.
 */
export async function compare(
  subject: () => unknown,
  baseline: () => unknown,
  options: CompareOptions = {},
): Promise<{ subjectMs: number; baselineMs: number }> {
  const rounds = options.rounds ?? 15;
  const batch = options.batch ?? 1;
  const warmup = options.warmup ?? 3;
  const run = async (fn: () => unknown): Promise<number> => {
    const start = performance.now();
    for (let i = 0; i < batch; i++) await fn();
    return (performance.now() - start) / batch;
  };
  for (let i = 0; i < warmup; i++) {
    await run(subject);
    await run(baseline);
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < rounds; i++) {
    a.push(await run(subject));
    b.push(await run(baseline));
  }
  return { subjectMs: median(a), baselineMs: median(b) };
}

function figure(value: number, unit: string | undefined): string {
  return unit === undefined ? value.toFixed(3) : `${value.toFixed(1)} ${unit}`;
}

/** Formats rows as a fixed-width table. */
export function formatTable(rows: BenchRow[]): string {
  const header = ['suite', 'case', 'median ms', 'baseline', 'baseline ms', 'ratio', 'target', 'met', 'note'];
  const body = rows.map((r) => [
    r.suite,
    r.name,
    figure(r.medianMs, r.unit),
    r.baselineName,
    figure(r.baselineMs, r.unit),
    r.ratio.toFixed(2),
    r.target,
    r.met === undefined ? '' : r.met ? 'yes' : 'NO',
    r.note ?? '',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
