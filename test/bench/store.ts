/**
 * Bench suite `store-local`: the embedded registry against raw file-system
 * baselines measured in the same run.
 *
 * - listMetadata over 10,000 skills, cold (a freshly opened store) and warm, vs
 *   reading the same catalog bytes with readdir + readFile + JSON.parse;
 * - getPublished, which verifies the revision's hashes, vs reading and parsing
 *   the same two files;
 * - publish throughput (durable, update path) vs one atomic durable write of the
 *   same version bytes (temp file, write, fsync, rename, fsync of the folder).
 *
 * The 10,000-skill fixture is built once through the store's own publish path, in
 * a temp dir, with `durable: false` (atomic, not flushed) to keep it quick.
 */
import { mkdtemp, open, readFile, readdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openLocalStore } from '../../core/store/local';
import type { SkillStore } from '../../core/store/types';
import { samplePackage } from '../integration/core/store/samplePackage';
import { compare, type BenchRow } from './harness';

export const SKILLS = 10_000;
const NAMESPACES = 100;
const DOMAINS = ['travel', 'finance', 'health', 'retail', 'support', 'legal', 'ops', 'science'];

function fixtureBody(i: number): string {
  return JSON.stringify(
    samplePackage(`bench-${i}`, {
      domains: [DOMAINS[i % DOMAINS.length], DOMAINS[(i * 7) % DOMAINS.length]],
      tags: [`t${i % 40}`, `t${(i * 3) % 40}`],
    }),
  );
}

export async function buildFixture(dir: string): Promise<number> {
  const store = await openLocalStore(dir, { durable: false });
  const start = performance.now();
  for (let i = 0; i < SKILLS; i++) {
    await store.publish({
      id: { namespace: `ns-${i % NAMESPACES}`, name: `skill-${i}` },
      body: fixtureBody(i),
      precondition: { kind: 'create' },
    });
  }
  await store.close();
  return performance.now() - start;
}

/** The raw baseline of a listing: the same catalog bytes read and parsed, nothing else. */
async function rawCatalogRead(dir: string): Promise<number> {
  const catalog = join(dir, 'catalog');
  // The shards only: reading the shard index is part of the store's cost, not of the baseline.
  const names = (await readdir(catalog)).filter((n) => /^[0-9a-f]{2}\.json$/.test(n));
  const shards = await Promise.all(names.map(async (n) => JSON.parse(await readFile(join(catalog, n), 'utf8')) as { skills: Record<string, unknown> }));
  let count = 0;
  for (const s of shards) count += Object.keys(s.skills).length;
  return count;
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The raw baseline of a publication: one atomic durable file replacement of the same bytes. */
async function rawAtomicWrite(dir: string, bytes: string): Promise<void> {
  const path = join(dir, 'raw.json');
  const handle = await open(`${path}.tmp`, 'w');
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(`${path}.tmp`, path);
  await fsyncDir(dir);
}

/** Runs the suite and returns its rows. */
export async function bench(): Promise<BenchRow[]> {
  const root = await mkdtemp(join(tmpdir(), 'skillbench-bench-store-'));
  const rows: BenchRow[] = [];
  try {
    const dir = join(root, 'registry');
    process.stderr.write(`bench: store-local: publishing ${SKILLS} skills for the fixture ...\n`);
    const fixtureMs = await buildFixture(dir);
    const fixtureNote = `fixture: ${SKILLS} publishes in ${(fixtureMs / 1000).toFixed(1)} s (${(SKILLS / (fixtureMs / 1000)).toFixed(0)}/s, not flushed)`;

    const counted = await rawCatalogRead(dir);
    if (counted !== SKILLS) throw new Error(`fixture catalog holds ${counted} skills, expected ${SKILLS}`);

    const cold = await compare(
      async () => {
        const store = await openLocalStore(dir);
        const list = await store.listMetadata();
        if (list.length !== SKILLS) throw new Error(`listed ${list.length}`);
      },
      () => rawCatalogRead(dir),
      { rounds: 11, warmup: 2 },
    );
    rows.push({
      suite: 'store-local',
      name: `listMetadata ${SKILLS} (cold open)`,
      medianMs: cold.subjectMs,
      baselineName: 'raw catalog read+parse',
      baselineMs: cold.baselineMs,
      ratio: cold.subjectMs / cold.baselineMs,
      target: 'ratio <= 1.5',
      met: cold.subjectMs / cold.baselineMs <= 1.5,
      note: fixtureNote,
    });

    const warmStore: SkillStore = await openLocalStore(dir);
    const warm = await compare(
      async () => {
        const list = await warmStore.listMetadata();
        if (list.length !== SKILLS) throw new Error(`listed ${list.length}`);
      },
      () => rawCatalogRead(dir),
      { rounds: 15, warmup: 2 },
    );
    rows.push({
      suite: 'store-local',
      name: `listMetadata ${SKILLS} (warm)`,
      medianMs: warm.subjectMs,
      baselineName: 'raw catalog read+parse',
      baselineMs: warm.baselineMs,
      ratio: warm.subjectMs / warm.baselineMs,
      target: 'ratio <= 1',
      met: warm.subjectMs / warm.baselineMs <= 1,
      note: 'parsed shards reused while their files are unchanged',
    });

    const filtered = await compare(
      () => warmStore.listMetadata({ namespace: 'ns-7', domain: 'travel' }),
      () => rawCatalogRead(dir),
      { rounds: 15, warmup: 2 },
    );
    rows.push({
      suite: 'store-local',
      name: `listMetadata ${SKILLS} namespace+domain (warm)`,
      medianMs: filtered.subjectMs,
      baselineName: 'raw catalog read+parse',
      baselineMs: filtered.baselineMs,
      ratio: filtered.subjectMs / filtered.baselineMs,
      target: 'ratio <= 1',
      met: filtered.subjectMs / filtered.baselineMs <= 1,
    });
    // A revision read verifies the stored package against the manifest hash recorded at publication.
    const revisionId = { namespace: 'ns-7', name: 'skill-7' };
    const skillDir = join(dir, 'skills', revisionId.namespace, revisionId.name);
    const read = await compare(
      async () => {
        const revision = await warmStore.getPublished(revisionId);
        if (revision.version !== 1) throw new Error(`read version ${revision.version}`);
      },
      async () => {
        const state = JSON.parse(await readFile(join(skillDir, 'state.json'), 'utf8')) as { published: number };
        JSON.parse(await readFile(join(skillDir, 'versions', `${state.published}.json`), 'utf8'));
      },
      { rounds: 15, batch: 20, warmup: 2 },
    );
    rows.push({
      suite: 'store-local',
      name: 'getPublished (hash-verified)',
      medianMs: read.subjectMs,
      baselineName: 'raw state+revision read+parse',
      baselineMs: read.baselineMs,
      ratio: read.subjectMs / read.baselineMs,
      target: 'ratio <= 2',
      met: read.subjectMs / read.baselineMs <= 2,
      note: 'resource bodies and the manifest re-hashed on every read',
    });
    await warmStore.close();

    // Publish throughput: durable updates of one skill in the 10,000-skill registry.
    const store = await openLocalStore(dir);
    const id = { namespace: 'ns-1', name: 'skill-1' };
    let etag = (await store.getPublished(id)).etag;
    let n = 0;
    const versionBytes = await readFile(join(dir, 'skills', id.namespace, id.name, 'versions', '1.json'), 'utf8');
    const batch = 10;
    const pub = await compare(
      async () => {
        n += 1;
        const result = await store.publish({ id, body: fixtureBody(SKILLS + n), precondition: { kind: 'if-match', etag }, idempotencyKey: `bench-${n}` });
        etag = result.etag;
      },
      () => rawAtomicWrite(root, versionBytes),
      { rounds: 9, batch, warmup: 1 },
    );
    await store.close();
    rows.push({
      suite: 'store-local',
      name: 'publish (durable update)',
      medianMs: pub.subjectMs,
      baselineName: 'atomic write+fsync+rename',
      baselineMs: pub.baselineMs,
      ratio: pub.subjectMs / pub.baselineMs,
      target: 'ratio <= 6',
      met: pub.subjectMs / pub.baselineMs <= 6,
      note: `${(1000 / pub.subjectMs).toFixed(0)} publishes/s vs ${(1000 / pub.baselineMs).toFixed(0)} raw writes/s`,
    });
    return rows;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
