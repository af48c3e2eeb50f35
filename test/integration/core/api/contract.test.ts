/**
 * The WorkbenchApi contract suite: the same behaviour over every transport
 * (direct calls, the web host's WebSocket and HTTP, Electron IPC through
 * stand-ins of ipcMain/ipcRenderer), on the embedded registry seeded with the
 * example skills.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHOD_NAMES, type WorkbenchEvents } from '../../../../core/api/contract';
import { WorkbenchApiError } from '../../../../core/api/errors';
import { openStore } from '../../../../core/store/connect';
import { TRANSPORTS, openWorkbench, type Workbench } from '../../../helpers/workbench';
import { join } from 'node:path';
import { rejection } from '../../../helpers/rejection';

const WEATHER = { namespace: 'travel', name: 'weather-assessment' };

const failure = (promise: Promise<unknown>) => rejection(promise, WorkbenchApiError);

/** Edits a package text the way an author would: one more tag. */
function withTag(text: string, tag: string): string {
  const pkg = JSON.parse(text);
  pkg.tags.push(tag);
  pkg.change_reason = `tag ${tag}`;
  return JSON.stringify(pkg, null, 2);
}

/** Edits a package text the way an author would: one more should_activate example. */
function withExample(text: string, example: string): string {
  const pkg = JSON.parse(text);
  pkg.activation_examples.should_activate.push(example);
  pkg.change_reason = `add "${example}"`;
  return JSON.stringify(pkg, null, 2);
}

/** How each transport is named in the report: the IPC one runs through stand-ins of Electron's ipcMain and ipcRenderer. */
const LABELS: Record<(typeof TRANSPORTS)[number], string> = {
  direct: 'direct calls',
  websocket: 'the web host\'s WebSocket',
  http: 'the web host\'s HTTP POSTs',
  ipc: 'Electron IPC (ipcMain and ipcRenderer stand-ins)',
};

describe.each(TRANSPORTS.map((transport) => ({ transport, label: LABELS[transport] })))('WorkbenchApi over $label', ({ transport }) => {
  let wb: Workbench;

  beforeAll(async () => {
    wb = await openWorkbench(transport);
  });
  afterAll(async () => {
    await wb?.close();
  });

  it('lists the methods it serves, every one of them a contract method', async () => {
    const info = await wb.client['app.info']();
    expect(info.methods.length).toBeGreaterThan(10);
    for (const m of info.methods) expect(METHOD_NAMES).toContain(m);
    expect(info.methods).toContain('catalog.page');
    expect(info.events).toContain('evals.progressed');
    expect(info.host).toBe(transport === 'ipc' ? 'electron' : transport === 'direct' ? 'direct' : 'browser');
  });

  it('pages through the catalog, saying how much it scanned of how much', async () => {
    const all = [];
    let page = await wb.client['catalog.page']({ connection: 'default', limit: 3 });
    expect(page.items).toHaveLength(3);
    expect(page.cursor).not.toBeNull();
    expect(page.scanned).toBe(3);
    expect(page.total).toBeGreaterThan(3);
    all.push(...page.items);
    while (page.cursor !== null) {
      page = await wb.client['catalog.page']({ connection: 'default', limit: 3, cursor: page.cursor });
      all.push(...page.items);
    }
    expect(page.scanned).toBe(page.total);
    expect(all).toHaveLength(page.total!);
    const keys = all.map((m) => `${m.namespace}/${m.name}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toContain('travel/weather-assessment');

    const found = await wb.client['catalog.page']({ connection: 'default', query: 'WEATHER travel' });
    expect(found.items.map((m) => m.name)).toContain('weather-assessment');
    expect(found.items.every((m) => `${m.namespace}/${m.name} ${m.display_name} ${m.tags.join(' ')} ${m.domains.join(' ')}`.toLowerCase().includes('weather'))).toBe(true);

    const none = await wb.client['catalog.page']({ connection: 'default', query: 'no-such-skill-anywhere' });
    expect(none).toMatchObject({ items: [], cursor: null, matched: 0 });
    expect(none.scanned).toBe(none.total);

    const sorted = await wb.client['catalog.page']({ connection: 'default', sort: { by: 'name', direction: 'desc' } });
    const names = sorted.items.map((m) => m.name);
    expect(names).toEqual([...names].sort().reverse());
  });

  it('refuses a cursor of another scan, and an unknown one, with a pointer to it', async () => {
    const page = await wb.client['catalog.page']({ connection: 'default', limit: 1 });
    const other = await failure(wb.client['catalog.page']({ connection: 'default', limit: 1, cursor: page.cursor, sort: { by: 'name', direction: 'desc' } }));
    expect(other.data).toMatchObject({ code: 'invalid_request', pointer: '/cursor' });
    const unknown = await failure(wb.client['catalog.page']({ connection: 'default', cursor: 'zzz.1.1' }));
    expect(unknown.data).toMatchObject({ code: 'not_found', pointer: '/cursor' });
  });

  it('reads a published package with its ETag and text, and a 404 for a missing skill', async () => {
    const rev = await wb.client['packages.get']({ connection: 'default', skill: WEATHER });
    expect(rev).toMatchObject({ skill: WEATHER, published: true });
    expect(rev.etag).toMatch(/^"v\d+-/);
    expect(JSON.parse(rev.text)).toEqual(rev.package);
    const missing = await failure(wb.client['packages.get']({ connection: 'default', skill: { namespace: 'travel', name: 'nope' } }));
    expect(missing.data).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('parses parameters at the boundary and names the JSON Pointer at fault', async () => {
    const bad = await failure(wb.client.call('packages.get', { connection: 'default', skill: { namespace: 'Travel', name: 'x' } }));
    expect(bad.data).toMatchObject({ code: 'invalid_request', status: 400, pointer: '/skill/namespace' });
    const extra = await failure(wb.client.call('app.info', { surprise: true } as never));
    expect(extra.data.code).toBe('invalid_request');
    const unknown = await failure(wb.client.call('nope.never' as never));
    expect(unknown.data.code).toBe('not_implemented');
  });

  it('validates with the registry verdict and locates each finding', async () => {
    const ok = await wb.client['validate.package']({ text: (await wb.client['packages.get']({ connection: 'default', skill: WEATHER })).text, skill: WEATHER, connection: 'default' });
    expect(ok.result.valid).toBe(true);
    expect(ok.limits.maxDescriptionChars).toBeGreaterThan(0);
    const broken = await wb.client['validate.package']({ text: '{\n  "display_name": 3\n}' });
    expect(broken.result.valid).toBe(false);
    const finding = broken.result.errors.find((f) => f.path === '/display_name');
    expect(finding).toMatchObject({ line: 2 });
  });

  it('diffs a key-reordered text against the published revision as no change, and an edit as one', async () => {
    const rev = await wb.client['packages.get']({ connection: 'default', skill: WEATHER });
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(rev.package).reverse()));
    const same = await wb.client['diff.packages']({ before: { kind: 'stored', connection: 'default', skill: WEATHER, version: 'published' }, after: { kind: 'text', text: reordered, label: 'draft' } });
    expect(same.diff.identical).toBe(true);
    expect(same.after.text).toBe(same.before.text);
    // The connection is named by its label, as the workbench shows it.
    expect(same.before.label).toBe('Local registry v1 (published)');
    const edited = await wb.client['diff.packages']({ before: { kind: 'stored', connection: 'default', skill: WEATHER, version: 'published' }, after: { kind: 'text', text: withExample(rev.text, 'Is it icy in Tromsø tonight?') } });
    expect(edited.diff.identical).toBe(false);
    expect(edited.diff.changes.some((c) => c.field === 'activation_examples.should_activate')).toBe(true);
    const invalid = await failure(wb.client['diff.packages']({ before: { kind: 'text', text: '{', label: 'broken draft' }, after: { kind: 'text', text: rev.text } }));
    expect(invalid.data.code).toBe('validation_failed');
    expect(invalid.message).toContain('broken draft');
    expect(invalid.findings[0]).toMatchObject({ line: 1 });
  });

  it('publishes conditionally and idempotently; a 412 carries base, theirs and mine; a 422 carries located findings', async () => {
    const skill = { namespace: 'travel', name: `api-${transport}` };
    const base = await wb.client['packages.get']({ connection: 'default', skill: WEATHER });
    const created = await wb.client['publish.package']({ connection: 'default', skill, text: base.text, base: null, idempotency_key: `create-${transport}` });
    expect(created).toMatchObject({ outcome: 'created', version: 1, replayed: false, audit_recorded: true });

    // The author opens v1 and edits it; someone else publishes v2 meanwhile.
    const opened = await wb.client['packages.get']({ connection: 'default', skill });
    const store = await openStore(`local:${join(wb.dataDir, 'registry')}`);
    try {
      await store.publish({ id: skill, body: withExample(opened.text, 'Will it hail in Bergen?'), precondition: { kind: 'if-match', etag: opened.etag }, idempotencyKey: `other-${transport}` });
    } finally {
      await store.close();
    }
    const mineText = withTag(opened.text, 'fog');
    const stale = await failure(wb.client['publish.package']({ connection: 'default', skill, text: mineText, base: { version: opened.version, etag: opened.etag }, idempotency_key: `mine-${transport}-1` }));
    expect(stale.data).toMatchObject({ code: 'precondition_failed', status: 412 });
    expect(stale.conflict?.base?.version).toBe(1);
    expect(stale.conflict?.theirs.version).toBe(2);
    expect(stale.conflict?.theirs.package.activation_examples.should_activate).toContain('Will it hail in Bergen?');
    expect(stale.conflict?.mine.package?.tags).toContain('fog');

    // Merge base/theirs/mine, then publish on v2 with one key, retried.
    const conflict = stale.conflict!;
    const merged = await wb.client['merge.packages']({ base: { kind: 'text', text: conflict.base!.text }, theirs: { kind: 'text', text: conflict.theirs.text }, mine: { kind: 'text', text: conflict.mine.text } });
    expect(merged.clean).toBe(true);
    expect(merged.validation.valid).toBe(true);
    const key = `mine-${transport}-2`;
    const published = await wb.client['publish.package']({ connection: 'default', skill, text: merged.merged_text, base: { version: conflict.theirs.version, etag: conflict.theirs.etag }, idempotency_key: key });
    expect(published).toMatchObject({ outcome: 'published', version: 3, replayed: false });
    const retried = await wb.client['publish.package']({ connection: 'default', skill, text: merged.merged_text, base: { version: conflict.theirs.version, etag: conflict.theirs.etag }, idempotency_key: key });
    expect(retried).toMatchObject({ version: 3, etag: published.etag, replayed: true });
    const v3 = await wb.client['packages.get']({ connection: 'default', skill });
    expect(v3.package.activation_examples.should_activate).toContain('Will it hail in Bergen?');
    expect(v3.package.tags).toContain('fog');

    const invalid = await failure(wb.client['publish.package']({ connection: 'default', skill, text: '{\n  "display_name": ""\n}', base: { version: 3, etag: published.etag }, idempotency_key: `bad-${transport}` }));
    expect(invalid.data).toMatchObject({ code: 'validation_failed', status: 422 });
    expect(invalid.findings.length).toBeGreaterThan(0);
    expect(invalid.findings.every((f) => typeof f.path === 'string')).toBe(true);
    expect(invalid.data.line).toBeGreaterThanOrEqual(1);
  });

  it('lists history with protection markers and deletes only with the typed confirmation', async () => {
    const skill = { namespace: 'travel', name: `hist-${transport}` };
    const base = await wb.client['packages.get']({ connection: 'default', skill: WEATHER });
    let etag: string | null = null;
    for (let i = 1; i <= 4; i++) {
      const text = withExample(base.text, `history case ${i}`);
      const r = await wb.client['publish.package']({ connection: 'default', skill, text, base: etag === null ? null : { version: i - 1, etag }, idempotency_key: `hist-${transport}-${i}` });
      etag = r.etag;
    }
    const history = await wb.client['versions.list']({ connection: 'default', skill });
    expect(history.published).toBe(4);
    expect(history.etag).toBe(etag);
    expect(history.versions.map((v) => [v.version, v.protection ?? null])).toEqual([[4, 'published'], [3, 'protected'], [2, null], [1, null]]);

    const blocked = await wb.client['delete.preview']({ connection: 'default', skill, from: 2, to: 3 });
    expect(blocked).toMatchObject({ allowed: false, protected: [3], deletable: [2], confirmation: 'travel/hist-' + transport + '@v2-v3' });
    const preview = await wb.client['delete.preview']({ connection: 'default', skill, from: 1, to: 2 });
    expect(preview).toMatchObject({ allowed: true, deletable: [1, 2], etag, confirmation: `travel/hist-${transport}@v1-v2` });
    expect(preview.consequence).toMatch(/tombstone/);

    const wrong = await failure(wb.client['delete.versions']({ connection: 'default', skill, from: 1, to: 2, if_match: etag!, reason: 'retention', confirmation: `travel/hist-${transport}@v1` }));
    expect(wrong.data).toMatchObject({ code: 'invalid_request', pointer: '/confirmation' });
    expect((await wb.client['versions.list']({ connection: 'default', skill })).versions.every((v) => v.status === 'available')).toBe(true);

    const deleted = await wb.client['delete.versions']({ connection: 'default', skill, from: 1, to: 2, if_match: etag!, reason: 'retention', confirmation: preview.confirmation });
    expect(deleted.deleted).toEqual([1, 2]);
    const after = await wb.client['versions.list']({ connection: 'default', skill });
    expect(after.versions.filter((v) => v.status === 'deleted').map((v) => v.version)).toEqual([2, 1]);
    const protectedDelete = await failure(wb.client['delete.versions']({ connection: 'default', skill, from: 3, to: 3, if_match: etag!, reason: 'x', confirmation: `travel/hist-${transport}@v3` }));
    expect(protectedDelete.data).toMatchObject({ code: 'conflict', status: 409 });
    const retained = await wb.client['versions.get']({ connection: 'default', skill, version: 3 });
    expect(retained).toMatchObject({ version: 3, published: false });
  });

  // Plain HTTP calls carry no events: the browser client takes them over the WebSocket.
  it.skipIf(transport === 'http')('reports connection state changes as events', async () => {
    const seen: WorkbenchEvents['connections.changed'][] = [];
    const off = wb.client.on('connections.changed', (e) => seen.push(e));
    // The socket's subscription must reach the server before the change happens.
    await wb.client['app.info']();
    await wb.client['connections.close']({ name: 'default' });
    const view = await wb.client['connections.open']({ name: 'default' });
    expect(view.state.status).toBe('open');
    await expect.poll(() => seen.map((e) => e.state?.status), { timeout: 10_000 }).toEqual(expect.arrayContaining(['closed', 'opening', 'open']));
    off();
    const list = await wb.client['connections.list']();
    expect(list.connections[0]).toMatchObject({ profile: { name: 'default' }, state: { status: 'open' } });
  });

  it('checks model specs and describes providers without exposing keys', async () => {
    expect(await wb.client['models.check']({ spec: 'baseline:lexical' })).toMatchObject({ ok: true, isBaseline: true });
    const bad = await wb.client['models.check']({ spec: 'openai:' });
    expect(bad.ok).toBe(false);
    expect(bad.error?.code).toBe('invalid_request');
    const { providers } = await wb.client['models.list']();
    expect(providers.map((p) => p.id)).toContain('baseline');
  });
});
