/**
 * The live state of saved connections through the WorkbenchApi: opening a
 * profile is a read and never creates a registry, a local folder that is gone
 * reads as offline with the reason, a publish is the one use that creates, and
 * an admin host that stops answering turns offline on the next check while
 * validation against its limits keeps working.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminHandler } from '../../../../core/admin/handler';
import { bearerTokenAuthenticator, createAdminServer, stopServer } from '../../../../core/admin/server';
import { WorkbenchApiError } from '../../../../core/api/errors';
import { openLocalStore } from '../../../../core/store/local';
import type { SkillStore } from '../../../../core/store/types';
import { startTcpProxy, type TcpProxy } from '../../../helpers/tcpProxy';
import { openWorkbench, type Workbench } from '../../../helpers/workbench';
import { rejection } from '../../../helpers/rejection';

const TOKEN = 'st4te-t0ken-9b1e';
const WEATHER = { namespace: 'travel', name: 'weather-assessment' };
const WEATHER_FILE = join('examples', 'skills', 'packages', 'travel', 'weather-assessment.json');

const failure = (promise: Promise<unknown>) => rejection(promise, WorkbenchApiError);

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

describe('connection states', () => {
  let wb: Workbench;
  let scratch: string;
  let adminStore: SkillStore;
  let admin: { close(): Promise<void> };
  let proxy: TcpProxy;
  let adminPort: number;

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'skillbench-states-'));
    adminStore = await openLocalStore(join(scratch, 'admin-registry'), { create: true });
    await adminStore.publish({ id: WEATHER, body: await readFile(WEATHER_FILE, 'utf8'), precondition: { kind: 'create' } });
    const server = createAdminServer(createAdminHandler({ store: adminStore, authenticate: bearerTokenAuthenticator(TOKEN) }));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    admin = { close: () => stopServer(server, 500) };
    // The workbench reaches the host through a proxy, so the test can cut the network in between.
    adminPort = (server.address() as { port: number }).port;
    proxy = await startTcpProxy(adminPort);
    wb = await openWorkbench('direct', { env: { PATH: process.env['PATH'], SKILLBENCH_SECRET_KEY: 'a passphrase for the tests' } });
  });

  afterAll(async () => {
    await wb?.close();
    await proxy?.close();
    await admin?.close();
    await adminStore?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('shares one opening among parallel first uses: after a close, 8 reads at once all succeed', async () => {
    await wb.client['catalog.page']({ connection: 'default' });
    expect((await wb.client['connections.close']({ name: 'default' })).closed).toBe(true);
    const pages = await Promise.allSettled(Array.from({ length: 8 }, () => wb.client['catalog.page']({ connection: 'default' })));
    expect(pages.filter((p) => p.status === 'rejected').map((p) => String((p as PromiseRejectedResult).reason))).toEqual([]);
    expect((await wb.client['connections.open']({ name: 'default' })).state.status).toBe('open');
  });

  it('reads a saved local connection whose folder is gone as offline with the reason, and creates nothing', async () => {
    const dir = join(scratch, 'gone', 'registry');
    await wb.client['connections.save']({ profile: { name: 'gone', target: { kind: 'local', dir } } });

    const opened = await wb.client['connections.open']({ name: 'gone' });
    expect(opened.state.status).toBe('offline');
    expect(opened.state.error?.message).toContain('does not exist');
    expect(opened.state.error?.message).toContain(dir);

    const read = await failure(wb.client['catalog.page']({ connection: 'gone' }));
    expect(read.code).toBe('not_found');
    await failure(wb.client['packages.get']({ connection: 'gone', skill: WEATHER, version: 'published' }));
    await wb.client['connections.open']({ name: 'gone', check: true });

    const listed = await wb.client['connections.list']({});
    expect(listed.connections.find((c) => c.profile.name === 'gone')?.state.status).toBe('offline');
    expect(await exists(join(scratch, 'gone'))).toBe(false);
  });

  it('reads a folder that holds no registry without writing into it', async () => {
    const dir = join(scratch, 'empty');
    await mkdir(dir);
    await wb.client['connections.save']({ profile: { name: 'empty', target: { kind: 'local', dir } } });

    const opened = await wb.client['connections.open']({ name: 'empty' });
    expect(opened.state.status).toBe('error');
    expect(opened.state.error?.message).toContain('no Skillbench registry');
    const read = await failure(wb.client['catalog.page']({ connection: 'empty' }));
    expect(read.code).toBe('not_found');
    expect(await readdir(dir)).toEqual([]);
  });

  it('creates the registry of a saved local connection on its first publish, then reads it as open', async () => {
    const dir = join(scratch, 'later', 'registry');
    await wb.client['connections.save']({ profile: { name: 'later', target: { kind: 'local', dir } } });
    expect((await wb.client['connections.open']({ name: 'later' })).state.status).toBe('offline');
    expect(await exists(dir)).toBe(false);

    const published = await wb.client['publish.package']({ connection: 'later', skill: WEATHER, text: await readFile(WEATHER_FILE, 'utf8'), base: null, idempotency_key: randomUUID() });
    expect(published).toMatchObject({ version: 1, outcome: 'created' });
    expect(await exists(dir)).toBe(true);
    expect((await wb.client['connections.open']({ name: 'later', check: true })).state.status).toBe('open');
    const page = await wb.client['catalog.page']({ connection: 'later' });
    expect(page.items.map((i) => `${i.namespace}/${i.name}`)).toEqual(['travel/weather-assessment']);
  });

  it('reads a local connection offline on the next check once its folder moves away, and open when it is back', async () => {
    const dir = join(scratch, 'moving');
    await wb.client['connections.save']({ profile: { name: 'moving', target: { kind: 'local', dir } } });
    await wb.client['publish.package']({ connection: 'moving', skill: WEATHER, text: await readFile(WEATHER_FILE, 'utf8'), base: null, idempotency_key: randomUUID() });
    expect((await wb.client['connections.open']({ name: 'moving', check: true })).state.status).toBe('open');

    await rename(dir, `${dir}-away`);
    const away = await wb.client['connections.open']({ name: 'moving', check: true });
    expect(away.state).toMatchObject({ status: 'offline', error: { code: 'not_found' } });
    expect(await exists(dir)).toBe(false);

    await rename(`${dir}-away`, dir);
    expect((await wb.client['connections.open']({ name: 'moving', check: true })).state.status).toBe('open');
  });

  it('turns an admin host offline on the next check once the network is cut; validation keeps its limits', async () => {
    const url = `http://127.0.0.1:${proxy.port}/api/v1/skills`;
    await wb.client['connections.save']({ profile: { name: 'remote', target: { kind: 'http', url, auth: 'bearer', timeout_ms: 2000 } }, secrets: { token: TOKEN } });
    expect((await wb.client['connections.open']({ name: 'remote', check: true })).state.status).toBe('open');
    const text = await readFile(WEATHER_FILE, 'utf8');
    const before = await wb.client['validate.package']({ text, skill: WEATHER, connection: 'remote' });

    await proxy.close();
    const checked = await wb.client['connections.open']({ name: 'remote', check: true });
    expect(checked.state.status).toBe('offline');
    expect(checked.state.error?.message).toContain('does not answer');
    expect(checked.state.error?.message).not.toContain('reachability-probe');
    expect(JSON.stringify(checked)).not.toContain(TOKEN);

    // Validation needs no answer from the host: it keeps working, and it does not claim the host is back.
    const after = await wb.client['validate.package']({ text, skill: WEATHER, connection: 'remote' });
    expect(after.result).toEqual(before.result);
    expect((await wb.client['connections.list']({})).connections.find((c) => c.profile.name === 'remote')?.state.status).toBe('offline');
  });

  it('says the same of a host that stops answering whether a read of the user or the next check notices first', async () => {
    const cut = await startTcpProxy(adminPort);
    try {
      const url = `http://127.0.0.1:${cut.port}/api/v1/skills`;
      await wb.client['connections.save']({ profile: { name: 'remote-read', target: { kind: 'http', url, auth: 'bearer', timeout_ms: 2000 } }, secrets: { token: TOKEN } });
      expect((await wb.client['catalog.page']({ connection: 'remote-read' })).items.length).toBeGreaterThan(0);

      await cut.close();
      // A read notices first: the call fails with its request's error, and the connection's state is said of the host.
      const read = await failure(wb.client['packages.get']({ connection: 'remote-read', skill: WEATHER }));
      expect(read.code).toBe('unavailable');
      const state = (await wb.client['connections.list']({})).connections.find((c) => c.profile.name === 'remote-read')!.state;
      expect(state.status).toBe('offline');
      expect(state.error?.message).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/skills does not answer: /);
      expect(state.error?.message).not.toMatch(/\bGET\b/);
      // The check then says it in the same words.
      const checked = await wb.client['connections.open']({ name: 'remote-read', check: true });
      expect(checked.state.error?.message).toBe(state.error?.message);
    } finally {
      await cut.close();
    }
  });

  it('fails to open an unknown profile as a call, not as a state', async () => {
    const error = await failure(wb.client['connections.open']({ name: 'nobody' }));
    expect(error.code).toBe('not_found');
  });
});
