/**
 * Paired comparison of two selectors (two models, or a draft and its
 * published revision) on the same cases.
 *
 * The unit of pairing is the case, not the (case, repeat) cell: repeats of
 * one request are not independent observations, so a deterministic model
 * answering the same way six times must not count as six times the evidence.
 * Each side's outcome on a case is the majority verdict of its answered
 * repeats (errors left out). A tie (as many right as wrong answers) leaves
 * that side without a verdict: the case is flaky on that side and is left out
 * of the test, counted. A case a side never answered is left out too.
 *
 * Beside McNemar's exact test on those cases, the per-case trigger-rate
 * difference keeps what majority voting hides: how often each side activated
 * the skill on each case.
 */
import type { CaseComparison, CaseTriggerDifference, CaseVerdict } from '../core/report/evalResults';
import { mcnemarExact, type Expectation } from './metrics';

// The shapes a summary records live with the rest of the run's results in core.
export type { CaseComparison, CaseTriggerDifference, CaseVerdict } from '../core/report/evalResults';

/** One side's answered repeats of one case. */
export interface CaseTally {
  /** Answered repeats where the skill under test activated. */
  activated: number;
  /** Repeats that produced an answer (errors excluded). */
  answered: number;
}

/** One case as both sides answered it. */
export interface CasePair {
  case: string;
  expect: Expectation;
  a: CaseTally;
  b: CaseTally;
}

/** The majority verdict of one side's answered repeats of a case. */
export function caseVerdict(expect: Expectation, tally: CaseTally): CaseVerdict {
  if (tally.answered <= 0) return 'none';
  const right = expect === 'activate' ? tally.activated : tally.answered - tally.activated;
  const wrong = tally.answered - right;
  return right > wrong ? 'right' : wrong > right ? 'wrong' : 'tie';
}

/**
 * Compares two sides case by case (see the module comment). Pure and
 * order-preserving; `alpha` is the significance level of the test.
 */
export function compareCases(cases: Iterable<CasePair>, alpha = 0.05): CaseComparison {
  const pairs: { a: boolean; b: boolean }[] = [];
  let rightA = 0;
  let rightB = 0;
  let flakyA = 0;
  let flakyB = 0;
  let unanswered = 0;
  let diffSum = 0;
  let diffCount = 0;
  const out: CaseTriggerDifference[] = [];
  for (const c of cases) {
    const va = caseVerdict(c.expect, c.a);
    const vb = caseVerdict(c.expect, c.b);
    const rateA = c.a.answered > 0 ? c.a.activated / c.a.answered : null;
    const rateB = c.b.answered > 0 ? c.b.activated / c.b.answered : null;
    const difference = rateA !== null && rateB !== null ? rateA - rateB : null;
    if (difference !== null) {
      diffSum += Math.abs(difference);
      diffCount++;
    }
    out.push({ case: c.case, expect: c.expect, rate_a: rateA, rate_b: rateB, difference, verdict_a: va, verdict_b: vb });
    if (va === 'none' || vb === 'none') {
      unanswered++;
      continue;
    }
    if (va === 'tie') flakyA++;
    if (vb === 'tie') flakyB++;
    if (va === 'tie' || vb === 'tie') continue;
    pairs.push({ a: va === 'right', b: vb === 'right' });
    if (va === 'right') rightA++;
    if (vb === 'right') rightB++;
  }
  return {
    test: mcnemarExact(pairs, alpha),
    pairs: pairs.length,
    accuracy_a: pairs.length === 0 ? null : rightA / pairs.length,
    accuracy_b: pairs.length === 0 ? null : rightB / pairs.length,
    flaky_a: flakyA,
    flaky_b: flakyB,
    unanswered,
    mean_abs_trigger_rate_difference: diffCount === 0 ? null : diffSum / diffCount,
    cases: out,
  };
}
