/**
 * The verdict of one case's repeats under one model and variant, as every
 * case × model view shows it: the JUnit testcase, the HTML report's matrix
 * and the workbench's matrix. Shared so the colours of a cell cannot differ
 * between a report and the screen. Pure and isomorphic.
 */

/** The repeats of one case, counted by outcome: each repeat is in exactly one of activated, notActivated, invalid, errors. */
export interface RepeatCounts {
  expect: 'activate' | 'not_activate';
  /** Every repeat recorded, errors and unusable answers included. */
  n: number;
  /** Usable answers where the skill under test activated. */
  activated: number;
  /** Usable answers where it did not. */
  notActivated: number;
  /** Answers the selector rejected (strict decoding or revalidation): unusable, never a right answer. */
  invalid: number;
  errors: number;
}

/** Pass, fail, an unusable answer, or not decidable because of errors. */
export type RepeatsVerdict = 'pass' | 'fail' | 'invalid' | 'error';

/** Repeats whose answer matched the expectation. */
export function correctCount(c: RepeatCounts): number {
  return c.expect === 'activate' ? c.activated : c.notActivated;
}

/** Repeats that answered and were wrong. */
export function wrongCount(c: RepeatCounts): number {
  return c.expect === 'activate' ? c.notActivated : c.activated;
}

/**
 * A case passes when strictly more than half of all its repeats were correct
 * usable answers. Otherwise the most frequent of the other outcomes names it,
 * ties going to the model's fault first: `fail` (wrong answers), then
 * `invalid` (unusable answers), then `error`. An unusable answer is never a
 * pass (the runtime could not use it, so a should-not case earns nothing
 * from it) and never reads as a wrong skill; a flaky endpoint must not read
 * as either.
 */
export function repeatsVerdict(c: RepeatCounts): RepeatsVerdict {
  const correct = correctCount(c);
  if (correct * 2 > c.n) return 'pass';
  const wrong = wrongCount(c);
  const invalid = c.invalid ?? 0;
  if (wrong > 0 && wrong >= invalid && wrong >= c.errors) return 'fail';
  if (invalid > 0 && invalid >= c.errors) return 'invalid';
  return 'error';
}

/** The usable answers disagreed (some activated, some did not). */
export function repeatsFlaky(c: Pick<RepeatCounts, 'activated' | 'notActivated'>): boolean {
  const answered = c.activated + c.notActivated;
  return c.activated > 0 && c.activated < answered;
}
