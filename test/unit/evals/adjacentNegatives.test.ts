import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { adjacentNegatives, withAdjacentNegatives } from '../../../evals/adjacentNegatives';
import type { EvalSkillPlan } from '../../../evals/runner';
import { makeCase, type EvalCase } from '../../../evals/suite';
import type { CatalogRecord } from '../../../evals/types';

const own = (skill: string, should: string[], shouldNot: string[] = [], extras: EvalCase[] = []) => ({
  skill,
  cases: [...should.map((r) => makeCase(skill, 'should_activate', r, 'activate')), ...shouldNot.map((r) => makeCase(skill, 'should_not_activate', r, 'not_activate')), ...extras],
});

describe('adjacentNegatives', () => {
  it("runs each skill's should-activate examples as should-not cases of the others, marked and apart", () => {
    const suites = [own('docs/slides', ['Make a deck about Q3?']), own('docs/theme', ['Give my deck our brand colours?']), own('docs/pdf', ['Merge these PDFs?'])];
    const out = adjacentNegatives(suites);
    expect(out.get('docs/theme')!.map((c) => [c.request, c.from, c.expect, c.source])).toEqual([
      ['Merge these PDFs?', 'docs/pdf', 'not_activate', 'adjacent'],
      ['Make a deck about Q3?', 'docs/slides', 'not_activate', 'adjacent'],
    ]);
    for (const [skill, cases] of out) for (const c of cases) expect(c.skill).toBe(skill);
  });

  it('skips a request the skill itself should take, keeps its own should-not case, and never repeats a request', () => {
    const shared = 'Convert this doc to PDF?';
    const suites = [
      own('docs/docx', [shared, 'Track changes in my doc?']),
      own('docs/pdf', [shared, 'Merge these PDFs?'], ['Track changes in my doc?']),
      own('docs/xlsx', ['Sum column B?', 'Merge these PDFs?']),
    ];
    const out = adjacentNegatives(suites);
    // pdf: the shared request is its own positive; 'Track changes' is already its own should-not case.
    expect(out.get('docs/pdf')!.map((c) => c.request)).toEqual(['Sum column B?']);
    // docx: 'Merge these PDFs?' comes from pdf and from xlsx, once, from the first in identity order.
    expect(out.get('docs/docx')!.map((c) => [c.request, c.from])).toEqual([
      ['Merge these PDFs?', 'docs/pdf'],
      ['Sum column B?', 'docs/xlsx'],
    ]);
  });

  it('borrows only should-activate examples, never extra cases', () => {
    const extra = makeCase('docs/a', 'extra', 'An extra request?', 'activate');
    const out = adjacentNegatives([own('docs/a', [], [], [extra]), own('docs/b', ['B?'])]);
    expect(out.get('docs/b')).toEqual([]);
  });

  it('every generated id is unique within its skill and distinct from the skill own case ids', () => {
    const request = fc.constantFrom('a?', 'b?', 'c?', 'd?', 'e?');
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.array(request, { maxLength: 4 }), fc.array(request, { maxLength: 3 })), { minLength: 1, maxLength: 5 }), (skills) => {
        const suites = skills.map(([pos, neg], i) => own(`ns/s${i}`, pos, neg));
        const out = adjacentNegatives(suites);
        for (const s of suites) {
          const ids = [...s.cases.map((c) => c.id), ...out.get(s.skill)!.map((c) => c.id)];
          expect(new Set(ids).size).toBe(new Set(s.cases.map((c) => c.id)).size + out.get(s.skill)!.length);
          const positives = new Set(s.cases.filter((c) => c.expect === 'activate').map((c) => c.request));
          for (const c of out.get(s.skill)!) expect(positives.has(c.request)).toBe(false);
        }
      }),
    );
  });
});

describe('withAdjacentNegatives', () => {
  const record = (skills: string[]): CatalogRecord => ({
    entries: skills.map((skill) => ({ skill, version: 1, manifest_hash: 'sha256:x', activation: 'auto', under_test: false })),
    tokens: 0,
    budget: 2000,
    source: 'test',
  });
  const plan = (skill: string, requests: string[], catalog: string[]): EvalSkillPlan => ({
    skill,
    cases: own(skill, requests).cases,
    variants: [{ info: { label: 'draft', skill, version: 'draft', manifest_hash: 'sha256:x' }, registry: {} as EvalSkillPlan['variants'][0]['registry'], bindings: [], catalog: record(catalog) }],
  });

  it('borrows only from skills under test that are in the skill own catalog', () => {
    const plans = [plan('a/x', ['X?'], ['a/x', 'a/y']), plan('a/y', ['Y?'], ['a/x', 'a/y']), plan('b/z', ['Z?'], ['b/z'])];
    const out = withAdjacentNegatives(plans);
    expect(out.find((p) => p.skill === 'a/x')!.cases.filter((c) => c.source === 'adjacent').map((c) => c.request)).toEqual(['Y?']);
    expect(out.find((p) => p.skill === 'b/z')!.cases.filter((c) => c.source === 'adjacent')).toEqual([]);
    expect(plans[0]!.cases.some((c) => c.source === 'adjacent')).toBe(false);
  });
});
