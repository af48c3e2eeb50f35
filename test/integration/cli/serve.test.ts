/**
 * `skillbench serve` as a user runs it: the real binary prints the address
 * with its token, serves the API (on the embedded registry seeded with the
 * examples), opens the browser on request and stops cleanly on SIGINT/SIGTERM.
 */
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';
import { callApi, signIn, startServe } from '../../helpers/serve';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbench-serve-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Starts `skillbench serve` and signs in as a script does. */
async function serve(args: string[], env: Record<string, string> = {}) {
  const s = await startServe(args, { cwd: dir, env: { SKILLBENCH_HOME: join(dir, 'home'), ...env } });
  return s;
}

async function call(url: URL, method: string, params: unknown) {
  sessions.set(url.href, sessions.get(url.href) ?? (await signIn(url)));
  return callApi(url.origin, sessions.get(url.href)!, method, params);
}
const sessions = new Map<string, string>();

describe('skillbench serve', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('serves the seeded registry, then stops on %s with exit 0', async (signal) => {
    const s = await serve([]);
    expect(s.url.hostname).toBe('127.0.0.1');
    expect(s.url.searchParams.get('token')!.length).toBeGreaterThanOrEqual(40);
    const page = await call(s.url, 'catalog.page', { connection: 'default', query: 'weather' });
    expect(page.ok).toBe(true);
    expect(JSON.stringify(page.result)).toContain('weather-assessment');
    s.child.kill(signal);
    const done = await s.done;
    expect(done.code).toBe(0);
    expect(done.stderr).toContain(`${signal} received, stopping`);
    expect(done.stderr).not.toMatch(/internal error/);
  });

  it('opens the address in $BROWSER with --open', async () => {
    const opened = join(dir, 'opened.txt');
    const browser = join(dir, 'browser.sh');
    await writeFile(browser, `#!/bin/sh\necho "$1" > "${opened}"\n`);
    await chmod(browser, 0o755);
    const s = await serve(['--open'], { BROWSER: browser });
    await expect.poll(() => readFile(opened, 'utf8').catch(() => ''), { timeout: 10_000 }).toBe(`${s.url.href}\n`);
    s.child.kill('SIGTERM');
    expect((await s.done).code).toBe(0);
  });

  it('says when it cannot open a browser, and keeps serving', async () => {
    const s = await serve(['--open'], { BROWSER: join(dir, 'no-such-browser') });
    expect((await call(s.url, 'app.info', {})).ok).toBe(true);
    s.child.kill('SIGTERM');
    const done = await s.done;
    expect(done.code).toBe(0);
    expect(done.stderr).toContain('could not open a browser');
  });

  it('opens the example workspace by default, the folder of --workspace when given, and exits 5 on a missing one', async () => {
    const byDefault = await serve([]);
    const examples = await call(byDefault.url, 'workspace.list', {});
    expect(examples.ok).toBe(true);
    expect(JSON.stringify(examples.result)).toContain('skills/packages/travel/weather-assessment.json');
    byDefault.child.kill('SIGTERM');
    expect((await byDefault.done).code).toBe(0);

    const ws = join(dir, 'my-workspace');
    await mkdir(join(ws, 'skills', 'packages', 'team'), { recursive: true });
    await writeFile(join(ws, 'skills', 'packages', 'team', 'triage.json'), '{}');
    const s = await serve(['--workspace', 'my-workspace']);
    const list = await call(s.url, 'workspace.list', {});
    expect(list.result).toMatchObject({ entries: [{ path: 'skills/packages/team/triage.json', skill: { namespace: 'team', name: 'triage' } }] });
    expect(((await call(s.url, 'app.info', {})).result as { workspace: string }).workspace).toMatch(/my-workspace$/);
    s.child.kill('SIGTERM');
    expect((await s.done).code).toBe(0);

    const missing = await runCli(['serve', '--workspace', 'nope'], { cwd: dir, env: { SKILLBENCH_HOME: join(dir, 'home') } });
    expect(missing.code).toBe(5);
    expect(missing.stderr).toContain('no such folder');
  });

  it('with --host 0.0.0.0, answers at the addresses its warning names', async () => {
    const s = await serve(['--host', '0.0.0.0']);
    try {
      await expect.poll(() => s.stderr(), { timeout: 10_000 }).toContain('warning: 0.0.0.0 is not a loopback address');
      const warning = s.stderr().split('\n').find((l) => l.includes('warning'))!;
      const named = [...warning.matchAll(/http:\/\/[^\s,]+/g)].map((m) => new URL(m[0]));
      const lan = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).filter((i) => i.family === 'IPv4' && !i.internal).map((i) => i.address));
      expect(named.map((u) => u.hostname)).toEqual(expect.arrayContaining(lan));
      const session = await signIn(s.url);
      for (const url of named) {
        const res = await fetch(`${s.url.origin}/api/app.info`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${session}`, Host: url.host }, body: '{}' });
        expect(res.status, url.host).toBe(200);
      }
    } finally {
      s.child.kill('SIGTERM');
      await s.done;
    }
  });

  it('accepts the token --token-env names as a bearer, and refuses a missing or short one with exit 2', async () => {
    const token = 'serve-script-token-0123456789abcdefghij';
    const s = await serve(['--token-env', 'MY_SERVE_TOKEN'], { MY_SERVE_TOKEN: token });
    try {
      expect((await callApi(s.url.origin, token, 'app.info')).ok).toBe(true);
      expect((await callApi(s.url.origin, `${token}x`, 'app.info')).ok).toBe(false);
      expect(s.stderr()).not.toContain(token);
    } finally {
      s.child.kill('SIGTERM');
      await s.done;
    }
    const missing = await runCli(['serve', '--token-env', 'NOT_SET'], { cwd: dir, env: { SKILLBENCH_HOME: join(dir, 'home') } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--token-env NOT_SET');
    const short = await runCli(['serve', '--token-env', 'SHORT_TOKEN'], { cwd: dir, env: { SKILLBENCH_HOME: join(dir, 'home'), SHORT_TOKEN: 'abc' } });
    expect(short.code).toBe(2);
    expect(short.stderr).not.toContain('abc\n');
  });

  it('exits 6 naming the cause when the port is taken, and 2 on a bad flag', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = await runCli(['serve', '--port', String(port)], { cwd: dir, env: { SKILLBENCH_HOME: join(dir, 'home') } });
      expect(r.code).toBe(6);
      expect(r.stderr).toContain('already in use');
    } finally {
      blocker.close();
    }
    expect((await runCli(['serve', '--port', 'x'], { cwd: dir })).code).toBe(2);
    for (const bad of ['0', '0.5', '3601', '1e3', 'soon']) {
      const r = await runCli(['serve', '--stall-timeout', bad], { cwd: dir, env: { SKILLBENCH_HOME: join(dir, 'home') } });
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toContain(`--stall-timeout must be 1..3600 seconds, got '${bad}'`);
    }
  });
});
