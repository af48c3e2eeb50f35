/**
 * The optimizer's train / held-out split: stratified by expectation, seeded,
 * and independent of the order the cases are given in.
 */
import { WorkbenchError } from '../core/errors';
import type { Expectation } from './metrics';
import type { EvalCase } from './suite';

/** A case as the split records it. */
export interface SplitCase {
  id: string;
  request: string;
  expect: Expectation;
  source: EvalCase['source'];
}

/** The train / held-out split of a skill's cases. */
export interface CaseSplit {
  seed: number;
  /** Share of each stratum held out (as asked). */
  holdout: number;
  train: SplitCase[];
  heldout: SplitCase[];
}

/** mulberry32: a small, well-mixed 32-bit generator; the same seed gives the same split everywhere. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Splits cases into train and held-out sets, stratified by expectation:
 * each stratum is ordered by case id (content-derived, so reordering the
 * examples changes nothing), shuffled with the seed, and its first
 * `round(n · holdout)` cases are held out, keeping at least one case on each
 * side of a stratum of two or more. The same cases and seed give the same
 * split. Throws `invalid_request` when nothing can be held out.
 */
export function splitCases(cases: readonly EvalCase[], holdout: number, seed: number): CaseSplit {
  if (!(holdout > 0 && holdout < 1)) throw new WorkbenchError('invalid_request', `the held-out share must be between 0 and 1 (exclusive), got ${holdout}`);
  if (!Number.isSafeInteger(seed) || seed < 0 || seed > 0xffffffff) throw new WorkbenchError('invalid_request', `the seed must be an integer from 0 to 4294967295, got ${seed}`);
  const next = random(seed);
  const split: CaseSplit = { seed, holdout, train: [], heldout: [] };
  for (const expect of ['activate', 'not_activate'] as const) {
    const stratum = cases.filter((c) => c.expect === expect).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (let i = stratum.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [stratum[i], stratum[j]] = [stratum[j]!, stratum[i]!];
    }
    const n = stratum.length;
    const held = n < 2 ? 0 : Math.min(n - 1, Math.max(1, Math.round(n * holdout)));
    const view = (c: EvalCase): SplitCase => ({ id: c.id, request: c.request, expect: c.expect, source: c.source });
    split.heldout.push(...stratum.slice(0, held).map(view));
    split.train.push(...stratum.slice(held).map(view));
  }
  if (split.heldout.length === 0) {
    throw new WorkbenchError('invalid_request', `${cases.length} case${cases.length === 1 ? '' : 's'} cannot be split: hold-out needs at least two cases of one kind (should or should-not activate); add activation examples or extra cases`);
  }
  return split;
}
