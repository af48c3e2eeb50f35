/**
 * The optimizer's held-out phase: the train winner scored once on the
 * held-out cases beside the original, compared with it on every model twice
 * over, and the verdict drawn from those comparisons ({@link judge}):
 *
 * - by case: each side's majority over its answered repeats, McNemar's exact
 *   test over the paired cases, exactly as `eval` compares two variants;
 * - by answer ({@link answerChange}): each case's share of right answers and,
 *   on should-not cases, of false activations. The majority vote hides a
 *   should-not case that now fires on 1 of 3 repeats; these rates do not.
 *
 * "Not worse on any model" has to hold both ways.
 */
import type { CaseTriggerDifference } from './paired';
import type { AnswerChange, HeldoutModel, OptimizeReport } from './optimizeReport';
import { ORIGINAL, variantScores } from './optimizeRounds';
import type { EvalVariantPlan, RunResult } from './runner';
import { signedRank } from './signedRank';

/** The label of the winner in the held-out run (the runner compares `draft` against the other variants). */
const WINNER = 'draft';

/** What the held-out phase works with. */
export interface HeldoutSetup {
  winner: EvalVariantPlan;
  original: EvalVariantPlan;
  alpha: number;
  /** See {@link OptimizeReport.harm_margin}. */
  harmMargin: number;
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
  const { alpha, harmMargin } = setup;
  const run = await setup.evaluate([{ ...setup.winner, info: { ...setup.winner.info, label: WINNER } }, setup.original]);
  const winnerScores = variantScores(run, WINNER);
  const originalScores = variantScores(run, ORIGINAL);
  const models = run.summary.models.map((m, i) => {
    const comparison = run.summary.comparisons.find((c) => c.kind === 'variant' && c.model === m.model && c.a === WINNER && c.b === ORIGINAL)!;
    return heldoutModel({ model: m.model, winner: winnerScores[i]!, original: originalScores[i]!, comparison }, alpha, harmMargin);
  });
  return { models, ...judge(models, alpha) };
}

/**
 * One model's held-out comparison judged both ways: `better` and `worse` by
 * case (McNemar at `alpha`), and `worse` also when the winner harms its
 * answers ({@link answerChange}).
 */
export function heldoutModel(input: Pick<HeldoutModel, 'model' | 'winner' | 'original' | 'comparison'>, alpha: number, harmMargin: number): HeldoutModel {
  const { aOnly, bOnly } = input.comparison.test;
  const test = { ...input.comparison.test, alpha, significant: input.comparison.test.pValue < alpha };
  const answers = answerChange(input.comparison.cases, alpha, harmMargin);
  return { ...input, comparison: { ...input.comparison, test }, better: aOnly > bOnly && test.significant, worse: bOnly > aOnly || answers.harm.length > 0, answers };
}

/** Rates are compared to the margin with this slack, so a rise of exactly the margin is within it whatever the rounding. */
const RATE_EPSILON = 1e-9;

const mean = (xs: readonly number[]) => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);
const fixed = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));

/**
 * The winner's effect on one model's answers (`rate_a` the winner's, `rate_b`
 * the original's share of answers that activated the skill on each case).
 * It is harm when, over the cases both sides answered, the winner
 * - raises the mean false-activation rate of the should-not cases by more than `margin`,
 * - lowers the mean share of right answers by more than `margin`, or
 * - is worse by the one-sided signed-rank test of the per-case differences in right answers (p < alpha).
 */
export function answerChange(cases: readonly CaseTriggerDifference[], alpha: number, margin: number): AnswerChange {
  const right = (expect: CaseTriggerDifference['expect'], rate: number) => (expect === 'activate' ? rate : 1 - rate);
  const both = cases.filter((c) => c.rate_a !== null && c.rate_b !== null);
  const rightWinner = both.map((c) => right(c.expect, c.rate_a!));
  const rightOriginal = both.map((c) => right(c.expect, c.rate_b!));
  const shouldNot = both.filter((c) => c.expect === 'not_activate');
  const falseWinner = mean(shouldNot.map((c) => c.rate_a!));
  const falseOriginal = mean(shouldNot.map((c) => c.rate_b!));
  const accuracyWinner = mean(rightWinner);
  const accuracyOriginal = mean(rightOriginal);
  const rank = signedRank(rightWinner.map((r, i) => r - rightOriginal[i]!));
  const harm: string[] = [];
  if (falseWinner !== null && falseOriginal !== null && falseWinner - falseOriginal > margin + RATE_EPSILON) {
    harm.push(`false activations on the should-not cases rise from ${fixed(falseOriginal)} to ${fixed(falseWinner)} of answers, more than the ${margin} margin`);
  }
  if (accuracyWinner !== null && accuracyOriginal !== null && accuracyOriginal - accuracyWinner > margin + RATE_EPSILON) {
    harm.push(`right answers fall from ${fixed(accuracyOriginal)} to ${fixed(accuracyWinner)}, more than the ${margin} margin`);
  }
  if (rank.p_less < alpha) harm.push(`its answers are worse case by case (signed-rank p = ${rank.p_less.toPrecision(3)} < ${alpha})`);
  const drops: string[] = [];
  if (accuracyWinner !== null && accuracyOriginal !== null && accuracyWinner < accuracyOriginal - RATE_EPSILON) drops.push(`right answers ${fixed(accuracyOriginal)} → ${fixed(accuracyWinner)}`);
  if (falseWinner !== null && falseOriginal !== null && falseWinner > falseOriginal + RATE_EPSILON) drops.push(`false activations ${fixed(falseOriginal)} → ${fixed(falseWinner)}`);
  return {
    cases: both.length,
    accuracy_winner: accuracyWinner,
    accuracy_original: accuracyOriginal,
    false_activation: { cases: shouldNot.length, winner: falseWinner, original: falseOriginal },
    test: { n: rank.n, w_plus: rank.w_plus, w_minus: rank.w_minus, p_worse: rank.p_less, exact: rank.exact },
    harm,
    drops,
  };
}

/**
 * The held-out verdict: `proven_gain` only when no model is worse (the
 * original right on more disagreeing cases, or harm to its answers, see
 * {@link answerChange}), every model answered paired cases, and at least one
 * model is better with p < alpha.
 */
export function judge(heldout: readonly HeldoutModel[], alpha: number): { verdict: OptimizeReport['verdict']; reason: string } {
  const unpaired = heldout.filter((h) => h.comparison.pairs === 0);
  if (unpaired.length > 0) return { verdict: 'no_proven_gain', reason: `no proven gain: ${unpaired.map((h) => h.model).join(', ')} decided no held-out case on both sides, so nothing can be compared` };
  const worse = heldout.filter((h) => h.worse);
  if (worse.length > 0) {
    return {
      verdict: 'no_proven_gain',
      reason: `no proven gain: on the held-out cases the winner is worse than the original on ${worse.map((h) => `${h.model} (${whyWorse(h)})`).join(', ')}`,
    };
  }
  const better = heldout.filter((h) => h.better);
  if (better.length === 0) {
    const bestP = Math.min(...heldout.map((h) => h.comparison.test.pValue));
    return { verdict: 'no_proven_gain', reason: `no proven gain: the winner is not worse on any model, but no model shows a significant held-out gain (smallest McNemar p = ${bestP.toPrecision(3)}, alpha ${alpha}, ${heldout[0]?.comparison.pairs ?? 0} paired cases)` };
  }
  return { verdict: 'proven_gain', reason: `proven gain: not worse on any model, case by case or answer by answer, and significantly better on ${better.map((h) => `${h.model} (p = ${h.comparison.test.pValue.toPrecision(3)})`).join(', ')}` };
}

function whyWorse(h: HeldoutModel): string {
  const { aOnly, bOnly } = h.comparison.test;
  const byCase = bOnly > aOnly ? [`right on ${aOnly} case${aOnly === 1 ? '' : 's'} the original missed, wrong on ${bOnly} it got right`] : [];
  return [...byCase, ...h.answers.harm.map((x) => `per answer: ${x}`)].join('; ');
}
