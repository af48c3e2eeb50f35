/**
 * One redactor for every output: the same marker secrets, set the way a
 * deployment sets them (`AWS_SECRET_ACCESS_KEY`, `REDIS_PASS`, and a password
 * inside `DB_URL=redis://…`), are swept through the three faces of Skillbench,
 * and none of them shows anywhere:
 *
 * - the CLI (`skillbench eval`, `get`, `list`): stdout, stderr, reports and
 *   run files;
 * - the web host (the real `skillbench serve`): HTTP answers, WebSocket
 *   answers and events, exports, its logs and the files it writes;
 * - IPC (the built Electron main process over the stand-ins of
 *   electronStandIns.ts): answers, events and its log lines.
 *
 * Every face gets inputs that echo the markers back: an emulated
 * OpenAI-compatible server (a real local HTTP server speaking the documented
 * wire format) that refuses each call and quotes all three in its error, as
 * hosted APIs quote what they were sent; a folder and a model spec naming
 * them; a registry address carrying the password.
 */
import { spawnSync } from 'node:child_process';
import { readdir, readFile, rm, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL } from '../../../core/api/bridge';
import { startChatEndpoint, type ChatEndpoint } from '../../helpers/chatEndpoint';
import { runCli } from '../../helpers/cli';
import { BrowserWindowStandIn, IpcRendererStandIn, MAIN_PROCESS_WAIT_MS, electronModuleStandIn } from '../../helpers/electronStandIns';
import { signIn, startServe } from '../../helpers/serve';

const AWS = 'MARKERaws/Secret+9Kq3Lw8Vb2Nc5';
const REDIS_PASS = 'MARKERredisPass4Hk8Jd2Pq';
const DB_PASSWORD = 'MARKERdbPass7Tz3Wy6';
const ENV = { AWS_SECRET_ACCESS_KEY: AWS, REDIS_PASS, DB_URL: `redis://svc:${DB_PASSWORD}@127.0.0.1:1/0` };
const MARKERS = [AWS, REDIS_PASS, DB_PASSWORD];

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SKILL = { namespace: 'travel', name: 'weather-assessment' };

/** The markers (or their URL-encoded forms) found in `text`. */
function leaks(text: string): string[] {
  return MARKERS.filter((m) => text.includes(m) || text.includes(encodeURIComponent(m)));
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

async function expectNoMarkerInFiles(dir: string): Promise<void> {
  const files = await filesUnder(dir);
  expect(files.length).toBeGreaterThan(0);
  for (const file of files) expect(leaks(await readFile(file, 'latin1')), file).toEqual([]);
}

let dir: string;
let endpoint: ChatEndpoint;
/** A model whose every call is refused with all three markers quoted. */
let echoing: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbench-sweep-'));
  endpoint = await startChatEndpoint(() => ({ status: 401, message: `Incorrect API key provided: ${AWS} (redis said ${REDIS_PASS}; tried ${ENV.DB_URL})` }));
  echoing = `openai-compatible:${endpoint.baseUrl}#emulated`;
});
afterAll(async () => {
  await endpoint?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The calls every host answers: each echoes the markers back unless they are redacted. */
const PROBES: [string, Record<string, unknown>][] = [
  ['models.check', { spec: `openai-compatible:http://127.0.0.1:1/v1#${AWS}` }],
  ['models.check', { spec: `nope:${REDIS_PASS}` }],
  ['workspace.open', { dir: join(tmpdir(), `no-such-${DB_PASSWORD}`) }],
  ['catalog.page', { connection: 'default', query: AWS }],
];

describe('the marker secrets through every face', () => {
  it('the CLI: stdout, stderr, reports and run files', async () => {
    const cwd = await mkdtemp(join(dir, 'cli-'));
    const env = { SKILLBENCH_HOME: join(cwd, 'home'), ...ENV };
    const runs = [
      await runCli(['eval', `${SKILL.namespace}/${SKILL.name}`, '--model', echoing, '--no-cache', '--json', 'report.json', '--markdown', 'report.md'], { cwd, env }),
      await runCli(['get', `${SKILL.namespace}/${SKILL.name}`, '--from', `local:${join(cwd, `missing-${AWS.replace(/\//g, '')}`)}`], { cwd, env }),
      await runCli(['list', '--from', ENV.DB_URL], { cwd, env }),
    ];
    expect(endpoint.count).toBeGreaterThan(0);
    for (const run of runs) expect(leaks(`${run.stdout}\n${run.stderr}`), run.stderr).toEqual([]);
    await expectNoMarkerInFiles(cwd);
  }, 180_000);

  it('the web host: HTTP answers, WebSocket answers and events, exports, logs and files', async () => {
    const cwd = await mkdtemp(join(dir, 'serve-'));
    const serve = await startServe([], { cwd, env: { SKILLBENCH_HOME: join(cwd, 'home'), ...ENV } });
    const seen: string[] = [];
    try {
      const session = await signIn(serve.url);
      const http = async (method: string, params: unknown) => {
        const res = await fetch(`${serve.url.origin}/api/${method}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${session}` }, body: JSON.stringify(params) });
        const text = await res.text();
        seen.push(text);
        return JSON.parse(text) as { ok: boolean; result?: Record<string, unknown> };
      };
      for (const [method, params] of PROBES) await http(method, params);

      const ws = new WebSocket(`${serve.url.origin.replace('http', 'ws')}/api/ws`, { headers: { Authorization: `Bearer ${session}` }, origin: serve.url.origin });
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      ws.on('message', (data) => seen.push(String(data)));
      ws.send(JSON.stringify({ type: 'subscribe', events: ['evals.started', 'evals.progressed', 'evals.finished', 'connections.changed'] }));
      PROBES.forEach(([method, params], i) => ws.send(JSON.stringify({ id: i, method, params })));
      const request = { targets: [{ kind: 'published', skill: SKILL }], models: [echoing], connection: 'default', cache: false, timeout_ms: 5000 };
      const started = await http('evals.start', request);
      expect(started.ok).toBe(true);
      const run = String((started.result as { run: string }).run);
      await expect.poll(() => seen.some((m) => m.includes('"event":"evals.finished"')), { timeout: 120_000 }).toBe(true);
      ws.close();
      await http('evals.get', { run });
      const cells = await http('evals.cells', { run });
      expect(JSON.stringify(cells)).toContain('Incorrect API key provided');
      for (const format of ['json', 'junit', 'markdown', 'html']) await http('evals.export', { run, format });
    } finally {
      serve.child.kill('SIGTERM');
    }
    const done = await serve.done;
    expect(done.code).toBe(0);
    expect(seen.length).toBeGreaterThan(15);
    for (const text of seen) expect(leaks(text), text.slice(0, 300)).toEqual([]);
    expect(leaks(`${done.stdout}\n${done.stderr}`)).toEqual([]);
    await expectNoMarkerInFiles(cwd);
  }, 240_000);

  describe('IPC of the desktop app', () => {
    let env: ReturnType<typeof electronModuleStandIn> | undefined;
    beforeAll(() => {
      const built = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-electron.mjs')], { cwd: ROOT, encoding: 'utf8' });
      expect(built.status, built.stderr).toBe(0);
    }, 120_000);
    afterEach(() => {
      vi.doUnmock('electron');
      vi.resetModules();
      vi.unstubAllEnvs();
      vi.restoreAllMocks();
    });

    it('answers, events and the log lines of the main process', async () => {
      const home = await mkdtemp(join(dir, 'desktop-'));
      vi.stubEnv('SKILLBENCH_HOME', join(home, 'home'));
      for (const [name, value] of Object.entries(ENV)) vi.stubEnv(name, value);
      const logged: string[] = [];
      const write = process.stderr.write.bind(process.stderr);
      vi.spyOn(process.stderr, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) => {
        logged.push(String(chunk));
        return (write as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
      }) as typeof process.stderr.write);

      env = electronModuleStandIn({ userData: join(home, 'user-data') });
      vi.doMock('electron', () => env!.module);
      await import(/* @vite-ignore */ `${join(ROOT, 'dist', 'electron', 'main.mjs')}?sweep=${Date.now()}`);
      env.ready();
      await vi.waitFor(() => expect(BrowserWindowStandIn.all[0]?.loaded).toHaveLength(1), { timeout: MAIN_PROCESS_WAIT_MS });
      const window = BrowserWindowStandIn.all[0]!;
      const renderer = new IpcRendererStandIn(env.ipcMain, window.webContents);
      const seen: string[] = [];
      renderer.on(IPC_EVENT_CHANNEL, (_event, ...args) => seen.push(JSON.stringify(args)));
      const invoke = async (method: string, params: unknown) => {
        const answer = await renderer.invoke(IPC_CALL_CHANNEL, method, params);
        seen.push(JSON.stringify(answer));
        return answer as { ok: boolean; result?: Record<string, unknown> };
      };
      for (const [method, params] of PROBES) await invoke(method, params);
      const started = await invoke('evals.start', { targets: [{ kind: 'published', skill: SKILL }], models: [echoing], connection: 'default', cache: false, timeout_ms: 5000 });
      expect(started.ok).toBe(true);
      const run = String((started.result as { run: string }).run);
      await vi.waitFor(() => expect(seen.some((m) => m.includes('evals.finished'))).toBe(true), { timeout: 120_000 });
      const cells = await invoke('evals.cells', { run });
      expect(JSON.stringify(cells)).toContain('Incorrect API key provided');
      for (const format of ['json', 'markdown']) await invoke('evals.export', { run, format });
      // A call from a frame the shell refuses is logged: the log line passes the redactor too.
      renderer.frame = { url: `https://evil.example/${AWS}`, parent: null };
      await renderer.invoke(IPC_CALL_CHANNEL, 'app.info', {});

      env.app.quit();
      await vi.waitFor(() => expect(env!.calls).toContain('quitted'), { timeout: MAIN_PROCESS_WAIT_MS });
      expect(seen.length).toBeGreaterThan(8);
      for (const text of seen) expect(leaks(text), text.slice(0, 300)).toEqual([]);
      expect(logged.some((l) => l.startsWith('skillbench: '))).toBe(true);
      expect(leaks(logged.join(''))).toEqual([]);
      await expectNoMarkerInFiles(home);
    }, 240_000);
  });
});
