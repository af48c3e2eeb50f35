/**
 * `skillbench serve` as a user runs it: the real binary prints the address
 * with its token, serves the API (on the embedded registry seeded with the
 * examples), opens the browser on request and stops cleanly on SIGINT/SIGTERM.
 */
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli } from '../../helpers/cli';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbench-serve-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Starts `skillbench serve`, resolves with the process and the address it printed. */
async function serve(args: string[], env: Record<string, string> = {}) {
  const run = startCli(['serve', ...args], { cwd: dir, env: { SKILLBENCH_HOME: join(dir, 'home'), ...env } });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    run.child.stdout!.on('data', (c) => {
      out += String(c);
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve(line);
    });
    void run.done.then((r) => reject(new Error(`serve exited early (${r.code}): ${r.stderr}`)));
  });
  return { ...run, url: new URL(url) };
}

async function call(url: URL, method: string, params: unknown) {
  const res = await fetch(`${url.origin}/api/${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${url.searchParams.get('token')}` },
    body: JSON.stringify(params),
  });
  return (await res.json()) as { ok: boolean; result?: Record<string, unknown> };
}

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
  });
});
