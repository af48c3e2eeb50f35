/**
 * A large generated run (written to disk line by line, never held in memory)
 * and a heap probe, for the bounded-memory tests of the report writers.
 */
import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { once } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { addToConfusion, rates, type Confusion } from '../../../../evals/metrics';
import type { CellRecord, EvalSummary, RunHeader, SkillMetrics } from '../../../../evals/types';
import { judgeRun } from '../../../../evals/verdict';
import { fixtureCells, fixtureHeader } from './fixture';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Peak live heap while `fn` runs, sampled after a full collection every `everyMs`. */
export async function measureHeap<T>(fn: () => Promise<T>, everyMs = 40): Promise<{ result: T; baseline: number; peak: number; growth: number; samples: number }> {
  gc();
  const baseline = process.memoryUsage().heapUsed;
  let peak = baseline;
  let samples = 0;
  const sample = (): void => {
    gc();
    samples++;
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  };
  const timer = setInterval(sample, everyMs);
  try {
    const result = await fn();
    return { result, baseline, peak, growth: peak - baseline, samples };
  } finally {
    clearInterval(timer);
  }
}

/** Deterministic pseudo-random numbers in [0, 1). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * Writes `models.length × cases × repeats` cells to `file` one line at a time
 * and returns the header, a summary aggregated from the same outcomes, and the
 * file size.
 */
export async function writeLargeRun(file: string, opts: { models: string[]; casesPerSkill: number; repeats: number }): Promise<{ header: RunHeader; summary: EvalSummary; bytes: number; cells: number }> {
  const template = fixtureCells()[0]!;
  const skills = ['travel/weather', 'travel/flights'];
  const cases = skills.flatMap((skill, si) =>
    Array.from({ length: opts.casesPerSkill }, (_, i) => ({
      id: `s${si}c${i}`,
      skill,
      source: (i % 2 === 0 ? 'should_activate' : 'should_not_activate') as 'should_activate' | 'should_not_activate',
      request: `Request ${i} for ${skill}: will it rain in Bergen on day ${i}?`,
      expect: (i % 2 === 0 ? 'activate' : 'not_activate') as 'activate' | 'not_activate',
      boundary: 'planning' as const,
    })),
  );
  const rand = lcg(42);
  const out = createWriteStream(file);
  const rows = new Map<string, Confusion & { cells: number; model: string; skill: string }>();
  const latencies = new Map<string, number[]>();
  let count = 0;
  for (const model of opts.models) {
    for (const c of cases) {
      for (let repeat = 0; repeat < opts.repeats; repeat++) {
        const r = rand();
        const outcome: CellRecord['outcome'] = r < 0.02 ? 'error' : (r < 0.85) === (c.expect === 'activate') ? 'activated' : 'not_activated';
        const latency = Math.round(50 + rand() * 2000);
        const cell: CellRecord = {
          ...template,
          key: `${model}|draft|${c.id}|${repeat}`,
          model,
          case: c.id,
          skill: c.skill,
          repeat,
          expect: c.expect,
          outcome,
          invalid: false,
          activated: outcome === 'activated' ? [c.skill] : [],
          diagnostics: [],
          latency_ms: latency,
          error: outcome === 'error' ? 'timeout after 30 s' : undefined,
          trace: { ...template.trace, calls: template.trace.calls.map((call) => ({ ...call, messages: [call.messages[0]!, { role: 'user', content: c.request }] })) },
        } as CellRecord;
        if (!out.write(`${JSON.stringify(cell)}\n`)) await once(out, 'drain');
        count++;
        const id = `${model}\u0000${c.skill}`;
        let row = rows.get(id);
        if (!row) rows.set(id, (row = { tp: 0, fp: 0, tn: 0, fn: 0, errors: 0, invalid: 0, cells: 0, model, skill: c.skill }));
        addToConfusion(row, { expected: c.expect, outcome });
        row.cells++;
        if (outcome !== 'error') {
          const l = latencies.get(model) ?? [];
          l.push(latency);
          latencies.set(model, l);
        }
      }
    }
  }
  out.end();
  await once(out, 'close');
  const header: RunHeader = {
    ...fixtureHeader(),
    models: opts.models.map((spec, i) => ({ spec, isBaseline: i === opts.models.length - 1 })),
    repeats: opts.repeats,
    cases,
  };
  const aggregated: Omit<EvalSummary, 'gates' | 'verdict'> = {
    models: opts.models.map((model, i) => {
      const skillRows: SkillMetrics[] = [...rows.values()]
        .filter((r) => r.model === model)
        .map((r) => ({
          skill: r.skill,
          variant: 'draft',
          tp: r.tp,
          fp: r.fp,
          tn: r.tn,
          fn: r.fn,
          errors: r.errors,
          invalid: r.invalid,
          ...rates(r),
          cells: r.cells,
          flaky_cases: [],
          trigger_rates: {},
          co_activated: {},
          resource_accuracy: null,
          resource_cases: 0,
        }));
      const sorted = (latencies.get(model) ?? []).sort((a, b) => a - b);
      return {
        model,
        isBaseline: i === opts.models.length - 1,
        skills: skillRows,
        latency_p50_ms: sorted[Math.ceil(sorted.length * 0.5) - 1] ?? null,
        latency_p95_ms: sorted[Math.ceil(sorted.length * 0.95) - 1] ?? null,
        input_tokens: 0,
        output_tokens: 0,
        cost_usd: null,
        errors: skillRows.reduce((a, s) => a + s.errors, 0),
        invalid: 0,
        cells: skillRows.reduce((a, s) => a + s.cells, 0),
      };
    }),
    comparisons: [],
    totals: { cells: count, errors: [...rows.values()].reduce((a, r) => a + r.errors, 0), invalid: 0, cached: 0 },
  };
  const summary: EvalSummary = { ...aggregated, ...judgeRun(header, aggregated) };
  return { header, summary, bytes: (await stat(file)).size, cells: count };
}
