/**
 * Saved connections through the WorkbenchApi, against real stores: a real
 * `redis-server` (ACL users, TLS), a real V1 admin API host on loopback with a
 * bearer token, and local folders. A marker secret is saved as a Redis
 * password and an admin token; it must never appear in any file the
 * workbench writes nor in any response.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminHandler } from '../../../../core/admin/handler';
import { bearerTokenAuthenticator, createAdminServer, stopServer } from '../../../../core/admin/server';
import type { ConnectionProfile } from '../../../../core/api/contract';
import { WorkbenchApiError } from '../../../../core/api/errors';
import { openLocalStore } from '../../../../core/store/local';
import type { SkillStore } from '../../../../core/store/types';
import { freePort, startRedis, startRedisWithTls, type RedisSetup } from '../../../helpers/redis';
import { openWorkbench, type TransportName, type Workbench } from '../../../helpers/workbench';
import { rejection } from '../../../helpers/rejection';

const MARKER = 'MARK3R-s3cret-7f1d9c0a';
const WRONG = 'Wr0ng-m4rker-55e1b2';
const WEATHER = { namespace: 'travel', name: 'weather-assessment' };

const failure = (promise: Promise<unknown>) => rejection(promise, WorkbenchApiError);

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/** A TCP server that accepts and never answers. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

describe('saved connections', () => {
  let tls: RedisSetup & { caFile: string };
  let adminStore: SkillStore;
  let admin: { url: string; origin: string; close(): Promise<void> };
  let silent: { port: number; close(): Promise<void> };
  let scratch: string;
  const transcript: unknown[] = [];

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'skillbench-conn-'));
    tls = await startRedisWithTls();
    adminStore = await openLocalStore(join(scratch, 'admin-registry'));
    await adminStore.publish({
      id: WEATHER,
      body: await readFile(join('examples', 'skills', 'packages', 'travel', 'weather-assessment.json'), 'utf8'),
      precondition: { kind: 'create' },
    });
    const server = createAdminServer(createAdminHandler({ store: adminStore, authenticate: bearerTokenAuthenticator(MARKER) }));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    admin = { url: `http://127.0.0.1:${port}/api/v1/skills`, origin: `http://127.0.0.1:${port}`, close: () => stopServer(server, 500) };
    silent = await silentServer();
  });

  afterAll(async () => {
    await admin?.close();
    await adminStore?.close();
    await silent?.close();
    await tls?.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  describe.each(['direct', 'websocket'] satisfies TransportName[])('over %s', (transport) => {
    let wb: Workbench;
    // A server of its own: the first tests see it empty.
    let redis: RedisSetup;
    const redisHost = () => ({ host: '127.0.0.1', port: Number(new URL(redis.url).port) });
    /** Every result and error the client received, for the grep. */
    const record = async <T>(p: Promise<T>): Promise<T> => {
      try {
        const r = await p;
        transcript.push(r);
        return r;
      } catch (error) {
        transcript.push(error instanceof WorkbenchApiError ? error.data : String(error));
        throw error;
      }
    };

    beforeAll(async () => {
      redis = await startRedis({
        config: ['user default off', `user writer on >${MARKER} ~* &* +@all`, `user looker on >${MARKER} ~* &* -@all +@connection +info`],
      });
      wb = await openWorkbench(transport, { env: { PATH: process.env['PATH'], SKILLBENCH_SECRET_KEY: 'a passphrase for the tests' } });
    });
    afterAll(async () => {
      await wb?.close();
      await redis?.stop();
    });

    it('saves a Redis profile with its password apart: the profile lists the secret by name only', async () => {
      const saved = await record(
        wb.client['connections.save']({
          profile: { name: 'prod', label: 'Production', environment: { label: 'production', colour: '#C0392B' }, target: { kind: 'redis', hosts: [redisHost()], username: 'writer', deployment: 'prod' } },
          secrets: { password: MARKER },
        }),
      );
      expect(saved.profile).toMatchObject({ name: 'prod', label: 'Production', environment: { label: 'production', colour: '#c0392b' }, read_only: false, protected: false });
      expect(saved.secrets).toEqual({ password: true });
      const list = await record(wb.client['connections.list']());
      expect(list.connections.map((c) => c.profile.name)).toEqual(['default', 'prod']);
      expect(list.secret_protection).toBe('key');
      const mode = (await stat(join(wb.dataDir, 'connections', 'secrets.json'))).mode & 0o777;
      expect(mode).toBe(0o600);
    });

    it('tests a fresh deployment as reachable and created on the first write, then publishes through the profile', async () => {
      const fresh = await record(wb.client['connections.test']({ name: 'prod' }));
      expect(fresh).toMatchObject({ ok: true, skills: 0, created_on_first_write: true });
      expect(fresh.description).toContain('writer:***@');
      const text = (await record(wb.client['packages.get']({ connection: 'default', skill: WEATHER }))).text;
      const published = await record(wb.client['publish.package']({ connection: 'prod', skill: WEATHER, text, base: null, idempotency_key: `k-${transport}` }));
      expect(published.outcome).toBe('created');
      expect(await record(wb.client['connections.test']({ name: 'prod' }))).toMatchObject({ ok: true, skills: 1 });
    });

    it('names a wrong deployment namespace and the ones the server holds', async () => {
      const result = await record(
        wb.client['connections.test']({ profile: { name: 'prod', target: { kind: 'redis', hosts: [redisHost()], username: 'writer', deployment: 'nowhere' } } }),
      );
      expect(result).toMatchObject({ ok: false, cause: 'wrong_deployment' });
      expect(result.deployments).toEqual(['prod']);
    });

    it('names refused credentials, a missing permission, a refused port, a silent host and a TLS failure', async () => {
      const target = { kind: 'redis' as const, hosts: [redisHost()], username: 'writer' };
      const auth = await record(wb.client['connections.test']({ profile: { name: 'x', target }, secrets: { password: WRONG } }));
      expect(auth).toMatchObject({ ok: false, cause: 'auth' });
      expect(JSON.stringify(auth)).not.toContain(WRONG);
      const forbidden = await record(wb.client['connections.test']({ profile: { name: 'x', target: { ...target, username: 'looker' } }, secrets: { password: MARKER } }));
      expect(forbidden).toMatchObject({ ok: false, cause: 'forbidden' });
      const refused = await record(wb.client['connections.test']({ profile: { name: 'x', target: { kind: 'redis', hosts: [{ host: '127.0.0.1', port: await freePort() }] } } }));
      expect(refused).toMatchObject({ ok: false, cause: 'refused' });
      const timeout = await record(
        wb.client['connections.test']({ profile: { name: 'x', target: { kind: 'http', url: `http://127.0.0.1:${silent.port}/api/v1/skills`, timeout_ms: 300 } } }),
      );
      expect(timeout).toMatchObject({ ok: false, cause: 'timeout' });
      const tlsPort = Number(new URL(tls.url).port);
      const noCa = await record(wb.client['connections.test']({ profile: { name: 'x', target: { kind: 'redis', hosts: [{ host: '127.0.0.1', port: tlsPort }], tls: {} } } }));
      expect(noCa).toMatchObject({ ok: false, cause: 'tls' });
      const withCa = await record(
        wb.client['connections.test']({ profile: { name: 'x', target: { kind: 'redis', hosts: [{ host: '127.0.0.1', port: tlsPort }], tls: { ca_file: tls.caFile, servername: 'localhost' } } } }),
      );
      expect(withCa).toMatchObject({ ok: true });
      // TLS asked of a server that speaks plain Redis: the handshake never completes, and that is TLS, not a timeout.
      const plain = await record(wb.client['connections.test']({ profile: { name: 'x', target: { kind: 'redis', hosts: [redisHost()], tls: {} } } }));
      expect(plain).toMatchObject({ ok: false, cause: 'tls' });
      expect((plain as { message: string }).message).toContain('plain Redis');
    });

    it('tests an admin API: the token, a refused token (401) and a wrong base URL with the right one suggested', async () => {
      await record(wb.client['connections.save']({ profile: { name: 'viewer', target: { kind: 'http', url: admin.url, auth: 'bearer' } }, secrets: { token: MARKER } }));
      expect(await record(wb.client['connections.test']({ name: 'viewer' }))).toMatchObject({ ok: true, skills: 1 });
      const wrong = await record(wb.client['connections.test']({ profile: { name: 'viewer', target: { kind: 'http', url: admin.url, auth: 'bearer' } }, secrets: { token: WRONG } }));
      expect(wrong).toMatchObject({ ok: false, cause: 'auth' });
      const base = await record(wb.client['connections.test']({ profile: { name: 'viewer', target: { kind: 'http', url: admin.origin, auth: 'bearer' } } }));
      expect(base).toMatchObject({ ok: false, cause: 'wrong_base_url', suggested_url: admin.url });
      // The typed token was only tried: the saved one is unchanged.
      expect(await record(wb.client['connections.test']({ name: 'viewer' }))).toMatchObject({ ok: true });
    });

    it('refuses publish and delete through a read-only profile and a direct publish through a protected one', async () => {
      const dir = join(scratch, `ro-${transport}`);
      await record(wb.client['connections.save']({ profile: { name: 'frozen', read_only: true, target: { kind: 'local', dir } } }));
      await record(wb.client['connections.save']({ profile: { name: 'guarded', protected: true, target: { kind: 'local', dir } } }));
      // Testing a local profile creates nothing.
      expect(await record(wb.client['connections.test']({ name: 'frozen' }))).toMatchObject({ ok: true, created_on_first_write: true, skills: 0 });
      await mkdir(dir);
      expect(await record(wb.client['connections.test']({ name: 'frozen' }))).toMatchObject({ ok: true, created_on_first_write: true });
      expect(await readdir(dir)).toEqual([]);
      const text = (await record(wb.client['packages.get']({ connection: 'default', skill: WEATHER }))).text;
      const ro = await failure(record(wb.client['publish.package']({ connection: 'frozen', skill: WEATHER, text, base: null, idempotency_key: 'ro-1' })));
      expect(ro.data).toMatchObject({ code: 'forbidden', status: 403, details: { reason: 'read_only' } });
      const prot = await failure(record(wb.client['publish.package']({ connection: 'guarded', skill: WEATHER, text, base: null, idempotency_key: 'pr-1' })));
      expect(prot.data).toMatchObject({ code: 'forbidden', details: { reason: 'protected' } });
      expect(prot.data.message).toMatch(/approved review request/);
      const del = await failure(record(wb.client['delete.versions']({ connection: 'frozen', skill: WEATHER, from: 1, to: 1, if_match: '"v1-x"', reason: 'cleanup', confirmation: 'travel/weather-assessment@v1' })));
      expect(del.data).toMatchObject({ code: 'forbidden', details: { reason: 'read_only' } });
    });

    it('refuses a secret inside a profile, naming the field and never echoing the value', async () => {
      const bad = await failure(record(wb.client['connections.save']({ profile: { name: 'leaky', target: { kind: 'http', url: admin.url, token: WRONG } } } as never)));
      expect(bad.data).toMatchObject({ code: 'invalid_request', pointer: '/profile/target' });
      expect(bad.data.message).toContain("'token' is a secret");
      expect(JSON.stringify(bad.data)).not.toContain(WRONG);
      const inUrl = await failure(record(wb.client['connections.save']({ profile: { name: 'leaky', target: { kind: 'http', url: `http://u:${WRONG}@127.0.0.1/api/v1/skills` } } })));
      expect(JSON.stringify(inUrl.data)).not.toContain(WRONG);
    });

    it('exports profiles without secrets; an import brings the profiles back, never a secret', async () => {
      const doc = await record(wb.client['connections.export']({}));
      expect(doc.format).toBe('skillbench.connections/v1');
      expect(doc.profiles.map((p) => p.name).sort()).toEqual(['frozen', 'guarded', 'prod', 'viewer']);
      expect(JSON.stringify(doc)).not.toContain(MARKER);
      const other = await openWorkbench(transport);
      try {
        const report = await record(other.client['connections.import']({ document: doc }));
        expect(report.imported.sort()).toEqual(['frozen', 'guarded', 'prod', 'viewer']);
        const list = await record(other.client['connections.list']());
        const viewer = list.connections.find((c) => c.profile.name === 'viewer')!;
        expect(viewer.secrets).toEqual({});
        expect(viewer.profile.target).toEqual((doc.profiles.find((p) => p.name === 'viewer') as ConnectionProfile).target);
        const again = await record(other.client['connections.import']({ document: doc, on_conflict: 'rename' }));
        expect(again.renamed.map((r) => r.to).sort()).toEqual(['frozen-2', 'guarded-2', 'prod-2', 'viewer-2']);
        const withSecret = { ...doc, profiles: [{ ...doc.profiles[0]!, password: WRONG }] };
        const refused = await failure(record(other.client['connections.import']({ document: withSecret })));
        expect(refused.data.code).toBe('invalid_request');
        expect(JSON.stringify(refused.data)).not.toContain(WRONG);
      } finally {
        await other.close();
      }
    });

    it('renames a profile with its secrets, and removes a profile with its secrets', async () => {
      const view = await record(wb.client['connections.list']());
      const prod = view.connections.find((c) => c.profile.name === 'prod')!.profile;
      const renamed = await record(wb.client['connections.save']({ profile: { ...prod, name: 'live', created_at: undefined, updated_at: undefined }, previous_name: 'prod' }));
      expect(renamed.secrets).toEqual({ password: true });
      expect(await record(wb.client['connections.test']({ name: 'live' }))).toMatchObject({ ok: true, skills: 1 });
      expect(await record(wb.client['connections.remove']({ name: 'live' }))).toEqual({ removed: true });
      const gone = await failure(record(wb.client['connections.test']({ name: 'live' })));
      expect(gone.data.code).toBe('not_found');
    });

    it('keeps secrets locked under another key: names are listed, nothing is opened or overwritten', async () => {
      const locked = await openWorkbench(transport, { dataDir: wb.dataDir, env: { PATH: process.env['PATH'], SKILLBENCH_SECRET_KEY: 'another passphrase' } });
      try {
        const list = await record(locked.client['connections.list']());
        expect(list.connections.find((c) => c.profile.name === 'viewer')!.secrets).toEqual({ token: true });
        const error = await failure(record(locked.client['connections.test']({ name: 'viewer' })));
        expect(error.data).toMatchObject({ code: 'secrets_locked', status: 423 });
        expect(error.data.message).toContain('SKILLBENCH_SECRET_KEY');
      } finally {
        await locked.close();
      }
      expect(await record(wb.client['connections.test']({ name: 'viewer' }))).toMatchObject({ ok: true });
    });

    it('never writes the marker secret into a file of the app-data folder', async () => {
      const files = await filesUnder(wb.dataDir);
      expect(files.some((f) => f.endsWith('secrets.json'))).toBe(true);
      for (const file of files) expect((await readFile(file)).includes(MARKER), file).toBe(false);
    });
  });

  it('never returned the marker secret in any response', () => {
    expect(transcript.length).toBeGreaterThan(40);
    expect(JSON.stringify(transcript)).not.toContain(MARKER);
  });
});
