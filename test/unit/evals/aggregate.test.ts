import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Aggregator, summarize } from '../../../evals/aggregate';
import { evaluateGates, nonInferiority } from '../../../evals/verdict';
import { compareCases } from '../../../evals/paired';
import type { CaseInfo, CellRecord, PairedComparison, RunHeader } from '../../../evals/types';

const SKILL = 's/x';
const cases: CaseInfo[] = [
  { id: 'c1', skill: SKILL, source: 'should_activate', request: 'one', expect: 'activate', boundary: 'planning', expectedResources: ['r1'] },
  { id: 'c2', skill: SKILL, source: 'should_activate', request: 'two', expect: 'activate', boundary: 'planning' },
  { id: 'c3', skill: SKILL, source: 'should_not_activate', request: 'three', expect: 'not_activate', boundary: 'planning' },
];
const catalog = {
  entries: [
    { skill: 's/always', version: 1, manifest_hash: 'sha256:a', activation: 'always' as const, under_test: false },
    { skill: 's/y', version: 1, manifest_hash: 'sha256:y', activation: 'auto' as const, under_test: false },
    { skill: SKILL, version: 'draft' as const, manifest_hash: 'sha256:x', activation: 'auto' as const, under_test: true },
  ],
  tokens: 100,
  budget: 2000,
  source: 'test',
};
const header: RunHeader = {
  format: 'skillbench.eval/v1',
  run_id: 'run',
  started_at: '2026-01-01T00:00:00.000Z',
  config_hash: 'hash',
  models: [
    { spec: 'm:a', isBaseline: false },
    { spec: 'm:b', isBaseline: false },
  ],
  variants: [
    { label: 'draft', skill: SKILL, version: 'draft', manifest_hash: 'sha256:x' },
    { label: 'published', skill: SKILL, version: 3, manifest_hash: 'sha256:x3' },
  ],
  catalogs: { [`draft|${SKILL}`]: catalog, [`published|${SKILL}`]: { ...catalog, entries: catalog.entries.map((e) => (e.under_test ? { ...e, version: 3 } : e)) } },
  repeats: 2,
  concurrency: 4,
  cases,
};

function cell(model: string, variant: string, caseId: string, repeat: number, outcome: CellRecord['outcome'], extra: Partial<CellRecord> = {}): CellRecord {
  const info = cases.find((c) => c.id === caseId)!;
  return {
    key: `${model}|${variant}|${caseId}|${repeat}`,
    model,
    variant,
    case: caseId,
    skill: SKILL,
    repeat,
    expect: info.expect,
    outcome,
    invalid: false,
    activated: outcome === 'activated' ? [SKILL] : [],
    resources: [],
    resources_correct: null,
    diagnostics: [],
    latency_ms: 0,
    input_tokens: 0,
    output_tokens: 0,
    cost_usd: 0,
    cached: false,
    trace: {} as CellRecord['trace'],
    finished_at: '2026-01-01T00:00:01.000Z',
    ...extra,
  };
}

/** Model A: a mixed draft, a perfect published revision. Model B: a perfect draft, nothing published. */
function handCells(): CellRecord[] {
  return [
    cell('m:a', 'draft', 'c1', 0, 'activated', { latency_ms: 10, cost_usd: 0.001, resources_correct: true, input_tokens: 100, output_tokens: 7 }),
    cell('m:a', 'draft', 'c1', 1, 'not_activated', { latency_ms: 20, cost_usd: 0.001, activated: ['s/always', 's/y'] }),
    cell('m:a', 'draft', 'c2', 0, 'error', { latency_ms: 5000, cost_usd: 0, error: 'server error (HTTP 500)' }),
    cell('m:a', 'draft', 'c2', 1, 'activated', { latency_ms: 30, cost_usd: 0.001 }),
    cell('m:a', 'draft', 'c3', 0, 'activated', { latency_ms: 40, cost_usd: 0.001, activated: ['s/always', SKILL, 's/y'] }),
    cell('m:a', 'draft', 'c3', 1, 'not_activated', { latency_ms: 50, cost_usd: 0.001, invalid: true, cached: true }),
    ...[0, 1].flatMap((r) => [
      cell('m:a', 'published', 'c1', r, 'activated', { latency_ms: 60 + 30 * r, cost_usd: 0.002 }),
      cell('m:a', 'published', 'c2', r, 'activated', { latency_ms: 70 + 30 * r, cost_usd: 0.002 }),
      cell('m:a', 'published', 'c3', r, 'not_activated', { latency_ms: 80 + 30 * r, cost_usd: 0.002 }),
    ]),
    ...[0, 1].flatMap((r) => [
      cell('m:b', 'draft', 'c1', r, 'activated', { cost_usd: null }),
      cell('m:b', 'draft', 'c2', r, 'activated', { cost_usd: null }),
      cell('m:b', 'draft', 'c3', r, 'not_activated', { cost_usd: null }),
    ]),
  ];
}

async function* stream<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

describe('summarize', () => {
  it('counts hand-computed cells per model, skill and variant', async () => {
    const summary = await summarize(header, stream(handCells()));
    const a = summary.models.find((m) => m.model === 'm:a')!;
    const draft = a.skills.find((s) => s.variant === 'draft')!;
    expect({ tp: draft.tp, fp: draft.fp, tn: draft.tn, fn: draft.fn, errors: draft.errors, invalid: draft.invalid, cells: draft.cells }).toEqual({
      tp: 2,
      fp: 1,
      tn: 0,
      fn: 1,
      errors: 1,
      invalid: 1,
      cells: 6,
    });
    // The unusable answer on c3 earns no true negative: the rates rest on the 4 usable answers.
    expect(draft.accuracy).toBeCloseTo(2 / 4);
    expect(draft.precision).toBeCloseTo(2 / 3);
    expect(draft.recall).toBeCloseTo(2 / 3);
    expect(draft.f1).toBeCloseTo(2 / 3);
    expect(draft.trigger_rates).toEqual({
      c1: { k: 1, n: 2, errors: 0, invalid: 0, flaky: true },
      c2: { k: 1, n: 1, errors: 1, invalid: 0, flaky: false },
      c3: { k: 1, n: 1, errors: 0, invalid: 1, flaky: false },
    });
    expect(draft.flaky_cases).toEqual(['c1']);
    // s/always is bound `always`: active everywhere, never a competitor.
    expect(draft.co_activated).toEqual({ 's/y': 2 });
    expect(draft.stolen_by).toEqual({ 's/y': 1 });
    expect(draft.resource_accuracy).toBe(1);
    expect(draft.resource_cases).toBe(1);

    const published = a.skills.find((s) => s.variant === 'published')!;
    expect([published.tp, published.tn, published.fp, published.fn, published.accuracy]).toEqual([4, 2, 0, 0, 1]);
    expect(published.flaky_cases).toEqual([]);

    // Latencies of the 11 answered cells: 10..50 and 60..110; the error cell's 5000 ms is left out.
    expect(a.latency_p50_ms).toBe(60);
    expect(a.latency_p95_ms).toBe(110);
    // Five draft answers at 0.001 (one of them cached, so free), the error at 0, six published at 0.002.
    expect(a.cost_usd).toBeCloseTo(4 * 0.001 + 6 * 0.002, 10);
    expect([a.cells, a.errors, a.invalid, a.cached, a.input_tokens, a.output_tokens]).toEqual([12, 1, 1, 1, 100, 7]);

    const b = summary.models.find((m) => m.model === 'm:b')!;
    expect(b.cost_usd).toBeNull();
    expect(b.skills.find((s) => s.variant === 'published')).toMatchObject({ cells: 0, accuracy: null, recall: null });
    expect(summary.totals).toEqual({ cells: 18, errors: 1, invalid: 1, cached: 1 });
  });

  it('compares draft with published and model with model one pair per case, leaving out flaky and unanswered cases', async () => {
    const summary = await summarize(header, handCells());
    const variant = summary.comparisons.find((c) => c.kind === 'variant' && c.model === 'm:a')!;
    // Draft: c1 splits 1-1 (flaky, left out), c2 right on its one answered repeat, c3 wrong on its one usable answer
    // (the other was unusable and counts on no side); published right everywhere.
    expect(variant).toMatchObject({ a: 'draft', b: 'published', skill: SKILL, unit: 'case', pairs: 2, flaky_a: 1, flaky_b: 0, unanswered: 0, accuracy_a: 0.5, accuracy_b: 1 });
    expect(variant.test).toMatchObject({ aOnly: 0, bOnly: 1, concordant: 1, pValue: 1, significant: false });
    expect(variant.cases).toEqual([
      { case: 'c1', expect: 'activate', rate_a: 0.5, rate_b: 1, difference: -0.5, verdict_a: 'tie', verdict_b: 'right' },
      { case: 'c2', expect: 'activate', rate_a: 1, rate_b: 1, difference: 0, verdict_a: 'right', verdict_b: 'right' },
      { case: 'c3', expect: 'not_activate', rate_a: 1, rate_b: 0, difference: 1, verdict_a: 'wrong', verdict_b: 'right' },
    ]);
    expect(variant.mean_abs_trigger_rate_difference).toBeCloseTo(1.5 / 3, 12);
    const models = summary.comparisons.find((c) => c.kind === 'model' && c.variant === 'draft')!;
    expect(models).toMatchObject({ a: 'm:a', b: 'm:b', pairs: 2, flaky_a: 1, flaky_b: 0 });
    // Model B has no published cells: nothing to pair.
    const empty = summary.comparisons.find((c) => c.kind === 'variant' && c.model === 'm:b')!;
    expect(empty).toMatchObject({ pairs: 0, unanswered: 3, accuracy_a: null, accuracy_b: null, mean_abs_trigger_rate_difference: null });
  });

  it('gives identical repeats of a deterministic model the same test and gate verdict as one repeat', async () => {
    const verdicts: unknown[] = [];
    for (const repeats of [1, 3, 6]) {
      const h = { ...header, models: [header.models[0]!], repeats };
      const cells = Array.from({ length: repeats }, (_, r) => [
        cell('m:a', 'draft', 'c1', r, 'not_activated'),
        cell('m:a', 'draft', 'c2', r, 'not_activated'),
        cell('m:a', 'draft', 'c3', r, 'not_activated'),
        cell('m:a', 'published', 'c1', r, 'activated'),
        cell('m:a', 'published', 'c2', r, 'activated'),
        cell('m:a', 'published', 'c3', r, 'not_activated'),
      ]).flat();
      const summary = await summarize(h, cells);
      const c = summary.comparisons[0]!;
      const [gate] = evaluateGates(summary, { failOnRegression: true });
      verdicts.push({ test: c.test, pairs: c.pairs, accuracy: [c.accuracy_a, c.accuracy_b], gate: gate!.passed, message: gate!.message });
    }
    expect(verdicts[0]).toMatchObject({ test: { aOnly: 0, bOnly: 2, concordant: 1, pValue: 0.5 }, pairs: 3, gate: false });
    expect(verdicts[1]).toEqual(verdicts[0]);
    expect(verdicts[2]).toEqual(verdicts[0]);
  });

  it('pairs by case whatever the repeats: duplicating every answer k times changes no comparison', () => {
    const outcome = fc.constantFrom<CellRecord['outcome']>('activated', 'not_activated', 'error');
    fc.assert(
      fc.property(fc.array(outcome, { minLength: 6, maxLength: 6 }), fc.integer({ min: 2, max: 5 }), (draws, k) => {
        const slots = (['draft', 'published'] as const).flatMap((v) => cases.map((c) => ({ v, c: c.id })));
        const once = new Aggregator({ ...header, models: [header.models[0]!], repeats: 1 });
        const many = new Aggregator({ ...header, models: [header.models[0]!], repeats: k });
        slots.forEach((s, i) => once.add(cell('m:a', s.v, s.c, 0, draws[i]!)));
        slots.forEach((s, i) => Array.from({ length: k }, (_, r) => many.add(cell('m:a', s.v, s.c, r, draws[i]!))));
        expect(many.summary().comparisons).toEqual(once.summary().comparisons);
      }),
      { numRuns: 80 },
    );
  });

  it('counts a repeated cell once and ignores cells outside the matrix', () => {
    const aggregator = new Aggregator(header);
    expect(aggregator.add(cell('m:a', 'draft', 'c1', 0, 'activated'))).toBe(true);
    expect(aggregator.add(cell('m:a', 'draft', 'c1', 0, 'not_activated'))).toBe(false);
    expect(aggregator.add(cell('m:zzz', 'draft', 'c1', 0, 'activated'))).toBe(false);
    expect(aggregator.add(cell('m:a', 'draft', 'c1', 2, 'activated'))).toBe(false);
    expect(aggregator.add(cell('m:a', 'v9', 'c1', 0, 'activated'))).toBe(false);
    expect(aggregator.add({ ...cell('m:a', 'draft', 'c1', 1, 'activated'), case: 'nope' })).toBe(false);
    const draft = aggregator.summary().models[0]!.skills[0]!;
    expect([draft.tp, draft.fn, draft.cells]).toEqual([1, 0, 1]);
  });

  it('does not depend on the order cells arrive in, and every cell lands in exactly one bucket', () => {
    const slots = header.models.flatMap((m) => header.variants.flatMap((v) => cases.flatMap((c) => [0, 1].map((r) => ({ m: m.spec, v: v.label, c: c.id, r })))));
    const outcome = fc.constantFrom<CellRecord['outcome']>('activated', 'not_activated', 'error');
    fc.assert(
      fc.property(fc.array(fc.tuple(outcome, fc.boolean(), fc.nat(1000)), { minLength: slots.length, maxLength: slots.length }), fc.infiniteStream(fc.nat()), (draws, randoms) => {
        const cells = slots.map((s, i) => {
          const [o, invalid, latency] = draws[i]!;
          return cell(s.m, s.v, s.c, s.r, o, { invalid: o !== 'error' && invalid, latency_ms: latency, activated: o === 'activated' ? [SKILL, 's/y'] : ['s/y'] });
        });
        const shuffled = [...cells];
        for (let i = shuffled.length - 1; i > 0; i--) {
          const j = randoms.next().value % (i + 1);
          [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
        }
        const a = new Aggregator(header);
        const b = new Aggregator(header);
        cells.forEach((c) => a.add(c));
        shuffled.forEach((c) => b.add(c));
        expect(b.summary()).toEqual(a.summary());
        for (const m of a.summary().models) {
          for (const s of m.skills) expect(s.tp + s.fp + s.tn + s.fn + s.errors + s.invalid).toBe(s.cells);
        }
      }),
      { numRuns: 60 },
    );
  });
});

function comparison(aOnly: number, bOnly: number, concordant = 10): PairedComparison {
  const tally = (right: boolean, expect: 'activate') => ({ activated: right && expect === 'activate' ? 1 : 0, answered: 1 });
  const outcomes = [
    ...Array.from({ length: aOnly }, () => [true, false] as const),
    ...Array.from({ length: bOnly }, () => [false, true] as const),
    ...Array.from({ length: concordant }, () => [true, true] as const),
  ];
  const result = compareCases(outcomes.map(([a, b], i) => ({ case: `c${i}`, expect: 'activate' as const, a: tally(a, 'activate'), b: tally(b, 'activate') })));
  return { kind: 'variant', skill: SKILL, model: 'm:a', a: 'draft', b: 'published', unit: 'case', ...result };
}

describe('gates', () => {
  it('judges thresholds on the draft and fails a metric that cannot be computed', async () => {
    const summary = await summarize(header, handCells());
    const gates = evaluateGates(summary, { minAccuracy: 0.7, minRecall: 0.5 });
    const get = (gate: string, model: string) => gates.find((g) => g.gate === gate && g.model === model)!;
    expect(get('min-accuracy', 'm:a')).toMatchObject({ passed: false, threshold: 0.7, skill: SKILL });
    expect(get('min-accuracy', 'm:a').value).toBeCloseTo(0.5);
    expect(get('min-accuracy', 'm:a').message).toContain('over 4 of 6 cells usable (1 error, 1 unusable)');
    expect(get('min-accuracy', 'm:a').message).toContain('(draft)');
    expect(get('min-accuracy', 'm:b')).toMatchObject({ passed: true, value: 1 });
    expect(get('min-recall', 'm:a')).toMatchObject({ passed: true });
    expect(gates.filter((g) => g.gate === 'regression')).toEqual([]);

    const onlyPublished = await summarize({ ...header, models: [header.models[1]!] }, []);
    const [precision] = evaluateGates(onlyPublished, { minPrecision: 0.1 });
    expect(precision).toMatchObject({ gate: 'min-precision', passed: false, value: null });
    expect(precision!.message).toContain('cannot be computed');
  });

  it('flags a regression when the draft is not shown within the margin of its published revision', async () => {
    const failed = (aOnly: number, bOnly: number, concordant = 0, margin = 0.05) => nonInferiority(comparison(aOnly, bOnly, concordant), margin).failed;
    // The audit's pair: alone right on 1 and wrong on 4 (0.80 vs 0.95), and alone wrong on 5 (0.75 vs 0.95): both fail.
    expect(failed(1, 4, 15)).toBe(true);
    expect(failed(0, 5, 15)).toBe(true);
    expect(failed(0, 7)).toBe(true);
    expect(failed(2, 6, 92)).toBe(true); // loss 0.04, but its upper bound is above 0.05
    expect(failed(0, 1, 199)).toBe(false); // one lost case in 200: within the margin
    expect(failed(3, 3)).toBe(false);
    expect(failed(4, 0)).toBe(false);
    expect(nonInferiority({ pairs: 0, test: comparison(0, 0).test }, 0.05).failed).toBe(true);
    const summary = await summarize(header, [
      ...handCells().filter((c) => !(c.model === 'm:a' && c.variant === 'draft')),
      ...[0, 1].flatMap((r) => [cell('m:a', 'draft', 'c1', r, 'not_activated'), cell('m:a', 'draft', 'c2', r, 'activated'), cell('m:a', 'draft', 'c3', r, 'not_activated')]),
    ]);
    const gates = evaluateGates(summary, { failOnRegression: true });
    const a = gates.find((g) => g.model === 'm:a')!;
    expect(a).toMatchObject({ gate: 'regression', passed: false, skill: SKILL });
    expect(a.message).toContain('on 3 paired cases');
    expect(a.message).toMatch(/upper 95 % bound [\d.]+ > margin 0\.05/);
    // Model B ran no published cell: no case is paired, so nothing shows its draft is not worse.
    expect(gates.find((g) => g.model === 'm:b')).toMatchObject({ passed: false, value: null });
    expect(gates.find((g) => g.model === 'm:b')!.message).toContain('no case was decided by both sides');
    // Flaky and unanswered cases are named in the message, not silently dropped.
    const flaky = evaluateGates(await summarize(header, handCells()), { failOnRegression: true }).find((g) => g.model === 'm:a')!;
    expect(flaky.message).toContain('on 2 paired cases, 1 left out (1 flaky)');
  });
});
