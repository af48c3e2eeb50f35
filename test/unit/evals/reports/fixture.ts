/**
 * A small evaluation run built by hand for the report tests: a header, the
 * cells written to a real `cells.jsonl` in a temp folder, and a summary whose
 * numbers were worked out on paper (see the comments), not by the code under
 * test. Hostile strings sit in every place user text can reach a report.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareCases } from '../../../../evals/paired';
import type { SelectionTrace } from '../../../../core/selector/select';
import type { CellRecord, EvalSummary, RunHeader, SkillMetrics } from '../../../../evals/types';

/** Strings a report must never let through unescaped. */
export const HOSTILE = {
  script: '<script>alert(1)</script>',
  textarea: '</textarea><textarea>',
  onerror: '"onerror=alert(1) x="',
  img: '<img src=x onerror=alert(2)>',
  js: 'javascript:alert(3)',
  controls: 'bell\u0007 esc\u001b nul\u0000 lone\ud800 end',
  markdown: 'a | b ` code ` **bold** [link](https://example.invalid) @octocat \\| <b>x</b> & done',
  cdataEnd: ']]>',
};

/** True when `text` holds a C0 control character other than tab, LF and CR. */
export function hasForbiddenControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return true;
  }
  return false;
}

/** One string holding every hostile fragment. */
export const HOSTILE_TEXT = Object.values(HOSTILE).join(' ');

export const MODEL_A = `openai:gpt-4o|${HOSTILE.img}`;
export const MODEL_B = 'lexical';
export const WEATHER = 'travel/weather';
export const FLIGHTS = 'travel/flights';

const CASES = [
  { id: 'c1', skill: WEATHER, source: 'should_activate', request: 'Will it rain in Bergen on Saturday?', expect: 'activate' },
  { id: 'c2', skill: WEATHER, source: 'should_activate', request: `Weather for my hike? ${HOSTILE_TEXT}`, expect: 'activate' },
  { id: 'c3', skill: WEATHER, source: 'should_not_activate', request: 'Which airport in Milan is closest to the centre?', expect: 'not_activate' },
  { id: 'c4', skill: FLIGHTS, source: 'should_activate', request: 'Book me a flight from Oslo to Rome next Friday.', expect: 'activate' },
] as const;

type Outcome = CellRecord['outcome'];
const A: Outcome = 'activated';
const N: Outcome = 'not_activated';
const E: Outcome = 'error';

/**
 * Outcomes per model and case, repeats 0..2.
 * Model A: c1 AAA (3 TP) · c2 ANA (2 TP 1 FN, flaky) · c3 NAA (repeat 0 an unusable answer, 2 FP) · c4 EEA (1 TP 2 errors)
 * Model B: c1 NNN (3 FN) · c2 AAA (3 TP) · c3 NNN (3 TN) · c4 AAE (2 TP 1 error)
 */
const OUTCOMES: Record<string, Record<string, Outcome[]>> = {
  [MODEL_A]: { c1: [A, A, A], c2: [A, N, A], c3: [N, A, A], c4: [E, E, A] },
  [MODEL_B]: { c1: [N, N, N], c2: [A, A, A], c3: [N, N, N], c4: [A, A, E] },
};

/** The raw answer of model A on c2 repeat 1 is hostile. */
const HOSTILE_ANSWER = `Sure! ${HOSTILE_TEXT} {"activate": []}`;

function trace(model: string, request: string, activated: string[], raw: string | null, latency: number): SelectionTrace {
  return {
    boundary: 'planning',
    bindingSource: 'catalog',
    pinning: [
      { skill: WEATHER, requested: 'published', activation: 'auto', required: false, status: 'pinned', version: 3, manifest_hash: 'sha256:aa' },
      { skill: FLIGHTS, requested: 'published', activation: 'auto', required: false, status: 'pinned', version: 1, manifest_hash: 'sha256:bb' },
    ],
    activation: { boundary: 'planning', activated, policy: null },
    resourceCatalog: [],
    calls: [
      {
        kind: 'activation',
        boundary: 'planning',
        template: { id: 'skillbench.activation', version: '1' },
        messages: [
          { role: 'system', content: `Pick skills for the request. Catalog: ${WEATHER}, ${FLIGHTS}.` },
          { role: 'user', content: request },
        ],
        raw,
        decision: raw === null ? null : { activate: activated },
        accepted: activated,
        attempts: [{ attempt: 1, correction: false, outcome: raw === null ? 'failed' : 'ok', ...(raw === null ? { error: 'connection reset' } : { raw }), latencyMs: latency, model, provider: 'openai' }],
        diagnostics: [],
        usage: { inputTokens: 120, outputTokens: 9 },
        latencyMs: latency,
        model,
        provider: 'openai',
        candidates: [WEATHER, FLIGHTS],
        catalogTokens: 64,
      },
    ],
    usage: { inputTokens: 120, outputTokens: 9 },
    modelLatencyMs: latency,
    templates: { activation: { id: 'skillbench.activation', version: '1' }, resource: { id: 'skillbench.resource', version: '1' } },
  };
}

/** The cells of the run, in the order a runner would have written them. */
export function fixtureCells(): CellRecord[] {
  const cells: CellRecord[] = [];
  let t = 0;
  for (const model of [MODEL_A, MODEL_B]) {
    for (const c of CASES) {
      OUTCOMES[model]![c.id]!.forEach((outcome, repeat) => {
        t++;
        const underTest = outcome === 'activated';
        const activated = underTest ? [c.skill] : [];
        // Model A drags flights along on c1 so co-activation shows up in reports.
        if (model === MODEL_A && c.id === 'c1') activated.push(FLIGHTS);
        const hostile = model === MODEL_A && c.id === 'c2' && repeat === 1;
        const raw = outcome === 'error' ? null : hostile ? HOSTILE_ANSWER : JSON.stringify({ activate: activated });
        const latency = 100 * t;
        const invalid = model === MODEL_A && c.id === 'c3' && repeat === 0;
        const cell: CellRecord = {
          key: `${model}|draft|${c.id}|${repeat}`,
          model,
          variant: 'draft',
          case: c.id,
          skill: c.skill,
          repeat,
          expect: c.expect,
          outcome,
          invalid,
          activated,
          resources: [],
          resources_correct: null,
          diagnostics: invalid
            ? [{ code: 'skill_activation_selection_invalid', boundary: 'planning', action: 'auto_activation_skipped', message: `named an unknown skill: ${HOSTILE.script}` }]
            : [],
          latency_ms: latency,
          input_tokens: 120,
          output_tokens: 9,
          cost_usd: model === MODEL_B ? 0 : 0.0001,
          cached: false,
          trace: trace(model, c.request, activated, raw, latency),
          finished_at: `2030-01-01T00:00:${String(t).padStart(2, '0')}.000Z`,
        };
        if (outcome === 'error') cell.error = `upstream said: ${HOSTILE_TEXT}`;
        cells.push(cell);
      });
    }
  }
  return cells;
}

export function fixtureHeader(): RunHeader {
  return {
    format: 'skillbench.eval/v1',
    run_id: 'run-2030-01-01-abc',
    started_at: '2030-01-01T00:00:00.000Z',
    config_hash: 'sha256:0123456789abcdef',
    models: [
      { spec: MODEL_A, isBaseline: false },
      { spec: MODEL_B, isBaseline: true },
    ],
    variants: [{ label: 'draft', skill: WEATHER, version: 'draft', manifest_hash: 'sha256:aa', file: 'skills/packages/travel/weather.json' }],
    catalogs: {
      draft: {
        entries: [
          { skill: WEATHER, version: 'draft', manifest_hash: 'sha256:aa', activation: 'auto', under_test: true },
          { skill: FLIGHTS, version: 1, manifest_hash: 'sha256:bb', activation: 'auto', under_test: false },
        ],
        tokens: 2150,
        budget: 2000,
        source: `local:${HOSTILE.script}`,
      },
    },
    repeats: 3,
    concurrency: 2,
    cases: CASES.map((c) => ({ ...c, boundary: 'planning' as const })),
  };
}

function skill(fields: Omit<SkillMetrics, 'variant' | 'resource_accuracy' | 'resource_cases' | 'co_activated'> & Partial<SkillMetrics>): SkillMetrics {
  return { variant: 'draft', resource_accuracy: null, resource_cases: 0, co_activated: {}, ...fields };
}

/** The summary, worked out by hand from OUTCOMES. */
export function fixtureSummary(): EvalSummary {
  return {
    models: [
      {
        model: MODEL_A,
        isBaseline: false,
        skills: [
          // c1 3 TP; c2 2 TP 1 FN; c3 1 unusable 2 FP. acc 5/8 (over the 8 usable answers), precision 5/7, recall 5/6, F1 = 2PR/(P+R) = 10/13.
          skill({
            skill: WEATHER,
            tp: 5,
            fp: 2,
            tn: 0,
            fn: 1,
            errors: 0,
            invalid: 1,
            accuracy: 5 / 8,
            precision: 5 / 7,
            recall: 5 / 6,
            f1: 10 / 13,
            cells: 9,
            flaky_cases: ['c2'],
            trigger_rates: { c1: { k: 3, n: 3, errors: 0, invalid: 0, flaky: false }, c2: { k: 2, n: 3, errors: 0, invalid: 0, flaky: true }, c3: { k: 2, n: 2, errors: 0, invalid: 1, flaky: false } },
            co_activated: { [FLIGHTS]: 3 },
          }),
          // c4: 1 TP, 2 errors.
          skill({ skill: FLIGHTS, tp: 1, fp: 0, tn: 0, fn: 0, errors: 2, invalid: 0, accuracy: 1, precision: 1, recall: 1, f1: 1, cells: 3, flaky_cases: [], trigger_rates: { c4: { k: 1, n: 1, errors: 2, flaky: false } } }),
        ],
        latency_p50_ms: 600,
        latency_p95_ms: 1200,
        input_tokens: 1440,
        output_tokens: 108,
        cost_usd: 0.0012,
        errors: 2,
        invalid: 1,
        cells: 12,
      },
      {
        model: MODEL_B,
        isBaseline: true,
        skills: [
          // c1 3 FN; c2 3 TP; c3 3 TN. acc 6/9, precision 1, recall 1/2, F1 2/3.
          skill({
            skill: WEATHER,
            tp: 3,
            fp: 0,
            tn: 3,
            fn: 3,
            errors: 0,
            invalid: 0,
            accuracy: 6 / 9,
            precision: 1,
            recall: 0.5,
            f1: 2 / 3,
            cells: 9,
            flaky_cases: [],
            trigger_rates: { c1: { k: 0, n: 3, errors: 0, flaky: false }, c2: { k: 3, n: 3, errors: 0, flaky: false }, c3: { k: 0, n: 3, errors: 0, flaky: false } },
          }),
          // c4: 2 TP, 1 error.
          skill({ skill: FLIGHTS, tp: 2, fp: 0, tn: 0, fn: 0, errors: 1, invalid: 0, accuracy: 1, precision: 1, recall: 1, f1: 1, cells: 3, flaky_cases: [], trigger_rates: { c4: { k: 2, n: 2, errors: 1, flaky: false } } }),
        ],
        latency_p50_ms: 1800,
        latency_p95_ms: 2400,
        input_tokens: 1440,
        output_tokens: 108,
        cost_usd: 0,
        errors: 1,
        invalid: 0,
        cells: 12,
      },
    ],
    comparisons: [
      // Weather, A vs B, one pair per case: c1 A alone right (3/3 vs 0/3), c2 both right, c3 B alone right (A 2/3 activations): p = 1.
      {
        kind: 'model',
        skill: WEATHER,
        a: MODEL_A,
        b: MODEL_B,
        unit: 'case',
        variant: 'draft',
        ...compareCases([
          { case: 'c1', expect: 'activate', a: { activated: 3, answered: 3 }, b: { activated: 0, answered: 3 } },
          { case: 'c2', expect: 'activate', a: { activated: 2, answered: 3 }, b: { activated: 3, answered: 3 } },
          { case: 'c3', expect: 'not_activate', a: { activated: 2, answered: 3 }, b: { activated: 0, answered: 3 } },
        ]),
      },
      // A hand-made variant comparison: 9 discordant cases all for B, 11 concordant, p = 2 · 0.5^9.
      {
        kind: 'variant',
        skill: WEATHER,
        a: 'published',
        b: 'draft',
        unit: 'case',
        model: MODEL_A,
        ...compareCases(
          Array.from({ length: 20 }, (_, i) => ({ case: `h${i}`, expect: 'activate' as const, a: { activated: i < 9 ? 0 : 1, answered: 1 }, b: { activated: 1, answered: 1 } })),
        ),
      },
    ],
    totals: { cells: 24, errors: 3, invalid: 1, cached: 0 },
    gates: [
      { gate: 'min-accuracy', threshold: 0.8, model: MODEL_A, skill: WEATHER, value: 6 / 9, passed: false, message: `accuracy 66.7% is below 80% ${HOSTILE.markdown}` },
      { gate: 'min-recall', threshold: 0.5, model: MODEL_B, skill: FLIGHTS, value: 1, passed: true, message: 'recall 100% ≥ 50%' },
    ],
    verdict: {
      status: 'failed',
      message: 'failed: 1 of 2 gates failed',
      gates_set: 2,
      gates_failed: 1,
      unavailable_models: [],
      cells: { recorded: 24, expected: 24 },
      warnings: [
        { code: 'catalog_over_budget', catalog: 'draft', message: 'catalog draft: 2150 estimated tokens, above its budget of 2000: the selector skipped automatic activation and the model was never asked, so its cases measure nothing about the skill' },
        { code: 'cell_errors', model: MODEL_A, message: `${MODEL_A}: 2 of 12 cells ended in an error and are left out of every rate (10 answered)` },
        { code: 'cell_errors', model: MODEL_B, message: `${MODEL_B}: 1 of 12 cells ended in an error and are left out of every rate (11 answered)` },
      ],
    },
  };
}

/** A temp folder with `cells.jsonl` holding `cells` (and optionally a torn tail). */
export async function writeRun(cells: readonly CellRecord[], tail = ''): Promise<{ dir: string; cellsFile: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'skillbench-reports-'));
  const cellsFile = join(dir, 'cells.jsonl');
  await writeFile(cellsFile, cells.map((c) => `${JSON.stringify(c)}\n`).join('') + tail);
  return { dir, cellsFile, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
