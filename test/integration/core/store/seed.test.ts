import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreError } from '../../../../core/store/errors';
import { openLocalStore } from '../../../../core/store/local';
import { automaticPrecondition } from '../../../../core/store/publication';
import { openSeededStore, seedExamples } from '../../../../core/store/seed';
import { samplePackage } from './samplePackage';

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'skillbench-seed-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function put(rel: string, text: string): Promise<void> {
  await mkdir(dirname(join(base, 'examples', rel)), { recursive: true });
  await writeFile(join(base, 'examples', rel), text);
}

describe('seedExamples', () => {
  it('publishes every valid <namespace>/<name>.json once and reports the rest', async () => {
    await put('agent-a/skills/packages/travel/weather.json', JSON.stringify(samplePackage('weather')));
    await put('agent-a/skills/packages/finance/rates.json', JSON.stringify(samplePackage('rates', { domains: ['finance'] })));
    await put('agent-b/skills/packages/travel/broken.json', JSON.stringify(samplePackage('broken', { planning_instructions: [] })));
    await put('agent-b/skills/packages/Bad_NS/thing.json', JSON.stringify(samplePackage('bad-ns')));
    await put('agent-b/skills/packages/travel/readme.md', 'not a package');
    const store = await openLocalStore(join(base, 'registry'));

    const report = await seedExamples(store, join(base, 'examples'));
    expect(report.published.map((p) => `${p.namespace}/${p.name}@${p.version}`).sort()).toEqual(['finance/rates@1', 'travel/weather@1']);
    expect(report.skipped.map((s) => [s.file.split(/[\\/]/).slice(-2).join('/'), s.code]).sort()).toEqual([
      ['Bad_NS/thing.json', 'invalid_request'],
      ['travel/broken.json', 'validation_failed'],
    ]);
    expect((await store.listMetadata()).map((m) => m.name)).toEqual(['rates', 'weather']);
    expect((await store.listMetadata({ domain: 'finance' })).map((m) => m.name)).toEqual(['rates']);

    // Seeding again changes nothing: the same key replays, creation never overwrites.
    const again = await seedExamples(store, join(base, 'examples'));
    expect(again.published.map((p) => p.version)).toEqual([1, 1]);
    expect((await store.listVersions({ namespace: 'travel', name: 'weather' })).versions).toHaveLength(1);
  });

  it('seeds nothing from a missing folder', async () => {
    const store = await openLocalStore(join(base, 'empty-registry'));
    expect(await seedExamples(store, join(base, 'no-such-folder'))).toEqual({ published: [], skipped: [] });
  });
});

describe('openSeededStore', () => {
  it('seeds the default registry once with the examples, and never a named connection', async () => {
    const home = join(base, 'home');
    const first = await openSeededStore(undefined, { env: { SKILLBENCH_HOME: home } });
    expect(first.seed?.published.length).toBeGreaterThan(3);
    const listed = (await first.store.listMetadata()).map((m) => `${m.namespace}/${m.name}`);
    expect(listed).toContain('travel/weather-assessment');
    await first.store.close();
    const again = await openSeededStore(undefined, { env: { SKILLBENCH_HOME: home } });
    expect(again.seed).toBeUndefined();
    await again.store.close();

    const missing = await openSeededStore(`local:${join(base, 'named')}`).catch((e: unknown) => e);
    expect((missing as StoreError).code).toBe('not_found');
    const named = await openSeededStore(`local:${join(base, 'named')}`, { create: true });
    expect(named.seed).toBeUndefined();
    expect(await named.store.listMetadata()).toEqual([]);
    await named.store.close();
  });
});

describe('automaticPrecondition', () => {
  it('creates a new skill and updates an existing one against its current ETag', async () => {
    const store = await openLocalStore(join(base, 'auto'));
    const id = { namespace: 'travel', name: 'auto' };
    expect(await automaticPrecondition(store, id)).toEqual({ kind: 'create' });
    const created = await store.publish({ id, body: JSON.stringify(samplePackage('auto')), precondition: await automaticPrecondition(store, id) });
    expect(await automaticPrecondition(store, id)).toEqual({ kind: 'if-match', etag: created.etag });
    await store.close();
  });
});
