/**
 * `npm start` where Electron's binary is absent (as after an install with
 * ELECTRON_SKIP_BINARY_DOWNLOAD): the real script builds the UI if needed,
 * says in one line that it falls back, and runs `skillbench serve --open`,
 * which serves the built UI and the API on the embedded registry seeded with
 * the example skills, with no configuration; SIGTERM stops it with exit 0.
 *
 * Electron's own ELECTRON_OVERRIDE_DIST_PATH points at an empty folder, so the
 * binary is absent even on a machine that has it.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRendererBuilt } from '../../../scripts/rendererBuild.mjs';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const START = join(ROOT, 'scripts', 'start.mjs');

/** A stand-in Electron binary where Electron's ELECTRON_OVERRIDE_DIST_PATH looks: it records its arguments and exits 3. */
async function fakeElectron(): Promise<{ dist: string; args: string }> {
  const dist = join(dir, 'fake-electron');
  const args = join(dir, 'electron-args.txt');
  await mkdir(dist, { recursive: true });
  await writeFile(join(dist, 'electron'), `#!/bin/sh\nprintf '%s\\n' "$@" > "${args}"\nexit 3\n`);
  await chmod(join(dist, 'electron'), 0o755);
  return { dist, args };
}

function runStart(env: Record<string, string>) {
  const child = spawn(process.execPath, [START], { cwd: dir, env: { PATH: process.env['PATH'] ?? '', SKILLBENCH_HOME: join(dir, 'home'), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (c) => (out.stdout += String(c)));
  child.stderr.on('data', (c) => (out.stderr += String(c)));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, out, exited };
}

let dir: string;
beforeAll(async () => {
  // `npm test` builds the renderer beside these tests: wait for that build (its lock) or
  // make it here, so the script under test finds the UI built and never races a build.
  ensureRendererBuilt();
  dir = await mkdtemp(join(tmpdir(), 'skillbench-start-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('npm start', () => {
  it('says so in one line, then serves the built workbench on the seeded registry and opens the browser', async () => {
    const opened = join(dir, 'opened.txt');
    const browser = join(dir, 'browser.sh');
    await writeFile(browser, `#!/bin/sh\necho "$1" > "${opened}"\n`);
    await chmod(browser, 0o755);
    const child = spawn(process.execPath, [START], {
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '', SKILLBENCH_HOME: join(dir, 'home'), BROWSER: browser, ELECTRON_OVERRIDE_DIST_PATH: join(dir, 'no-electron') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += String(c)));
    child.stderr.on('data', (c) => (stderr += String(c)));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      await expect.poll(() => stdout.includes('\n') || child.exitCode !== null, { timeout: 150_000 }).toBe(true);
      const url = new URL(stdout.split('\n')[0]!);
      expect(url.hostname).toBe('127.0.0.1');

      const notices = stderr.split('\n').filter((l) => /electron/i.test(l));
      expect(notices).toEqual(["skillbench: Electron's binary is not installed here (npm run install:electron fetches it), so the workbench opens in your browser instead (skillbench serve --open)"]);
      await expect.poll(() => readFile(opened, 'utf8').catch(() => ''), { timeout: 10_000 }).toBe(`${url.href}\n`);

      // The token link becomes a session cookie, and the page is the built UI (its bundle, under the CSP).
      const exchange = await fetch(url, { redirect: 'manual' });
      expect(exchange.status).toBe(303);
      const cookie = exchange.headers.get('set-cookie')!.split(';')[0]!;
      const page = await fetch(new URL('/', url), { headers: { Cookie: cookie } });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
      const html = await page.text();
      expect(html).toMatch(/<script type="module"[^>]*src="\.\/assets\/index-[^"]+\.js"/);

      const res = await fetch(new URL('/api/catalog.page', url), { method: 'POST', headers: { Cookie: cookie, 'Content-Type': 'application/json' }, body: JSON.stringify({ connection: 'default' }) });
      const envelope = (await res.json()) as { ok: boolean; result: { items: { namespace: string; name: string }[] } };
      expect(envelope.ok).toBe(true);
      expect(envelope.result.items.map((i) => `${i.namespace}/${i.name}`)).toContain('travel/weather-assessment');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(stderr).toContain('SIGTERM received, stopping');
  }, 180_000);

  it.runIf(process.platform === 'linux')('falls back the same way on Linux without a display, even with Electron installed', async () => {
    const fake = await fakeElectron();
    const run = runStart({ ELECTRON_OVERRIDE_DIST_PATH: fake.dist, BROWSER: 'true' });
    try {
      await expect.poll(() => run.out.stdout.includes('\n') || run.child.exitCode !== null, { timeout: 150_000 }).toBe(true);
      expect(new URL(run.out.stdout.split('\n')[0]!).hostname).toBe('127.0.0.1');
      expect(run.out.stderr).toContain('skillbench: there is no display here ($DISPLAY is not set), so the workbench opens in your browser instead (skillbench serve --open)\n');
    } finally {
      run.child.kill('SIGTERM');
    }
    expect(await run.exited).toBe(0);
    expect(existsSync(fake.args)).toBe(false);
  }, 180_000);

  it('launches Electron on the project with the shell built, and exits with its code', async () => {
    const fake = await fakeElectron();
    const run = runStart({ ELECTRON_OVERRIDE_DIST_PATH: fake.dist, DISPLAY: ':99', WAYLAND_DISPLAY: 'wayland-0' });
    expect(await run.exited, run.out.stderr).toBe(3);
    expect(resolve((await readFile(fake.args, 'utf8')).trim())).toBe(resolve(ROOT));
    expect(run.out.stderr).not.toMatch(/browser instead/);
    expect(run.out.stdout).toBe('');
    for (const file of ['main.mjs', 'preload.cjs']) expect(existsSync(join(ROOT, 'dist', 'electron', file)), file).toBe(true);
  }, 180_000);
});
