/**
 * Marker secrets through `skillbench serve`, the real binary: model keys and
 * the registry token in its environment, and its own access token, never
 * appear in any API response (HTTP or WebSocket, successes and failures), in
 * any page, or in any file the workbench writes (the app-data folder, run
 * folders, exports, the working directory). The model keys never appear in
 * its logs either; the access token appears only in the address it prints.
 *
 * One model is an emulated OpenAI-compatible server that refuses the key and
 * echoes it in its error message, as hosted APIs do with part of a key.
 */
import { readFile, readdir, rm, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli } from '../../helpers/cli';
import { signIn } from '../../helpers/serve';
import { startChatEndpoint, type ChatEndpoint } from '../../helpers/chatEndpoint';

const MARKERS = {
  OPENAI_API_KEY: 'sk-proj-MARKERopenai7Qx9Zt3Lw8Vb2Nc5',
  ANTHROPIC_API_KEY: 'sk-ant-api03-MARKERanthropic4Hk8Jd2Pq',
  OPENAI_COMPATIBLE_API_KEY: 'MARKERcompatible9Tz3Wy6Rb1Lq',
  SKILLBENCH_REGISTRY_TOKEN: 'MARKERregistry5Gv2Ns8Ke4Ud',
};

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

describe('secrets through skillbench serve', () => {
  let dir: string;
  let endpoint: ChatEndpoint;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbench-secrets-'));
    endpoint = await startChatEndpoint(() => ({ status: 401, message: `Incorrect API key provided: ${MARKERS.OPENAI_COMPATIBLE_API_KEY}` }));
  });
  afterAll(async () => {
    await endpoint?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('never shows a marker secret in a response, a page or a written file', async () => {
    const home = join(dir, 'home');
    const run = startCli(['serve'], { cwd: dir, env: { SKILLBENCH_HOME: home, ...MARKERS } });
    const address = await new Promise<URL>((resolve, reject) => {
      let out = '';
      run.child.stdout!.on('data', (c) => {
        out += String(c);
        if (out.includes('\n')) resolve(new URL(out.split('\n')[0]!));
      });
      void run.done.then((r) => reject(new Error(`serve exited early (${r.code}): ${r.stderr}`)));
    });
    const code = address.searchParams.get('token')!;
    const token = await signIn(address);
    const secrets = [...Object.values(MARKERS), code, token];
    const seen: string[] = [];
    const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` };
    const http = async (method: string, params: unknown, extra: Record<string, string> = {}) => {
      const res = await fetch(new URL(`/api/${method}`, address), { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(params) });
      const text = await res.text();
      seen.push(JSON.stringify([...res.headers]), text);
      return JSON.parse(text) as { ok: boolean; result?: Record<string, unknown>; error?: Record<string, unknown> };
    };

    try {
      const emulated = `openai-compatible:${endpoint.baseUrl}#emulated`;
      expect((await http('app.info', {})).ok).toBe(true);
      const models = await http('models.list', {});
      expect(models.ok).toBe(true);
      await http('models.check', { spec: 'openai:fast' });
      await http('models.check', { spec: `openai-compatible:http://user:${MARKERS.OPENAI_API_KEY}@127.0.0.1:1/v1#m` });
      await http('connections.list', {});
      await http('catalog.page', { connection: 'default' });
      const pkg = await http('packages.get', { connection: 'default', skill: { namespace: 'travel', name: 'weather-assessment' } });
      expect(pkg.ok).toBe(true);
      await http('validate.package', { source: { kind: 'text', text: '{"name": 1}' } });
      // Failures: an unknown method, bad parameters, a missing skill, a foreign origin, no token.
      await http('shell.exec', {});
      await http('catalog.page', { connection: 'Not A Slug' });
      await http('packages.get', { connection: 'default', skill: { namespace: 'travel', name: 'missing' } });
      await http('app.info', {}, { Origin: 'https://evil.example' });
      await http('app.info', {}, { Authorization: `Bearer ${MARKERS.SKILLBENCH_REGISTRY_TOKEN}` });
      for (const path of ['/', `/?token=${MARKERS.OPENAI_API_KEY}`, '/missing.js']) {
        const res = await fetch(new URL(path, address), { redirect: 'manual' });
        seen.push(JSON.stringify([...res.headers]), await res.text());
      }

      // An eval run: a baseline and the emulated model that refuses the key and echoes it.
      const request = { targets: [{ kind: 'published', skill: { namespace: 'travel', name: 'weather-assessment' } }], models: ['baseline:lexical', emulated], connection: 'default', timeout_ms: 5000 };
      await http('evals.plan', request);
      const started = await http('evals.start', request);
      expect(started.ok).toBe(true);
      const runId = String((started.result as { run: string }).run);
      await expect.poll(async () => ((await http('evals.get', { run: runId })).result as { run?: { status?: string } } | undefined)?.run?.status, { timeout: 60_000 }).toMatch(/complete|incomplete|failed/);
      await http('evals.cells', { run: runId });
      for (const format of ['json', 'junit', 'markdown', 'html']) await http('evals.export', { run: runId, format });
      expect(endpoint.count).toBeGreaterThan(0);

      // The same over the WebSocket, with events.
      const ws = new WebSocket(`${address.origin.replace('http', 'ws')}/api/ws`, { headers: { Authorization: `Bearer ${token}` }, origin: address.origin });
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      ws.on('message', (data) => seen.push(String(data)));
      ws.send(JSON.stringify({ type: 'subscribe', events: ['evals.started', 'evals.progressed', 'evals.finished', 'connections.changed'] }));
      ws.send(JSON.stringify({ id: 1, method: 'models.list', params: {} }));
      ws.send(JSON.stringify({ id: 2, method: 'evals.start', params: { ...request, cache: false } }));
      await expect.poll(() => seen.some((m) => m.includes('"event":"evals.finished"')), { timeout: 60_000 }).toBe(true);
      ws.close();
    } finally {
      run.child.kill('SIGTERM');
    }
    const done = await run.done;
    expect(done.code).toBe(0);

    const leaks = (text: string) => secrets.filter((s) => text.includes(s));
    expect(seen.length).toBeGreaterThan(30);
    for (const text of seen) expect(leaks(text), text.slice(0, 300)).toEqual([]);
    const files = [...(await filesUnder(home)), ...(await filesUnder(dir)).filter((f) => !f.startsWith(home))];
    expect(files.some((f) => f.includes('registry'))).toBe(true);
    for (const file of files) expect(leaks(await readFile(file, 'latin1')), file).toEqual([]);
    // Logs: no model key or registry token, never the session; the sign-in code only inside the printed address.
    const logs = `${done.stdout}\n${done.stderr}`;
    expect(Object.values(MARKERS).filter((s) => logs.includes(s))).toEqual([]);
    expect(logs.replaceAll(address.href, '').includes(code)).toBe(false);
    expect(logs.includes(token)).toBe(false);
  }, 180_000);
});
