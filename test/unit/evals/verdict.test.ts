import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mcnemarExact } from '../../../evals/metrics';
import { caseVerdict, compareCases, type CasePair, type CaseTally } from '../../../evals/paired';
import { catalogOverBudget, evaluateGates, expectedCells, judgeRun, MAX_REGRESSION_MARGIN, nonInferiority, type GateOptions } from '../../../evals/verdict';
import type { CatalogRecord, EvalSummary, ModelMetrics, PairedComparison, RunHeader } from '../../../evals/types';

const catalog = (extra: Partial<CatalogRecord> = {}): CatalogRecord => ({ entries: [], tokens: 100, budget: 2000, source: 'test', auto_candidates: 3, max_auto_candidates: 16, ...extra });

function header(catalogs: Record<string, CatalogRecord> = { 'draft|s/x': catalog() }): RunHeader {
  return {
    format: 'skillbench.eval/v1',
    run_id: 'r',
    started_at: '2026-01-01T00:00:00.000Z',
    config_hash: 'h',
    models: [
      { spec: 'm:a', isBaseline: false },
      { spec: 'm:b', isBaseline: false },
    ],
    variants: [{ label: 'draft', skill: 's/x', version: 'draft', manifest_hash: 'sha256:x' }],
    catalogs,
    repeats: 2,
    concurrency: 1,
    cases: [
      { id: 'c1', skill: 's/x', source: 'should_activate', request: 'one', expect: 'activate', boundary: 'planning' },
      { id: 'c2', skill: 's/x', source: 'should_not_activate', request: 'two', expect: 'not_activate', boundary: 'planning' },
    ],
  };
}

function model(name: string, cells: number, errors: number, accuracy: number | null = 1, invalid = 0, asked = cells - errors): ModelMetrics {
  return {
    model: name,
    isBaseline: false,
    skills: [{ skill: 's/x', variant: 'draft', tp: 1, fp: 0, tn: 1, fn: 0, errors, invalid, accuracy, precision: 1, recall: 1, f1: 1, cells, asked, flaky_cases: [], trigger_rates: {}, co_activated: {}, resource_accuracy: null, resource_cases: 0 }],
    latency_p50_ms: null,
    latency_p95_ms: null,
    input_tokens: 0,
    output_tokens: 0,
    cost_usd: null,
    errors,
    invalid,
    cells,
  };
}

const aggregated = (models: ModelMetrics[]): Pick<EvalSummary, 'models' | 'comparisons' | 'totals'> => ({
  models,
  comparisons: [],
  totals: { cells: models.reduce((n, m) => n + m.cells, 0), errors: models.reduce((n, m) => n + m.errors, 0), invalid: models.reduce((n, m) => n + m.invalid, 0), cached: 0 },
});

describe('judgeRun', () => {
  it('counts the cells the matrix expects', () => {
    expect(expectedCells(header())).toBe(2 * 2 * 2);
  });

  it('passes with no gate set, and says so', () => {
    const { gates, verdict } = judgeRun(header(), aggregated([model('m:a', 4, 0), model('m:b', 4, 0)]));
    expect(gates).toEqual([]);
    expect(verdict).toEqual({
      status: 'passed',
      message: 'passed: no gates set',
      gates_set: 0,
      gates_failed: 0,
      unavailable_models: [],
      cells: { recorded: 8, expected: 8 },
      warnings: [],
      reasons: [],
      limits: { max_error_rate: 0, max_invalid_rate: 0 },
    });
  });

  it('fails on a failed gate, and names a model that never answered before any gate', () => {
    const failed = judgeRun(header(), aggregated([model('m:a', 4, 0, 0.5), model('m:b', 4, 0)]), { minAccuracy: 0.9 }).verdict;
    expect(failed).toMatchObject({ status: 'failed', message: 'failed: 1 of 2 gates failed', gates_set: 2, gates_failed: 1 });
    const unavailable = judgeRun(header(), aggregated([model('m:a', 4, 0, 0.5), model('m:b', 4, 4, null)]), { minAccuracy: 0.9 }).verdict;
    expect(unavailable).toMatchObject({ status: 'unavailable', unavailable_models: ['m:b'], message: 'model unavailable (every cell errored): m:b' });
  });

  it('is incomplete while cells are missing, whatever the gates say', () => {
    expect(judgeRun(header(), aggregated([model('m:a', 4, 4, null)])).verdict).toMatchObject({ status: 'incomplete', cells: { recorded: 4, expected: 8 } });
  });

  it('warns, as data, about a catalog the model never saw, error cells and unusable answers', () => {
    const { verdict } = judgeRun(
      header({ 'draft|s/x': catalog({ tokens: 2500 }), 'published|s/x': catalog({ auto_candidates: 20 }), 'v2|s/x': catalog({ tokens: 2636, auto_candidates: 17 }) }),
      aggregated([model('m:a', 4, 1), model('m:b', 4, 0, 1, 2)]),
      { maxErrorRate: 0.5, maxInvalidRate: 0.5 },
    );
    expect(verdict.warnings.map((w) => [w.code, w.catalog ?? w.model])).toEqual([
      ['catalog_over_budget', 'draft|s/x'],
      ['too_many_auto_candidates', 'published|s/x'],
      ['catalog_over_budget', 'v2|s/x'],
      ['cell_errors', 'm:a'],
      ['invalid_answers', 'm:b'],
    ]);
    // A catalog over both limits names both, not only the first.
    const both = verdict.warnings[2]!;
    expect(both.codes).toEqual(['catalog_over_budget', 'too_many_auto_candidates']);
    expect(both.message).toContain('2636 estimated tokens, above its budget of 2000, and 17 auto candidates, above maxAutoCandidates (16)');
    expect(catalogOverBudget(catalog())).toBeUndefined();
  });

  it('reaches no verdict when a model errored or answered unusably more than allowed, whatever the gates say', () => {
    // One error cell in five (20 %) with every answered cell right: no gate can pass it by default.
    const errors = judgeRun(header(), aggregated([model('m:a', 5, 1), model('m:b', 3, 0)]), { minAccuracy: 0.5 }).verdict;
    expect(errors).toMatchObject({ status: 'incomplete', gates_failed: 0 });
    expect(errors.reasons).toEqual([expect.objectContaining({ code: 'error_rate', model: 'm:a', value: 0.2, threshold: 0 })]);
    expect(errors.message).toBe('incomplete: m:a: 1 of 5 cells ended in an error (0.2), above --max-error-rate 0');
    expect(judgeRun(header(), aggregated([model('m:a', 5, 1), model('m:b', 3, 0)]), { minAccuracy: 0.5, maxErrorRate: 0.2 }).verdict.status).toBe('passed');
    // Every answer unusable: the accuracy gate cannot pass, and the run reaches no verdict.
    const unusable = judgeRun(header(), aggregated([model('m:a', 4, 0, null, 4), model('m:b', 4, 0)]), { minAccuracy: 0.5 });
    expect(unusable.verdict).toMatchObject({ status: 'incomplete' });
    expect(unusable.verdict.reasons!.map((r) => r.code)).toEqual(['invalid_rate']);
    expect(unusable.gates.find((g) => g.model === 'm:a')).toMatchObject({ passed: false, value: null });
    // Even allowed, unusable answers leave the accuracy gate nothing to pass on.
    expect(judgeRun(header(), aggregated([model('m:a', 4, 0, null, 4), model('m:b', 4, 0)]), { minAccuracy: 0.5, maxInvalidRate: 1 }).verdict.status).toBe('failed');
  });

  it('reaches no verdict when the selector never asked the model, unless that is what the run measures', () => {
    const never = judgeRun(header({ 'draft|s/x': catalog({ tokens: 2636, auto_candidates: 17 }) }), aggregated([model('m:a', 4, 0, 1, 0, 0), model('m:b', 4, 0, 1, 0, 0)]));
    expect(never.verdict.status).toBe('incomplete');
    expect(never.verdict.reasons!.map((r) => [r.code, r.model])).toEqual([
      ['never_asked', 'm:a'],
      ['never_asked', 'm:b'],
    ]);
    expect(never.verdict.reasons![0]!.message).toContain('2636 estimated tokens, above its budget of 2000, and 17 auto candidates');
    const allowed = judgeRun(header(), aggregated([model('m:a', 4, 0, 1, 0, 0), model('m:b', 4, 0)]), { allowSkippedActivation: true }).verdict;
    expect(allowed.status).toBe('passed');
    expect(allowed.warnings.map((w) => w.code)).toEqual(['never_asked']);
  });
});

/** A case tally whose majority is right (or wrong) for `expect`, over `answered` repeats. */
function tallyOf(expect: CasePair['expect'], right: boolean, answered: number): CaseTally {
  const activated = (expect === 'activate') === right ? answered : 0;
  return { activated, answered };
}

const tallyArb = fc.record({ activated: fc.nat(3), extra: fc.nat(3) }).map(({ activated, extra }) => ({ activated, answered: activated + extra }));
const caseArb = fc.record({ expect: fc.constantFrom('activate' as const, 'not_activate' as const), a: tallyArb, b: tallyArb });

/** The regression gate (draft in `a`) and the reference gate (both orientations) of one table of cases. */
function comparisonGates(cases: CasePair[], margin: number): boolean[] {
  const compared = compareCases(cases);
  const variant: PairedComparison = { kind: 'variant', skill: 's/x', model: 'm:a', a: 'draft', b: 'published', unit: 'case', ...compared };
  const asA: PairedComparison = { kind: 'model', skill: 's/x', variant: 'draft', a: 'm:candidate', b: 'm:reference', unit: 'case', ...compared };
  const swapped = compareCases(cases.map((c) => ({ ...c, a: c.b, b: c.a })));
  const asB: PairedComparison = { kind: 'model', skill: 's/x', variant: 'draft', a: 'm:reference', b: 'm:candidate', unit: 'case', ...swapped };
  const options: GateOptions = { failOnRegression: true, referenceModel: 'm:reference', regressionMargin: margin };
  return [...evaluateGates({ models: [], comparisons: [variant] }, options), ...evaluateGates({ models: [], comparisons: [asA] }, options), ...evaluateGates({ models: [], comparisons: [asB] }, options)].map((g) => g.passed);
}

describe('the comparison gates (non-inferiority)', () => {
  it('fail the audit pair alike: alone right on 1 and wrong on 4, and alone wrong on 5 (a 20-point drop)', () => {
    const table = (aOnly: number, bOnly: number, both: number): CasePair[] => [
      ...Array.from({ length: aOnly }, () => ({ expect: 'activate' as const, a: tallyOf('activate', true, 1), b: tallyOf('activate', false, 1) })),
      ...Array.from({ length: bOnly }, () => ({ expect: 'activate' as const, a: tallyOf('activate', false, 1), b: tallyOf('activate', true, 1) })),
      ...Array.from({ length: both }, () => ({ expect: 'activate' as const, a: tallyOf('activate', true, 1), b: tallyOf('activate', true, 1) })),
    ].map((c, i) => ({ case: `c${i}`, ...c }));
    expect(comparisonGates(table(1, 4, 15), 0.05)).toEqual([false, false, false]);
    expect(comparisonGates(table(0, 5, 15), 0.05)).toEqual([false, false, false]);
    expect(comparisonGates(table(0, 0, 20), 0.05)).toEqual([true, true, true]);
    expect(comparisonGates(table(2, 0, 18), 0.05)).toEqual([true, true, true]);
  });

  it('is monotone: moving one case from candidate-right to candidate-wrong never turns a fail into a pass', () => {
    fc.assert(
      fc.property(fc.array(caseArb, { minLength: 1, maxLength: 60 }), fc.nat(), fc.double({ min: 0, max: MAX_REGRESSION_MARGIN, noNaN: true }), (raw, pick, margin) => {
        const cases: CasePair[] = raw.map((c, i) => ({ case: `c${i}`, ...c }));
        const right = cases.flatMap((c, i) => (caseVerdict(c.expect, c.a) === 'right' ? [i] : []));
        fc.pre(right.length > 0);
        const i = right[pick % right.length]!;
        const worse = cases.map((c, j) => (j === i ? { ...c, a: tallyOf(c.expect, false, Math.max(1, c.a.answered)) } : c));
        const before = comparisonGates(cases, margin);
        const after = comparisonGates(worse, margin);
        before.forEach((passed, g) => {
          if (!passed) expect(after[g]).toBe(false);
        });
      }),
      { numRuns: 2000 },
    );
  });

  it('is monotone on every table of up to 60 decided cases, at the margins a user may set', () => {
    for (const margin of [0, 0.01, 0.05, 0.1, 0.2, 0.3, MAX_REGRESSION_MARGIN]) {
      for (let n = 1; n <= 60; n++) {
        for (let a = 0; a <= n; a++) {
          for (let b = 0; a + b <= n; b++) {
            const fails = (x: number, y: number) => {
              const p = mcnemarP(x, y);
              return nonInferiority({ pairs: n, test: { aOnly: x, bOnly: y, concordant: n - x - y, pValue: p, significant: p < 0.05, alpha: 0.05 } }, margin).failed;
            };
            if (!fails(a, b)) continue;
            // A case both got right becomes one only the reference got right; one only the candidate got right becomes one both got wrong.
            if (a + b < n) expect(fails(a, b + 1), `n=${n} a=${a} b=${b} margin=${margin}`).toBe(true);
            if (a > 0) expect(fails(a - 1, b), `n=${n} a=${a} b=${b} margin=${margin}`).toBe(true);
          }
        }
      }
    }
  });
});

const pValues = new Map<string, number>();
/** The exact two-sided McNemar p of evals/metrics.ts, for tables built by hand. */
function mcnemarP(aOnly: number, bOnly: number): number {
  const key = `${aOnly},${bOnly}`;
  let p = pValues.get(key);
  if (p === undefined) {
    p = mcnemarExact([...Array.from({ length: aOnly }, () => ({ a: true, b: false })), ...Array.from({ length: bOnly }, () => ({ a: false, b: true }))]).pValue;
    pValues.set(key, p);
  }
  return p;
}
