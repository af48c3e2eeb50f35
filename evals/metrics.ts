/**
 * Activation metrics of an evaluation: confusion counts, accuracy, precision,
 * recall and F1 per model and skill, trigger rates and flaky cases, latency
 * percentiles, and the exact McNemar test for paired comparisons.
 *
 * Errors (transport failures, timeouts) and unusable answers (the selector's
 * strict decoding or revalidation rejected them) are their own outcomes: they
 * are counted apart and in no rate, never folded into "not activated", so a
 * flaky endpoint cannot masquerade as a precise skill and a model whose
 * answers the runtime cannot use earns no free true negatives.
 */
import type { CellOutcome, Confusion, Expectation, McNemarResult, Rates, TriggerRate } from '../core/report/evalResults';

// The shapes a summary records live with the rest of the run's results in core.
export type { CellOutcome, Confusion, Expectation, McNemarResult, Rates, TriggerRate } from '../core/report/evalResults';

/** The minimal view of one evaluated cell the metrics need. */
export interface ScoredCell {
  expected: Expectation;
  outcome: CellOutcome;
  /** The selector had to reject the model's answer: an unusable answer, its own outcome whatever `outcome` says the runtime did. */
  invalid?: boolean;
}

/** What a cell counts as: a usable answer's verdict, an unusable answer, or an error. */
export type ScoredOutcome = 'tp' | 'fp' | 'tn' | 'fn' | 'invalid' | 'errors';

/** The one rule that files a cell under a count (every aggregation and recount uses it). */
export function scoredOutcome(cell: ScoredCell): ScoredOutcome {
  if (cell.outcome === 'error') return 'errors';
  if (cell.invalid) return 'invalid';
  const activated = cell.outcome === 'activated';
  if (cell.expected === 'activate') return activated ? 'tp' : 'fn';
  return activated ? 'fp' : 'tn';
}

/** Counts the confusion matrix of `cells`. */
export function confusion(cells: Iterable<ScoredCell>): Confusion {
  const c: Confusion = { tp: 0, fp: 0, tn: 0, fn: 0, errors: 0, invalid: 0 };
  for (const cell of cells) addToConfusion(c, cell);
  return c;
}

/** Adds one cell to a running confusion (for streaming aggregation). */
export function addToConfusion(c: Confusion, cell: ScoredCell): void {
  c[scoredOutcome(cell)]++;
}

function ratio(numerator: number, denominator: number): number | null {
  return denominator === 0 ? null : numerator / denominator;
}

/**
 * Accuracy, precision, recall and F1 of a confusion matrix. F1 is null when
 * precision or recall is (it is their harmonic mean: undefined where either
 * is), and 0 when both are 0.
 */
export function rates(c: Confusion): Rates {
  const precision = ratio(c.tp, c.tp + c.fp);
  const recall = ratio(c.tp, c.tp + c.fn);
  const f1 = precision === null || recall === null ? null : precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { accuracy: ratio(c.tp + c.tn, c.tp + c.tn + c.fp + c.fn), precision, recall, f1 };
}

/** The trigger rate of one case's repeats. */
export function triggerRate(outcomes: Iterable<CellOutcome>): TriggerRate {
  let k = 0;
  let n = 0;
  let errors = 0;
  for (const o of outcomes) {
    if (o === 'error') errors++;
    else {
      n++;
      if (o === 'activated') k++;
    }
  }
  return { k, n, errors, flaky: k > 0 && k < n };
}

/**
 * Nearest-rank percentile (p in (0, 100]) of `values`; null when empty.
 * Nearest-rank always returns an observed value, so a reported p95 latency is
 * the latency of a real call.
 */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100], got ${p}`);
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/**
 * log of n choose k, by summing logs: exact enough for the p-values of any
 * evaluation size and never overflows, unlike factorials.
 */
function logChoose(n: number, k: number): number {
  let s = 0;
  const m = Math.min(k, n - k);
  for (let i = 1; i <= m; i++) s += Math.log(n - m + i) - Math.log(i);
  return s;
}

/**
 * Exact two-sided McNemar test of paired correctness: `pairs` holds, for each
 * shared (case, repeat), whether A and B were correct. With b = A-only and
 * c = B-only, p = min(1, 2 · P[X ≤ min(b, c)]) for X ~ Binomial(b + c, 1/2).
 */
export function mcnemarExact(pairs: Iterable<{ a: boolean; b: boolean }>, alpha = 0.05): McNemarResult {
  let aOnly = 0;
  let bOnly = 0;
  let concordant = 0;
  for (const pair of pairs) {
    if (pair.a && !pair.b) aOnly++;
    else if (!pair.a && pair.b) bOnly++;
    else concordant++;
  }
  const n = aOnly + bOnly;
  let pValue = 1;
  if (n > 0) {
    const k = Math.min(aOnly, bOnly);
    let tail = 0;
    const log2n = n * Math.LN2;
    for (let i = 0; i <= k; i++) tail += Math.exp(logChoose(n, i) - log2n);
    pValue = Math.min(1, 2 * tail);
  }
  return { aOnly, bOnly, concordant, pValue, significant: pValue < alpha, alpha };
}
