import { describe, expect, it } from 'vitest';
import { Aggregator } from '../../../evals/aggregate';
import type { CaseInfo, CellRecord, RunHeader } from '../../../evals/types';

const SKILL = 'd/a';
const own: CaseInfo[] = [
  { id: 'p', skill: SKILL, source: 'should_activate', request: 'Make a deck?', expect: 'activate', boundary: 'planning' },
  { id: 'n', skill: SKILL, source: 'should_not_activate', request: 'Bake a cake?', expect: 'not_activate', boundary: 'planning' },
];
const adjacent: CaseInfo[] = [
  { id: 'j1', skill: SKILL, source: 'adjacent', from: 'd/b', request: 'Theme my deck?', expect: 'not_activate', boundary: 'planning' },
  { id: 'j2', skill: SKILL, source: 'adjacent', from: 'd/b', request: 'Brand colours?', expect: 'not_activate', boundary: 'planning' },
];
const catalog = {
  entries: [
    { skill: SKILL, version: 'draft' as const, manifest_hash: 'sha256:a', activation: 'auto' as const, under_test: true },
    { skill: 'd/b', version: 1, manifest_hash: 'sha256:b', activation: 'auto' as const, under_test: false },
  ],
  tokens: 10,
  budget: 2000,
  source: 'test',
};
const header = (cases: CaseInfo[]): RunHeader => ({
  format: 'skillbench.eval/v1',
  run_id: 'r',
  started_at: '2026-01-01T00:00:00.000Z',
  config_hash: 'h',
  models: [{ spec: 'm', isBaseline: true }],
  variants: [{ label: 'draft', skill: SKILL, version: 'draft', manifest_hash: 'sha256:a' }],
  catalogs: { [`draft|${SKILL}`]: catalog },
  repeats: 1,
  concurrency: 1,
  cases,
});

function cell(info: CaseInfo, activated: string[]): CellRecord {
  return {
    key: `m|draft|${info.id}|0`,
    model: 'm',
    variant: 'draft',
    case: info.id,
    skill: SKILL,
    repeat: 0,
    expect: info.expect,
    outcome: activated.includes(SKILL) ? 'activated' : 'not_activated',
    invalid: false,
    activated,
    resources: [],
    resources_correct: null,
    diagnostics: [],
    latency_ms: 1,
    input_tokens: 0,
    output_tokens: 0,
    cost_usd: 0,
    cached: false,
    trace: {} as CellRecord['trace'],
    finished_at: '2026-01-01T00:00:01.000Z',
  };
}

describe('adjacent negatives in the summary', () => {
  it("are counted apart: the skill's own rates are those of a run without them", () => {
    const ownCells = [cell(own[0]!, [SKILL]), cell(own[1]!, [])];
    const alone = new Aggregator(header(own));
    for (const c of ownCells) alone.add(c);
    const withAdjacent = new Aggregator(header([...own, ...adjacent]));
    for (const c of [...ownCells, cell(adjacent[0]!, [SKILL, 'd/b']), cell(adjacent[1]!, ['d/b'])]) withAdjacent.add(c);
    const a = alone.summary().models[0]!.skills[0]!;
    const b = withAdjacent.summary().models[0]!.skills[0]!;
    for (const key of ['tp', 'fp', 'tn', 'fn', 'accuracy', 'precision', 'recall', 'cells', 'trigger_rates', 'intervals'] as const) expect(b[key], key).toEqual(a[key]);
    expect(a.adjacent).toBeUndefined();
    expect(b.adjacent).toEqual({ tp: 0, fp: 1, tn: 1, fn: 0, errors: 0, invalid: 0, cells: 2 });
  });
});
