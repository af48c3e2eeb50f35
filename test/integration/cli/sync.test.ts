/**
 * `skillbench check` and `skillbench sync` through the CLI, against
 * the embedded local registry and a real redis-server: a drift report that
 * changes nothing (not even creating a registry), a sync that publishes only
 * what changed, never deletes and reads every publication back, and a stop on
 * a store that returns a damaged revision.
 */
import { cp, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';
import { startRedis, type RedisSetup } from '../../helpers/redis';

const EXAMPLES = new URL('../../../examples/skills/packages/', import.meta.url);
const WEATHER = 'skills/packages/travel/weather-assessment.json';

let dir: string;
const env = () => ({ SKILLBENCH_HOME: join(dir, 'home') });
const cli = (args: string[]) => runCli(args, { cwd: dir, env: env() });

async function freshWorkspace(name: string): Promise<string> {
  const ws = join(dir, name);
  await cp(EXAMPLES, join(ws, 'skills', 'packages'), { recursive: true });
  return ws;
}

async function edit(file: string, change: (pkg: Record<string, unknown> & { tags: string[] }) => void): Promise<void> {
  const pkg = JSON.parse(await readFile(file, 'utf8'));
  change(pkg);
  await writeFile(file, `${JSON.stringify(pkg, null, 2)}\n`);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbench-sync-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('check and sync against the local registry', () => {
  it('reports a registry that does not exist without creating it, then syncs, checks clean and rolls a change forward', async () => {
    const ws = await freshWorkspace('ws-local');
    const missing = await cli(['check', '--from', 'ws-local', '--to', 'local:reg']);
    expect(missing.code).toBe(5);
    expect(missing.stderr).toContain('no Skillbench registry');
    await expect(stat(join(dir, 'reg'))).rejects.toMatchObject({ code: 'ENOENT' });

    const first = await cli(['sync', '--from', 'ws-local', '--to', 'local:reg', '--json']);
    expect(first.code).toBe(0);
    const synced = JSON.parse(first.stdout);
    expect(synced.packages).toHaveLength(8);
    expect(synced.packages.every((p: { action: string; verified: boolean; version: number }) => p.action === 'created' && p.verified && p.version === 1)).toBe(true);

    const clean = await cli(['check', '--from', 'ws-local', '--to', 'local:reg', '--json']);
    expect(clean.code).toBe(0);
    expect(JSON.parse(clean.stdout)).toMatchObject({ in_sync: true, counts: { equal: 8, changed: 0, missing_remotely: 0, only_remote: 0 } });

    // One real change, one change of change_reason alone (not a new revision), one new package, one stray file.
    await edit(join(ws, WEATHER), (p) => p.tags.push('storms'));
    await edit(join(ws, 'skills/packages/travel/currency-conversion.json'), (p) => (p['change_reason'] = 'reworded the reason only'));
    await cp(join(ws, WEATHER), join(ws, 'skills/packages/travel/storm-watch.json'));
    await writeFile(join(ws, 'skills/packages/travel/.DS_Store'), '');
    const before = await snapshot(join(dir, 'reg'));
    const drift = await cli(['check', '--from', 'ws-local', '--to', 'local:reg', '--json']);
    expect(drift.code).toBe(1);
    const report = JSON.parse(drift.stdout);
    expect(report.in_sync).toBe(false);
    expect(report.counts).toMatchObject({ equal: 7, changed: 1, missing_remotely: 1 });
    expect(report.packages.find((p: { skill: { name: string } }) => p.skill.name === 'weather-assessment')).toMatchObject({ status: 'changed', path: WEATHER, remote: { version: 1 } });
    expect(report.packages.find((p: { skill: { name: string } }) => p.skill.name === 'currency-conversion').status).toBe('equal');
    expect(drift.stderr).toContain('missing in the store');
    // The check wrote nothing into the registry.
    expect(await snapshot(join(dir, 'reg'))).toEqual(before);

    const second = await cli(['sync', '--from', 'ws-local', '--to', 'local:reg', '--json']);
    expect(second.code).toBe(0);
    const actions = Object.fromEntries(JSON.parse(second.stdout).packages.map((p: { skill: { name: string }; action: string; version: number }) => [p.skill.name, `${p.action}@${p.version}`]));
    expect(actions).toMatchObject({ 'weather-assessment': 'published@2', 'storm-watch': 'created@1', 'currency-conversion': 'skipped@1', 'incident-response': 'skipped@1' });
    const get = JSON.parse((await cli(['get', 'travel/weather-assessment', '--from', 'local:reg', '--json'])).stdout);
    expect(get.version).toBe(2);
    expect(get.package.tags).toContain('storms');

    // A package the folder no longer has is only reported, never deleted.
    await rm(join(ws, 'skills/packages/travel/storm-watch.json'));
    const onlyRemote = await cli(['check', '--from', 'ws-local', '--to', 'local:reg', '--json']);
    expect(onlyRemote.code).toBe(0);
    expect(JSON.parse(onlyRemote.stdout).packages.find((p: { skill: { name: string } }) => p.skill.name === 'storm-watch')).toMatchObject({ status: 'only_remote', remote: { version: 1 } });
    expect((await cli(['sync', '--from', 'ws-local', '--to', 'local:reg'])).code).toBe(0);
    expect((await cli(['get', 'travel/storm-watch', '--from', 'local:reg'])).code).toBe(0);
  });

  it('refuses to sync anything when one file is invalid, naming the file, line and column', async () => {
    const ws = await freshWorkspace('ws-invalid');
    expect((await cli(['sync', '--from', 'ws-invalid', '--to', 'local:reg-invalid'])).code).toBe(0);
    await edit(join(ws, WEATHER), (p) => p.tags.push('another'));
    await writeFile(join(ws, 'skills/packages/devops/incident-response.json'), '{\n  "display_name": 42\n}\n');
    await writeFile(join(ws, 'skills/packages/devops/notes.txt'), 'stray');
    const refused = await cli(['sync', '--from', 'ws-invalid', '--to', 'local:reg-invalid']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/skills\/packages\/devops\/incident-response\.json:2:\d+: error/);
    expect(refused.stderr).toContain('notes.txt');
    expect(refused.stderr).toContain('nothing was published');
    const weather = JSON.parse((await cli(['get', 'travel/weather-assessment', '--from', 'local:reg-invalid', '--json'])).stdout);
    expect(weather.version).toBe(1);
    expect((await cli(['check', '--from', 'ws-invalid', '--to', 'local:reg-invalid'])).code).toBe(1);
  });

  it('stops, exit 6, when the store returns a revision that does not match its hash', async () => {
    await freshWorkspace('ws-damaged');
    expect((await cli(['sync', '--from', 'ws-damaged', '--to', 'local:reg-damaged'])).code).toBe(0);
    const file = join(dir, 'reg-damaged', 'skills', 'travel', 'weather-assessment', 'versions', '1.json');
    const stored = JSON.parse(await readFile(file, 'utf8'));
    stored.package.description = `${stored.package.description} Tampered.`;
    await writeFile(file, JSON.stringify(stored));
    const check = await cli(['check', '--from', 'ws-damaged', '--to', 'local:reg-damaged']);
    expect(check.code).toBe(6);
    expect(check.stderr).toContain('does not match');
    const sync = await cli(['sync', '--from', 'ws-damaged', '--to', 'local:reg-damaged', '--json']);
    expect(sync.code).toBe(6);
    expect(JSON.parse(sync.stdout)).toMatchObject({ in_sync: false, error: { code: 'integrity_mismatch' } });
  });
});

describe('check and sync against redis-server', () => {
  let redis: RedisSetup;
  let client: Redis;
  beforeAll(async () => {
    redis = await startRedis();
    client = new Redis(redis.url, { lazyConnect: true });
    await client.connect();
  });
  afterAll(async () => {
    client?.disconnect();
    await redis?.stop();
  });

  it('checks an empty server without writing a key, syncs, and checks clean', async () => {
    await freshWorkspace('ws-redis');
    const empty = await cli(['check', '--from', 'ws-redis', '--to', redis.url, '--json']);
    expect(empty.code).toBe(1);
    expect(JSON.parse(empty.stdout).counts).toMatchObject({ missing_remotely: 8 });
    expect(await client.dbsize()).toBe(0);

    const sync = await cli(['sync', '--from', 'ws-redis', '--to', redis.url]);
    expect(sync.code).toBe(0);
    expect(sync.stderr).toContain('8 created');
    const keys = await client.dbsize();
    expect(keys).toBeGreaterThan(0);

    const clean = await cli(['check', '--from', 'ws-redis', '--to', redis.url]);
    expect(clean.code).toBe(0);
    expect(clean.stderr).toContain('In sync.');
    expect(await client.dbsize()).toBe(keys);
    const again = await cli(['sync', '--from', 'ws-redis', '--to', redis.url, '--json']);
    expect(JSON.parse(again.stdout).packages.every((p: { action: string }) => p.action === 'skipped')).toBe(true);
  });
});

/** Every file below `root` with its bytes, for "nothing changed" checks. */
async function snapshot(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out[p.slice(root.length)] = await readFile(p, 'utf8');
    }
  };
  await walk(root);
  return out;
}
