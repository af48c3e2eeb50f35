import { describe, expect, it } from 'vitest';
import { catalogOverBudget, expectedCells, judgeRun } from '../../../evals/verdict';
import type { CatalogRecord, EvalSummary, ModelMetrics, RunHeader } from '../../../evals/types';

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

function model(name: string, cells: number, errors: number, accuracy: number | null = 1): ModelMetrics {
  return {
    model: name,
    isBaseline: false,
    skills: [{ skill: 's/x', variant: 'draft', tp: 1, fp: 0, tn: 1, fn: 0, errors, invalid: 0, accuracy, precision: 1, recall: 1, f1: 1, cells, flaky_cases: [], trigger_rates: {}, co_activated: {}, resource_accuracy: null, resource_cases: 0 }],
    latency_p50_ms: null,
    latency_p95_ms: null,
    input_tokens: 0,
    output_tokens: 0,
    cost_usd: null,
    errors,
    invalid: 0,
    cells,
  };
}

const aggregated = (models: ModelMetrics[]): Pick<EvalSummary, 'models' | 'comparisons' | 'totals'> => ({
  models,
  comparisons: [],
  totals: { cells: models.reduce((n, m) => n + m.cells, 0), errors: models.reduce((n, m) => n + m.errors, 0), invalid: 0, cached: 0 },
});

describe('judgeRun', () => {
  it('counts the cells the matrix expects', () => {
    expect(expectedCells(header())).toBe(2 * 2 * 2);
  });

  it('passes with no gate set, and says so', () => {
    const { gates, verdict } = judgeRun(header(), aggregated([model('m:a', 4, 0), model('m:b', 4, 0)]));
    expect(gates).toEqual([]);
    expect(verdict).toEqual({ status: 'passed', message: 'passed: no gates set', gates_set: 0, gates_failed: 0, unavailable_models: [], cells: { recorded: 8, expected: 8 }, warnings: [] });
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

  it('warns, as data, about a catalog the model never saw and about error cells', () => {
    const { verdict } = judgeRun(header({ 'draft|s/x': catalog({ tokens: 2500 }), 'published|s/x': catalog({ auto_candidates: 20 }) }), aggregated([model('m:a', 4, 1), model('m:b', 4, 0)]));
    expect(verdict.warnings.map((w) => [w.code, w.catalog ?? w.model])).toEqual([
      ['catalog_over_budget', 'draft|s/x'],
      ['too_many_auto_candidates', 'published|s/x'],
      ['cell_errors', 'm:a'],
    ]);
    expect(catalogOverBudget(catalog())).toBeUndefined();
  });
});
