import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { summarize } from '../../../../evals/aggregate';
import { CaseFolder, isFlaky, verdict } from '../../../../evals/reports/fold';
import type { CaseInfo, CellRecord, RunHeader } from '../../../../evals/types';
import { modelLabels } from '../../../../core/report/modelLabels';
import { failureGroups, failureKind, MatrixModel, shortLabels, visibleRows, type MatrixCell } from '../../../../renderer/evals/matrix';

const SKILL = 's/x';
const OTHER = 's/y';

function header(repeats: number, cases: CaseInfo[]): RunHeader {
  return {
    format: 'skillbench.eval/v1',
    run_id: 'r',
    started_at: '2026-01-01T00:00:00Z',
    config_hash: 'h',
    models: [
      { spec: 'm:a', isBaseline: false },
      { spec: 'baseline:lexical', isBaseline: true },
    ],
    variants: [
      { label: 'draft', skill: SKILL, version: 'draft', manifest_hash: 'a' },
      { label: 'published', skill: SKILL, version: 1, manifest_hash: 'b' },
      { label: 'published', skill: OTHER, version: 3, manifest_hash: 'c' },
    ],
    catalogs: {},
    repeats,
    concurrency: 1,
    cases,
  };
}

const cases: CaseInfo[] = [
  { id: 'c1', skill: SKILL, source: 'should_activate', request: 'refund my order', expect: 'activate', boundary: 'planning' },
  { id: 'c2', skill: SKILL, source: 'should_not_activate', request: 'what is my balance', expect: 'not_activate', boundary: 'planning' },
  { id: 'c3', skill: OTHER, source: 'should_activate', request: 'export the report', expect: 'activate', boundary: 'planning' },
];

function cell(model: string, variant: string, c: CaseInfo, repeat: number, outcome: CellRecord['outcome'], extra: Partial<CellRecord> = {}): CellRecord {
  return {
    key: `${model}|${variant}|${c.id}|${repeat}`,
    model,
    variant,
    case: c.id,
    skill: c.skill,
    repeat,
    expect: c.expect,
    outcome,
    invalid: false,
    activated: outcome === 'activated' ? [c.skill] : [],
    resources: [],
    resources_correct: null,
    diagnostics: [],
    latency_ms: 10,
    input_tokens: 0,
    output_tokens: 0,
    cost_usd: 0,
    cached: false,
    trace: {} as CellRecord['trace'],
    finished_at: '2026-01-01T00:00:00Z',
    ...extra,
  };
}

describe('MatrixModel', () => {
  it('lays out models x variants as columns and cases grouped by skill as rows, marking slots a skill has no variant for', () => {
    const m = new MatrixModel(header(3, [cases[2]!, cases[0]!, cases[1]!]));
    expect(m.columns.map((c) => `${c.label}/${c.variant}`)).toEqual(['a/draft', 'a/published', 'baseline:lexical/draft', 'baseline:lexical/published']);
    expect(m.rows.map((r) => r.case.id)).toEqual(['c3', 'c1', 'c2']);
    // s/y has no draft.
    expect(m.state(0, 0)).toBe('na');
    expect(m.state(0, 1)).toBe('pending');
    expect(m.columnProgress(0)).toEqual({ recorded: 0, expected: 6 });
    expect(m.columnProgress(1)).toEqual({ recorded: 0, expected: 9 });
  });

  it('counts each cell once, and agrees with the engine on every slot: trigger counts, flakiness and the report verdict', () => {
    // `unusable`: an answer the runtime rejected (recorded as not activated, flagged invalid).
    const slotArb = fc.constantFrom<CellRecord['outcome'] | 'unusable'>('activated', 'not_activated', 'error', 'unusable');
    fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.nat(1), fc.nat(2), fc.nat(2), fc.nat(3), slotArb), { maxLength: 60 }), fc.nat(1), async (raw, published) => {
        const h = header(4, cases);
        const cells: CellRecord[] = [];
        for (const [model, caseIndex, variantIndex, repeat, outcome] of raw) {
          const c = cases[caseIndex]!;
          const variant = c.skill === OTHER || variantIndex === published ? 'published' : 'draft';
          cells.push(outcome === 'unusable' ? cell(h.models[model]!.spec, variant, c, repeat, 'not_activated', { invalid: true }) : cell(h.models[model]!.spec, variant, c, repeat, outcome));
        }
        const m = new MatrixModel(h);
        m.add(cells);
        m.add(cells); // twice: nothing changes
        const summary = await summarize(h, cells);
        const folder = new CaseFolder();
        const seen = new Set<string>();
        for (const c of cells) {
          if (seen.has(c.key)) continue;
          seen.add(c.key);
          folder.add(c);
        }
        expect(m.size).toBe(summary.totals.cells);
        for (const row of m.rows) {
          for (const col of m.columns) {
            if (!m.isApplicable(row.index, col.index)) continue;
            const s = m.slot(row.index, col.index);
            const skillRow = summary.models.find((x) => x.model === col.model)!.skills.find((x) => x.variant === col.variant && x.skill === row.case.skill)!;
            const rate = skillRow.trigger_rates[row.case.id];
            const fold = folder.get(col.model, col.variant, row.case.id);
            if (!fold) {
              expect(s.n).toBe(0);
              expect(m.state(row.index, col.index)).toBe('pending');
              continue;
            }
            expect({ k: s.activated, n: s.activated + s.notActivated, errors: s.errors, invalid: s.invalid, flaky: m.flaky(row.index, col.index) }).toEqual(rate);
            expect(m.state(row.index, col.index)).toBe(verdict(fold));
            expect(m.flaky(row.index, col.index)).toBe(isFlaky(fold));
          }
        }
      }),
      { numRuns: 80 },
    );
  });

  it('finds failures, errors, flaky and differing rows, by regex too, and groups failures by kind', () => {
    const h = header(2, cases);
    const [c1, c2] = cases;
    const m = new MatrixModel(h);
    m.add([
      // c1: model a fails the draft (missed, another skill took it), passes published; the baseline passes both.
      cell('m:a', 'draft', c1!, 0, 'not_activated', { activated: ['s/z'] }),
      cell('m:a', 'draft', c1!, 1, 'not_activated', { activated: ['s/z'] }),
      cell('m:a', 'published', c1!, 0, 'activated'),
      cell('m:a', 'published', c1!, 1, 'activated'),
      cell('baseline:lexical', 'draft', c1!, 0, 'activated'),
      // c2: model a flaky (one false positive) and a timeout.
      cell('m:a', 'draft', c2!, 0, 'activated'),
      cell('m:a', 'draft', c2!, 1, 'not_activated'),
      cell('m:a', 'published', c2!, 0, 'error', { error: 'activation selector call failed: timeout: openai-compatible (alpha): no answer within 1500 ms' }),
    ]);
    const rows = (mode: Parameters<typeof visibleRows>[1]['mode'], search = '', group?: string) => visibleRows(m, { mode, search, ...(group && { group }) }).map((r) => m.rows[r]!.case.id);
    expect(rows('all')).toEqual(['c1', 'c2', 'c3']);
    // A tie is not a pass: strictly more than half of the repeats must be right.
    expect(rows('failures')).toEqual(['c1', 'c2']);
    expect(rows('errors')).toEqual(['c2']);
    expect(rows('flaky')).toEqual(['c2']);
    expect(rows('different')).toEqual(['c1', 'c2']);
    expect(rows('all', 'BALANCE')).toEqual(['c2']);
    // An invalid regular expression filters nothing.
    expect(rows('all', '(')).toEqual(['c1', 'c2', 'c3']);
    const groups = failureGroups(m);
    expect(groups.map((g) => [g.kind, g.cells, [...g.rows]])).toEqual([
      ['missed: another skill activated', 2, [0]],
      ['activated when it should not', 1, [1]],
      ['error: timeout', 1, [1]],
    ]);
    expect(rows('all', '', 'error: timeout')).toEqual(['c2']);
    expect(rows('failures', 'refund', 'error: timeout')).toEqual([]);
  });

  it('names failure kinds from what a cell holds', () => {
    const c = cases[0]!;
    expect(failureKind(cell('m', 'draft', c, 0, 'activated'))).toBeUndefined();
    expect(failureKind(cell('m', 'draft', c, 0, 'not_activated', { invalid: true }) as MatrixCell)).toBe('unusable answer');
    expect(failureKind(cell('m', 'draft', c, 0, 'error', { error: 'HTTP 500 from 127.0.0.1:4000. retry' }))).toBe('error: HTTP # from #');
  });
});

describe('shortLabels', () => {
  it('gives the matrix the labels of the charts and reports', () => {
    const specs = ['openai-compatible:http://127.0.0.1:9/v1#alpha', 'openai-compatible:http://127.0.0.1:10/v1#alpha', 'openai:gpt-x', 'baseline:lexical'];
    expect(shortLabels(specs)).toEqual(modelLabels(specs));
  });
});
