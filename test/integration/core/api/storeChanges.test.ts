/**
 * `store.changed` through the WorkbenchApi: this session's publications and
 * deletions are announced at once, and a watched recheck announces what
 * another writer (here a second handle on the same registry, as a sync or the
 * CLI would be) changed in between; an unwatched check stays quiet.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreChange } from '../../../../core/api/contract';
import { openLocalStore } from '../../../../core/store/local';
import { openWorkbench, type Workbench } from '../../../helpers/workbench';

const WEATHER = { namespace: 'travel', name: 'weather-assessment' };
const WEATHER_FILE = join('examples', 'skills', 'packages', 'travel', 'weather-assessment.json');

/** `text` with its description and change reason reworded (a change reason alone is a same-content no-op). */
function edited(text: string, reason: string): string {
  return text.replace(/"description": "/, `"description": "${reason}. `).replace(/"change_reason": "[^"]*"/, `"change_reason": "${reason}"`);
}

describe('store changes', () => {
  let wb: Workbench;
  const seen: StoreChange[] = [];

  beforeAll(async () => {
    wb = await openWorkbench('websocket', { actor: 'ana' });
    wb.client.on('store.changed', (change) => seen.push(change));
  });

  afterAll(async () => {
    await wb?.close();
  });

  const waitFor = async (predicate: (c: StoreChange) => boolean): Promise<StoreChange> => {
    await expect.poll(() => seen.some(predicate)).toBe(true);
    return seen.find(predicate)!;
  };

  it('announces a publication of this session with the version and who made it', async () => {
    const published = await wb.client['packages.get']({ connection: 'default', skill: WEATHER });
    const text = edited(published.text, 'Announced publication');
    const outcome = await wb.client['publish.package']({ connection: 'default', skill: WEATHER, text, base: { version: published.version, etag: published.etag }, idempotency_key: 'store-changes-1' });
    const change = await waitFor((c) => c.kind === 'published');
    expect(change).toMatchObject({ connection: 'default', skill: WEATHER, version: outcome.version, actor: 'ana' });
  });

  it('announces deleted versions', async () => {
    const head = await wb.client['packages.get']({ connection: 'default', skill: WEATHER });
    // Two more versions, so v1 is neither published nor its predecessor.
    let base = { version: head.version, etag: head.etag };
    for (const reason of ['Second', 'Third']) {
      const text = edited(head.text, reason);
      const outcome = await wb.client['publish.package']({ connection: 'default', skill: WEATHER, text, base, idempotency_key: `store-changes-${reason}` });
      base = { version: outcome.version, etag: outcome.etag };
    }
    await wb.client['delete.versions']({ connection: 'default', skill: WEATHER, from: 1, to: 1, if_match: base.etag, confirmation: 'travel/weather-assessment@v1', reason: 'obsolete' });
    const change = await waitFor((c) => c.kind === 'deleted');
    expect(change).toMatchObject({ connection: 'default', skill: WEATHER, versions: [1], actor: 'ana' });
  });

  it('announces another writer\'s change on the next watched recheck, and not on an unwatched one', async () => {
    await wb.client['connections.open']({ name: 'default', check: true, watch: true });
    const other = await openLocalStore(join(wb.dataDir, 'registry'));
    try {
      const body = (await readFile(WEATHER_FILE, 'utf8')).replace(/"name": "[^"]*"/, '"name": "synced"');
      await other.publish({ id: { namespace: 'travel', name: 'synced' }, body, precondition: { kind: 'create' }, actor: 'sync' });
    } finally {
      await other.close();
    }
    const before = seen.length;
    await wb.client['connections.open']({ name: 'default', check: true });
    await wb.client['connections.open']({ name: 'default' });
    // A round trip after both: any event they caused has arrived by now.
    await wb.client['app.info']({});
    expect(seen.slice(before).filter((c) => c.kind === 'changed')).toEqual([]);
    await wb.client['connections.open']({ name: 'default', check: true, watch: true });
    const change = await waitFor((c) => c.kind === 'changed');
    expect(change).toMatchObject({ connection: 'default', skill: { namespace: 'travel', name: 'synced' }, version: 1 });
    expect(change.actor).toBeUndefined();
  });

  it('takes a view\'s whole catalog read as the baseline: a change before the first watched recheck is announced by it', async () => {
    const fresh = await openWorkbench('websocket', { actor: 'ana' });
    const changes: StoreChange[] = [];
    fresh.client.on('store.changed', (change) => changes.push(change));
    try {
      // A view shows the catalog; no watched recheck has run yet.
      const page = await fresh.client['catalog.page']({ connection: 'default', cursor: null, limit: 200 });
      expect(page.items.some((i) => i.name === 'early')).toBe(false);
      const other = await openLocalStore(join(fresh.dataDir, 'registry'));
      try {
        await other.publish({ id: { namespace: 'travel', name: 'early' }, body: await readFile(WEATHER_FILE, 'utf8'), precondition: { kind: 'create' }, actor: 'sync' });
      } finally {
        await other.close();
      }
      await fresh.client['connections.open']({ name: 'default', check: true, watch: true });
      await expect.poll(() => changes.find((c) => c.kind === 'changed')).toMatchObject({ skill: { namespace: 'travel', name: 'early' }, version: 1 });
    } finally {
      await fresh.close();
    }
  });

  it('does not report its own publication on the next watched recheck', async () => {
    const head = await wb.client['packages.get']({ connection: 'default', skill: WEATHER });
    const text = edited(head.text, 'Fourth');
    await wb.client['publish.package']({ connection: 'default', skill: WEATHER, text, base: { version: head.version, etag: head.etag }, idempotency_key: 'store-changes-4' });
    await waitFor((c) => c.kind === 'published' && c.version === head.version + 1);
    const before = seen.length;
    await wb.client['connections.open']({ name: 'default', check: true, watch: true });
    await wb.client['app.info']({});
    expect(seen.slice(before)).toEqual([]);
  });
});
