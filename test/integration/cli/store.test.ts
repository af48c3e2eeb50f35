import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../../helpers/cli';
import { validatePackage } from '../../../core/package/index';
import { samplePackage } from '../core/store/samplePackage';

const EXAMPLES = fileURLToPath(new URL('../../../examples/skills/packages/', import.meta.url));

type Run = CliRun;

let work: string;

/** Runs `skillbench` in the temp workspace. */
function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return runCli(args, { cwd: work, env: { SKILLBENCH_HOME: join(work, 'home'), ...env } });
}

const json = <T = Record<string, unknown>>(run: Run): T => JSON.parse(run.stdout) as T;
const FILE = 'skills/packages/travel/weather-assessment.json';

async function writePackage(seed: string, overrides: Record<string, unknown> = {}, file = FILE): Promise<void> {
  await mkdir(dirname(join(work, file)), { recursive: true });
  await writeFile(join(work, file), `${JSON.stringify(samplePackage(seed, overrides), null, 2)}\n`);
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-cli-store-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('skillbench publish/get/versions/delete/list against local:', () => {
  const reg = ['--to', 'local:reg'];
  const from = ['--from', 'local:reg'];
  let etag = '';

  it('reports invalid UTF-8 in a package file with its location and publishes nothing', async () => {
    const file = 'skills/packages/demo/broken-bytes.json';
    await mkdir(dirname(join(work, file)), { recursive: true });
    const text = JSON.stringify(samplePackage('bytes'));
    const cut = text.indexOf('"description"');
    await writeFile(join(work, file), Buffer.concat([Buffer.from(text.slice(0, cut)), Buffer.from([0xff]), Buffer.from(text.slice(cut))]));
    const run = await cli(['publish', file, '--to', 'local:reg-bytes']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${file}:1:${cut + 1}: error invalid_utf8`);
    const list = await cli(['list', '--from', 'local:reg-bytes', '--json']);
    expect(list.stdout).not.toContain('broken-bytes');
  });

  it('creates a skill, deriving its identity from the path, and prints a reusable key', async () => {
    await writePackage('one');
    const run = await cli(['publish', FILE, ...reg, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const out = json(run);
    expect(out).toMatchObject({ namespace: 'travel', name: 'weather-assessment', outcome: 'created', version: 1, audit_recorded: true, warnings: [], replayed: false });
    etag = out['etag'] as string;
    expect(run.stderr).toContain(`idempotency key ${out['idempotency_key'] as string}`);

    const replay = await cli(['publish', FILE, ...reg, '--json', '--idempotency-key', out['idempotency_key'] as string, '--create']);
    expect(replay.code, replay.stderr).toBe(0);
    expect(json(replay)).toMatchObject({ version: 1, etag, replayed: true });
  });

  it('reads the current ETag itself: unchanged content is a no-op, changed content the next version', async () => {
    const same = await cli(['publish', FILE, ...reg, '--json']);
    expect(same.code, same.stderr).toBe(0);
    expect(json(same)).toMatchObject({ outcome: 'same_content_noop', version: 1, etag });

    await writePackage('two');
    // The shell strips quotes from "v1-…": the bare tag must still work.
    const bare = etag.replace(/^"|"$/g, '');
    const next = await cli(['publish', FILE, ...reg, '--if-match', bare, '--json']);
    expect(next.code, next.stderr).toBe(0);
    expect(json(next)).toMatchObject({ outcome: 'published', version: 2 });
    etag = json(next)['etag'] as string;
  });

  it('exits 3 on a stale ETag or creation of an existing skill, with the error as JSON', async () => {
    await writePackage('three');
    const stale = await cli(['publish', FILE, ...reg, '--if-match', '"v1-0000"', '--json']);
    expect(stale.code).toBe(3);
    expect(json(stale)).toMatchObject({ error: { code: 'precondition_failed' } });
    const create = await cli(['publish', FILE, ...reg, '--create']);
    expect(create.code).toBe(3);
    expect(create.stderr).toContain('already exists');
    expect(create.stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 1 on an invalid package and prints findings as file:line:column', async () => {
    const bad = 'skills/packages/travel/broken.json';
    await writePackage('bad', { planning_instructions: [], surprise: 1 }, bad);
    const run = await cli(['publish', bad, ...reg]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`${bad.replace(/[/.]/g, '\\$&')}:\\d+:\\d+: error \\S+`));
    expect(run.stderr).toMatch(/broken\.json:\d+:\d+: error unknown_field: .*surprise/);
    const list = await cli(['list', ...from, '--json']);
    expect(json<{ skills: { name: string }[] }>(list).skills.map((s) => s.name)).toEqual(['weather-assessment']);
  });

  it('gets the published package and an exact old version', async () => {
    const run = await cli(['get', 'travel/weather-assessment', ...from, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const out = json<{ namespace: string; version: number; etag: string; package: Record<string, unknown> }>(run);
    expect(out).toMatchObject({ namespace: 'travel', name: 'weather-assessment', version: 2, etag });
    expect(out.package).toEqual(validatePackage(JSON.stringify(samplePackage('two'))).normalized);

    const human = await cli(['get', 'travel/weather-assessment', ...from, '--version', '1']);
    expect(human.code).toBe(0);
    expect(JSON.parse(human.stdout)).toMatchObject({ display_name: 'Conformance one' });
    expect(human.stderr).toContain('version 1');

    expect((await cli(['get', 'travel/nothing', ...from])).code).toBe(5);
    expect((await cli(['get', 'not-an-id', ...from])).code).toBe(2);
  });

  it('deletes old versions with guards and exit codes', async () => {
    await writePackage('three');
    const v3 = await cli(['publish', FILE, ...reg, '--json']);
    etag = json(v3)['etag'] as string;

    const protectedRun = await cli(['delete', 'travel/weather-assessment', ...from, '--version', '2', '--if-match', etag, '--reason', 'cleanup', '--json']);
    expect(protectedRun.code).toBe(4);
    expect(json(protectedRun)).toMatchObject({ error: { code: 'conflict' } });
    const missing = await cli(['delete', 'travel/weather-assessment', ...from, '--version', '1', '--reason', 'cleanup']);
    expect(missing.code).toBe(3);

    const ok = await cli(['delete', 'travel/weather-assessment', ...from, '--range', '1-1', '--if-match', etag, '--reason', 'Retention review', '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(json(ok)).toMatchObject({ outcome: 'deleted', deleted: [1], already_deleted: [], etag, audit_recorded: true, warnings: [] });
    const again = await cli(['delete', 'travel/weather-assessment', ...from, '--version', '1', '--if-match', etag, '--reason', 'Retention review', '--json']);
    expect(again.code).toBe(0);
    expect(json(again)).toMatchObject({ outcome: 'noop', deleted: [], already_deleted: [1] });

    const versions = await cli(['versions', 'travel/weather-assessment', ...from, '--limit', '2', '--json']);
    expect(versions.code).toBe(0);
    const page = json<{ versions: { version: number; status: string; protection?: string }[]; next_before: number | null }>(versions);
    // The whole record of the store, protection included.
    expect(page.versions.map((v) => [v.version, v.status, v.protection])).toEqual([
      [3, 'available', 'published'],
      [2, 'available', 'protected'],
    ]);
    expect(page.next_before).toBe(2);
    const older = json<{ versions: { version: number; status: string; change_reason: string }[] }>(
      await cli(['versions', 'travel/weather-assessment', ...from, '--before', '2', '--json']),
    );
    expect(older.versions).toEqual([expect.objectContaining({ version: 1, status: 'deleted', change_reason: 'Revision one' })]);
    expect(Object.keys(older.versions[0] ?? {}).sort()).toEqual(['change_reason', 'created_at', 'deleted_at', 'manifest_hash', 'status', 'version']);
    expect(Number.isNaN(Date.parse((older.versions[0] as { deleted_at?: string }).deleted_at ?? ''))).toBe(false);
  });

  it('lists with filters; a bad connection is a usage error, a refused one exit 6', async () => {
    await writePackage('fin', { domains: ['finance'], tags: ['rates'] }, 'skills/packages/money/rates.json');
    expect((await cli(['publish', 'skills/packages/money/rates.json', ...reg])).code).toBe(0);
    const all = json<{ skills: { namespace: string; name: string }[] }>(await cli(['list', ...from, '--json']));
    expect(all.skills.map((s) => `${s.namespace}/${s.name}`)).toEqual(['money/rates', 'travel/weather-assessment']);
    const finance = json<{ skills: { name: string }[] }>(await cli(['list', ...from, '--domain', 'finance', '--json']));
    expect(finance.skills.map((s) => s.name)).toEqual(['rates']);
    const none = json<{ skills: unknown[] }>(await cli(['list', ...from, '--namespace', 'travel', '--tag', 'rates', '--json']));
    expect(none.skills).toEqual([]);
    expect((await cli(['list', '--from', 'ftp://example.org'])).code).toBe(2);
    const refused = await cli(['list', '--from', 'redis://:hunter2@127.0.0.1:1', '--json']);
    expect(refused.code).toBe(6);
    expect(json(refused)).toMatchObject({ error: { code: 'unavailable' } });
    expect(refused.stdout + refused.stderr).not.toContain('hunter2');
  });
});

describe('the default connection', () => {
  it('seeds an empty default registry with the valid examples once', async () => {
    const files: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
        if (e.isDirectory()) await walk(join(dir, e.name));
        else if (e.name.endsWith('.json')) files.push(join(dir, e.name));
      }
    };
    await walk(EXAMPLES);
    const ids: { namespace: string; name: string }[] = [];
    for (const f of files) {
      const id = { namespace: basename(dirname(f)), name: basename(f, '.json') };
      if (validatePackage(await readFile(f, 'utf8'), { id }).valid) ids.push(id);
    }
    ids.sort((a, b) => (a.namespace === b.namespace ? (a.name < b.name ? -1 : 1) : a.namespace < b.namespace ? -1 : 1));
    const valid = ids.map((id) => `${id.namespace}/${id.name}`);
    const env = { SKILLBENCH_HOME: join(work, 'seeded-home') };
    const first = await cli(['list', '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(json<{ skills: { namespace: string; name: string }[] }>(first).skills.map((s) => `${s.namespace}/${s.name}`)).toEqual(valid);
    expect(first.stderr.includes('seeded')).toBe(valid.length > 0);
    const second = await cli(['list', '--json'], env);
    expect(second.stderr).not.toContain('seeded');
    expect(json<{ skills: unknown[] }>(second).skills).toHaveLength(valid.length);
  });
});
