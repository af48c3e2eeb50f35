/**
 * Which cases an evaluation brought, said the same way in every report
 * header, the CLI and the workbench: "11 activation examples + 8 extra cases".
 * Pure and isomorphic.
 */

/** A case as far as its origin goes: the package's activation examples, or the workspace's extra-cases file. */
export interface CaseOriginInput {
  skill: string;
  source: 'should_activate' | 'should_not_activate' | 'extra' | 'adjacent';
}

/** How many cases of a skill (or of a run) came from each origin. */
export interface CaseOrigins {
  /** Cases from the package's `activation_examples` (should_activate and should_not_activate). */
  examples: number;
  /** Cases from the workspace's `skills/evals/<namespace>/<name>.json`. */
  extra: number;
  /** Other skills' should-activate examples run as should-not cases of this one (a catalog run), counted apart. */
  adjacent: number;
}

/** Counts the cases of `cases` (optionally only those of `skill`) by origin. */
export function caseOrigins(cases: readonly CaseOriginInput[], skill?: string): CaseOrigins {
  const out: CaseOrigins = { examples: 0, extra: 0, adjacent: 0 };
  for (const c of cases) {
    if (skill !== undefined && c.skill !== skill) continue;
    if (c.source === 'extra') out.extra++;
    else if (c.source === 'adjacent') out.adjacent++;
    else out.examples++;
  }
  return out;
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * `11 activation examples + 8 extra cases` (the extra part always shown, so
 * a reader sees that none were found rather than wondering), with the
 * extra-cases file when one is given.
 */
export function describeCaseOrigins(origins: CaseOrigins, extrasFile?: string): string {
  const own = `${count(origins.examples, 'activation example', 'activation examples')} + ${count(origins.extra, 'extra case', 'extra cases')}`;
  const text = origins.adjacent > 0 ? `${own} + ${count(origins.adjacent, 'adjacent negative', 'adjacent negatives')}` : own;
  return extrasFile !== undefined && origins.extra > 0 ? `${text} (${extrasFile})` : text;
}

/**
 * One line per skill of a run: `travel/weather-assessment: 11 activation
 * examples + 8 extra cases (skills/evals/travel/weather-assessment.json)`.
 */
export function describeRunCases(cases: readonly CaseOriginInput[], extras: Readonly<Record<string, string>> = {}): string[] {
  const skills = [...new Set(cases.map((c) => c.skill))];
  return skills.map((skill) => `${skill}: ${describeCaseOrigins(caseOrigins(cases, skill), extras[skill])}`);
}
