/**
 * `skillbench analyze` and `skillbench registry serve --advisor` as a user runs
 * them: the CLI (`registry serve` as the real binary), a real package file, and a local server emulating the
 * OpenAI Responses API wire format in place of the hosted model (an emulation,
 * not the real service; it records every request the advisor sends).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyJsonPatch } from '../../../core/package/jsonPatch';
import { validatePackage } from '../../../core/package/validate';
import { BIN, runCli } from '../../helpers/cli';
import { closedPort, openaiError, openaiResponse, startEmulator, type Emulator } from '../../helpers/modelEmulator';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EXAMPLE = join(ROOT, 'examples', 'skills', 'packages', 'travel', 'weather-assessment.json');
const KEY = 'sk-proj-EMULATEDadvisorKey0123456789';
const FILE = join('skills', 'packages', 'travel', 'weather-assessment.json');

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON output is navigated freely in assertions
type Json = any;

const ANSWER = {
  summary: 'Clear trigger vocabulary; the should-not examples are close neighbours.',
  suggestions: [{ code: 'tags', message: 'Add a "packing" tag: packing requests are half of the examples.', path: '/tags' }],
  proposals: [
    { title: 'Mention typhoons and monsoon', rationale: 'Two should-activate requests name them.', patch: [{ op: 'replace', path: '/description', value: 'Use when someone planning or taking a trip asks what weather to expect: forecasts, seasonal climate, typhoons, monsoon, storms, heat or snow that could disrupt a route, and what to pack for those conditions.' }] },
    { title: 'Add a packing tag', rationale: 'Catalog filtering.', patch: [{ op: 'add', path: '/tags/-', value: 'packing' }] },
    { title: 'Shorter checklist', rationale: 'A blind edit.', patch: [{ op: 'replace', path: '/resources/0/content', value: 'Storms.' }] },
    { title: 'No plan', rationale: 'Breaks validation.', patch: [{ op: 'remove', path: '/planning_instructions/0' }, { op: 'remove', path: '/planning_instructions/0' }, { op: 'remove', path: '/planning_instructions/0' }] },
  ],
};

let work: string;
let emulator: Emulator;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-analyze-'));
  await mkdir(join(work, 'skills', 'packages', 'travel'), { recursive: true });
  await copyFile(EXAMPLE, join(work, FILE));
  emulator = await startEmulator(openaiResponse(JSON.stringify(ANSWER), 'gpt-5.1', { input: 2100, output: 420 }));
});
afterEach(async () => {
  await emulator.close();
  await rm(work, { recursive: true, force: true });
});

const env = () => ({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${emulator.origin}/v1`, SKILLBENCH_HOME: join(work, 'home') });

describe('skillbench analyze', () => {
  it('prints advice and checked proposals, writes the composed patch, and never sends bodies or change_reason', async () => {
    const r = await runCli(['analyze', FILE, '--model', 'openai:smart', '--json', '--write-patch', 'advice.patch.json'], { cwd: work, env: env() });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Json;
    expect(out).toMatchObject({ file: FILE, skill: 'travel/weather-assessment', validation: { valid: true } });
    expect(out.analysis.proposals.map((p: Json) => p.id)).toEqual(['p1', 'p2']);
    expect(out.analysis.dropped.map((d: Json) => [d.id, d.reason])).toEqual([
      ['p3', 'withheld_content'],
      ['p4', 'validation_failed'],
    ]);
    expect(out.analysis.advisor).toMatchObject({ model: 'gpt-5.1', provider: 'openai', prompt: { id: 'skillbench.authoring', version: '1' } });
    expect(out.patch).toMatchObject({ file: 'advice.patch.json', proposals: ['p1', 'p2'], skipped: [], fits_source: true });

    expect(r.stderr).toContain('Proposals: 2 kept, 2 dropped');
    expect(r.stderr).toContain('dropped p3  Shorter checklist: withheld_content');
    expect(r.stderr).toContain('Patch written to advice.patch.json: p1, p2');

    // The patch file is an RFC 6902 document that turns the author's file into the advised package.
    const patch = JSON.parse(await readFile(join(work, 'advice.patch.json'), 'utf8')) as unknown[];
    const source = JSON.parse(await readFile(join(work, FILE), 'utf8')) as unknown;
    const patched = applyJsonPatch(source, patch);
    expect(patched.ok).toBe(true);
    const check = validatePackage(patched.ok ? patched.value : null, { id: { namespace: 'travel', name: 'weather-assessment' } });
    expect(check.valid).toBe(true);
    expect(check.normalized!.tags).toContain('packing');
    expect(check.normalized!.description).toContain('typhoons');
    // The file itself is untouched.
    expect(await readFile(join(work, FILE), 'utf8')).toBe(await readFile(EXAMPLE, 'utf8'));

    expect(emulator.requests).toHaveLength(1);
    const sent = JSON.stringify(emulator.requests[0]!.body);
    expect(sent).not.toContain('Weather risk signals');
    expect(sent).not.toContain('Initial example package');
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });

  it('does not call the model for an invalid package: the findings with their positions, exit 1', async () => {
    const doc = JSON.parse(await readFile(EXAMPLE, 'utf8')) as Record<string, unknown>;
    await writeFile(join(work, FILE), JSON.stringify({ ...doc, planning_instructions: [] }, null, 2));
    const r = await runCli(['analyze', FILE, '--model', 'openai:smart', '--json'], { cwd: work, env: env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/weather-assessment\.json:\d+:\d+: error /);
    expect(r.stderr).toContain('the advisor was not called');
    expect(JSON.parse(r.stdout)).toMatchObject({ analysis: null, validation: { valid: false } });
    expect(emulator.requests).toHaveLength(0);
  });

  it('refuses bad usage before any call: no model, an unknown effort, guidance over its bound', async () => {
    const noModel = await runCli(['analyze', FILE], { cwd: work, env: env() });
    expect(noModel.code).toBe(2);
    const effort = await runCli(['analyze', FILE, '--model', 'openai:smart', '--reasoning-effort', 'max'], { cwd: work, env: env() });
    expect(effort.code).toBe(2);
    expect(effort.stderr).toContain('--reasoning-effort must be low, medium, high or none');
    await writeFile(join(work, 'guidance.txt'), 'Prefer concrete vocabulary. '.repeat(80));
    const guidance = await runCli(['analyze', FILE, '--model', 'openai:smart', '--guidance-file', 'guidance.txt'], { cwd: work, env: env() });
    expect(guidance.code).toBe(2);
    expect(guidance.stderr).toContain('512 estimated tokens');
    await writeFile(join(work, 'big.txt'), 'x'.repeat(5000));
    const big = await runCli(['analyze', FILE, '--model', 'openai:smart', '--guidance-file', 'big.txt'], { cwd: work, env: env() });
    expect(big.code).toBe(2);
    expect(big.stderr).toContain('above the limit of 4096 bytes');
    expect(emulator.requests).toHaveLength(0);
  });

  it('exits 6 when the model is unavailable, with the provider message but never the key', async () => {
    emulator.fallback = openaiError(401, `Incorrect API key provided: ${KEY}`, 'invalid_request_error', 'invalid_api_key');
    const denied = await runCli(['analyze', FILE, '--model', 'openai:smart'], { cwd: work, env: env() });
    expect(denied.code).toBe(6);
    expect(denied.stderr).not.toContain(KEY);
    const port = await closedPort();
    const down = await runCli(['analyze', FILE, '--model', `openai-compatible:http://127.0.0.1:${port}/v1#m`, '--json'], { cwd: work, env: env() });
    expect(down.code).toBe(6);
    expect(JSON.parse(down.stdout).error.code).toBeTypeOf('string');
  });
});

describe('skillbench registry serve --advisor', () => {
  const running = new Set<ChildProcess>();
  afterEach(() => {
    for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
    running.clear();
  });

  it('serves the guide’s analyze request (section 5.3) with the default advisor', async () => {
    const child = spawn(process.execPath, [BIN, 'registry', 'serve', '--store', `local:${join(work, 'registry')}`, '--port', '0', '--advisor', 'openai:smart'], {
      cwd: work,
      env: { PATH: process.env['PATH'] ?? '', ...env() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child);
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString('utf8');
        if (out.includes('\n')) resolve(out.split('\n')[0]!.trim());
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    await copyFile(EXAMPLE, join(work, 'weather-assessment.json'));
    // The guide's command, with only the host changed.
    const script = `cd '${work}'
curl -sS \\
  -X POST \\
  -H 'Content-Type: application/json' \\
  --data-binary @weather-assessment.json \\
  ${url}/travel/weather-assessment/analyze \\
  | jq`;
    // Asynchronously: the emulated model answers from this process.
    const session = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const bash = spawn('bash', ['-c', script], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let err = '';
      bash.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
      bash.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
      bash.on('close', (status) => resolve({ status, stdout, stderr: err }));
    });
    expect(session.status, session.stderr).toBe(0);
    const body = JSON.parse(session.stdout) as Json;
    expect(body.validation.valid).toBe(true);
    expect(body.analysis.proposals.map((p: Json) => p.id)).toEqual(['p1', 'p2']);
    expect(body.analysis.dropped).toHaveLength(2);
    expect(emulator.requests).toHaveLength(1);
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.on('exit', (c) => resolve(c))));
    expect(code).toBe(0);
    expect(stderr).toContain('POST /api/v1/skills/{namespace}/{name}/analyze 200');
    expect(stderr).toContain('authoring advisor on openai:smart');
    expect(stderr).not.toContain('Trip Weather Assessment');
    expect(stderr).not.toContain(KEY);

    const orphan = await runCli(['registry', 'serve', '--advisor-reasoning-effort', 'high'], { cwd: work, env: env() });
    expect(orphan.code).toBe(2);
    expect(orphan.stderr).toContain('--advisor-reasoning-effort needs --advisor MODEL');
  });
});
