/**
 * Confidence intervals of activation rates, and of the differences between
 * two sides of a paired comparison, by a case bootstrap.
 *
 * Repeats of one request are not independent observations (see paired.ts), so
 * the bootstrap resamples cases, never cells: a resample draws as many cases
 * as there are, with replacement, each bringing every answered repeat it has.
 * The rates of a resample are computed exactly as the summary computes them
 * (`rates` of evals/metrics.ts over the summed counts), and the interval is
 * the percentile interval of the resamples (nearest rank). For a comparison
 * both sides are resampled together, case by case, so the interval of a
 * difference keeps the pairing.
 *
 * Deterministic: the generator (mulberry32) is seeded from the identity of
 * what is measured (FNV-1a of a label), so a run gives the same intervals on
 * every machine and every read. An outside recount with another generator
 * gets intervals that agree to within bootstrap noise, not digit for digit.
 *
 * An interval is null when its rate is null, when fewer than
 * {@link MIN_CASES} cases were answered, or when fewer than 90 % of the
 * resamples define the rate (a precision with almost no activations).
 */
import type { Interval, RateDeltas, RateIntervals } from '../core/report/evalResults';
import { rates, type Confusion } from './metrics';

// The shapes a summary records live with the rest of the run's results in core.
export type { Interval, RateDelta, RateDeltas, RateIntervals } from '../core/report/evalResults';

/** Resamples per interval. */
export const RESAMPLES = 2000;
/** Coverage of every interval. */
export const LEVEL = 0.95;
/** Fewer answered cases than this give no interval: a bootstrap of two or three cases only restates them. */
export const MIN_CASES = 5;

/** The answered repeats of one case, as confusion counts. */
export interface CaseCounts {
  tp: number;
  fp: number;
  tn: number;
  fn: number;
}

type RateName = 'accuracy' | 'precision' | 'recall' | 'f1';

/** The counts of a case from its trigger rate: `k` activations among `n` answered repeats. */
export function caseCounts(expect: 'activate' | 'not_activate', k: number, n: number): CaseCounts {
  return expect === 'activate' ? { tp: k, fn: n - k, fp: 0, tn: 0 } : { tp: 0, fn: 0, fp: k, tn: n - k };
}

/** FNV-1a (32 bit) of a label: the seed of its intervals. */
export function seedOf(label: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < label.length; i++) {
    h ^= label.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * Cases that bring the same counts, as groups: a resample then counts how many
 * times each group was drawn instead of adding four columns per draw, and sums
 * the groups once. The totals are the same integers, so the rates are too.
 * `key` names the counts a case brings (for a comparison, both sides').
 */
function groupsOf<T>(cases: readonly T[], key: (c: T) => string): { groupOf: Int32Array; members: T[] } {
  const index = new Map<string, number>();
  const members: T[] = [];
  const groupOf = new Int32Array(cases.length);
  cases.forEach((c, i) => {
    const k = key(c);
    let g = index.get(k);
    if (g === undefined) {
      g = members.length;
      index.set(k, g);
      members.push(c);
    }
    groupOf[i] = g;
  });
  return { groupOf, members };
}

const countsKey = (c: CaseCounts) => `${c.tp},${c.fp},${c.tn},${c.fn}`;

/**
 * Draws `resamples` resamples of the cases with replacement and passes each
 * one's draws per group to `take` (the same array, refilled). The draws come
 * from mulberry32 seeded with `seed`, a small, fast, well-mixed 32-bit
 * generator, in the order every earlier version drew them: case index
 * `floor(u * n)` for each of the n draws of a resample, resample after resample.
 */
function resample(groupOf: Int32Array, groups: number, seed: number, resamples: number, take: (hits: Int32Array) => void): void {
  const n = groupOf.length;
  const hits = new Int32Array(groups);
  // The state is kept as a signed 32-bit integer: an unsigned one above 2^31 would be boxed as a
  // heap number on every step (millions per run). The bits, and so the sequence, are the same.
  // The generator is written out in the loop: it runs n times per resample, millions of times per run.
  let a = seed | 0;
  for (let b = 0; b < resamples; b++) {
    hits.fill(0);
    for (let i = 0; i < n; i++) {
      a = (a + 0x6d2b79f5) | 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      hits[groupOf[Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n)]!]!++;
    }
    take(hits);
  }
}

function confusion(counts: CaseCounts): Confusion {
  return { ...counts, errors: 0, invalid: 0 };
}

function sum(cases: readonly CaseCounts[]): CaseCounts {
  const total = { tp: 0, fp: 0, tn: 0, fn: 0 };
  for (const c of cases) {
    total.tp += c.tp;
    total.fp += c.fp;
    total.tn += c.tn;
    total.fn += c.fn;
  }
  return total;
}

/** Nearest-rank percentile interval of `values` (sorted in place); null when too few resamples define it. */
function percentileInterval(values: number[], resamples: number, level: number): Interval | null {
  if (values.length < 0.9 * resamples) return null;
  values.sort((x, y) => x - y);
  const tail = (1 - level) / 2;
  const at = (p: number) => values[Math.min(values.length, Math.max(1, Math.ceil(p * values.length))) - 1]!;
  return { low: at(tail), high: at(1 - tail) };
}

/** The totals of a resample: each group's counts times the draws that fell on it. */
function drawnTotals(members: readonly CaseCounts[], hits: Int32Array): Confusion {
  let tp = 0, fp = 0, tn = 0, fn = 0;
  for (let g = 0; g < members.length; g++) {
    const k = hits[g]!;
    if (k === 0) continue;
    const c = members[g]!;
    tp += k * c.tp;
    fp += k * c.fp;
    tn += k * c.tn;
    fn += k * c.fn;
  }
  return { tp, fp, tn, fn, errors: 0, invalid: 0 };
}

const answered = (c: CaseCounts) => c.tp + c.fp + c.tn + c.fn > 0;

/**
 * Intervals of accuracy, precision, recall and F1 over `cases` (the answered
 * repeats of each case of one skill row). `label` names the row and seeds
 * the generator.
 */
export function rateIntervals(cases: readonly CaseCounts[], label: string, options: { resamples?: number; level?: number } = {}): RateIntervals {
  const resamples = options.resamples ?? RESAMPLES;
  const level = options.level ?? LEVEL;
  const used = cases.filter(answered);
  const result: RateIntervals = { method: 'case bootstrap', level, resamples, accuracy: null, precision: null, recall: null, f1: null };
  if (used.length < MIN_CASES) return result;
  const point = rates(confusion(sum(used)));
  const names: RateName[] = ['accuracy', 'precision', 'recall', 'f1'];
  const samples: Record<RateName, number[]> = { accuracy: [], precision: [], recall: [], f1: [] };
  const { groupOf, members } = groupsOf(used, countsKey);
  resample(groupOf, members.length, seedOf(label), resamples, (hits) => {
    const r = rates(drawnTotals(members, hits));
    for (const name of names) if (r[name] !== null) samples[name].push(r[name]);
  });
  for (const name of names) if (point[name] !== null) result[name] = percentileInterval(samples[name], resamples, level);
  return result;
}

/**
 * Differences `a − b` of accuracy, precision and recall between two sides
 * measured on the same cases (`pairs[i]` holds case i on each side), with
 * intervals from resampling the cases jointly. `label` names the comparison
 * and seeds the generator.
 */
export function rateDeltas(pairs: readonly { a: CaseCounts; b: CaseCounts }[], label: string, options: { resamples?: number; level?: number } = {}): RateDeltas {
  const resamples = options.resamples ?? RESAMPLES;
  const level = options.level ?? LEVEL;
  const names = ['accuracy', 'precision', 'recall'] as const;
  const pointA = rates(confusion(sum(pairs.map((p) => p.a))));
  const pointB = rates(confusion(sum(pairs.map((p) => p.b))));
  const delta = (name: (typeof names)[number]): number | null => (pointA[name] === null || pointB[name] === null ? null : pointA[name] - pointB[name]);
  const result: RateDeltas = {
    method: 'case bootstrap',
    level,
    resamples,
    accuracy: { value: delta('accuracy'), interval: null },
    precision: { value: delta('precision'), interval: null },
    recall: { value: delta('recall'), interval: null },
  };
  // A case answered on one side only counts on that side, as it does in the rows' rates, so the
  // resampled differences centre on the rows' difference; the draw of cases is shared, so the pairing holds.
  const used = pairs.filter((p) => answered(p.a) || answered(p.b));
  if (used.filter((p) => answered(p.a)).length < MIN_CASES || used.filter((p) => answered(p.b)).length < MIN_CASES) return result;
  const samples: Record<(typeof names)[number], number[]> = { accuracy: [], precision: [], recall: [] };
  const { groupOf, members } = groupsOf(used, (p) => `${countsKey(p.a)}|${countsKey(p.b)}`);
  const sides = { a: members.map((p) => p.a), b: members.map((p) => p.b) };
  resample(groupOf, members.length, seedOf(label), resamples, (hits) => {
    const ra = rates(drawnTotals(sides.a, hits));
    const rb = rates(drawnTotals(sides.b, hits));
    for (const name of names) {
      const x = ra[name];
      const y = rb[name];
      if (x !== null && y !== null) samples[name].push(x - y);
    }
  });
  for (const name of names) if (result[name].value !== null) result[name].interval = percentileInterval(samples[name], resamples, level);
  return result;
}
