/**
 * Two `skillbench serve` processes on one app-data folder, as when a second
 * window is started by hand: saves of profiles and secrets sent to both at
 * once all land (every read-modify-write holds the folder's lock), and a draft
 * autosaved by one instance is never silently replaced by the other's: the
 * second save is a conflict, and a reload shows the other instance's text.
 * Everything goes through each process's HTTP API, signed in as a script does.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionManager } from '../../../core/connections/manager';
import { callApi, signIn, startServe, type ApiEnvelope, type Served } from '../../helpers/serve';

const SKILL = { namespace: 'travel', name: 'weather-assessment' };

/** A running instance and its signed-in API. */
interface Instance {
  served: Served;
  call<T = unknown>(method: string, params: unknown): Promise<ApiEnvelope<T>>;
}

async function start(cwd: string, home: string): Promise<Instance> {
  const served = await startServe(['--port', '0'], { cwd, env: { SKILLBENCH_HOME: home } });
  const session = await signIn(served.url);
  return { served, call: (method, params) => callApi(served.url.origin, session, method, params) };
}

async function stop(instance: Instance | undefined): Promise<string> {
  if (!instance) return '';
  if (instance.served.child.exitCode === null) instance.served.child.kill('SIGTERM');
  return (await instance.served.done).stderr;
}

describe('two serve instances on one app-data folder', () => {
  let dir: string;
  let home: string;
  let a: Instance;
  let b: Instance;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbench-two-'));
    home = join(dir, 'home');
    [a, b] = await Promise.all([start(dir, home), start(dir, home)]);
  });

  afterAll(async () => {
    const stderr = await Promise.all([stop(a), stop(b)]);
    for (const text of stderr) expect(text).not.toMatch(/internal error/);
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps all 30 profiles saved at once through both instances', async () => {
    const saves = Array.from({ length: 30 }, (_, i) =>
      (i % 2 === 0 ? a : b).call('connections.save', { profile: { name: `local-${i}`, target: { kind: 'local', dir: join(dir, `reg-${i}`) } } }),
    );
    const results = await Promise.all(saves);
    expect(results.filter((r) => !r.ok)).toEqual([]);
    for (const instance of [a, b]) {
      const listed = await instance.call<{ connections: { profile: { name: string } }[] }>('connections.list', {});
      expect(listed.ok).toBe(true);
      const names = listed.ok ? listed.result.connections.map((c) => c.profile.name).filter((n) => n.startsWith('local-')) : [];
      expect(names.sort()).toEqual(Array.from({ length: 30 }, (_, i) => `local-${i}`).sort());
    }
  });

  it('keeps all 20 secrets saved at once through both instances', async () => {
    const token = (i: number) => `t0ken-${i}-of-twenty`;
    const saves = Array.from({ length: 20 }, (_, i) =>
      (i % 2 === 0 ? b : a).call('connections.save', {
        profile: { name: `remote-${i}`, target: { kind: 'http', url: `http://127.0.0.1:9/api/v1/skills`, auth: 'bearer' } },
        secrets: { token: token(i) },
      }),
    );
    expect((await Promise.all(saves)).filter((r) => !r.ok)).toEqual([]);
    const manager = new ConnectionManager({ dataDir: home, env: {} });
    for (let i = 0; i < 20; i++) expect(await manager.secrets.get(`remote-${i}`), `remote-${i}`).toEqual({ token: token(i) });
    const listed = await a.call<{ connections: { profile: { name: string }; secrets: Record<string, boolean> }[] }>('connections.list', {});
    expect(listed.ok && listed.result.connections.filter((c) => c.profile.name.startsWith('remote-') && c.secrets['token'])).toHaveLength(20);
  });

  it("reports a draft conflict instead of replacing one instance's autosave with the other's", async () => {
    const opened = await Promise.all([a.call<{ id: string; text: string }>('packages.open', { connection: 'default', skill: SKILL }), b.call<{ id: string; text: string }>('packages.open', { connection: 'default', skill: SKILL })]);
    const [fromA, fromB] = opened.map((o) => {
      if (!o.ok) throw new Error(o.error.message);
      return o.result;
    });
    expect(fromA!.id).toBe(fromB!.id);
    const id = fromA!.id;
    const textA = fromA!.text.replace('"change_reason": "', '"change_reason": "Edited in the first window. ');
    const textB = fromB!.text.replace('"change_reason": "', '"change_reason": "Edited in the second window. ');

    const savedA = await a.call('drafts.save', { id, text: textA });
    expect(savedA.ok).toBe(true);
    const savedB = await b.call('drafts.save', { id, text: textB });
    expect(savedB.ok).toBe(false);
    if (!savedB.ok) {
      expect(savedB.error.code).toBe('conflict');
      expect(savedB.error.message).toMatch(/another Skillbench window/);
    }
    // Nothing of the first window's edit was lost; the second window sees it on reload, then saves on top of it.
    const reloaded = await b.call<{ text: string }>('drafts.get', { id });
    expect(reloaded.ok && reloaded.result.text).toBe(textA);
    const merged = textA.replace('Edited in the first window. ', 'Edited in both windows. ');
    expect((await b.call('drafts.save', { id, text: merged })).ok).toBe(true);
    const listed = await a.call<{ drafts: { id: string; text: string }[] }>('drafts.list', {});
    expect(listed.ok && listed.result.drafts.find((d) => d.id === id)?.text).toBe(merged);
    // The first window's next autosave, based on the text it was shown, is a conflict in turn; after a reload it saves.
    const stale = await a.call('drafts.save', { id, text: `${textA} ` });
    expect(stale.ok).toBe(false);
    expect((await a.call('drafts.get', { id })).ok).toBe(true);
    expect((await a.call('drafts.save', { id, text: `${merged} ` })).ok).toBe(true);
  });

  it('serves 8 parallel first reads after connections.close through one shared opening', async () => {
    expect((await a.call('catalog.page', { connection: 'default' })).ok).toBe(true);
    const closed = await a.call<{ closed: boolean }>('connections.close', { name: 'default' });
    expect(closed.ok && closed.result.closed).toBe(true);
    const pages = await Promise.all(Array.from({ length: 8 }, () => a.call<{ items: unknown[] }>('catalog.page', { connection: 'default' })));
    expect(pages.filter((p) => !p.ok).map((p) => p.error?.message)).toEqual([]);
    for (const page of pages) expect(page.ok && page.result.items.length).toBeGreaterThan(0);
  });

  it('refuses a save of a draft this instance never loaded while the instance that saved it is running', async () => {
    const opened = await a.call<{ id: string; text: string }>('packages.open', { connection: 'default', skill: { namespace: 'travel', name: 'currency-conversion' } });
    if (!opened.ok) throw new Error(opened.error.message);
    const { id, text } = opened.result;
    const textA = text.replace('"change_reason": "', '"change_reason": "First window. ');
    expect((await a.call('drafts.save', { id, text: textA })).ok).toBe(true);
    const blind = await b.call('drafts.save', { id, text: text.replace('"change_reason": "', '"change_reason": "Second window. ') });
    expect(blind.ok).toBe(false);
    if (!blind.ok) expect(blind.error).toMatchObject({ code: 'conflict', details: { reason: 'draft_changed' } });
    const loaded = await b.call<{ text: string }>('drafts.get', { id });
    expect(loaded.ok && loaded.result.text).toBe(textA);
    expect((await b.call('drafts.save', { id, text: `${textA} ` })).ok).toBe(true);
  });
});
