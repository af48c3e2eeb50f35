/**
 * The optimizer's held-out phase: the train winner scored once on the
 * held-out cases beside the original, compared with it case by case on every
 * model, and the verdict drawn from those comparisons ({@link judge}).
 */
import type { HeldoutModel, OptimizeReport } from './optimizeReport';
import { ORIGINAL, variantScores } from './optimizeRounds';
import type { EvalVariantPlan, RunResult } from './runner';

/** The label of the winner in the held-out run (the runner compares `draft` against the other variants). */
const WINNER = 'draft';

/** What the held-out phase works with. */
export interface HeldoutSetup {
  winner: EvalVariantPlan;
  original: EvalVariantPlan;
  alpha: number;
  /** Runs `variants` on the held-out cases (one eval run). */
  evaluate: (variants: EvalVariantPlan[]) => Promise<RunResult>;
}

/** What the held-out phase found. */
export interface HeldoutResult {
  models: HeldoutModel[];
  verdict: OptimizeReport['verdict'];
  reason: string;
}

/** Scores the winner beside the original on the held-out cases and judges the comparison. */
export async function runHeldout(setup: HeldoutSetup): Promise<HeldoutResult> {
  const { alpha } = setup;
  const run = await setup.evaluate([{ ...setup.winner, info: { ...setup.winner.info, label: WINNER } }, setup.original]);
  const winnerScores = variantScores(run, WINNER);
  const originalScores = variantScores(run, ORIGINAL);
  const models: HeldoutModel[] = run.summary.models.map((m, i) => {
    const comparison = run.summary.comparisons.find((c) => c.kind === 'variant' && c.model === m.model && c.a === WINNER && c.b === ORIGINAL)!;
    const { aOnly, bOnly } = comparison.test;
    const test = { ...comparison.test, alpha, significant: comparison.test.pValue < alpha };
    return { model: m.model, winner: winnerScores[i]!, original: originalScores[i]!, comparison: { ...comparison, test }, better: aOnly > bOnly && test.significant, worse: bOnly > aOnly };
  });
  return { models, ...judge(models, alpha) };
}

/**
 * The held-out verdict: `proven_gain` only when no model is worse (the
 * original right on more disagreeing cases), every model answered paired
 * cases, and at least one model is better with p < alpha.
 */
export function judge(heldout: readonly HeldoutModel[], alpha: number): { verdict: OptimizeReport['verdict']; reason: string } {
  const unpaired = heldout.filter((h) => h.comparison.pairs === 0);
  if (unpaired.length > 0) return { verdict: 'no_proven_gain', reason: `no proven gain: ${unpaired.map((h) => h.model).join(', ')} decided no held-out case on both sides, so nothing can be compared` };
  const worse = heldout.filter((h) => h.worse);
  if (worse.length > 0) {
    return {
      verdict: 'no_proven_gain',
      reason: `no proven gain: on the held-out cases the winner is worse than the original on ${worse.map((h) => `${h.model} (right on ${h.comparison.test.aOnly} case${h.comparison.test.aOnly === 1 ? '' : 's'} the original missed, wrong on ${h.comparison.test.bOnly} it got right)`).join(', ')}`,
    };
  }
  const better = heldout.filter((h) => h.better);
  if (better.length === 0) {
    const bestP = Math.min(...heldout.map((h) => h.comparison.test.pValue));
    return { verdict: 'no_proven_gain', reason: `no proven gain: the winner is not worse on any model, but no model shows a significant held-out gain (smallest McNemar p = ${bestP.toPrecision(3)}, alpha ${alpha}, ${heldout[0]?.comparison.pairs ?? 0} paired cases)` };
  }
  return { verdict: 'proven_gain', reason: `proven gain: not worse on any model and significantly better on ${better.map((h) => `${h.model} (p = ${h.comparison.test.pValue.toPrecision(3)})`).join(', ')}` };
}
