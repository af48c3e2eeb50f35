/**
 * Adjacent negatives: in a catalog run (several skills of one catalog under
 * test together), each skill's should-activate examples also serve as
 * should-not cases of every other skill under test.
 *
 * Teams with many skills write these by hand, because routing between
 * neighbours is where a catalog fails: a request meant for the slide-deck
 * skill must not wake the theming skill. The cases are marked `adjacent` (and
 * name the skill they come from) so metrics count them apart from a skill's
 * own cases.
 *
 * Rules:
 * - only should-activate examples of the package are borrowed (not extra
 *   cases, whose boundary and resources belong to their own skill);
 * - a request the receiving skill itself lists as should-activate is not a
 *   negative for it and is skipped; one it already lists as should-not keeps
 *   its own case (same content-derived id), so nothing is counted twice;
 * - a request given by several neighbours becomes one case, from the first of
 *   them in identity order.
 */
import { compareIds } from '../core/selector/bindings';
import type { EvalSkillPlan } from './runner';
import { makeCase, type EvalCase } from './suite';

/** The cases of one skill under test of a catalog run. */
export interface SkillCases {
  skill: string;
  cases: readonly EvalCase[];
}

/**
 * The adjacent negatives of each skill, by skill, in the input order of the
 * skills and, within a skill, by neighbour identity then example order.
 * Pure: the same suites give the same cases and ids.
 */
export function adjacentNegatives(suites: readonly SkillCases[]): Map<string, EvalCase[]> {
  const out = new Map<string, EvalCase[]>();
  const donors = [...suites].sort((a, b) => compareIds(a.skill, b.skill));
  for (const receiver of suites) {
    const own = new Set(receiver.cases.map((c) => c.id));
    const positive = new Set(receiver.cases.filter((c) => c.expect === 'activate').map((c) => c.request));
    const added: EvalCase[] = [];
    for (const donor of donors) {
      if (donor.skill === receiver.skill) continue;
      for (const c of donor.cases) {
        if (c.source !== 'should_activate' || positive.has(c.request)) continue;
        const negative = makeCase(receiver.skill, 'adjacent', c.request, 'not_activate', { from: donor.skill });
        if (own.has(negative.id)) continue;
        own.add(negative.id);
        added.push(negative);
      }
    }
    out.set(receiver.skill, added);
  }
  return out;
}

/**
 * Adds the adjacent negatives to the skills of a plan. A skill borrows only
 * from the skills under test that are in its own catalog (in every variant's
 * catalog), since a request can only be stolen by a skill the selector sees.
 */
export function withAdjacentNegatives(skills: readonly EvalSkillPlan[]): EvalSkillPlan[] {
  const generated = adjacentNegatives(skills);
  return skills.map((s) => {
    const inCatalog = s.variants
      .map((v) => new Set(v.catalog.entries.map((e) => e.skill)))
      .reduce<Set<string> | undefined>((all, set) => (all ? new Set([...all].filter((x) => set.has(x))) : set), undefined);
    const extra = (generated.get(s.skill) ?? []).filter((c) => c.from !== undefined && inCatalog?.has(c.from) === true);
    return extra.length === 0 ? s : { ...s, cases: [...s.cases, ...extra] };
  });
}
