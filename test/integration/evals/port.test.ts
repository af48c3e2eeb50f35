/**
 * The `evals.*` methods of the WorkbenchApi, served by the eval engine's port
 * through the direct transport, on the embedded registry seeded with the
 * example skills: the deterministic baselines, and an emulated
 * OpenAI-compatible server for a model slow enough to be stopped.
 */
import { cp, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EvalRunView, WorkbenchEvents, WorkbenchParams } from '../../../core/api/contract';
import { WorkbenchApiError } from '../../../core/api/errors';
import { createEvalsPort } from '../../../evals/port';
import { selectorAnswer, startChatEndpoint, type ChatEndpoint } from '../../helpers/chatEndpoint';
import { openWorkbench, type Workbench } from '../../helpers/workbench';
import { rejection } from '../../helpers/rejection';

const WEATHER = { namespace: 'travel', name: 'weather-assessment' };
const BASELINES = ['baseline:lexical', 'baseline:embedding'];

function request(models: string[], extra: Partial<WorkbenchParams['evals.start']> = {}): WorkbenchParams['evals.start'] {
  return { targets: [{ kind: 'published', skill: WEATHER }], models, connection: 'default', ...extra };
}

const failure = (promise: Promise<unknown>) => rejection(promise, WorkbenchApiError);

/** Resolves with the `evals.finished` event of `run`. */
function finished(wb: Workbench, run: () => string | undefined): Promise<WorkbenchEvents['evals.finished']> {
  return new Promise((resolve) => {
    const off = wb.client.on('evals.finished', (e) => {
      if (e.run.run === run()) {
        off();
        resolve(e);
      }
    });
  });
}

describe('evals over the WorkbenchApi (direct transport)', () => {
  let wb: Workbench;
  let endpoint: ChatEndpoint | undefined;
  const port = createEvalsPort({ tickMs: 20 });

  beforeAll(async () => {
    wb = await openWorkbench('direct', { evals: port });
  });
  afterAll(async () => {
    await wb?.close();
  });
  afterEach(async () => {
    await endpoint?.close();
    endpoint = undefined;
  });

  it('serves every evals method and plans a run: cells, calls, cost, the catalog against its budget', async () => {
    const info = await wb.client['app.info']();
    for (const m of ['evals.plan', 'evals.start', 'evals.stop', 'evals.resume', 'evals.list', 'evals.get', 'evals.cells', 'evals.trace', 'evals.export'] as const) expect(info.methods).toContain(m);
    const plan = await wb.client['evals.plan'](request(BASELINES, { repeats: 2 }));
    expect(plan.ok).toBe(true);
    expect(plan.skills).toHaveLength(1);
    const cases = plan.skills[0]!.cases;
    expect(cases).toBeGreaterThan(0);
    expect(plan.cells).toBe(cases * 2 * BASELINES.length);
    expect(plan.models.map((m) => [m.spec, m.isBaseline, m.cells, m.estimated_cost_usd])).toEqual(BASELINES.map((s) => [s, true, cases * 2, 0]));
    expect(plan.estimated_calls).toBeGreaterThanOrEqual(plan.cells);
    expect(plan.estimated_cost_usd).toBe(0);
    const catalog = plan.skills[0]!.variants[0]!.catalog;
    expect(catalog).toMatchObject({ budget: 2000, consequence: null });
    expect(catalog.tokens).toBeGreaterThan(0);
    expect(catalog.entries.some((e) => e.under_test && e.skill === 'travel/weather-assessment')).toBe(true);
    expect(plan.config_hash).toMatch(/^[0-9a-f]{16}$/);
    expect(plan.resumable).toBeNull();
  });

  it('plans without adjacent negatives when asked, as the CLI\'s --no-adjacent-negatives does, under another configuration', async () => {
    // Two skills of one catalog under test together: each one's examples are should-not cases of the other.
    const targets = [
      { kind: 'published' as const, skill: { namespace: 'travel', name: 'weather-assessment' } },
      { kind: 'published' as const, skill: { namespace: 'travel', name: 'currency-conversion' } },
    ];
    const withAdjacent = await wb.client['evals.plan']({ ...request(BASELINES), targets });
    const without = await wb.client['evals.plan']({ ...request(BASELINES), targets, adjacent_negatives: false });
    const skill = withAdjacent.skills[0]!;
    expect(skill.adjacent_cases).toBeGreaterThan(0);
    expect(without.skills[0]).toMatchObject({ adjacent_cases: 0, examples: skill.examples, cases: skill.cases - skill.adjacent_cases });
    expect(without.config_hash).not.toBe(withAdjacent.config_hash);
  });

  it('reads no package or extra-cases file through a link that leads out of the workspace', async () => {
    const ws = await mkdtemp(join(tmpdir(), 'skillbench-port-ws-'));
    const outside = await mkdtemp(join(tmpdir(), 'skillbench-port-outside-'));
    try {
      await cp(resolve('examples/skills/packages/travel/weather-assessment.json'), join(outside, 'weather-assessment.json'));
      await mkdir(join(ws, 'skills', 'packages', 'travel'), { recursive: true });
      await symlink(join(outside, 'weather-assessment.json'), join(ws, 'skills', 'packages', 'travel', 'weather-assessment.json'));
      await wb.client['workspace.open']({ dir: ws });
      const file = await failure(wb.client['evals.plan']({ ...request(BASELINES), targets: [{ kind: 'file', path: 'skills/packages/travel/weather-assessment.json' }] }));
      expect(file.data).toMatchObject({ code: 'forbidden', details: { reason: 'outside_workspace' } });
      await mkdir(join(ws, 'skills', 'evals', 'travel'), { recursive: true });
      await symlink(join(outside, 'weather-assessment.json'), join(ws, 'skills', 'evals', 'travel', 'weather-assessment.json'));
      const extras = await failure(wb.client['evals.plan'](request(BASELINES)));
      expect(extras.data).toMatchObject({ code: 'forbidden', details: { reason: 'outside_workspace' } });
    } finally {
      await wb.client['workspace.close']();
      await rm(ws, { recursive: true, force: true });
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('refuses a bad model spec with its pointer, and a skill the store lacks', async () => {
    const bad = await failure(wb.client['evals.plan'](request(['baseline:lexical', 'openai:'])));
    expect(bad.data).toMatchObject({ code: 'invalid_request', pointer: '/models/1' });
    const missing = await failure(wb.client['evals.plan']({ ...request(BASELINES), targets: [{ kind: 'published', skill: { namespace: 'travel', name: 'nope' } }] }));
    expect(missing.data.code).toBe('not_found');
    const noRun = await failure(wb.client['evals.get']({ run: 'feedfacefeedface' }));
    expect(noRun.data).toMatchObject({ code: 'not_found', pointer: '/run' });
  });

  it('runs the baselines live, lists the run with its config hash, and reports the same numbers in every view', async () => {
    const plan = await wb.client['evals.plan'](request(BASELINES));
    const started: WorkbenchEvents['evals.started'][] = [];
    const progressed: WorkbenchEvents['evals.progressed'][] = [];
    const offs = [wb.client.on('evals.started', (e) => started.push(e)), wb.client.on('evals.progressed', (e) => progressed.push(e))];
    let id: string | undefined = undefined;
    const end = finished(wb, () => id);
    const view = await wb.client['evals.start'](request(BASELINES));
    id = view.run;
    expect(view.run).toBe(plan.config_hash);
    expect(view.config_hash).toBe(plan.config_hash);
    expect(view.progress.total).toBe(plan.cells);
    const done = await end;
    offs.forEach((off) => off());
    expect(started.map((e) => e.run.run)).toContain(id);
    expect(done.run.status).toBe('complete');
    expect(done.run.models.map((m) => m.status)).toEqual(['complete', 'complete']);
    expect(done.summary?.verdict.status).toBe('passed');
    // The port says where it records runs (reviews read their evidence there), and that is where this one is.
    expect(await readdir(port.runsDir(wb.dataDir))).toContain(id);
    // Every recorded cell reached the UI exactly once through the events.
    const streamed = progressed.filter((e) => e.run === id).flatMap((e) => e.cells.map((c) => c.key));
    expect(new Set(streamed).size).toBe(plan.cells);
    expect(streamed).toHaveLength(plan.cells);
    const last = progressed.filter((e) => e.run === id).at(-1)!;
    expect(last.progress).toMatchObject({ done: plan.cells, total: plan.cells, eta_ms: 0 });
    expect(last.models.map((m) => m.done)).toEqual([plan.cells / 2, plan.cells / 2]);

    const { runs } = await wb.client['evals.list']();
    const listed = runs.find((r) => r.run === id)!;
    expect(listed).toMatchObject({ config_hash: plan.config_hash, status: 'complete', progress: { done: plan.cells, total: plan.cells } });

    const detail = await wb.client['evals.get']({ run: id });
    expect(detail.summary?.totals.cells).toBe(plan.cells);
    expect(detail.cases).toHaveLength(plan.skills[0]!.cases);
    expect(Object.keys(detail.catalogs)).toEqual(['published|travel/weather-assessment']);

    const page1 = await wb.client['evals.cells']({ run: id, limit: 5 });
    expect(page1.cells).toHaveLength(5);
    expect(page1.next_offset).toBe(5);
    const rest = await wb.client['evals.cells']({ run: id, offset: 5 });
    expect(rest.next_offset).toBeNull();
    expect(page1.cells.length + rest.cells.length).toBe(plan.cells);
    expect('trace' in page1.cells[0]!).toBe(false);
    const trace = await wb.client['evals.trace']({ run: id, key: page1.cells[0]!.key });
    expect(trace.key).toBe(page1.cells[0]!.key);
    expect(trace.trace.boundary).toBe(page1.cells[0] && detail.cases.find((c) => c.id === page1.cells[0]!.case)!.boundary);

    // The JSON export carries the same summary the API shows.
    const json = await wb.client['evals.export']({ run: id, format: 'json' });
    expect(json.filename).toBe(`skillbench-eval-${plan.config_hash}.json`);
    const report = JSON.parse(json.text) as { summary: { models: { model: string; skills: { accuracy: number | null; tp: number; fn: number }[] }[] } };
    for (const m of detail.summary!.models) {
      const r = report.summary.models.find((x) => x.model === m.model)!;
      expect(r.skills.map((s) => [s.accuracy, s.tp, s.fn])).toEqual(m.skills.map((s) => [s.accuracy, s.tp, s.fn]));
    }
    const junit = await wb.client['evals.export']({ run: id, format: 'junit' });
    expect(junit.text).toContain('<testsuites');
    expect((await wb.client['evals.export']({ run: id, format: 'markdown' })).text).toContain('weather-assessment');
    expect((await wb.client['evals.export']({ run: id, format: 'html' })).text).toMatch(/^<!doctype html>/i);

    // The run folder holds the engine's files and the request that started it.
    const files = await readdir(join(wb.dataDir, 'runs', id));
    expect(files).toEqual(expect.arrayContaining(['header.json', 'cells.jsonl', 'summary.json', 'request.json']));
    expect(JSON.parse(await readFile(join(wb.dataDir, 'runs', id, 'request.json'), 'utf8'))).toMatchObject({ models: BASELINES });
  });

  it('stops one model (emulated, slow) while the baseline completes; the run is incomplete and resumes in another session without redoing a cell', async () => {
    endpoint = await startChatEndpoint((prompt) => ({ text: selectorAnswer(prompt.kind, prompt.kind === 'activation' ? prompt.candidates.slice(0, 1) : []), delayMs: 40 }));
    const emulated = `openai-compatible:${endpoint.baseUrl}#emulated`;
    const models = ['baseline:lexical', emulated];
    const req = request(models, { concurrency: 1, cache: false });
    let id: string | undefined = undefined;
    const end = finished(wb, () => id);
    let stopped: Promise<EvalRunView> | undefined;
    const off = wb.client.on('evals.progressed', (e) => {
      if (e.run === id && !stopped && e.cells.some((c) => c.model === emulated)) stopped = wb.client['evals.stop']({ run: e.run, model: emulated });
    });
    const view = await wb.client['evals.start'](req);
    id = view.run;
    const done = await end;
    off();
    expect(stopped).toBeDefined();
    await stopped;
    expect(done.run.status).toBe('incomplete');
    const [lexical, model] = done.run.models;
    expect(lexical).toMatchObject({ status: 'complete' });
    expect(model!.status).toBe('stopped');
    expect(model!.done).toBeLessThan(model!.total);
    expect(done.summary?.verdict.status).toBe('incomplete');
    const countBefore = endpoint.count;

    const unknown = await failure(wb.client['evals.stop']({ run: id, model: 'baseline:nope' }));
    expect(unknown.data).toMatchObject({ code: 'not_found', pointer: '/model' });

    const plan = await wb.client['evals.plan'](req);
    expect(plan.resumable).toEqual({ run: id, done: done.run.progress.done, total: done.run.progress.total });
    const listed = (await wb.client['evals.list']()).runs.find((r) => r.run === id)!;
    expect(listed.status).toBe('incomplete');
    expect(listed.models.find((m) => m.spec === emulated)!.status).toBe('stopped');

    // Another session over the same app-data folder resumes from the run folder.
    const other = await openWorkbench('direct', { dataDir: wb.dataDir, evals: createEvalsPort({ tickMs: 20 }) });
    try {
      const again = finished(other, () => id);
      const resumed = await other.client['evals.resume']({ run: id });
      expect(resumed.run).toBe(id);
      const end2 = await again;
      expect(end2.run.status).toBe('complete');
      expect(endpoint.count - countBefore).toBe(model!.total - model!.done);
      const { cells } = await other.client['evals.cells']({ run: id, limit: 20_000 });
      expect(new Set(cells.map((c) => c.key)).size).toBe(cells.length);
      expect(cells).toHaveLength(done.run.progress.total);
    } finally {
      await other.close();
    }
  });

  it('resumes no run whose recorded request the API would refuse (an edited request.json)', async () => {
    let id: string | undefined = undefined;
    const end = finished(wb, () => id);
    id = (await wb.client['evals.start'](request(['baseline:lexical'], { cache: false }))).run;
    await end;
    const file = join(wb.dataDir, 'runs', id, 'request.json');
    const recorded = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    expect(recorded).toMatchObject({ models: ['baseline:lexical'], concurrency: 4 });
    await writeFile(file, JSON.stringify({ ...recorded, concurrency: 100_000 }));
    const other = await openWorkbench('direct', { dataDir: wb.dataDir, evals: createEvalsPort({ tickMs: 20 }) });
    try {
      const refused = await failure(other.client['evals.resume']({ run: id }));
      expect(refused.data).toMatchObject({ code: 'conflict', message: `run ${id} has no readable request.json: start it again from its setup` });
    } finally {
      await other.close();
    }
  });

  it('stops a whole run: no new cells, marked incomplete, never complete', async () => {
    endpoint = await startChatEndpoint(() => ({ status: 500, message: 'emulated failure', delayMs: 30 }));
    const emulated = `openai-compatible:${endpoint.baseUrl}#emulated`;
    const req = request([emulated], { concurrency: 1, cache: false, timeout_ms: 5000 });
    let id: string | undefined = undefined;
    const end = finished(wb, () => id);
    let stopping = false;
    const off = wb.client.on('evals.progressed', (e) => {
      if (e.run === id && !stopping) {
        stopping = true;
        void wb.client['evals.stop']({ run: e.run });
      }
    });
    id = (await wb.client['evals.start'](req)).run;
    const done = await end;
    off();
    expect(done.run.status).toBe('incomplete');
    expect(done.run.progress.errors).toBe(done.run.progress.done);
    expect(done.run.progress.done).toBeLessThan(done.run.progress.total);
    const detail = await wb.client['evals.get']({ run: id });
    expect(detail.run.status).toBe('incomplete');
    const errorCell = (await wb.client['evals.cells']({ run: id })).cells[0]!;
    expect(errorCell.outcome).toBe('error');
    expect(errorCell.error).toBeTruthy();
  });
});
