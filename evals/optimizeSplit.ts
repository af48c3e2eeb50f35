/**
 * The optimizer's train / held-out split: stratified by expectation, seeded,
 * and independent of the order the cases are given in; and what a split can
 * prove at best ({@link heldoutPower}), known before any model is called.
 */
import { WorkbenchError } from '../core/errors';
import type { CaseSplit, SplitCase } from '../core/report/optimizeResults';
import type { EvalCase } from './suite';

// The split is part of the optimizer's report, declared in core.
export type { CaseSplit, SplitCase } from '../core/report/optimizeResults';

/**
 * Cases a stratum of `n` holds out at share `holdout`: `round(n · holdout)`,
 * keeping at least one case on each side of a stratum of two or more.
 */
export function heldOut(n: number, holdout: number): number {
  return n < 2 ? 0 : Math.min(n - 1, Math.max(1, Math.round(n * holdout)));
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
    const held = heldOut(stratum.length, holdout);
    const view = (c: EvalCase): SplitCase => ({ id: c.id, request: c.request, expect: c.expect, source: c.source });
    split.heldout.push(...stratum.slice(0, held).map(view));
    split.train.push(...stratum.slice(held).map(view));
  }
  if (split.heldout.length === 0) {
    throw new WorkbenchError('invalid_request', `${cases.length} case${cases.length === 1 ? '' : 's'} cannot be split: hold-out needs at least two cases of one kind (should or should-not activate); add activation examples or extra cases`);
  }
  return split;
}

/**
 * The smallest p-value McNemar's exact two-sided test can give on `n` held-out
 * cases: every case paired, and every one won by the same side (2 · 0.5ⁿ).
 */
export function bestMcNemarP(n: number): number {
  return n <= 0 ? 1 : Math.min(1, 2 ** (1 - n));
}

/** What a split can prove at best, and what it would take to prove more. */
export interface HeldoutPower {
  /** Cases the split holds out. */
  heldout: number;
  /** The smallest McNemar p they can reach ({@link bestMcNemarP}). */
  best_p: number;
  alpha: number;
  /** Held-out cases needed before a gain can reach p < alpha. */
  needed: number;
  /** True when the split holds out at least `needed` cases. */
  enough: boolean;
  /** When not enough: the fewest cases to add, split between the two kinds as evenly as that allows. */
  add?: { activate: number; not_activate: number };
  /** When not enough: the smallest held-out share (in steps of 0.05) that would be enough with the cases as they are, if any. */
  holdout?: number;
}

/** Cases per kind: should activate, should not. */
export interface CaseCounts {
  activate: number;
  not_activate: number;
}

/** Bound of the search for cases to add; no held-out share above 0 needs nearly this many. */
const MAX_ADDED = 100_000;

/**
 * What the split of `counts` at `holdout` can prove at significance `alpha`,
 * before any model is called: with `n` held-out cases no comparison can reach
 * a p below {@link bestMcNemarP}(n), so a run whose split holds out fewer
 * than `needed` cases cannot end in a proven gain whatever the candidates.
 */
export function heldoutPower(counts: CaseCounts, holdout: number, alpha: number): HeldoutPower {
  let needed = 1;
  while (bestMcNemarP(needed) >= alpha) needed++;
  const held = (a: number, b: number) => heldOut(a, holdout) + heldOut(b, holdout);
  const heldout = held(counts.activate, counts.not_activate);
  const power: HeldoutPower = { heldout, best_p: bestMcNemarP(heldout), alpha, needed, enough: heldout >= needed };
  if (power.enough) return power;
  // The fewest added cases first; among those, the most even kinds.
  for (let total = 1; total <= MAX_ADDED; total++) {
    let best: CaseCounts | undefined;
    for (let a = 0; a <= total; a++) {
      const b = total - a;
      if (held(counts.activate + a, counts.not_activate + b) < needed) continue;
      const gap = (x: CaseCounts) => Math.abs(counts.activate + x.activate - (counts.not_activate + x.not_activate));
      if (best === undefined || gap({ activate: a, not_activate: b }) < gap(best)) best = { activate: a, not_activate: b };
    }
    if (best) {
      power.add = best;
      break;
    }
  }
  for (let steps = Math.floor(holdout * 20) + 1; steps < 20; steps++) {
    if (heldOut(counts.activate, steps / 20) + heldOut(counts.not_activate, steps / 20) >= needed) {
      power.holdout = steps / 20;
      break;
    }
  }
  return power;
}
