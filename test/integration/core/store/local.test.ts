import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bundleChild, type ChildBundle } from '../../../helpers/childBundle';
import { runCli } from '../../../helpers/cli';
import { StoreError } from '../../../../core/store/errors';
import { openLocalStore } from '../../../../core/store/local';
import type { SkillStore } from '../../../../core/store/types';
import type { SkillId, SkillPackage } from '../../../../core/package/types';
import { computeIntegrity } from '../../../../core/package/index';
import { describeStoreConformance } from './conformance';
import { samplePackage } from './samplePackage';

// Bundled once: the crasher and publisher children start many times, on Node alone.
let crasher: ChildBundle;
let publisher: ChildBundle;
beforeAll(async () => {
  [crasher, publisher] = await Promise.all([bundleChild(new URL('./fixtures/crasher.ts', import.meta.url)), bundleChild(new URL('./fixtures/publisher.ts', import.meta.url))]);
});
afterAll(async () => {
  await Promise.all([crasher?.remove(), publisher?.remove()]);
});

/** Runs the crasher fixture to its end: killed by SIGKILL at `at`, or exited. */
function runCrasher(dir: string, id: SkillId, seed: string, at: 'after-commit' | 'repair' | 'none'): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const child = spawn(process.execPath, [crasher.file, dir, id.namespace, id.name, seed, at], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += String(c)));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr })));
}

/** The catalog entry of `id` as stored on disk, read without the store (no recovery runs). */
async function catalogOnDisk(dir: string, id: SkillId): Promise<{ version: number } | undefined> {
  const found: { version: number }[] = [];
  for (const n of await readdir(join(dir, 'catalog'))) {
    if (!/^[0-9a-f]{2}\.json$/.test(n)) continue;
    const shard = JSON.parse(await readFile(join(dir, 'catalog', n), 'utf8')) as { skills: Record<string, { version: number }> };
    const entry = shard.skills[`${id.namespace}/${id.name}`];
    if (entry) found.push(entry);
  }
  return found[0];
}

async function committedVersion(dir: string, id: SkillId): Promise<number> {
  const state = JSON.parse(await readFile(join(dir, 'skills', id.namespace, id.name, 'state.json'), 'utf8')) as { published: number };
  return state.published;
}

/**
 * A pid whose process has exited but is never reaped: a shell starts a child, then
 * replaces itself with `sleep`, which never waits for it; the child exits only once
 * its parent has become `sleep`, so the shell cannot have reaped it first.
 */
async function zombie(): Promise<{ pid: number; stop(): void }> {
  const child = 'while [ "$(cat /proc/$PPID/comm)" != sleep ]; do sleep 0.01; done';
  const parent = spawn('sh', ['-c', `sh -c '${child}' & echo $!; exec sleep 600`], { stdio: ['ignore', 'pipe', 'ignore'] });
  const pid = await new Promise<number>((resolve) => parent.stdout.once('data', (c) => resolve(Number(String(c).trim()))));
  // The state letter after the command name turns to Z once the child has exited.
  for (let i = 0; ; i++) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) break;
    if (stat === '' || i > 3000) {
      parent.kill('SIGKILL');
      throw new Error(`process ${pid} did not become a zombie`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  return { pid, stop: () => parent.kill('SIGKILL') };
}

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'skillbench-local-'));
}

/** Damages a stored revision the way a bad disk or a hand edit would. */
async function corruptVersion(dir: string, id: SkillId, version: number): Promise<void> {
  const path = join(dir, 'skills', id.namespace, id.name, 'versions', `${version}.json`);
  const file = JSON.parse(await readFile(path, 'utf8')) as { package: { planning_instructions: string[]; resources: { content: string }[] } };
  file.package.planning_instructions = file.package.planning_instructions.map((s) => `${s} (tampered)`);
  for (const r of file.package.resources) r.content = `${r.content} (tampered)`;
  await writeFile(path, JSON.stringify(file));
}

describeStoreConformance('local', async ({ audit }) => {
  const dir = await tempDir();
  const store = await openLocalStore(dir, { audit });
  return {
    store,
    corrupt: (id, version) => corruptVersion(dir, id, version),
    cleanup: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

const body = (seed: string) => JSON.stringify(samplePackage(seed));

function runPublisher(
  dir: string,
  id: SkillId,
  count: number | 'forever',
): { done: Promise<{ code: number | null; stdout: string; stderr: string }>; progressed: Promise<void>; kill(): void } {
  const child = spawn(process.execPath, [publisher.file, dir, id.namespace, id.name, count === 'forever' ? '--forever' : String(count)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let onProgress: () => void = () => undefined;
  const progressed = new Promise<void>((resolve) => (onProgress = resolve));
  child.stdout.on('data', (c) => {
    stdout += String(c);
    if (stdout.includes('published ')) onProgress();
  });
  child.stderr.on('data', (c) => (stderr += String(c)));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => {
      onProgress();
      resolve({ code, stdout, stderr });
    }),
  );
  return { done, progressed, kill: () => child.kill('SIGKILL') };
}

/** Every committed revision is readable and verifies; history is contiguous; the catalog agrees with the state. */
async function expectConsistent(store: SkillStore, id: SkillId): Promise<number> {
  const published = await store.getPublished(id);
  const page = await store.listVersions(id, { limit: 100 });
  const numbers = page.versions.map((v) => v.version);
  expect(numbers).toEqual(Array.from({ length: published.version }, (_, i) => published.version - i));
  for (const v of page.versions) {
    const manifest = await store.getManifest({ ...id, version: v.version, manifest_hash: v.manifest_hash });
    expect(manifest.resources).toHaveLength(1);
  }
  const [entry] = await store.listMetadata({ namespace: id.namespace });
  expect(entry).toMatchObject({ ...id, version: published.version, manifest_hash: published.manifest_hash });
  return published.version;
}

describe('local registry', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });
  async function fresh(): Promise<string> {
    const d = await tempDir();
    dirs.push(d);
    return d;
  }

  it('keeps the documented layout and leaves no temp files behind', async () => {
    const dir = await fresh();
    const store = await openLocalStore(dir);
    const id = { namespace: 'travel', name: 'weather' };
    const r1 = await store.publish({ id, body: body('one'), precondition: { kind: 'create' }, idempotencyKey: 'k1' });
    await store.publish({ id, body: body('two'), precondition: { kind: 'if-match', etag: r1.etag }, idempotencyKey: 'k2' });
    const skill = join(dir, 'skills', 'travel', 'weather');
    expect(existsSync(join(dir, 'registry.json'))).toBe(true);
    expect((await readdir(join(skill, 'versions'))).sort()).toEqual(['1.json', '2.json']);
    expect(await readdir(join(skill, 'idempotency'))).toHaveLength(2);
    const state = JSON.parse(await readFile(join(skill, 'state.json'), 'utf8')) as { published: number; next_version: number };
    expect(state).toMatchObject({ published: 2, next_version: 3 });
    const catalog = await readdir(join(dir, 'catalog'));
    expect(catalog.filter((n) => n !== 'shards.json')).toHaveLength(1);
    const index = JSON.parse(await readFile(join(dir, 'catalog', 'shards.json'), 'utf8')) as { shards: string[] };
    expect(index.shards.map((s) => `${s}.json`)).toEqual(catalog.filter((n) => n !== 'shards.json'));
    const audit = (await readFile(join(dir, 'audit.jsonl'), 'utf8')).trim().split('\n');
    expect(audit).toHaveLength(2);
    const all = [...(await readdir(dir)), ...(await readdir(skill)), ...(await readdir(join(skill, 'versions'))), ...catalog];
    expect(all.filter((n) => n.endsWith('.tmp') || n === 'lock')).toEqual([]);
    await store.close();
  });

  it('refuses a non-empty folder that is not a registry, and reopens its own', async () => {
    const dir = await fresh();
    await writeFile(join(dir, 'notes.txt'), 'not a registry');
    const error = await openLocalStore(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe('invalid_request');
    const own = await fresh();
    const a = await openLocalStore(own);
    await a.publish({ id: { namespace: 'a', name: 'b' }, body: body('x'), precondition: { kind: 'create' } });
    const b = await openLocalStore(own);
    expect((await b.getPublished({ namespace: 'a', name: 'b' })).version).toBe(1);
  });

  it('opened on-write, reads as an empty registry and is created only by a publish that passes validation', async () => {
    const dir = join(await fresh(), 'later');
    const store = await openLocalStore(dir, { create: 'on-write' });
    const id = { namespace: 'ns', name: 'first' };
    expect(await store.listMetadata()).toEqual([]);
    expect(((await store.getPublished(id).catch((e: unknown) => e)) as StoreError).code).toBe('not_found');
    const invalid = await store.publish({ id, body: '{"display_name": 1}', precondition: { kind: 'create' } }).catch((e: unknown) => e);
    expect((invalid as StoreError).code).toBe('validation_failed');
    const deleted = await store.deleteVersions({ id, from: 1, to: 1, ifMatch: '"v1-x"', reason: 'cleanup' }).catch((e: unknown) => e);
    expect((deleted as StoreError).code).toBe('not_found');
    expect(existsSync(dir)).toBe(false);
    expect((await store.publish({ id, body: body('first'), precondition: { kind: 'create' } })).version).toBe(1);
    expect(existsSync(join(dir, 'registry.json'))).toBe(true);
    expect((await store.listMetadata()).map((m) => m.name)).toEqual(['first']);
  });

  it('never serves a revision changed on disk: get, a pinned version, the manifest and a resource fail naming the file', async () => {
    const dir = await fresh();
    const store = await openLocalStore(dir);
    const id = { namespace: 'ns', name: 'tampered' };
    const r = await store.publish({ id, body: body('tampered'), precondition: { kind: 'create' } });
    const path = join(dir, 'skills', 'ns', 'tampered', 'versions', '1.json');
    const file = JSON.parse(await readFile(path, 'utf8')) as { manifest_hash: string; resource_hashes: Record<string, string>; package: SkillPackage };
    // A hand edit that keeps the file valid JSON, and even rewrites its own hashes to match.
    file.package.description = 'Use when the user asks for anything at all.';
    const forged = await computeIntegrity(file.package);
    await writeFile(path, JSON.stringify({ ...file, manifest_hash: forged.manifest_hash, resource_hashes: forged.resource_hashes }));
    // Each read starts only when awaited, so no rejection waits unhandled for its turn.
    const reads = [
      () => store.getPublished(id),
      () => store.getVersion(id, 1),
      () => store.getManifest({ ...id, version: 1, manifest_hash: forged.manifest_hash }),
      () => store.getManifest({ ...id, version: 1, manifest_hash: r.manifest_hash }),
      () => store.getResource({ skill: { ...id, version: 1, manifest_hash: r.manifest_hash }, name: 'checklist', expected_hash: file.resource_hashes['checklist'] ?? '' }),
    ];
    for (const read of reads) {
      const error = (await read().catch((e: unknown) => e)) as StoreError;
      expect(error).toBeInstanceOf(StoreError);
      expect(error.code).toBe('integrity_mismatch');
      expect(error.message).toContain(path);
      expect(error.details).toMatchObject({ file: path, expected: r.manifest_hash });
    }
    // Plain JSON damage and a missing file are integrity failures too.
    await writeFile(path, '{"format":1,"package":{"disp');
    expect(((await store.getPublished(id).catch((e: unknown) => e)) as StoreError).code).toBe('integrity_mismatch');
    await rm(path);
    expect(((await store.getPublished(id).catch((e: unknown) => e)) as StoreError).message).toContain(`${path} is missing`);
  });

  describe('a damaged catalog is rebuilt from the revisions, never served short', () => {
    const ids = Array.from({ length: 24 }, (_, i) => ({ namespace: `ns-${i % 3}`, name: `skill-${i}` }));
    const keys = ids.map((id) => `${id.namespace}/${id.name}`).sort();
    const listed = async (store: SkillStore) => (await store.listMetadata()).map((m) => `${m.namespace}/${m.name}`).sort();
    async function populated(): Promise<{ dir: string; store: SkillStore }> {
      const dir = await fresh();
      const store = await openLocalStore(dir, { durable: false });
      for (const id of ids) await store.publish({ id, body: body(id.name), precondition: { kind: 'create' } });
      expect(await listed(store)).toEqual(keys);
      return { dir, store };
    }
    const shards = async (dir: string) => (await readdir(join(dir, 'catalog'))).filter((n) => /^[0-9a-f]{2}\.json$/.test(n)).sort();

    it('a deleted shard: the skills it held do not vanish from the list', async () => {
      const { dir, store } = await populated();
      const before = await shards(dir);
      expect(before.length).toBeGreaterThan(3);
      await rm(join(dir, 'catalog', before[1]!));
      expect(await listed(store)).toEqual(keys);
      expect(await listed(await openLocalStore(dir))).toEqual(keys);
      expect(await shards(dir)).toEqual(before);
    });

    it('a deleted catalog folder reads as every skill, not as 0 skills', async () => {
      const { dir, store } = await populated();
      await rm(join(dir, 'catalog'), { recursive: true });
      expect(await listed(store)).toEqual(keys);
      await rm(join(dir, 'catalog'), { recursive: true });
      expect(await listed(await openLocalStore(dir))).toEqual(keys);
    });

    it('a shard or an index that does not parse, or a missing index, is rebuilt', async () => {
      const { dir, store } = await populated();
      const [first] = await shards(dir);
      await writeFile(join(dir, 'catalog', first!), '{"format":1,"ski');
      expect(await listed(store)).toEqual(keys);
      await writeFile(join(dir, 'catalog', 'shards.json'), 'not json');
      expect(await listed(store)).toEqual(keys);
      await rm(join(dir, 'catalog', 'shards.json'));
      expect(await listed(store)).toEqual(keys);
      expect(JSON.parse(await readFile(join(dir, 'catalog', 'shards.json'), 'utf8')).shards).toHaveLength((await shards(dir)).length);
    });

    it('a publish into a shard that was deleted rebuilds the catalog instead of writing that shard with one entry', async () => {
      const { dir, store } = await populated();
      const shardOf = (id: SkillId) => `${createHash('sha256').update(`${id.namespace}/${id.name}`).digest('hex').slice(0, 2)}.json`;
      const victim = ids[5]!;
      let n = 0;
      while (shardOf({ namespace: 'ns-0', name: `late-${n}` }) !== shardOf(victim)) n++;
      const late = { namespace: 'ns-0', name: `late-${n}` };
      await rm(join(dir, 'catalog', shardOf(victim)));
      await store.publish({ id: late, body: body('late'), precondition: { kind: 'create' } });
      // Read from the disk, not through the store: the publish itself left a whole catalog.
      const shard = JSON.parse(await readFile(join(dir, 'catalog', shardOf(victim)), 'utf8')) as { skills: Record<string, unknown> };
      expect(Object.keys(shard.skills)).toEqual(expect.arrayContaining([`${victim.namespace}/${victim.name}`, `${late.namespace}/${late.name}`]));
      expect(await listed(store)).toEqual([...keys, `${late.namespace}/${late.name}`].sort());
    });
  });

  it('reports a version file that no longer parses as an integrity failure', async () => {
    const dir = await fresh();
    const store = await openLocalStore(dir);
    const id = { namespace: 'ns', name: 'torn' };
    const r = await store.publish({ id, body: body('torn'), precondition: { kind: 'create' } });
    await writeFile(join(dir, 'skills', 'ns', 'torn', 'versions', '1.json'), '{"format":1,"package":{"disp');
    const error = await store.getManifest({ ...id, version: 1, manifest_hash: r.manifest_hash }).catch((e: unknown) => e);
    expect((error as StoreError).code).toBe('integrity_mismatch');
  });

  it('replays from committed history when the idempotency record was lost in a crash', async () => {
    const dir = await fresh();
    const store = await openLocalStore(dir);
    const id = { namespace: 'ns', name: 'lost-record' };
    const request = { id, body: body('lost'), precondition: { kind: 'create' as const }, idempotencyKey: 'lost-key' };
    const first = await store.publish(request);
    await rm(join(dir, 'skills', 'ns', 'lost-record', 'idempotency'), { recursive: true });
    const replay = await store.publish(request);
    expect(replay).toMatchObject({ version: 1, etag: first.etag, outcome: 'created', replayed: true, audit_recorded: false });
    expect(replay.warnings.map((w) => w.code)).toEqual(['skill_audit_not_recorded']);
    const other = await store.publish({ ...request, body: body('different') }).catch((e: unknown) => e);
    expect((other as StoreError).code).toBe('conflict');
  });

  it('waits for a live lock holder and gives up with a timeout', async () => {
    const dir = await fresh();
    const store = await openLocalStore(dir, { lockTimeoutMs: 300 });
    await writeFile(join(dir, 'lock'), JSON.stringify({ pid: process.pid, host: hostname(), at: new Date().toISOString(), token: 'someone-else', skill: 'x/y' }));
    const started = Date.now();
    const error = await store.publish({ id: { namespace: 'ns', name: 'locked' }, body: body('l'), precondition: { kind: 'create' } }).catch((e: unknown) => e);
    expect((error as StoreError).code).toBe('timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(JSON.parse(await readFile(join(dir, 'lock'), 'utf8'))).toMatchObject({ token: 'someone-else' });
  });

  it('takes over a lock left by a dead process and repairs the skill it was changing', async () => {
    const dir = await fresh();
    const store = await openLocalStore(dir);
    const id = { namespace: 'ns', name: 'crashed' };
    const r1 = await store.publish({ id, body: body('c1'), precondition: { kind: 'create' } });
    // What a process killed mid-publish leaves: an uncommitted version, temp files, its lock.
    const dead = spawn(process.execPath, ['-e', '0']);
    const deadPid = dead.pid;
    await new Promise((r) => dead.on('close', r));
    const skill = join(dir, 'skills', 'ns', 'crashed');
    await writeFile(join(skill, 'versions', '2.json'), '{"torn');
    await writeFile(join(skill, 'versions', '3.json.tmp'), 'x');
    await writeFile(join(skill, 'versions', `.3.json.${deadPid}.0a1b2c.tmp`), 'x');
    await writeFile(join(skill, 'state.json.tmp'), '{"half');
    await writeFile(join(dir, 'lock'), JSON.stringify({ pid: deadPid, host: hostname(), at: new Date().toISOString(), token: 'dead', skill: 'ns/crashed' }));
    // A mutation of another skill takes the lock over and repairs ns/crashed first.
    await store.publish({ id: { namespace: 'ns', name: 'other' }, body: body('o'), precondition: { kind: 'create' } });
    expect((await readdir(join(skill, 'versions'))).sort()).toEqual(['1.json']);
    expect((await readdir(skill)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(existsSync(join(dir, 'lock'))).toBe(false);
    const r2 = await store.publish({ id, body: body('c2'), precondition: { kind: 'if-match', etag: r1.etag } });
    expect(r2.version).toBe(2);
    await expectConsistent(store, id);
  });

  it('finishes the repair of a publisher killed after its commit, even when the takers are killed in the repair too', async () => {
    const dir = await fresh();
    const first = { namespace: 'twice', name: 'first' };
    const second = { namespace: 'twice', name: 'second' };
    expect((await runCrasher(dir, first, 'v1', 'none')).code).toBe(0);
    for (let round = 0; round < 4; round++) {
      const before = await committedVersion(dir, first);
      const publisher = await runCrasher(dir, first, `a${round}`, 'after-commit');
      expect(publisher.signal, publisher.stderr).toBe('SIGKILL');
      // Committed, but the catalog still shows the previous revision: work for a taker.
      expect(await committedVersion(dir, first)).toBe(before + 1);
      expect((await catalogOnDisk(dir, first))?.version).toBe(before);
      // The taker dies inside its repair: once, or twice in a row.
      for (let k = 0; k <= round % 2; k++) {
        const taker = await runCrasher(dir, second, `b${round}-${k}`, 'repair');
        expect(taker.signal, taker.stderr).toBe('SIGKILL');
        expect((await catalogOnDisk(dir, first))?.version).toBe(before);
      }
      // The next writer, of another skill, still repairs the first skill's entry.
      const next = await runCrasher(dir, second, `c${round}`, 'none');
      expect(next.code, next.stderr).toBe(0);
      expect((await catalogOnDisk(dir, first))?.version).toBe(before + 1);
      const store = await openLocalStore(dir);
      const published = await store.getPublished(first);
      expect(published.version).toBe(before + 1);
      const [listed] = await store.listMetadata({ namespace: 'twice', limit: 1 });
      expect(listed).toMatchObject({ ...first, version: published.version, manifest_hash: published.manifest_hash });
      await store.close();
    }
    // What a user sees: list and get agree on the newest version.
    const list = await runCli(['list', '--from', `local:${dir}`, '--namespace', 'twice', '--json'], { cwd: dir });
    const get = await runCli(['get', 'twice/first', '--from', `local:${dir}`, '--json'], { cwd: dir });
    expect(list.code, list.stderr).toBe(0);
    expect(get.code, get.stderr).toBe(0);
    const listedVersion = (JSON.parse(list.stdout) as { skills: { name: string; version: number }[] }).skills.find((s) => s.name === 'first')?.version;
    expect(listedVersion).toBe((JSON.parse(get.stdout) as { version: number }).version);
    expect(listedVersion).toBe(5);
  }, 300_000);

  it('rebuilds the whole catalog from the revisions when an abandoned lock cannot be read', async () => {
    const dir = await fresh();
    const store = await openLocalStore(dir);
    const a = { namespace: 'ns', name: 'a' };
    const b = { namespace: 'other', name: 'b' };
    const a1 = await store.publish({ id: a, body: body('a1'), precondition: { kind: 'create' } });
    const a2 = await store.publish({ id: a, body: body('a2'), precondition: { kind: 'if-match', etag: a1.etag } });
    await store.publish({ id: b, body: body('b1'), precondition: { kind: 'create' } });
    await store.close();
    // The catalog is lost and the lock left behind is unreadable: whose work it was is unknown.
    for (const n of await readdir(join(dir, 'catalog'))) await rm(join(dir, 'catalog', n));
    await writeFile(join(dir, 'lock'), '\u0000\u0000garbage');
    const old = new Date(Date.now() - 120_000);
    await utimes(join(dir, 'lock'), old, old);
    const reopened = await openLocalStore(dir, { foreignLockStaleMs: 60_000 });
    const listed = await reopened.listMetadata();
    expect(listed.map((m) => [`${m.namespace}/${m.name}`, m.version])).toEqual([
      ['ns/a', 2],
      ['other/b', 1],
    ]);
    expect(listed[0]?.manifest_hash).toBe(a2.manifest_hash);
    expect(existsSync(join(dir, 'lock'))).toBe(false);
  });

  it.runIf(process.platform === 'linux')('takes over a lock whose holder is a zombie that no one reaps', async () => {
    const dead = await zombie();
    try {
      const dir = await fresh();
      const store = await openLocalStore(dir, { lockTimeoutMs: 5_000 });
      await writeFile(join(dir, 'lock'), JSON.stringify({ pid: dead.pid, host: hostname(), at: new Date().toISOString(), token: 'zombie', skill: 'x/y' }));
      const result = await store.publish({ id: { namespace: 'ns', name: 'after-zombie' }, body: body('z'), precondition: { kind: 'create' } });
      expect(result.version).toBe(1);
      expect(existsSync(join(dir, 'lock'))).toBe(false);
    } finally {
      dead.stop();
    }
  });

  it.runIf(process.platform === 'linux')('tells a reused pid from its holder by the process start time', async () => {
    const dir = await fresh();
    const store = await openLocalStore(dir, { lockTimeoutMs: 300 });
    const stat = await readFile(`/proc/${process.pid}/stat`, 'utf8');
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
    const lock = (s: string) => JSON.stringify({ pid: process.pid, host: hostname(), at: new Date().toISOString(), token: `t-${s}`, skill: 'x/y', start: s });
    // The recorded start time is this process's own: the holder is alive, writers wait.
    await writeFile(join(dir, 'lock'), lock(start));
    const waited = await store.publish({ id: { namespace: 'ns', name: 'held' }, body: body('h'), precondition: { kind: 'create' } }).catch((e: unknown) => e);
    expect((waited as StoreError).code).toBe('timeout');
    // Another start time: the pid was reused by a process that is not the holder.
    await writeFile(join(dir, 'lock'), lock(String(Number(start) + 1)));
    const result = await store.publish({ id: { namespace: 'ns', name: 'reused' }, body: body('r'), precondition: { kind: 'create' } });
    expect(result.version).toBe(1);
    expect(existsSync(join(dir, 'lock'))).toBe(false);
  });

  it('creates one registry when several openers race on an empty folder', async () => {
    const dir = await fresh();
    const stores = await Promise.all(Array.from({ length: 8 }, () => openLocalStore(dir)));
    expect(stores).toHaveLength(8);
    const names = await readdir(dir);
    expect(names.filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(names).toContain('registry.json');
    await expect(openLocalStore(dir)).resolves.toBeDefined();
  });

  it('serializes publishes from two processes on one registry: no lost or duplicate revision', async () => {
    const dir = await fresh();
    const id = { namespace: 'multi', name: 'proc' };
    const a = runPublisher(dir, id, 12);
    const b = runPublisher(dir, id, 12);
    const [ra, rb] = await Promise.all([a.done, b.done]);
    expect(ra.code, ra.stderr).toBe(0);
    expect(rb.code, rb.stderr).toBe(0);
    const va = (JSON.parse(ra.stdout) as { published: number[] }).published;
    const vb = (JSON.parse(rb.stdout) as { published: number[] }).published;
    expect(va).toHaveLength(12);
    expect(vb).toHaveLength(12);
    expect([...va, ...vb].sort((x, y) => x - y)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    const store = await openLocalStore(dir);
    expect(await expectConsistent(store, id)).toBe(24);
    const audit = (await readFile(join(dir, 'audit.jsonl'), 'utf8')).trim().split('\n');
    expect(audit).toHaveLength(24);
  });

  it('stays consistent and writable after publishers are killed mid-write', async () => {
    const dir = await fresh();
    const id = { namespace: 'crash', name: 'loop' };
    let killedWhileHolding = 0;
    // At least 8 kills, and on until one lands inside the critical section: on a loaded
    // machine a fixed number of kills can all miss it (the limit only catches a lock never held).
    for (let round = 0; round < 8 || (killedWhileHolding === 0 && round < 64); round++) {
      const child = runPublisher(dir, id, 'forever');
      // Once it is publishing, let it run for a varying few milliseconds, then kill it hard.
      await child.progressed;
      await new Promise((r) => setTimeout(r, (round * 7) % 23));
      child.kill();
      const exit = await child.done;
      expect(exit.stderr).toBe('');
      if (existsSync(join(dir, 'lock'))) killedWhileHolding += 1;
      const store = await openLocalStore(dir);
      const version = await expectConsistent(store, id);
      expect(version).toBeGreaterThan(0);
    }
    const store = await openLocalStore(dir);
    const before = await store.getPublished(id);
    const next = await store.publish({ id, body: body('after-crashes'), precondition: { kind: 'if-match', etag: before.etag } });
    expect(next.version).toBe(before.version + 1);
    await expectConsistent(store, id);
    expect(existsSync(join(dir, 'lock'))).toBe(false);
    // The kills must have hit the critical section at least once, or the test proved nothing.
    expect(killedWhileHolding).toBeGreaterThan(0);
  }, 180_000);
});
