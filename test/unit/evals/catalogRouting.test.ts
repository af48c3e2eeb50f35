import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { routingAffinity, routingMatrix } from '../../../evals/catalogRouting';
import type { CaseInfo, CellRecord, RunHeader } from '../../../evals/types';

const SKILLS = ['d/a', 'd/b', 'd/c'];
const ALWAYS = 'd/always';
const cases: CaseInfo[] = [
  ...SKILLS.flatMap((s, i) => [
    { id: `${s}+1`, skill: s, source: 'should_activate' as const, request: `${i} one`, expect: 'activate' as const, boundary: 'planning' as const },
    { id: `${s}+2`, skill: s, source: 'should_activate' as const, request: `${i} two`, expect: 'activate' as const, boundary: 'planning' as const },
    { id: `${s}-1`, skill: s, source: 'should_not_activate' as const, request: `${i} not`, expect: 'not_activate' as const, boundary: 'planning' as const },
  ]),
  { id: 'd/a~b', skill: 'd/a', source: 'adjacent', from: 'd/b', request: '1 one', expect: 'not_activate', boundary: 'planning' },
];
const entries = [...SKILLS, ALWAYS].map((skill) => ({ skill, version: 1 as const, manifest_hash: 'sha256:x', activation: skill === ALWAYS ? ('always' as const) : ('auto' as const), under_test: false }));
const header: Pick<RunHeader, 'cases' | 'catalogs'> = {
  cases,
  catalogs: Object.fromEntries(SKILLS.map((s) => [`draft|${s}`, { entries, tokens: 0, budget: 2000, source: 'test' }])),
};

function cell(caseId: string, model: string, repeat: number, outcome: CellRecord['outcome'], activated: string[]): CellRecord {
  const info = cases.find((c) => c.id === caseId)!;
  return {
    key: `${model}|draft|${caseId}|${repeat}`,
    model,
    variant: 'draft',
    case: caseId,
    skill: info.skill,
    repeat,
    expect: info.expect,
    outcome,
    invalid: false,
    activated,
    resources: [],
    resources_correct: null,
    diagnostics: [],
    latency_ms: 0,
    input_tokens: 0,
    output_tokens: 0,
    cost_usd: null,
    cached: false,
    trace: {} as CellRecord['trace'],
    finished_at: '2026-01-01T00:00:00.000Z',
  };
}

const arbitraryCells = fc
  .array(
    fc.record({
      c: fc.constantFrom(...cases.map((c) => c.id)),
      model: fc.constantFrom('m:1', 'm:2'),
      repeat: fc.nat(2),
      error: fc.boolean(),
      activated: fc.subarray([...SKILLS, ALWAYS]),
    }),
    { maxLength: 80 },
  )
  .map((list) =>
    list.map((x) => {
      const skill = cases.find((c) => c.id === x.c)!.skill;
      const outcome = x.error ? 'error' : x.activated.includes(skill) ? 'activated' : 'not_activated';
      return cell(x.c, x.model, x.repeat, outcome, x.error ? [] : x.activated);
    }),
  );

/** The same numbers, counted the plain way: filter the cells for each question. */
function recount(cells: CellRecord[]) {
  const unique = cells.filter((c, i) => cells.findIndex((d) => d.key === c.key) === i);
  const answered = unique.filter((c) => c.outcome !== 'error');
  const fired = (c: CellRecord) => c.activated.filter((s) => s !== ALWAYS);
  const asks = (s: string) => answered.filter((c) => cases.some((k) => k.id === c.case && k.skill === s && k.expect === 'activate'));
  return {
    cells: answered.length,
    rows: SKILLS.map((s) => ({
      skill: s,
      requests: asks(s).length,
      errors: unique.filter((c) => c.outcome === 'error' && cases.some((k) => k.id === c.case && k.skill === s && k.expect === 'activate')).length,
      none: asks(s).filter((c) => fired(c).length === 0).length,
      went_to: Object.fromEntries(SKILLS.map((t) => [t, asks(s).filter((c) => fired(c).includes(t)).length]).filter(([, n]) => n !== 0)),
      stolen_by: Object.fromEntries(SKILLS.map((t) => [t, asks(s).filter((c) => !fired(c).includes(s) && fired(c).includes(t)).length]).filter(([, n]) => n !== 0)),
      adjacent: {
        cells: answered.filter((c) => c.case === 'd/a~b' && s === 'd/a').length,
        activated: answered.filter((c) => c.case === 'd/a~b' && s === 'd/a' && fired(c).includes('d/a')).length,
      },
    })),
    together: (a: string, b: string) => answered.filter((c) => fired(c).includes(a) && fired(c).includes(b)).length,
  };
}

describe('routingMatrix', () => {
  it('matches a plain recount of the cells', () => {
    fc.assert(
      fc.property(arbitraryCells, (cells) => {
        const m = routingMatrix(header, cells);
        const r = recount(cells);
        expect(m.cells).toBe(r.cells);
        expect(m.skills).toEqual(SKILLS);
        expect(m.rows).toEqual(r.rows);
        for (const p of m.pairs) {
          expect(p.fired_together).toBe(r.together(p.a, p.b));
          expect(p.a_to_b).toBe(r.rows.find((x) => x.skill === p.a)!.stolen_by[p.b] ?? 0);
        }
        // Every confused pair is listed, most stolen first.
        for (let i = 0; i < SKILLS.length; i++)
          for (let j = i + 1; j < SKILLS.length; j++) {
            const listed = m.pairs.some((p) => p.a === SKILLS[i] && p.b === SKILLS[j]);
            const a = r.rows[i]!.stolen_by[SKILLS[j]!] ?? 0;
            const b = r.rows[j]!.stolen_by[SKILLS[i]!] ?? 0;
            expect(listed).toBe(a + b + r.together(SKILLS[i]!, SKILLS[j]!) > 0);
          }
        const stolen = m.pairs.map((p) => p.a_to_b + p.b_to_a);
        expect(stolen).toEqual([...stolen].sort((x, y) => y - x));
      }),
      { numRuns: 300 },
    );
  });

  it('counts only the model and variant asked for', () => {
    const cells = [cell('d/a+1', 'm:1', 0, 'activated', ['d/a']), cell('d/a+1', 'm:2', 0, 'not_activated', ['d/b'])];
    const m = routingMatrix(header, cells, { model: 'm:2' });
    expect(m.models).toEqual(['m:2']);
    expect(m.rows[0]).toMatchObject({ requests: 1, went_to: { 'd/b': 1 }, stolen_by: { 'd/b': 1 } });
    expect(routingMatrix(header, cells, { variant: 'published' }).cells).toBe(0);
  });

  it('weighs stolen requests above firing together', () => {
    const cells = [cell('d/a+1', 'm:1', 0, 'not_activated', ['d/b']), cell('d/c+1', 'm:1', 0, 'activated', ['d/c', 'd/b'])];
    expect(routingAffinity(routingMatrix(header, cells))).toEqual([
      { a: 'd/a', b: 'd/b', weight: 2 },
      { a: 'd/b', b: 'd/c', weight: 1 },
    ]);
  });
});
