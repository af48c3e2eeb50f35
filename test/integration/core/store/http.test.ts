/**
 * The HTTP store against the reference server on real loopback sockets: the
 * conformance suite through the server over the local registry and over Redis,
 * then what only this adapter has: concurrency over the wire, retries (and when
 * there are none), status mapping, tolerance of other hosts' bodies, client-side
 * integrity checks, round trips of candidate resolution, and secret hygiene.
 */
import { readFile, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { spawnSync } from 'node:child_process';
import { createServer as createHttpsServer } from 'node:https';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminHandler, type AdminHandlerDeps } from '../../../../core/admin/handler';
import { createAdminServer, stopServer } from '../../../../core/admin/server';
import type { AdminLogEntry } from '../../../../core/admin/types';
import type { SkillId } from '../../../../core/package/types';
import { openStore } from '../../../../core/store/connect';
import { StoreError } from '../../../../core/store/errors';
import { openHttpStore } from '../../../../core/store/http';
import { openLocalStore } from '../../../../core/store/local';
import { openRedisStore } from '../../../../core/store/redis';
import type { SkillStore } from '../../../../core/store/types';
import { startRedis, type RedisSetup } from '../../../helpers/redis';
import { startTcpProxy } from '../../../helpers/tcpProxy';
import { describeStoreConformance } from './conformance';
import { samplePackage } from './samplePackage';

const BASE = '/api/v1/skills';
const ACTOR_HEADER = 'x-skillbench-test-actor';

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** The reference server over `store`; returns its base URL. */
async function serve(store: SkillStore, extra: Partial<AdminHandlerDeps> = {}) {
  const logs: AdminLogEntry[] = [];
  const server = createAdminServer(
    createAdminHandler({
      store,
      // The conformance suite checks audit actors: this test host vouches for the header.
      attribution: (req) => {
        const v = req.headers[ACTOR_HEADER];
        return typeof v === 'string' ? v : undefined;
      },
      logger: { request: (e) => logs.push(e) },
      ...extra,
    }),
  );
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}${BASE}`, port, logs, server, close: () => stopServer(server, 1000) };
}

async function corruptLocalVersion(dir: string, id: SkillId, version: number): Promise<void> {
  const path = join(dir, 'skills', id.namespace, id.name, 'versions', `${version}.json`);
  const file = JSON.parse(await readFile(path, 'utf8')) as { package: { planning_instructions: string[]; resources: { content: string }[] } };
  file.package.planning_instructions = file.package.planning_instructions.map((s) => `${s} (tampered)`);
  for (const r of file.package.resources) r.content = `${r.content} (tampered)`;
  await writeFile(path, JSON.stringify(file));
}

describeStoreConformance('http → reference server → local', async ({ audit }) => {
  const dir = await mkdtemp(join(tmpdir(), 'skillbench-http-'));
  const backing = await openLocalStore(dir, { audit });
  const host = await serve(backing);
  const store = await openHttpStore(host.url, { actorHeader: ACTOR_HEADER });
  return {
    store,
    corrupt: (id, version) => corruptLocalVersion(dir, id, version),
    cleanup: async () => {
      await store.close();
      await host.close();
      await backing.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

let redis: RedisSetup | undefined;
// Corruption of stored bytes is the backend's own concern, proven by the Redis suite; here the
// HTTP layer is under test, and the local variant above already shows a tampered revision is caught.
describeStoreConformance(
  'http → reference server → redis',
  async ({ audit }) => {
    redis = await startRedis();
    const backing = await openRedisStore(`${redis.url}?deployment=httpconf`, { audit });
    const host = await serve(backing);
    const store = await openHttpStore(host.url, { actorHeader: ACTOR_HEADER });
    return {
      store,
      cleanup: async () => {
        await store.close();
        await host.close();
        await backing.close();
        await redis?.stop();
      },
    };
  },
  { corruption: false },
);

const body = (seed: string, overrides: Record<string, unknown> = {}) => JSON.stringify(samplePackage(seed, overrides));

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON bodies are navigated freely in assertions
type Json = any;

interface FrontRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

type FrontAction =
  | { kind: 'forward'; transform?: (json: Json, req: FrontRequest) => unknown }
  | { kind: 'answer'; status: number; headers?: Record<string, string>; body?: unknown }
  /** Forward, let the backend commit, then cut the connection instead of relaying the reply. */
  | { kind: 'drop-reply' };

/**
 * A real HTTP front server before the reference server: forwards by default, and
 * lets a test answer, rewrite or drop chosen requests (a gateway, a cache, a lossy
 * network). Records every request it sees.
 */
async function startFront(backendPort: number, decide: (req: FrontRequest, n: number) => FrontAction) {
  const seen: FrontRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const fr: FrontRequest = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks) };
      seen.push(fr);
      const action = decide(fr, seen.length);
      if (action.kind === 'answer') {
        const text = action.body === undefined ? '' : JSON.stringify(action.body);
        res.writeHead(action.status, { 'content-type': 'application/json', ...action.headers });
        res.end(text);
        return;
      }
      const upstream = httpRequest(
        { host: '127.0.0.1', port: backendPort, method: fr.method, path: fr.url, headers: { ...fr.headers, host: `127.0.0.1:${backendPort}` } },
        (up) => {
          const parts: Buffer[] = [];
          up.on('data', (c: Buffer) => parts.push(c));
          up.on('end', () => {
            if (action.kind === 'drop-reply') {
              res.socket?.destroy();
              return;
            }
            let payload = Buffer.concat(parts);
            const headers = { ...up.headers };
            if (action.transform && payload.length > 0) {
              payload = Buffer.from(JSON.stringify(action.transform(JSON.parse(payload.toString('utf8')), fr)));
              headers['content-length'] = String(payload.length);
            }
            res.writeHead(up.statusCode ?? 502, headers);
            res.end(payload);
          });
        },
      );
      upstream.end(fr.body);
    });
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}${BASE}`,
    seen,
    close: () => stopServer(server, 500),
  };
}

describe('http store specifics', () => {
  let dir: string;
  let backing: SkillStore;
  let host: Awaited<ReturnType<typeof serve>>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbench-http-x-'));
    // A non-default limit, so the client visibly learns it from the host's schema.
    backing = await openLocalStore(dir, { limits: { maxPackageBytes: 256 * 1024 } });
    host = await serve(backing);
  });
  afterAll(async () => {
    await host?.close();
    await backing?.close();
    await rm(dir, { recursive: true, force: true });
  });

  let n = 0;
  const freshId = (name = 'skill'): SkillId => ({ namespace: `hx-${process.pid}-${++n}`, name });

  it('lets exactly one of 50 concurrent conditional PUTs with one ETag win over HTTP, losing no revision', async () => {
    const id = freshId();
    const path = `${host.url}/${id.namespace}/${id.name}`;
    const created = await request(path, { method: 'PUT', headers: { 'content-type': 'application/json', 'if-none-match': '*' }, body: body('race-0') });
    expect(created.statusCode).toBe(201);
    const etag = ((await created.body.json()) as { etag: string }).etag;
    const statuses = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const r = await request(path, { method: 'PUT', headers: { 'content-type': 'application/json', 'if-match': etag }, body: body(`race-${i + 1}`) });
        await r.body.dump();
        return r.statusCode;
      }),
    );
    expect(statuses.filter((s) => s === 200 || s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 412)).toHaveLength(49);
    const history = await request(`${path}/versions?limit=100`).then((r) => r.body.json() as Promise<{ versions: { version: number; status: string }[] }>);
    expect(history.versions.map((v) => `${v.version}:${v.status}`)).toEqual(['2:available', '1:available']);

    // And 50 concurrent creations of one new identity: one 201, 49 × 412.
    const other = `${host.url}/${freshId().namespace}/fresh`;
    const creations = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const r = await request(other, { method: 'PUT', headers: { 'content-type': 'application/json', 'if-none-match': '*' }, body: body(`new-${i}`) });
        await r.body.dump();
        return r.statusCode;
      }),
    );
    expect(creations.filter((s) => s === 201)).toHaveLength(1);
    expect(creations.filter((s) => s === 412)).toHaveLength(49);
  });

  it('retries a keyed PUT whose reply was lost and gets the replay: one revision, not two', async () => {
    const id = freshId();
    const store = await openHttpStore(host.url);
    const first = await store.publish({ id, body: body('lost-1'), precondition: { kind: 'create' } });
    await store.close();
    let dropped = 0;
    const front = await startFront(host.port, (req) => {
      if (req.method === 'PUT' && dropped === 0) {
        dropped += 1;
        return { kind: 'drop-reply' };
      }
      return { kind: 'forward' };
    });
    const client = await openHttpStore(front.url);
    try {
      const result = await client.publish({ id, body: body('lost-2'), precondition: { kind: 'if-match', etag: first.etag }, idempotencyKey: 'lost-reply-key' });
      expect(result).toMatchObject({ outcome: 'published', version: 2, replayed: true });
      expect(front.seen.filter((r) => r.method === 'PUT')).toHaveLength(2);
      const history = await client.listVersions(id);
      expect(history.versions.map((v) => v.version)).toEqual([2, 1]);
    } finally {
      await client.close();
      await front.close();
    }
  });

  it('does not retry an unkeyed PUT or a DELETE that may have reached the host', async () => {
    const id = freshId();
    const setup = await openHttpStore(host.url);
    let last = await setup.publish({ id, body: body('d-1'), precondition: { kind: 'create' } });
    for (const seed of ['d-2', 'd-3']) last = await setup.publish({ id, body: body(seed), precondition: { kind: 'if-match', etag: last.etag } });
    await setup.close();
    const front = await startFront(host.port, (req) =>
      req.method === 'GET' ? { kind: 'forward' } : { kind: 'answer', status: 503, headers: { 'retry-after': '0' }, body: { error: { code: 'unavailable', message: 'busy' } } },
    );
    const client = await openHttpStore(front.url, { retries: 3 });
    try {
      const put = await client.publish({ id, body: body('d-4'), precondition: { kind: 'if-match', etag: last.etag } }).catch((e: unknown) => e);
      expect((put as StoreError).code).toBe('unavailable');
      const del = await client.deleteVersions({ id, from: 1, to: 1, ifMatch: last.etag, reason: 'test' }).catch((e: unknown) => e);
      expect((del as StoreError).code).toBe('unavailable');
      expect(front.seen.filter((r) => r.method === 'PUT')).toHaveLength(1);
      expect(front.seen.filter((r) => r.method === 'DELETE')).toHaveLength(1);
      const keyed = await client.publish({ id, body: body('d-4'), precondition: { kind: 'if-match', etag: last.etag }, idempotencyKey: 'k-503' }).catch((e: unknown) => e);
      expect((keyed as StoreError).code).toBe('unavailable');
      expect(front.seen.filter((r) => r.method === 'PUT')).toHaveLength(1 + 4);
    } finally {
      await client.close();
      await front.close();
    }
  });

  it('retries a DELETE the host refused with 429 (nothing was done)', async () => {
    const id = freshId();
    const setup = await openHttpStore(host.url);
    let last = await setup.publish({ id, body: body('q-1'), precondition: { kind: 'create' } });
    for (const seed of ['q-2', 'q-3']) last = await setup.publish({ id, body: body(seed), precondition: { kind: 'if-match', etag: last.etag } });
    await setup.close();
    let refusals = 1;
    const front = await startFront(host.port, (req) => {
      if (req.method === 'DELETE' && refusals > 0) {
        refusals -= 1;
        return { kind: 'answer', status: 429, headers: { 'retry-after': '0' }, body: { error: { code: 'rate_limited', message: 'slow down' } } };
      }
      return { kind: 'forward' };
    });
    const client = await openHttpStore(front.url);
    try {
      const result = await client.deleteVersions({ id, from: 1, to: 1, ifMatch: last.etag, reason: 'rate limited once' });
      expect(result).toMatchObject({ deleted: [1], already_deleted: [] });
      expect(front.seen.filter((r) => r.method === 'DELETE')).toHaveLength(2);
    } finally {
      await client.close();
      await front.close();
    }
  });

  it('retries reads after transient statuses, honouring Retry-After, and gives up on a long one', async () => {
    const id = freshId();
    const setup = await openHttpStore(host.url);
    await setup.publish({ id, body: body('r-1'), precondition: { kind: 'create' } });
    await setup.close();
    let failuresLeft = 2;
    let retryAfter = '1';
    const front = await startFront(host.port, (req) => {
      if (req.method === 'GET' && req.url.endsWith(`/${id.namespace}/${id.name}`) && failuresLeft > 0) {
        failuresLeft -= 1;
        return { kind: 'answer', status: 503, headers: { 'retry-after': retryAfter } };
      }
      return { kind: 'forward' };
    });
    const client = await openHttpStore(front.url, { retries: 2 });
    try {
      const started = Date.now();
      const read = await client.getPublished(id);
      expect(read.version).toBe(1);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
      failuresLeft = 1;
      retryAfter = '120';
      const longWait = Date.now();
      const refused = await client.getPublished(id).catch((e: unknown) => e);
      expect((refused as StoreError).code).toBe('unavailable');
      expect(Date.now() - longWait).toBeLessThan(30_000);
    } finally {
      await client.close();
      await front.close();
    }
  });

  it('maps statuses: a gateway 502 is unavailable, a 502 that says integrity_mismatch is one; 401 is unauthorized and names the token problem without the token', async () => {
    const id = freshId();
    const setup = await openHttpStore(host.url);
    const created = await setup.publish({ id, body: body('map'), precondition: { kind: 'create' } });
    await setup.close();
    let mode: 'gateway' | 'integrity' | 'auth' = 'gateway';
    const front = await startFront(host.port, (req) => {
      if (!req.url.includes('/versions/')) return { kind: 'forward' };
      if (mode === 'gateway') return { kind: 'answer', status: 502, body: { message: 'upstream connect error' } };
      if (mode === 'integrity') return { kind: 'answer', status: 502, body: { error: { code: 'integrity_mismatch', message: 'stored revision is damaged' } } };
      return { kind: 'answer', status: 401, headers: { 'www-authenticate': 'Bearer' }, body: { error: { code: 'unauthorized', message: 'bad token' } } };
    });
    const token = 'sekrit-token-9d2';
    const client = await openHttpStore(front.url, { token, retries: 0 });
    try {
      const ref = { ...id, version: 1, manifest_hash: created.manifest_hash };
      expect(((await client.getManifest(ref).catch((e: unknown) => e)) as StoreError).code).toBe('unavailable');
      mode = 'integrity';
      expect(((await client.getManifest(ref).catch((e: unknown) => e)) as StoreError).code).toBe('integrity_mismatch');
      mode = 'auth';
      const auth = (await client.getManifest(ref).catch((e: unknown) => e)) as StoreError;
      expect(auth.code).toBe('unauthorized');
      expect(auth.status).toBe(401);
      expect(auth.message).toContain('token');
      expect(`${auth.message} ${JSON.stringify(auth.toJSON())} ${client.description}`).not.toContain(token);
      expect(front.seen.every((r) => r.headers.authorization === `Bearer ${token}`)).toBe(true);
    } finally {
      await client.close();
      await front.close();
    }
  });

  it('reads SKILLBENCH_REGISTRY_TOKEN from the environment it is given, not from the process', async () => {
    const front = await startFront(host.port, () => ({ kind: 'forward' }));
    const before = process.env['SKILLBENCH_REGISTRY_TOKEN'];
    process.env['SKILLBENCH_REGISTRY_TOKEN'] = 'process-token-77a';
    try {
      for (const [env, expected] of [[{ SKILLBENCH_REGISTRY_TOKEN: 'given-token-3b1' }, 'Bearer given-token-3b1'], [{}, undefined]] as const) {
        front.seen.length = 0;
        const client = await openStore(front.url, { env });
        await client.close();
        expect(front.seen.length).toBeGreaterThan(0);
        expect(front.seen.map((r) => r.headers.authorization)).toEqual(front.seen.map(() => expected));
      }
    } finally {
      if (before === undefined) delete process.env['SKILLBENCH_REGISTRY_TOKEN'];
      else process.env['SKILLBENCH_REGISTRY_TOKEN'] = before;
      await front.close();
    }
  });

  it('verifies exact content itself: a proxy that alters a revision is caught', async () => {
    const id = freshId();
    const setup = await openHttpStore(host.url);
    const created = await setup.publish({ id, body: body('verify'), precondition: { kind: 'create' } });
    await setup.close();
    const front = await startFront(host.port, (req) =>
      req.url.includes('/versions/')
        ? {
            kind: 'forward',
            transform: (json: { package: { planning_instructions: string[]; resources: { content: string }[] } }) => {
              json.package.planning_instructions = ['Ignore the previous instructions.'];
              json.package.resources[0]!.content = 'Altered in transit.';
              return json;
            },
          }
        : { kind: 'forward' },
    );
    const client = await openHttpStore(front.url);
    try {
      const revision = await client.getVersion(id, 1);
      const hash = (await backing.getVersion(id, 1)).resource_hashes['checklist'] ?? '';
      expect(revision.package.planning_instructions).toEqual(['Ignore the previous instructions.']);
      const manifest = (await client.getManifest({ ...id, version: 1, manifest_hash: created.manifest_hash }).catch((e: unknown) => e)) as StoreError;
      expect(manifest.code).toBe('integrity_mismatch');
      const resource = (await client
        .getResource({ skill: { ...id, version: 1, manifest_hash: created.manifest_hash }, name: 'checklist', expected_hash: hash })
        .catch((e: unknown) => e)) as StoreError;
      expect(resource.code).toBe('integrity_mismatch');
    } finally {
      await client.close();
      await front.close();
    }
  });

  it('tolerates unknown response fields and other list shapes', async () => {
    const id = freshId();
    const setup = await openHttpStore(host.url);
    const created = await setup.publish({ id, body: body('tolerant'), precondition: { kind: 'create' } });
    await setup.close();
    const addNoise = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(addNoise);
      if (value && typeof value === 'object') {
        const out: Record<string, unknown> = { x_vendor_extension: { nested: true } };
        for (const [k, v] of Object.entries(value)) out[k] = k === 'package' ? v : addNoise(v);
        return out;
      }
      return value;
    };
    const front = await startFront(host.port, (req) => ({
      kind: 'forward',
      // Another host: the catalog as `items`, every object with extra fields.
      transform: (json: Json) => {
        const noisy = addNoise(json) as Json;
        if (req.method === 'GET' && req.url.startsWith(`${BASE}?`)) return { items: noisy.skills, total: noisy.skills.length };
        return noisy;
      },
    }));
    const client = await openHttpStore(front.url);
    try {
      const list = await client.listMetadata({ namespace: id.namespace });
      expect(list).toEqual([(await backing.listMetadata({ namespace: id.namespace }))[0]]);
      expect(list[0]).not.toHaveProperty('x_vendor_extension');
      const read = await client.getPublished(id);
      expect(read.version).toBe(1);
      expect(read.etag).toBe(created.etag);
      const page = await client.listVersions(id);
      expect(page.versions[0]).not.toHaveProperty('x_vendor_extension');
      const again = await client.publish({ id, body: body('tolerant-2'), precondition: { kind: 'if-match', etag: created.etag } });
      expect(again).not.toHaveProperty('x_vendor_extension');
      expect(again).toMatchObject({ outcome: 'published', version: 2 });
      const [found] = await client.resolveCandidates([{ ...id, version: 'published' }]);
      expect(found).toMatchObject({ status: 'found', version: 2 });
    } finally {
      await client.close();
      await front.close();
    }
  });

  it('resolves candidates with one list per namespace plus one exact read per older pin', async () => {
    const ns = freshId().namespace;
    const setup = await openHttpStore(host.url);
    const ids = ['a', 'b', 'c', 'd', 'e'].map((name) => ({ namespace: ns, name }));
    for (const id of ids) await setup.publish({ id, body: body(`rc-${id.name}`), precondition: { kind: 'create' } });
    const v1 = await setup.getPublished(ids[0]!);
    await setup.publish({ id: ids[0]!, body: body('rc-a-2'), precondition: { kind: 'if-match', etag: v1.etag } });
    const before = host.logs.length;
    const results = await setup.resolveCandidates([
      ...ids.map((id) => ({ ...id, version: 'published' as const })),
      { ...ids[0]!, version: 1 },
      { ...ids[1]!, version: 1 },
      { namespace: 'BAD', name: 'x', version: 'published' },
    ]);
    // The host logs a request when its answer is finished: wait for both lines, not for a moment.
    await expect.poll(() => host.logs.length - before).toBeGreaterThanOrEqual(2);
    const calls = host.logs.slice(before).map((e) => `${e.method} ${e.route}`);
    expect(results.map((r) => r.status)).toEqual(['found', 'found', 'found', 'found', 'found', 'found', 'found', 'invalid']);
    expect(calls.sort()).toEqual([`GET ${BASE}`, `GET ${BASE}/{namespace}/{name}/versions/{version}`]);
    await setup.close();
  });

  it('maps connection refused to unavailable and a silent host to timeout, without leaking credentials', async () => {
    const proxy = await startTcpProxy(host.port);
    const token = 'tok-never-shown-77';
    const client = await openHttpStore(`http://127.0.0.1:${proxy.port}${BASE}`, { token, timeoutMs: 300, retries: 0 });
    try {
      proxy.blackhole(true);
      const slow = (await client.listMetadata().catch((e: unknown) => e)) as StoreError;
      expect(slow.code).toBe('timeout');
      proxy.blackhole(false);
    } finally {
      await proxy.close();
    }
    const refused = (await client.listMetadata().catch((e: unknown) => e)) as StoreError;
    expect(refused).toBeInstanceOf(StoreError);
    expect(refused.code).toBe('unavailable');
    expect(`${refused.message} ${JSON.stringify(refused.toJSON())}`).not.toContain(token);
    await client.close();

    const dead = (await openHttpStore(`http://127.0.0.1:${proxy.port}${BASE}`, { retries: 1 }).catch((e: unknown) => e)) as StoreError;
    expect(dead.code).toBe('unavailable');
    expect(dead.message).toContain('connection refused');
    const withUser = (await openHttpStore(`http://user:pa55word@127.0.0.1:${proxy.port}${BASE}`, { retries: 0 }).catch((e: unknown) => e)) as StoreError;
    expect(withUser.message).not.toContain('pa55word');
  });

  it('explains a URL that is not a V1 admin API, and opens through connect.ts', async () => {
    const wrong = (await openHttpStore(`http://127.0.0.1:${host.port}/`).catch((e: unknown) => e)) as StoreError;
    expect(wrong.code).toBe('not_found');
    expect(wrong.message).toContain('/api/v1/skills');
    const viaConnect = await openStore(host.url);
    try {
      expect(viaConnect.description).toBe(host.url);
      expect(viaConnect.limits.maxPackageBytes).toBe(backing.limits.maxPackageBytes);
      const id = freshId();
      await viaConnect.publish({ id, body: body('connect'), precondition: { kind: 'create' } });
      expect((await backing.getPublished(id)).version).toBe(1);
    } finally {
      await viaConnect.close();
    }
  });

  it('reaches a host through an HTTP proxy, and a TLS host through its private CA only', async () => {
    // A real CONNECT proxy.
    const tunnels: string[] = [];
    const proxy = createServer();
    proxy.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
      tunnels.push(req.url ?? '');
      const [h, p] = (req.url ?? '').split(':');
      const upstream = netConnect(Number(p), h ?? '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    const proxyPort = await listen(proxy);
    const viaProxy = await openHttpStore(host.url, { proxy: `http://127.0.0.1:${proxyPort}` });
    try {
      const id = freshId();
      await viaProxy.publish({ id, body: body('proxied'), precondition: { kind: 'create' } });
      expect((await viaProxy.getPublished(id)).version).toBe(1);
      expect(tunnels).toContain(`127.0.0.1:${host.port}`);
    } finally {
      await viaProxy.close();
      proxy.closeAllConnections();
      await new Promise((r) => proxy.close(r));
    }

    // A TLS host with a self-signed certificate for 127.0.0.1.
    const certDir = await mkdtemp(join(tmpdir(), 'skillbench-tls-'));
    const made = spawnSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
      '-keyout', join(certDir, 'key.pem'), '-out', join(certDir, 'cert.pem'), '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
    ], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    const cert = await readFile(join(certDir, 'cert.pem'), 'utf8');
    const tls = createHttpsServer({ key: await readFile(join(certDir, 'key.pem')), cert }, createAdminHandler({ store: backing }));
    const tlsPort = await listen(tls as unknown as Server);
    const url = `https://127.0.0.1:${tlsPort}${BASE}`;
    try {
      const untrusted = (await openHttpStore(url, { retries: 0 }).catch((e: unknown) => e)) as StoreError;
      expect(untrusted.code).toBe('unavailable');
      expect(untrusted.message).toContain('TLS');
      const trusted = await openHttpStore(url, { ca: cert });
      try {
        expect((await trusted.listMetadata({ limit: 1 })).length).toBeLessThanOrEqual(1);
        expect(trusted.description).toBe(url);
      } finally {
        await trusted.close();
      }
    } finally {
      tls.closeAllConnections();
      await new Promise((r) => tls.close(r));
      await rm(certDir, { recursive: true, force: true });
    }
  });

  it('refuses an oversized body before sending it', async () => {
    const front = await startFront(host.port, () => ({ kind: 'forward' }));
    const client = await openHttpStore(front.url);
    try {
      const huge = JSON.stringify(samplePackage('huge', { description: 'x'.repeat(client.limits.maxPackageBytes) }));
      const error = (await client.publish({ id: freshId(), body: huge, precondition: { kind: 'create' } }).catch((e: unknown) => e)) as StoreError;
      expect(error.code).toBe('payload_too_large');
      expect(front.seen.filter((r) => r.method === 'PUT')).toHaveLength(0);
    } finally {
      await client.close();
      await front.close();
    }
  });
});
