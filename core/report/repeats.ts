/**
 * The verdict of one case's repeats under one model and variant, as every
 * case × model view shows it: the JUnit testcase, the HTML report's matrix
 * and the workbench's matrix. Shared so the colours of a cell cannot differ
 * between a report and the screen. Pure and isomorphic.
 */

/** The repeats of one case, counted by outcome. */
export interface RepeatCounts {
  expect: 'activate' | 'not_activate';
  /** Every repeat recorded, errors included. */
  n: number;
  /** Repeats where the skill under test activated. */
  activated: number;
  notActivated: number;
  errors: number;
}

/** Pass, fail, or not decidable because of errors. */
export type RepeatsVerdict = 'pass' | 'fail' | 'error';

/** Repeats whose answer matched the expectation. */
export function correctCount(c: RepeatCounts): number {
  return c.expect === 'activate' ? c.activated : c.notActivated;
}

/** Repeats that answered and were wrong. */
export function wrongCount(c: RepeatCounts): number {
  return c.expect === 'activate' ? c.notActivated : c.activated;
}

/**
 * A case passes when strictly more than half of all its repeats were correct.
 * Otherwise it failed when wrong answers are at least as many as errors, and
 * is an error when errors dominate: a flaky endpoint must not read as a
 * wrong skill, nor as a passing one.
 */
export function repeatsVerdict(c: RepeatCounts): RepeatsVerdict {
  const correct = correctCount(c);
  if (correct * 2 > c.n) return 'pass';
  return wrongCount(c) >= c.errors && wrongCount(c) > 0 ? 'fail' : 'error';
}

/** The repeats that answered disagreed (some activated, some did not). */
export function repeatsFlaky(c: Pick<RepeatCounts, 'activated' | 'notActivated'>): boolean {
  const answered = c.activated + c.notActivated;
  return c.activated > 0 && c.activated < answered;
}
