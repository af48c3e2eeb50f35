/**
 * `skillbench review create --eval RUN` with real runs that `skillbench eval`
 * recorded on the lexical and embedding baselines: the request records the
 * run's id, its summary and its gate verdict exactly as `summary.json` holds
 * them; `review show` prints them (text and --json) and the WorkbenchApi's
 * `reviews.get` answers them over a WebSocket. An unknown run (exit 5), a run
 * of another skill (exit 2) and a run without a summary (exit 3) are refused
 * with the run named, and no request is written.
 */
import { cp, mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApiError } from '../../../core/api/errors';
import { ConnectionManager } from '../../../core/connections/manager';
import { openLocalStore } from '../../../core/store/local';
import type { EvalSummary } from '../../../evals/types';
import { runCli } from '../../helpers/cli';
import { openWorkbench } from '../../helpers/workbench';
import { makeSigners, signingEnv } from '../../helpers/sshKeys';

const DRAFT = 'skills/packages/travel/weather-assessment.json';
const OTHER = 'skills/packages/travel/currency-conversion.json';
const MODELS = ['--model', 'baseline:lexical', '--model', 'baseline:embedding'];

describe('skillbench review create --eval', () => {
  let work: string;
  let ws: string;
  let home: string;
  let summary: EvalSummary;
  let signers: Awaited<ReturnType<typeof makeSigners>>;
  const cli = (user: 'alice' | 'bob', args: string[]) =>
    runCli(args, { cwd: ws, env: { SKILLBENCH_HOME: home, ...signingEnv(signers.keys[user]!, signers.allowed), NODE_LLAMA_CPP_SKIP_DOWNLOAD: 'true' } });
  const requests = async () => (await readdir(join(ws, 'skills', 'reviews')).catch(() => [] as string[])).sort();

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'skillbench-review-eval-'));
    ws = join(work, 'ws');
    home = join(work, 'home');
    await mkdir(join(work, 'keys'));
    signers = await makeSigners(join(work, 'keys'), ['alice', 'bob']);
    for (const file of [DRAFT, OTHER, 'skills/evals/travel/weather-assessment.json']) await cp(resolve('examples', file), join(ws, file));
    await new ConnectionManager({ dataDir: home, env: {} }).save({ profile: { name: 'prod', target: { kind: 'local', dir: join(work, 'prod-registry') } } });
    await (await openLocalStore(join(work, 'prod-registry'))).close();
    await mkdir(join(ws, '.skillbench', 'runs'), { recursive: true });
    const own = await cli('alice', ['eval', DRAFT, ...MODELS, '--min-accuracy', '0', '--out', '.skillbench/runs/wa']);
    expect(own.code, own.stderr).toBe(0);
    const other = await cli('alice', ['eval', OTHER, ...MODELS, '--out', '.skillbench/runs/cc']);
    expect(other.code, other.stderr).toBe(0);
    summary = JSON.parse(await readFile(join(ws, '.skillbench/runs/wa/summary.json'), 'utf8')) as EvalSummary;
  }, 240_000);
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('records the run id, its summary and its gate verdict; show prints them; reviews.get answers them', async () => {
    expect(summary.verdict).toMatchObject({ status: 'passed', gates_failed: 0 });
    expect(summary.gates.length).toBeGreaterThan(0);
    const created = await cli('alice', ['review', 'create', DRAFT, '--to', 'prod', '--eval', 'wa', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const view = JSON.parse(created.stdout);
    const expected = { run: 'wa', summary, verdict: { passed: true, status: 'passed', message: summary.verdict.message } };
    expect(view.eval).toEqual(expected);
    const file = JSON.parse(await readFile(join(ws, 'skills', 'reviews', `${view.id}.json`), 'utf8'));
    expect(file.eval).toEqual(expected);

    const json = await cli('bob', ['review', 'show', view.id, '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).eval).toEqual(expected);

    const text = await cli('bob', ['review', 'show', view.id]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`eval run wa: ${summary.verdict.message}`);
    for (const model of summary.models) {
      const metrics = model.skills.find((s) => s.skill === 'travel/weather-assessment')!;
      expect(text.stdout).toContain(`${model.model} ${metrics.variant}: accuracy ${metrics.accuracy!.toFixed(3)}`);
    }
    for (const gate of summary.gates) expect(text.stdout).toContain(`gate ${gate.gate} passed: ${gate.message}`);

    // The workbench records its runs in the app-data folder: the same run copied there is found by reviews.create.
    const dataDir = join(work, 'app-data');
    await cp(join(ws, '.skillbench/runs/wa'), join(dataDir, 'runs', 'wa'), { recursive: true });
    const api = await openWorkbench('websocket', { dataDir, signing: { signingKey: signers.keys['bob']!.key, allowedSigners: signers.allowed } });
    try {
      await api.client['workspace.open']({ dir: ws });
      const got = await api.client['reviews.get']({ id: view.id });
      expect(got.eval).toEqual(expected);
      await api.client['connections.save']({ profile: { name: 'prod', target: { kind: 'local', dir: join(work, 'prod-registry') } } });
      const filed = await api.client['reviews.create']({ source: { kind: 'file', path: DRAFT }, connection: 'prod', eval_run: 'wa' });
      expect(filed.eval).toEqual(expected);
      const unknown = await api.client['reviews.create']({ source: { kind: 'file', path: DRAFT }, connection: 'prod', eval_run: 'no-such-run' }).then(
        () => undefined,
        (error: WorkbenchApiError) => error.data,
      );
      expect(unknown).toMatchObject({ code: 'not_found', details: { run: 'no-such-run' } });
      expect(unknown?.message).toContain("no eval run 'no-such-run'");
    } finally {
      await api.close();
    }
  });

  it('takes the path of a run folder as well as its id', async () => {
    const created = await cli('alice', ['review', 'create', DRAFT, '--to', 'prod', '--eval', '.skillbench/runs/wa', '--json']);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout).eval).toMatchObject({ run: 'wa', verdict: { passed: true } });
  });

  it('refuses an unknown run with exit 5 naming it, and writes no request', async () => {
    const before = await requests();
    const run = await cli('alice', ['review', 'create', DRAFT, '--to', 'prod', '--eval', 'no-such-run', '--json']);
    expect(run.code).toBe(5);
    expect(run.stderr).toContain("no eval run 'no-such-run'");
    expect(run.stderr).toContain('.skillbench/runs');
    expect(JSON.parse(run.stdout).error).toMatchObject({ code: 'not_found', details: { run: 'no-such-run' } });
    expect(await requests()).toEqual(before);
  });

  it('refuses a run of another skill as a usage error (exit 2), and writes no request', async () => {
    const before = await requests();
    const run = await cli('alice', ['review', 'create', DRAFT, '--to', 'prod', '--eval', 'cc', '--json']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("eval run 'cc' evaluated travel/currency-conversion, not travel/weather-assessment");
    expect(JSON.parse(run.stdout).error).toMatchObject({ details: { reason: 'other_skill', run: 'cc' } });
    expect(await requests()).toEqual(before);
  });

  it('refuses a run that has no summary yet (exit 3)', async () => {
    await cp(join(ws, '.skillbench/runs/wa/header.json'), join(ws, '.skillbench/runs/unfinished/header.json'));
    const before = await requests();
    const run = await cli('alice', ['review', 'create', DRAFT, '--to', 'prod', '--eval', 'unfinished']);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("eval run 'unfinished' has no summary yet");
    expect(await requests()).toEqual(before);
  });

  it('refuses an --eval that names no run folder as a usage error', async () => {
    const run = await cli('alice', ['review', 'create', DRAFT, '--to', 'prod', '--eval', '..']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--eval takes a run id');
  });
});
