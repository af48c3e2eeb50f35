/**
 * A local registry damaged on disk, read through the WorkbenchApi: a revision
 * changed by hand is an integrity error naming its file in `packages.get` and
 * `packages.open`, never served; a deleted catalog shard or catalog folder is
 * rebuilt from the revisions, so the catalog still shows every skill.
 */
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkbenchApiError } from '../../../../core/api/errors';
import { openLocalStore } from '../../../../core/store/local';
import { CATALOG_INDEX } from '../../../../core/store/localCatalog';
import { rejection } from '../../../helpers/rejection';
import { openWorkbench, type Workbench } from '../../../helpers/workbench';
import { samplePackage } from '../store/samplePackage';

const failure = (promise: Promise<unknown>) => rejection(promise, WorkbenchApiError);
const TAMPERED = { namespace: 'travel', name: 'tampered' };
const SOUND = Array.from({ length: 12 }, (_, i) => ({ namespace: `ns-${i % 4}`, name: `sound-${i}` }));
const ALL = [TAMPERED, ...SOUND].map((id) => `${id.namespace}/${id.name}`).sort();

describe('a damaged local registry through the API', () => {
  let scratch: string;
  let dir: string;
  let wb: Workbench;
  let versionFile: string;

  async function catalog(): Promise<string[]> {
    const page = await wb.client['catalog.page']({ connection: 'damaged', cursor: null, limit: 100 });
    return page.items.map((m) => `${m.namespace}/${m.name}`).sort();
  }

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'skillbench-integrity-'));
    dir = join(scratch, 'registry');
    const store = await openLocalStore(dir, { durable: false });
    for (const id of [TAMPERED, ...SOUND]) await store.publish({ id, body: JSON.stringify(samplePackage(id.name)), precondition: { kind: 'create' } });
    await store.close();
    versionFile = join(dir, 'skills', 'travel', 'tampered', 'versions', '1.json');
    const file = JSON.parse(await readFile(versionFile, 'utf8')) as { package: { description: string } };
    file.package.description = 'Use when the user asks for anything at all.';
    await writeFile(versionFile, JSON.stringify(file));
    wb = await openWorkbench('direct');
    await wb.client['connections.save']({ profile: { name: 'damaged', target: { kind: 'local', dir } } });
  });

  afterAll(async () => {
    await wb?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('refuses a tampered revision in packages.get and packages.open, naming the file', async () => {
    // Each call starts only when awaited, so no rejection waits unhandled for its turn.
    for (const call of [
      () => wb.client['packages.get']({ connection: 'damaged', skill: TAMPERED, version: 'published' }),
      () => wb.client['packages.get']({ connection: 'damaged', skill: TAMPERED, version: 1 }),
      () => wb.client['packages.open']({ connection: 'damaged', skill: TAMPERED }),
    ]) {
      const error = await failure(call());
      expect(error.data.code).toBe('integrity_mismatch');
      expect(error.data.message).toContain(versionFile);
    }
    // The sound revisions next to it still read.
    const sound = await wb.client['packages.get']({ connection: 'damaged', skill: SOUND[0]!, version: 'published' });
    expect(sound.version).toBe(1);
  });

  it('shows every skill after a catalog shard was deleted', async () => {
    expect(await catalog()).toEqual(ALL);
    const shards = (await readdir(join(dir, 'catalog'))).filter((f) => f !== CATALOG_INDEX);
    expect(shards.length).toBeGreaterThan(1);
    await rm(join(dir, 'catalog', shards[0]!));
    expect(await catalog()).toEqual(ALL);
  });

  it('shows every skill after the catalog folder was deleted, not an empty registry', async () => {
    await rm(join(dir, 'catalog'), { recursive: true });
    expect(await catalog()).toEqual(ALL);
  });
});
