/**
 * The runner against an emulated OpenAI-compatible endpoint (a local HTTP
 * server replaying the Chat Completions wire format) and the example skills
 * served from their folder: real HTTP, real files, real selector pipeline.
 */
import { existsSync } from 'node:fs';
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSharedDispatcher, openModel } from '../../../core/models/index';
import type { ModelClient } from '../../../core/models/types';
import { validatePackage } from '../../../core/package/validate';
import type { SkillId } from '../../../core/package/types';
import { openFolderRegistry, type FolderRegistry } from '../../../core/workspace/catalog';
import { AnswerCache } from '../../../evals/cache';
import { buildCatalog } from '../../../evals/catalog';
import { runEval, type EvalSkillPlan, type RunEvalOptions, type RunProgress } from '../../../evals/runner';
import { buildSuite, parseExtraCases } from '../../../evals/suite';
import type { CellRecord } from '../../../evals/types';
import { readSelectorPrompt, selectorAnswer, startChatEndpoint, type ChatEndpoint, type EndpointReply, type SelectorPrompt } from '../../helpers/chatEndpoint';

const EXAMPLES = fileURLToPath(new URL('../../../examples/skills/', import.meta.url));
const CURRENCY: SkillId = { namespace: 'travel', name: 'currency-conversion' };
const WEATHER: SkillId = { namespace: 'travel', name: 'weather-assessment' };
const KEY = 'sk-emulated-key-that-must-never-be-written';

let dir: string;
let registry: FolderRegistry;
const endpoints: ChatEndpoint[] = [];
const models: ModelClient[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbench-runner-'));
  registry = await openFolderRegistry(join(EXAMPLES, 'packages'));
});
afterAll(async () => {
  await Promise.all(models.map((m) => m.close?.()));
  await Promise.all(endpoints.map((e) => e.close()));
  await closeSharedDispatcher();
  await rm(dir, { recursive: true, force: true });
});

const decode = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

async function plan(id: SkillId): Promise<EvalSkillPlan> {
  const key = `${id.namespace}/${id.name}`;
  const check = validatePackage(await readFile(join(EXAMPLES, 'packages', id.namespace, `${id.name}.json`)), { id });
  const pkg = check.normalized!;
  let extras: ReturnType<typeof parseExtraCases>['cases'] = [];
  try {
    extras = parseExtraCases(id, await readFile(join(EXAMPLES, 'evals', id.namespace, `${id.name}.json`), 'utf8'), pkg).cases;
  } catch {
    // Only some examples have extra cases.
  }
  const catalog = await buildCatalog({ registry, skill: id, source: 'examples' });
  const own = catalog.record.entries.find((e) => e.under_test)!;
  return {
    skill: key,
    cases: buildSuite(id, pkg, extras).cases,
    variants: [{ info: { label: 'published', skill: key, version: 1, manifest_hash: own.manifest_hash }, registry: catalog.registry, bindings: catalog.bindings, catalog: catalog.record }],
  };
}

/** A perfect selector for `skill`: activates it exactly on its positive requests, selects no resource. */
function oracle(p: EvalSkillPlan): (prompt: SelectorPrompt) => EndpointReply {
  const positives = new Set(p.cases.filter((c) => c.expect === 'activate').map((c) => c.request));
  return (prompt) => ({ text: selectorAnswer(prompt.kind, prompt.kind === 'activation' && positives.has(decode(prompt.request)) ? [p.skill] : []) });
}

async function endpoint(answer: (prompt: SelectorPrompt) => EndpointReply, keepBodies = false): Promise<ChatEndpoint> {
  const e = await startChatEndpoint(answer, { keepBodies });
  endpoints.push(e);
  return e;
}

async function model(e: ChatEndpoint, name = 'emu', timeoutMs = 5000): Promise<ModelClient> {
  const m = await openModel(`openai-compatible:${e.baseUrl}#${name}`, {
    env: { OPENAI_COMPATIBLE_API_KEY: KEY },
    timeoutMs,
    retries: { retryOn: ['server'], maxAttempts: 1 },
  });
  models.push(m);
  return m;
}

async function cellsOf(file: string): Promise<CellRecord[]> {
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as CellRecord);
}

let runs = 0;
const runDir = () => join(dir, `run-${++runs}`);

describe('runEval over an emulated OpenAI-compatible endpoint', () => {
  it('runs models x cases x repeats, seeds each repeat, and streams one line per cell', async () => {
    const p = await plan(WEATHER);
    const e = await endpoint(oracle(p), true);
    const m = await model(e);
    const progress: RunProgress[] = [];
    const result = await runEval({ models: [m], skills: [p], repeats: 2, runDir: runDir() }, { onStart: (s) => progress.push(s.progress), onCell: (_c, q) => progress.push(q) });
    expect(result.complete).toBe(true);
    // Rate and ETA travel with every progress event, so every display shows the same numbers.
    expect(progress[0]).toMatchObject({ done: 0, executed: 0, rate: 0, etaMs: null });
    for (const q of progress.slice(1)) {
      expect(q.rate).toBeCloseTo(q.executed / (q.elapsedMs / 1000), 6);
      expect(q.etaMs).toBeCloseTo(q.done === q.total ? 0 : ((q.total - q.done) / q.rate) * 1000, 3);
    }
    expect(progress.at(-1)).toMatchObject({ done: p.cases.length * 2, etaMs: 0 });
    expect(result.progress.etaMs).toBe(0);
    const cells = await cellsOf(result.cellsFile);
    expect(cells).toHaveLength(p.cases.length * 2);
    expect(new Set(cells.map((c) => c.key)).size).toBe(cells.length);
    // Two repeats of every request, with seeds 0 and 1: separate calls, never one answer counted twice.
    const activations = e.bodies.map(readSelectorPrompt).filter((q) => q.kind === 'activation');
    expect(activations).toHaveLength(p.cases.length * 2);
    for (const c of p.cases) {
      expect(activations.filter((q) => decode(q.request) === c.request).map((q) => q.seed).sort()).toEqual([0, 1]);
    }
    const s = result.summary.models[0]!.skills[0]!;
    const positives = p.cases.filter((c) => c.expect === 'activate').length;
    expect({ tp: s.tp, fn: s.fn, fp: s.fp, tn: s.tn, errors: s.errors }).toEqual({ tp: positives * 2, fn: 0, fp: 0, tn: (p.cases.length - positives) * 2, errors: 0 });
    expect(s.accuracy).toBe(1);
    // Cases naming expected resources are scored given activation; the oracle selects none.
    const withResources = p.cases.filter((c) => c.expectedResources);
    expect(s.resource_cases).toBe(withResources.length);
    expect(s.resource_accuracy).toBeCloseTo(withResources.filter((c) => c.expectedResources!.length === 0).length / withResources.length);
    expect(result.summary.models[0]!.input_tokens).toBeGreaterThan(0);
    const header = JSON.parse(await readFile(join(result.runDir, 'header.json'), 'utf8'));
    expect(header).toMatchObject({ format: 'skillbench.eval/v1', config_hash: result.header.config_hash, repeats: 2 });
    expect(header.catalogs['published|travel/weather-assessment'].entries.map((x: { skill: string }) => x.skill)).toContain('travel/currency-conversion');
  });

  it('keeps failures and timeouts as error cells with their message, never as "not activated"', async () => {
    const p = await plan(CURRENCY);
    const failing = p.cases.find((c) => c.expect === 'activate')!.request;
    const hanging = p.cases.find((c) => c.expect === 'not_activate')!.request;
    const answer = oracle(p);
    const e = await endpoint((q) => {
      const request = decode(q.request);
      if (request === failing) return { status: 500, message: `upstream failed; key was ${KEY}` };
      if (request === hanging) return { hang: true };
      return answer(q);
    });
    // The hanging case waits out the whole timeout; the answering cases must never reach it,
    // so the limit is far above a loaded machine's slowest local answer.
    const m = await model(e, 'emu', 5000);
    const result = await runEval({ models: [m], skills: [p], repeats: 2, runDir: runDir() });
    const cells = await cellsOf(result.cellsFile);
    const failed = cells.filter((c) => c.case === p.cases.find((x) => x.request === failing)!.id);
    const hung = cells.filter((c) => c.case === p.cases.find((x) => x.request === hanging)!.id);
    expect(failed.map((c) => c.outcome)).toEqual(['error', 'error']);
    expect(failed[0]!.error).toMatch(/HTTP 500/);
    expect(hung.map((c) => c.outcome)).toEqual(['error', 'error']);
    expect(hung[0]!.error).toMatch(/no answer within 5000 ms/);
    expect(hung[0]!.latency_ms).toBeGreaterThanOrEqual(4900);
    const s = result.summary.models[0]!.skills[0]!;
    expect(s.errors).toBe(4);
    expect(s.tp + s.fn + s.fp + s.tn).toBe(cells.length - 4);
    expect(s.accuracy).toBe(1);
    expect(s.trigger_rates[failed[0]!.case]).toEqual({ k: 0, n: 0, errors: 2, invalid: 0, flaky: false });
    expect(await readFile(result.cellsFile, 'utf8')).not.toContain(KEY);
  });

  it('halves a rate-limited provider, waits for Retry-After, and still completes every cell', async () => {
    const p = await plan(CURRENCY);
    const answer = oracle(p);
    let limited = 6;
    const e = await endpoint((q) => (limited-- > 0 ? { status: 429, headers: { 'retry-after-ms': '150' } } : answer(q)));
    const m = await model(e);
    const events: { concurrency: number; waitMs: number }[] = [];
    const started = performance.now();
    const result = await runEval({ models: [m], skills: [p], concurrency: 4, runDir: runDir(), limiter: { cooldownMs: 10_000 } }, { onRateLimit: (ev) => events.push(ev) });
    expect(result.complete).toBe(true);
    expect(result.summary.totals.errors).toBe(0);
    expect(result.summary.models[0]!.skills[0]!.accuracy).toBe(1);
    expect(events.length).toBeGreaterThanOrEqual(1);
    expect(events[0]).toMatchObject({ concurrency: 2, waitMs: 150 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
    expect(e.maxInFlight).toBeLessThanOrEqual(4);
  });

  it('stops scheduling on the stop signal and resumes without doing a cell twice, past a torn last line', async () => {
    const p = await plan(WEATHER);
    const e = await endpoint((q) => ({ text: selectorAnswer(q.kind, []), delayMs: 5 }));
    const m = await model(e);
    const out = runDir();
    const stop = new AbortController();
    const options: RunEvalOptions = { models: [m], skills: [p], repeats: 3, concurrency: 2, runDir: out, stopSignal: stop.signal };
    const first = await runEval(options, { onCell: (_c, progress) => progress.executed >= 5 && stop.abort() });
    expect(first.complete).toBe(false);
    const recorded = first.progress.done;
    expect(recorded).toBeGreaterThanOrEqual(5);
    expect(recorded).toBeLessThan(first.progress.total);
    // A kill mid-write leaves a torn line; it is cut off and its cell redone.
    await appendFile(first.cellsFile, '{"key":"emu|published|0123');
    const before = e.count;
    let start: { resumed: number; tornLine: boolean } | undefined;
    const second = await runEval({ ...options, stopSignal: new AbortController().signal }, { onStart: ({ progress, tornLine }) => (start = { resumed: progress.resumed, tornLine }) });
    expect(start).toEqual({ resumed: recorded, tornLine: true });
    expect(second.complete).toBe(true);
    // Nothing activates, so one model call per cell: exactly the missing cells were run.
    expect(e.count - before).toBe(second.progress.total - recorded);
    const cells = await cellsOf(second.cellsFile);
    expect(cells).toHaveLength(second.progress.total);
    expect(new Set(cells.map((c) => c.key)).size).toBe(cells.length);
    expect(second.summary.totals.cells).toBe(second.progress.total);
  });

  it('stops one model: its column ends stopped and incomplete while the other model completes, and a rerun fills it', async () => {
    const p = await plan(WEATHER);
    const slow = await endpoint((q) => ({ text: selectorAnswer(q.kind, []), delayMs: 5 }));
    const fast = await endpoint((q) => ({ text: selectorAnswer(q.kind, []) }));
    const a = await model(slow, 'one');
    const b = await model(fast, 'two');
    const out = runDir();
    const stopA = new AbortController();
    const seen: RunProgress[] = [];
    const options: RunEvalOptions = { models: [a, b], skills: [p], repeats: 2, concurrency: 2, runDir: out, modelStopSignals: new Map([[a.spec, stopA.signal]]) };
    const first = await runEval(options, {
      onCell: (cell, progress) => {
        seen.push(progress);
        if (cell.model === a.spec && progress.models[0]!.executed >= 3) stopA.abort();
      },
    });
    expect(first.complete).toBe(false);
    const [colA, colB] = first.progress.models;
    expect(colB).toMatchObject({ spec: b.spec, done: p.cases.length * 2, total: p.cases.length * 2, status: 'complete', etaMs: 0 });
    expect(colA!.status).toBe('stopped');
    expect(colA!.done).toBeLessThan(colA!.total);
    expect(colA!.etaMs).toBeNull();
    // A stopped column's missing cells are not scheduled: the run has nothing left to wait for.
    expect(first.progress.etaMs).toBe(0);
    expect(first.summary.verdict.status).toBe('incomplete');
    // Per-model counters always add up to the run's.
    for (const q of seen) {
      expect(q.models.reduce((n, m) => n + m.done, 0)).toBe(q.done);
      expect(q.models.reduce((n, m) => n + m.errors, 0)).toBe(q.errors);
      for (const m of q.models) expect(m.rate).toBeCloseTo(m.executed / (q.elapsedMs / 1000), 6);
    }
    const before = fast.count;
    const second = await runEval({ ...options, modelStopSignals: new Map() });
    expect(second.complete).toBe(true);
    expect(fast.count).toBe(before);
    expect(second.progress.models.map((m) => m.status)).toEqual(['complete', 'complete']);
    expect(second.progress.models[0]!.executed).toBe(colA!.total - colA!.done);
  });

  it('aborts cells in flight on the hard signal and records none of them', async () => {
    const p = await plan(CURRENCY);
    const hard = new AbortController();
    let arrived = 0;
    // The stop comes once all three calls of the concurrency are at the model and hang there.
    const e = await endpoint(() => {
      if (++arrived === 3) setImmediate(() => hard.abort());
      return { hang: true };
    });
    // A model timeout far past the test's own limit: only the stop can end these calls.
    const m = await model(e, 'emu', 3_600_000);
    const result = await runEval({ models: [m], skills: [p], concurrency: 3, runDir: runDir(), signal: hard.signal });
    expect(result.complete).toBe(false);
    expect(result.progress.done).toBe(0);
    expect(await cellsOf(result.cellsFile)).toEqual([]);
    expect(e.count).toBe(3);
  });

  it('answers a rerun in a fresh folder from the cache: zero model calls', async () => {
    const p = await plan(WEATHER);
    const e = await endpoint(oracle(p));
    const m = await model(e);
    const cache = new AnswerCache(join(dir, 'cache'));
    const first = await runEval({ models: [m], skills: [p], repeats: 2, runDir: runDir(), cache });
    const calls = e.count;
    expect(calls).toBeGreaterThanOrEqual(p.cases.length * 2);
    expect(first.summary.totals.cached).toBe(0);
    const second = await runEval({ models: [m], skills: [p], repeats: 2, runDir: runDir(), cache: new AnswerCache(join(dir, 'cache')) });
    expect(e.count).toBe(calls);
    expect(second.summary.totals.cached).toBe(second.progress.total);
    expect(second.summary.models[0]!.cost_usd).toBe(0);
    expect(second.summary.models[0]!.skills[0]!.accuracy).toBe(first.summary.models[0]!.skills[0]!.accuracy);
    expect(second.cache).toMatchObject({ misses: 0 });
  });

  it('never caches a failed call: a rerun in a fresh folder asks the model again for exactly those', async () => {
    const p = await plan(CURRENCY);
    const failing = p.cases.find((c) => c.expect === 'activate')!.request;
    const answer = oracle(p);
    const e = await endpoint((q) => (decode(q.request) === failing && q.kind === 'activation' ? { status: 500, message: 'emulated outage' } : answer(q)));
    const m = await model(e);
    const first = await runEval({ models: [m], skills: [p], runDir: runDir(), cache: new AnswerCache(join(dir, 'cache-errors')) });
    expect(first.summary.totals.errors).toBe(1);
    const calls = e.count;
    const second = await runEval({ models: [m], skills: [p], runDir: runDir(), cache: new AnswerCache(join(dir, 'cache-errors')) });
    expect(e.count - calls).toBe(1);
    expect(second.summary.totals).toMatchObject({ errors: 1, cached: p.cases.length - 1 });
  });

  it('refuses a folder that holds another configuration, and a folder in use', async () => {
    const p = await plan(CURRENCY);
    const e = await endpoint(oracle(p));
    const m = await model(e);
    const out = runDir();
    await runEval({ models: [m], skills: [p], runDir: out });
    await expect(runEval({ models: [m], skills: [p], repeats: 2, runDir: out })).rejects.toMatchObject({ code: 'conflict' });
    const slow = await endpoint((q) => ({ text: selectorAnswer(q.kind, []), delayMs: 50 }));
    const sm = await model(slow, 'slow');
    const busy = runDir();
    const running = runEval({ models: [sm], skills: [p], runDir: busy });
    // The second run starts once the first holds the folder's lock (not after a pause).
    while (!existsSync(join(busy, 'lock'))) await new Promise((r) => setTimeout(r, 5));
    await expect(runEval({ models: [sm], skills: [p], runDir: busy })).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining(`(pid ${process.pid}, since `) });
    expect((await running).complete).toBe(true);
  });
});
