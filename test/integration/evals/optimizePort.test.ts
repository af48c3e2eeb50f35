/**
 * The `optimize.*` methods of the WorkbenchApi, served by the eval engine's
 * port through the direct transport: the description optimizer on an example
 * skill's package text, with the deterministic `baseline:keywords` proposer
 * and the lexical and embedding baselines, in a workspace holding the example
 * skills and their extra cases, against the embedded registry seeded with them.
 */
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OptimizeRunView, WorkbenchEvents } from '../../../core/api/contract';
import { WorkbenchApiError } from '../../../core/api/errors';
import { applyJsonPatch } from '../../../core/package/jsonPatch';
import { validatePackage } from '../../../core/package/validate';
import { createEvalsPort } from '../../../evals/port';
import { openWorkbench, type Workbench } from '../../helpers/workbench';
import { rejection } from '../../helpers/rejection';

const EXAMPLES = fileURLToPath(new URL('../../../examples/skills/', import.meta.url));
const WEATHER = { namespace: 'travel', name: 'weather-assessment' };
const SEED = 20_251_201;

const failure = (promise: Promise<unknown>) => rejection(promise, WorkbenchApiError);

function finished(wb: Workbench, run: () => string | undefined): Promise<OptimizeRunView> {
  return new Promise((resolve) => {
    const seen: OptimizeRunView[] = [];
    const off = wb.client.on('optimize.finished', (e) => {
      seen.push(e.run);
      const mine = seen.find((r) => r.run === run());
      if (mine) {
        off();
        resolve(mine);
      }
    });
  });
}

describe('optimize over the WorkbenchApi (direct transport)', () => {
  let wb: Workbench;
  let dir: string;
  let text: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbench-optimize-api-'));
    await cp(EXAMPLES, join(dir, 'skills'), { recursive: true });
    text = await readFile(join(dir, 'skills', 'packages', 'travel', 'weather-assessment.json'), 'utf8');
    wb = await openWorkbench('direct', { evals: createEvalsPort({ tickMs: 20 }) });
    await wb.service.openWorkspace(dir);
  });
  afterAll(async () => {
    await wb?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('runs the baselines with baseline:keywords to a verdict, streaming progress, and returns the report the same way twice', async () => {
    const info = await wb.client['app.info']();
    for (const m of ['optimize.start', 'optimize.stop', 'optimize.get'] as const) expect(info.methods).toContain(m);
    expect(info.events).toEqual(expect.arrayContaining(['optimize.progressed', 'optimize.finished']));

    const progressed: WorkbenchEvents['optimize.progressed'][] = [];
    const off = wb.client.on('optimize.progressed', (e) => progressed.push(e));
    const ids: string[] = [];
    const end = finished(wb, () => ids[0]);
    const started = await wb.client['optimize.start']({ source: { kind: 'text', text, skill: WEATHER }, seed: SEED, rounds: 2 });
    ids.push(started.run);
    const id = started.run;
    expect(started).toMatchObject({ status: 'running', seed: SEED, skill: 'travel/weather-assessment', models: ['baseline:lexical', 'baseline:embedding'], proposer: 'baseline:keywords', report: null });
    const done = await end;
    off();

    expect(done.status, JSON.stringify(done.error)).toBe('finished');
    const report = done.report!;
    expect(['proven_gain', 'no_proven_gain']).toContain(report.verdict);
    expect(report.reason).toMatch(/proven gain/);
    expect(report.seed).toBe(SEED);
    expect(report.models.map((m) => m.spec)).toEqual(['baseline:lexical', 'baseline:embedding']);
    expect(report.original.catalog_tokens).toBeGreaterThan(0);
    expect(report.candidates.length).toBeGreaterThan(0);
    for (const c of report.candidates.filter((x) => x.status === 'evaluated')) {
      expect(c.train!.map((s) => s.model)).toEqual(['baseline:lexical', 'baseline:embedding']);
      expect(c.catalog_tokens).toBeGreaterThan(0);
    }
    // A held-out case is never a train case.
    const train = new Set(report.split.train.map((c) => c.id));
    expect(report.split.heldout.length).toBeGreaterThan(0);
    expect(report.split.heldout.some((c) => train.has(c.id))).toBe(false);
    if (report.verdict === 'proven_gain') {
      const patched = applyJsonPatch(JSON.parse(text), report.winner!.patch);
      expect(patched.ok).toBe(true);
      const check = validatePackage(patched.ok ? patched.value : null, { id: WEATHER });
      expect(check.valid).toBe(true);
      expect(check.normalized!.description).toBe(report.winner!.description);
    } else {
      expect(report.winner).toBeNull();
    }
    if (report.heldout) {
      for (const h of report.heldout) expect(h.comparison.cases.length).toBe(report.split.heldout.length);
    }

    // Progress streamed while it ran: phases in order, cells counted, candidates as they were proposed.
    const mine = progressed.filter((e) => e.run === id);
    expect(mine.length).toBeGreaterThan(2);
    expect(mine.some((e) => e.progress.phase === 'train' && e.progress.total > 0)).toBe(true);
    expect(mine.some((e) => (e.candidates?.length ?? 0) > 0)).toBe(true);
    expect(mine.at(-1)!.progress.phase).toBe('done');

    // The session keeps the run; the same seed gives the same verdict and candidates.
    const got = await wb.client['optimize.get']({ run: id });
    expect(got.report).toEqual(report);
    const again: string[] = [];
    const end2 = finished(wb, () => again[0]);
    again.push((await wb.client['optimize.start']({ source: { kind: 'text', text, skill: WEATHER }, seed: SEED, rounds: 2 })).run);
    const second = await end2;
    expect(second.report!.verdict).toBe(report.verdict);
    expect(second.report!.candidates).toEqual(report.candidates);
    // Stopping a finished run changes nothing.
    expect((await wb.client['optimize.stop']({ run: id })).status).toBe('finished');
  }, 180_000);

  it('fails a run whose held-out cases could never prove a gain, before any cell, with the cases needed', async () => {
    const doc = JSON.parse(text) as Record<string, unknown>;
    const tiny = JSON.stringify({ ...doc, activation_examples: { should_activate: ['Will it snow in Oslo next week?', 'Is July too hot for Seville?'], should_not_activate: ['Book a table in Oslo for two', 'Convert 20 euros to krone'] } });
    const skill = { namespace: 'travel', name: 'tiny-weather' };
    const ids: string[] = [];
    const end = finished(wb, () => ids[0]);
    ids.push((await wb.client['optimize.start']({ source: { kind: 'text', text: tiny, skill }, seed: SEED })).run);
    const done = await end;
    expect(done.status).toBe('failed');
    expect(done.problems).toEqual([expect.objectContaining({ kind: 'too_few_cases', skill: 'travel/tiny-weather', file: join('skills', 'evals', 'travel', 'tiny-weather.json'), power: expect.objectContaining({ heldout: 2, needed: 6, enough: false }) })]);
    expect(done.error?.message).toContain('needs at least 6 held-out cases');
    expect(done.progress.total).toBe(0);
  });

  it('refuses a baseline as proposer, a bad model spec with its pointer, and an unknown run', async () => {
    const proposer = await failure(wb.client['optimize.start']({ source: { kind: 'text', text, skill: WEATHER }, proposer: 'baseline:lexical' }));
    expect(proposer.data).toMatchObject({ code: 'invalid_request', pointer: '/proposer' });
    const model = await failure(wb.client['optimize.start']({ source: { kind: 'text', text, skill: WEATHER }, models: ['baseline:lexical', 'openai:'] }));
    expect(model.data).toMatchObject({ code: 'invalid_request', pointer: '/models/1' });
    const holdout = await failure(wb.client['optimize.start']({ source: { kind: 'text', text, skill: WEATHER }, holdout: 1 }));
    expect(holdout.data).toMatchObject({ code: 'invalid_request', pointer: '/holdout' });
    const missing = await failure(wb.client['optimize.get']({ run: 'feedfacefeedface' }));
    expect(missing.data).toMatchObject({ code: 'not_found', pointer: '/run' });
  });

  it('refuses an invalid package with its located findings, before any run starts', async () => {
    const broken = JSON.stringify({ ...(JSON.parse(text) as object), description: '' });
    const started: unknown[] = [];
    const off = wb.client.on('optimize.progressed', (e) => started.push(e));
    const error = await failure(wb.client['optimize.start']({ source: { kind: 'text', text: broken, skill: WEATHER }, seed: SEED }));
    off();
    expect(error.data).toMatchObject({ code: 'validation_failed', pointer: '/description' });
    expect(error.data.message).toMatch(/\/description/);
    expect(error.data.findings?.some((f) => f.path === '/description' && f.severity === 'error')).toBe(true);
    expect(started).toEqual([]);
  });
});
