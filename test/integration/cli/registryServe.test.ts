/**
 * `skillbench registry serve` as a user runs it: a real process, a real port, and
 * the curl commands of the guide's sections 5, 11 and 18 run by bash unchanged
 * (only the host and the scratch-file folder differ), then SIGTERM.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'skillbench.mjs');
const EXAMPLE = join(ROOT, 'examples', 'skills', 'packages', 'travel', 'weather-assessment.json');

interface Served {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON bodies are navigated freely in assertions
type Json = any;

const running = new Set<ChildProcess>();
afterEach(() => {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  running.clear();
});

/** Starts `skillbench registry serve ARGS` and resolves with the URL it prints first. */
function serve(args: string[], env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'registry', 'serve', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let out = '';
  let err = '';
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within 150 s; stderr: ${err}`)), 150_000);
    child.stderr?.on('data', (c: Buffer) => (err += c.toString('utf8')));
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      const line = out.split('\n')[0];
      if (out.includes('\n') && line !== undefined) {
        clearTimeout(timer);
        resolve({ child, url: line.trim(), stdout: () => out, stderr: () => err, exit });
      }
    });
    void exit.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}) before printing a URL; stderr: ${err}`));
    });
  });
}

function bash(script: string, env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('bash', ['-c', script], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 170_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Splits the session's stdout at `=== step` markers into parsed JSON documents. */
function sections(stdout: string): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const part of stdout.split(/^=== /m).slice(1)) {
    const nl = part.indexOf('\n');
    const name = part.slice(0, nl).trim();
    const text = part.slice(nl + 1).trim();
    out[name] = text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text;
  }
  return out;
}

const SESSION = join(ROOT, 'test', 'integration', 'cli', 'fixtures', 'guideSession.sh');

/** The guide's session for a served URL: only the host and the scratch-file folder change. */
async function guideSession(url: string, work: string): Promise<string> {
  const text = await readFile(SESSION, 'utf8');
  return `cd '${work}'\n${text.replaceAll('http://registry.localhost/api/v1/skills', url).replaceAll('/tmp/', `${work}/`)}`;
}

describe('skillbench registry serve', () => {
  it('serves the guide’s curl session unchanged and stops with exit 0 on SIGTERM', async () => {
    const work = await mkdtemp(join(tmpdir(), 'skillbench-serve-'));
    try {
      await copyFile(EXAMPLE, join(work, 'weather-assessment.json'));
      const served = await serve(['--store', `local:${join(work, 'registry')}`, '--port', '0']);
      expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/skills$/);

      const session = bash(await guideSession(served.url, work), {});
      expect(session.status, session.stderr).toBe(0);
      const s = sections(session.stdout);

      expect(s['schema']).toBeTypeOf('object');
      expect(s['validate'].validation).toMatchObject({ valid: true, errors: [] });
      expect(s['validate'].normalized.display_name).toBe('Trip Weather Assessment');
      expect(s['first-publish']).toMatchObject({ outcome: 'created', namespace: 'travel', name: 'weather-assessment', version: 1, audit_recorded: true });
      expect(s['first-etag']).toBe(s['first-publish'].etag);
      expect(s['update']).toMatchObject({ outcome: 'published', version: 2, replayed: false });
      expect(s['replay']).toMatchObject({ outcome: 'published', version: 2, replayed: true, etag: s['update'].etag });
      expect(s['stale-status']).toBe('412');
      expect(s['list'].skills.map((m: { name: string }) => m.name)).toEqual(['weather-assessment']);
      expect(s['list'].skills[0]).toMatchObject({ version: 5, domains: ['travel'] });
      expect(s['read']).toMatchObject({ version: 5, published: true });
      expect(s['read'].package.change_reason).toBe('Revision 5');
      expect(s['versions'].versions.map((v: { version: number }) => v.version)).toEqual([5, 4, 3, 2, 1]);
      expect(s['versions'].versions[0].protection).toBe('published');
      expect(s['version-2']).toMatchObject({ version: 2, published: false });
      expect(s['version-2'].package.change_reason).toBe('Sharpen the trigger vocabulary');
      expect(s['delete-one']).toMatchObject({ deleted: [1], already_deleted: [], audit_recorded: true });
      expect(s['delete-range']).toMatchObject({ deleted: [2, 3], already_deleted: [1] });
      expect(s['delete-protected'].error.code).toBe('conflict');

      const audit = (await readFile(join(work, 'registry', 'audit.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
      expect(audit.filter((e) => e.action === 'delete').map((e) => e.reason)).toEqual([
        'Retention review completed',
        'Remove revisions past the execution retention window',
      ]);

      served.child.kill('SIGTERM');
      const exit = await served.exit;
      expect(exit).toEqual({ code: 0, signal: null });
      const log = served.stderr();
      expect(log).toContain('PUT /api/v1/skills/{namespace}/{name} 201');
      expect(log).toContain('DELETE /api/v1/skills/{namespace}/{name}/versions 409');
      expect(log).toContain('SIGTERM received, stopping');
      for (const secret of ['travel-weather-initial', s['update'].etag, 'Retention review completed', 'Trip Weather Assessment']) {
        expect(log).not.toContain(secret);
      }
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });

  it('requires the bearer token from --token-env, never shows it, and stops on SIGINT', async () => {
    const work = await mkdtemp(join(tmpdir(), 'skillbench-serve-'));
    const token = 'tok-from-env-5b7e21';
    try {
      const served = await serve(['--store', `local:${join(work, 'registry')}`, '--port', '0', '--token-env', 'SB_TEST_TOKEN', '--json'], {
        SB_TEST_TOKEN: token,
      });
      const first = JSON.parse(served.url) as { url: string; store: string };
      expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/skills$/);
      const probe = bash(
        String.raw`
          curl -sS -o /dev/null -w '%{http_code} ' "$API"
          curl -sS -D - -o /dev/null "$API" | tr -d '\r' | awk 'tolower($1) == "www-authenticate:" {print $2, $3}'
          curl -sS -o /dev/null -w '%{http_code} ' -H "Authorization: Bearer wrong" "$API"
          curl -sS -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $SB_TEST_TOKEN" "$API"
        `,
        { API: first.url, SB_TEST_TOKEN: token },
      );
      expect(probe.status, probe.stderr).toBe(0);
      expect(probe.stdout.replace(/\s+/g, ' ').trim()).toBe('401 Bearer realm="skillbench" 401 200');
      const args = readCmdline(served.child.pid ?? 0);
      expect(args).not.toContain(token);
      served.child.kill('SIGINT');
      expect(await served.exit).toEqual({ code: 0, signal: null });
      expect(served.stdout() + served.stderr()).not.toContain(token);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });

  it('warns when binding a non-loopback address without a token, and refuses a taken port with exit 6', async () => {
    const work = await mkdtemp(join(tmpdir(), 'skillbench-serve-'));
    try {
      const open = await serve(['--store', `local:${join(work, 'registry')}`, '--host', '0.0.0.0', '--port', '0']);
      await waitFor(() => open.stderr().includes('serving'));
      expect(open.stderr()).toContain('warning: 0.0.0.0 is not a loopback address and no token is set');
      const port = new URL(open.url).port;
      const taken = spawnSync(process.execPath, [BIN, 'registry', 'serve', '--store', `local:${join(work, 'other')}`, '--host', '0.0.0.0', '--port', port], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(taken.status).toBe(6);
      expect(taken.stderr).toContain('the port is already in use');
      open.child.kill('SIGTERM');
      expect((await open.exit).code).toBe(0);

      const usage = spawnSync(process.execPath, [BIN, 'registry', 'serve', '--token', 'a', '--token-env', 'B'], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
      expect(usage.status).toBe(2);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});

function readCmdline(pid: number): string {
  const r = spawnSync('cat', [`/proc/${pid}/cmdline`], { encoding: 'utf8' });
  return r.stdout.replace(/\0/g, ' ');
}

async function waitFor(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
