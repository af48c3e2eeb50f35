import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeIntegrity, validatePackage } from '../../../../core/package/index';
import { openStore } from '../../../../core/store/connect';
import { seedExamples } from '../../../../core/store/seed';
import { isConnectionString, openCatalog, openFolderRegistry } from '../../../../core/workspace/catalog';

const EXAMPLES = fileURLToPath(new URL('../../../../examples/skills/packages/', import.meta.url));

let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-catalog-'));
  const pkgs = join(work, 'ws', 'skills', 'packages');
  await mkdir(join(pkgs, 'travel'), { recursive: true });
  await mkdir(join(pkgs, 'Bad'), { recursive: true });
  await copyFile(join(EXAMPLES, 'travel', 'weather-assessment.json'), join(pkgs, 'travel', 'weather-assessment.json'));
  await writeFile(join(pkgs, 'travel', 'broken.json'), '{\n  "display_name": "Broken",\n  "oops": 1\n}\n');
  await writeFile(join(pkgs, 'travel', 'notes.txt'), 'not a package');
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('openFolderRegistry', () => {
  it('serves valid packages as revision 1 with the hashes core/package computes, and reports the rest', async () => {
    const registry = await openFolderRegistry(join(work, 'ws'), { label: 'ws' });
    expect(registry.description).toBe('folder ws (1 skill)');
    expect(registry.problems.map((p) => p.path).sort()).toEqual(['skills/packages/Bad', 'skills/packages/travel/broken.json', 'skills/packages/travel/notes.txt']);
    const broken = registry.problems.find((p) => p.path.endsWith('broken.json'))!;
    expect(broken.skill).toBe('travel/broken');
    expect(broken.findings.some((f) => f.line !== undefined)).toBe(true);

    const source = validatePackage(await readFile(join(EXAMPLES, 'travel', 'weather-assessment.json')), { id: { namespace: 'travel', name: 'weather-assessment' } });
    const integrity = await computeIntegrity(source.normalized!);
    const [found, numbered, other, missing, invalid] = await registry.resolveCandidates([
      { namespace: 'travel', name: 'weather-assessment', version: 'published' },
      { namespace: 'travel', name: 'weather-assessment', version: 1 },
      { namespace: 'travel', name: 'weather-assessment', version: 2 },
      { namespace: 'travel', name: 'broken', version: 'published' },
      { namespace: 'Travel', name: 'x', version: 'published' },
    ]);
    expect(found).toMatchObject({ status: 'found', version: 1, manifest_hash: integrity.manifest_hash });
    expect(numbered).toMatchObject({ status: 'found', version: 1 });
    expect(other!.status).toBe('version_unavailable');
    expect(missing!.status).toBe('not_found');
    expect(invalid!.status).toBe('invalid');

    const ref = { namespace: 'travel', name: 'weather-assessment', version: 1, manifest_hash: integrity.manifest_hash };
    const manifest = await registry.getManifest(ref);
    expect(manifest.resources.map((r) => r.content_hash)).toEqual(Object.values(integrity.resource_hashes));
    const body = await registry.getResource({ skill: ref, name: 'weather-risk-checklist', expected_hash: integrity.resource_hashes['weather-risk-checklist']! });
    expect(body.content).toContain('Weather risk signals');
    await expect(registry.getManifest({ ...ref, manifest_hash: `sha256:${'0'.repeat(64)}` })).rejects.toMatchObject({ code: 'integrity_mismatch' });
    await expect(registry.getResource({ skill: ref, name: 'weather-risk-checklist', expected_hash: `sha256:${'0'.repeat(64)}` })).rejects.toMatchObject({ code: 'integrity_mismatch' });
    await expect(registry.getManifest({ ...ref, version: 2 })).rejects.toMatchObject({ code: 'not_found' });
    expect(Object.isFrozen(manifest)).toBe(true);
  });

  it('opens a plain <ns>/<name>.json folder too, and fails clearly for a missing folder', async () => {
    const registry = await openFolderRegistry(EXAMPLES);
    expect(registry.skills.length).toBeGreaterThan(0);
    expect(registry.problems).toEqual([]);
    await expect(openFolderRegistry(join(work, 'nope'), { label: 'nope' })).rejects.toMatchObject({ code: 'not_found', message: 'catalog folder nope does not exist' });
  });
});

describe('openCatalog', () => {
  it('opens a folder of packages relative to the working directory, with its problems', async () => {
    const catalog = await openCatalog('ws', { cwd: work });
    try {
      expect(catalog.label).toBe('folder ws (1 skill)');
      expect(catalog.problems).toHaveLength(3);
      expect((await catalog.registry.listMetadata()).map((m) => m.name)).toEqual(['weather-assessment']);
    } finally {
      await catalog.close();
    }
  });

  it('opens a connection string as that store', async () => {
    const store = await openStore('local:registry', { cwd: work });
    await seedExamples(store, EXAMPLES);
    await store.close();
    const catalog = await openCatalog(' local:registry ', { cwd: work });
    try {
      expect(catalog.problems).toEqual([]);
      expect((await catalog.registry.listMetadata({ namespace: 'travel' })).length).toBeGreaterThan(1);
    } finally {
      await catalog.close();
    }
  });

  it('tells connection strings from folders', () => {
    for (const c of ['local:dir', 'redis://h:1', 'rediss://h', 'redis+sentinel://h', 'https://h/api/v1/skills']) expect(isConnectionString(c)).toBe(true);
    for (const f of ['examples/skills', './local', 'C:/skills', 'skills:x']) expect(isConnectionString(f)).toBe(false);
  });
});
