/**
 * The redis adapter against real redis-server processes: the conformance suite on
 * standalone, Cluster (3 masters) and Sentinel (1 master + 1 sentinel), then the
 * behaviour only this adapter has: credentials, deployments, key layout, failure
 * mapping and round-trip counts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, Redis } from 'ioredis';
import type { SkillId } from '../../../../core/package/types';
import { StoreError } from '../../../../core/store/errors';
import { openRedisStore } from '../../../../core/store/redis';
import { keyPrefix, redisKeyspace } from '../../../../core/store/redisKeyspace';
import type { AuditEvent, CandidateRequest, SkillStore } from '../../../../core/store/types';
import {
  freePort,
  startCluster,
  startRedis,
  startRedisWithAcl,
  startRedisWithTls,
  startSentinelSetup,
  type RedisSetup,
} from '../../../helpers/redis';
import { startTcpProxy } from '../../../helpers/tcpProxy';
import { describeStoreConformance, samplePackage } from './conformance';

let standalone: RedisSetup;
let cluster: RedisSetup;
let sentinel: RedisSetup & { master: { port: number } };

beforeAll(async () => {
  [standalone, cluster, sentinel] = await Promise.all([startRedis(), startCluster(3), startSentinelSetup()]);
});
afterAll(async () => {
  await Promise.all([standalone?.stop(), cluster?.stop(), sentinel?.stop()]);
});

const body = (seed: string, overrides: Record<string, unknown> = {}) => JSON.stringify(samplePackage(seed, overrides));

/** Damages one stored revision the way a bad disk or a hand edit would: text and every resource body. */
async function corruptRevision(raw: Redis | Cluster, deployment: string, id: SkillId, version: number): Promise<void> {
  const key = redisKeyspace(deployment).version(id, version);
  const fields = await raw.hgetall(key);
  const pkgText = fields['package'];
  if (pkgText === undefined) throw new Error(`no revision at ${key}`);
  const pkg = JSON.parse(pkgText) as { description: string; planning_instructions: string[] };
  pkg.planning_instructions = pkg.planning_instructions.map((s) => `${s} (tampered)`);
  const updates: Record<string, string> = { package: JSON.stringify(pkg) };
  for (const [field, value] of Object.entries(fields)) {
    if (field.startsWith('res:')) updates[field] = `${value} tampered`;
  }
  await raw.hset(key, updates);
}

function clusterNodes(setup: RedisSetup): { host: string; port: number }[] {
  return setup.processes.map((p) => ({ host: p.host, port: p.port }));
}

describeStoreConformance('redis standalone', async ({ audit }) => {
  const store = await openRedisStore(`${standalone.url}?deployment=conformance`, { audit });
  const raw = new Redis(standalone.url);
  return {
    store,
    cleanup: async () => {
      await store.close();
      raw.disconnect();
    },
    corrupt: (id, version) => corruptRevision(raw, 'conformance', id, version),
  };
});

describeStoreConformance('redis cluster', async ({ audit }) => {
  const store = await openRedisStore(`${cluster.url}?deployment=conformance`, { audit });
  const raw = new Cluster(clusterNodes(cluster));
  return {
    store,
    cleanup: async () => {
      await store.close();
      raw.disconnect();
    },
    corrupt: (id, version) => corruptRevision(raw, 'conformance', id, version),
  };
});

// The full suite: Sentinel only adds master discovery at connect time, so every
// command afterwards costs the same as on standalone (about a second in total).
describeStoreConformance('redis sentinel', async ({ audit }) => {
  const store = await openRedisStore(`${sentinel.url}?deployment=conformance`, { audit });
  const raw = new Redis({ host: '127.0.0.1', port: sentinel.master.port });
  return {
    store,
    cleanup: async () => {
      await store.close();
      raw.disconnect();
    },
    corrupt: (id, version) => corruptRevision(raw, 'conformance', id, version),
  };
});

async function rejection(promise: Promise<unknown>): Promise<StoreError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof StoreError) return error;
    throw new Error(`expected a StoreError, got ${String(error)}`, { cause: error });
  }
  throw new Error('expected the call to fail, but it succeeded');
}

/** Sum of `calls` over INFO commandstats, without the INFO calls themselves. */
async function commandCalls(raw: Redis): Promise<Map<string, number>> {
  const info = (await raw.info('commandstats')) as string;
  const out = new Map<string, number>();
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    if (m[1] !== 'info') out.set(m[1]!, Number(m[2]));
  }
  return out;
}

function delta(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, calls] of after) {
    const d = calls - (before.get(name) ?? 0);
    if (d > 0) out[name] = d;
  }
  return out;
}

async function publishMany(store: SkillStore, namespace: string, count: number): Promise<void> {
  for (let start = 0; start < count; start += 25) {
    await Promise.all(
      Array.from({ length: Math.min(25, count - start) }, (_, i) =>
        store.publish({ id: { namespace, name: `skill-${start + i}` }, body: body(`${namespace}-${start + i}`), precondition: { kind: 'create' } }),
      ),
    );
  }
}

describe('redis adapter', () => {
  describe('credentials', () => {
    let acl: RedisSetup;
    const user = 'skills-writer';
    const pass = 'Pa55-w0rd-Zq9';
    beforeAll(async () => {
      acl = await startRedisWithAcl(user, pass);
    });
    afterAll(async () => {
      await acl?.stop();
    });

    it('works with an ACL user and password', async () => {
      const url = acl.url.replace('redis://', `redis://${user}:${pass}@`);
      const store = await openRedisStore(url);
      try {
        expect(store.description).toBe(`${acl.url.replace('redis://', `redis://${user}:***@`)} (default)`);
        expect(store.description).not.toContain(pass);
        const created = await store.publish({ id: { namespace: 'acl', name: 'one' }, body: body('acl'), precondition: { kind: 'create' } });
        expect(created.outcome).toBe('created');
        expect((await store.listMetadata({ namespace: 'acl' })).map((m) => m.name)).toEqual(['one']);
      } finally {
        await store.close();
      }
    });

    it('refuses a wrong password with 401 unauthorized and never shows the password', async () => {
      const wrong = 'Wr0ng-S3cret-Xy7';
      const error = await rejection(openRedisStore(acl.url.replace('redis://', `redis://${user}:${wrong}@`)));
      expect(error.code).toBe('unauthorized');
      expect(error.status).toBe(401);
      expect(error.message).toContain(`${user}:***@`);
      expect(error.message).toMatch(/credentials|user name and password/);
      const everything = `${error.message} ${JSON.stringify(error.toJSON())} ${String((error.cause as Error | undefined)?.message)}`;
      expect(everything).not.toContain(wrong);
      expect(everything).not.toContain(pass);
    });

    it('refuses a connection without credentials where the server requires them', async () => {
      const error = await rejection(openRedisStore(acl.url));
      expect(error.code).toBe('unauthorized');
      expect(error.message).toMatch(/NOAUTH|credentials/);
    });
  });

  describe('TLS', () => {
    let tls: RedisSetup & { caFile: string };
    beforeAll(async () => {
      tls = await startRedisWithTls();
    });
    afterAll(async () => {
      await tls?.stop();
    });

    it('connects over TLS with the CA and server name from the URL', async () => {
      const store = await openRedisStore(`${tls.url}?ca=${encodeURIComponent(tls.caFile)}&servername=localhost&deployment=tls`);
      try {
        await store.publish({ id: { namespace: 'tls', name: 'one' }, body: body('tls'), precondition: { kind: 'create' } });
        expect((await store.listMetadata({ namespace: 'tls' })).map((m) => m.name)).toEqual(['one']);
      } finally {
        await store.close();
      }
    });

    it('refuses a server whose certificate it cannot verify with 503', async () => {
      const error = await rejection(openRedisStore(`${tls.url}?servername=localhost`));
      expect(error.code).toBe('unavailable');
      expect(error.message).toMatch(/TLS connection .* failed/);
    });

    it('refuses a missing CA file with a clear 400', async () => {
      const error = await rejection(openRedisStore(`${tls.url}?ca=no-such-ca.pem`));
      expect(error.code).toBe('invalid_request');
      expect(error.message).toContain('no-such-ca.pem');
    });
  });

  describe('connection failures', () => {
    it('reports a server that is not there as 503, naming the redacted URL', async () => {
      const port = await freePort();
      const started = Date.now();
      const error = await rejection(openRedisStore(`redis://someone:Hidden-Pw-42@127.0.0.1:${port}?deployment=x`));
      expect(error.code).toBe('unavailable');
      expect(error.message).toContain(`redis://someone:***@127.0.0.1:${port}`);
      expect(error.message).not.toContain('Hidden-Pw-42');
      expect(Date.now() - started).toBeLessThan(5_000);
    });

    it('rejects a URL with another database before connecting', async () => {
      const error = await rejection(openRedisStore(`${standalone.url}/3`));
      expect(error.code).toBe('invalid_request');
      expect(error.message).toMatch(/DB 0/);
    });

    it('refuses a standalone URL that points at a Cluster node, naming the URL that works', async () => {
      const node = cluster.processes[0]!;
      const error = await rejection(openRedisStore(`redis://127.0.0.1:${node.port}?deployment=one-node`));
      expect(error.code).toBe('invalid_request');
      expect(error.message).toContain(`redis://127.0.0.1:${node.port}`);
      expect(error.message).toContain('redis+cluster://');
      expect(error.details).toMatchObject({ reason: 'cluster_node' });
      // The same node through the cluster URL works.
      const store = await openRedisStore(`redis+cluster://127.0.0.1:${node.port}?deployment=one-node`);
      try {
        expect(await store.listMetadata()).toEqual([]);
      } finally {
        await store.close();
      }
    });

    it('maps a connection dropped mid-request to 503 and recovers afterwards', async () => {
      const proxy = await startTcpProxy(standalone.processes[0]!.port);
      const store = await openRedisStore(`redis://127.0.0.1:${proxy.port}?deployment=drop-test`);
      try {
        await store.publish({ id: { namespace: 'drop', name: 'a' }, body: body('drop'), precondition: { kind: 'create' } });
        proxy.blackhole(true);
        proxy.reset();
        const pending = rejection(store.listMetadata());
        // Cut the link once the request is on the wire (the proxy swallowed it), not after a
        // fixed pause a loaded machine can outlast.
        while (proxy.roundTrips() === 0) await new Promise((r) => setTimeout(r, 5));
        proxy.dropConnections();
        const dropped = await pending;
        expect(dropped.code).toBe('unavailable');
        expect(dropped.status).toBe(503);
        proxy.blackhole(false);
        // The client reconnects in the background; the next requests succeed again.
        let names: string[] = [];
        for (let i = 0; i < 50 && names.length === 0; i++) {
          names = await store.listMetadata().then(
            (list) => list.map((m) => m.name),
            () => [],
          );
          if (names.length === 0) await new Promise((r) => setTimeout(r, 50));
        }
        expect(names).toEqual(['a']);
        await proxy.close();
        const gone = await rejection(store.getPublished({ namespace: 'drop', name: 'a' }));
        expect(gone.code).toBe('unavailable');
      } finally {
        await store.close();
        await proxy.close();
      }
    });

    it('maps a command that gets no answer to 504 after the command timeout', async () => {
      const proxy = await startTcpProxy(standalone.processes[0]!.port);
      const store = await openRedisStore(`redis://127.0.0.1:${proxy.port}?deployment=timeout-test&command_timeout=300`);
      try {
        proxy.blackhole(true);
        const started = Date.now();
        const error = await rejection(store.listMetadata());
        expect(error.code).toBe('timeout');
        expect(error.status).toBe(504);
        expect(Date.now() - started).toBeLessThan(30_000);
      } finally {
        await store.close();
        await proxy.close();
      }
    });

    it('closes idempotently and refuses calls after close', async () => {
      const store = await openRedisStore(standalone.url);
      await store.close();
      await store.close();
      expect((await rejection(store.listMetadata())).code).toBe('unavailable');
    });
  });

  describe('deployments and key layout', () => {
    it('keeps two deployments on one server apart', async () => {
      const a = await openRedisStore(`${standalone.url}?deployment=team-a`);
      const b = await openRedisStore(standalone.url, { deployment: 'team-b' });
      try {
        const id = { namespace: 'iso', name: 'shared-name' };
        const inA = await a.publish({ id, body: body('team-a'), precondition: { kind: 'create' } });
        expect((await b.listMetadata({ namespace: 'iso' })).length).toBe(0);
        expect((await rejection(b.getPublished(id))).code).toBe('not_found');
        const inB = await b.publish({ id, body: body('team-b'), precondition: { kind: 'create' } });
        expect(inB.version).toBe(1);
        await a.publish({ id, body: body('team-a-2'), precondition: { kind: 'if-match', etag: inA.etag } });
        expect((await a.getPublished(id)).version).toBe(2);
        expect((await b.getPublished(id)).package.display_name).toBe('Conformance team-b');
        expect(a.description).toMatch(/\(team-a\)$/);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    it('refuses a deployment given twice with different values, and a non-slug deployment', async () => {
      expect((await rejection(openRedisStore(`${standalone.url}?deployment=one`, { deployment: 'two' }))).code).toBe('invalid_request');
      expect((await rejection(openRedisStore(`${standalone.url}?deployment=Not_A_Slug`))).code).toBe('invalid_request');
    });

    it('lists the catalog in skill-id order however the hash changes between reads, and still reports a damaged entry', async () => {
      const deployment = 'catalog-order';
      const store = await openRedisStore(`${standalone.url}?deployment=${deployment}`);
      const raw = new Redis(standalone.url);
      const catalog = redisKeyspace(deployment).catalog;
      const entry = (id: SkillId) =>
        JSON.stringify({ ...id, display_name: id.name, description: 'd', domains: ['ops'], tags: ['t'], manifest_hash: 'sha256:00', updated_at: '2026-01-01T00:00:00.000Z', version: 1 });
      const put = (ids: SkillId[]) => raw.hset(catalog, Object.fromEntries(ids.map((id) => [`${id.namespace}/${id.name}`, entry(id)])));
      const expected = async () => {
        const fields = await raw.hkeys(catalog);
        // Slugs never contain a space, and a space sorts before every slug character.
        return fields.map((f) => f.replace('/', ' ')).sort().map((f) => f.replace(' ', '/'));
      };
      const listed = async () => (await store.listMetadata()).map((m) => `${m.namespace}/${m.name}`);
      try {
        // Namespaces that are prefixes of each other, and names out of insertion order.
        const ids = Array.from({ length: 60 }, (_, i) => ({ namespace: ['ops', 'ops-x', 'a', 'zeta'][i % 4]!, name: `s-${(i * 37) % 61}` }));
        await put(ids);
        expect(await listed()).toEqual(await expected());
        // The same number of entries, different ones: the last read's order no longer fits.
        await raw.hdel(catalog, ...ids.slice(0, 10).map((id) => `${id.namespace}/${id.name}`));
        await put(Array.from({ length: 10 }, (_, i) => ({ namespace: 'b', name: `new-${9 - i}` })));
        expect(await listed()).toEqual(await expected());
        await put(Array.from({ length: 7 }, (_, i) => ({ namespace: 'ops', name: `added-${i}` })));
        expect(await listed()).toEqual(await expected());
        await raw.hset(catalog, 'ops/damaged', '{"namespace":"ops","name":"dam');
        const error = await rejection(store.listMetadata());
        expect(error.code).toBe('integrity_mismatch');
        expect(error.message).toMatch(/holds a damaged entry/);
      } finally {
        await raw.del(catalog);
        raw.disconnect();
        await store.close();
      }
    });

    it('answers a repeated whole-catalog read from its last parse only while the bytes are the same: a one-byte change by another client shows at once', async () => {
      const deployment = 'catalog-reuse';
      const store = await openRedisStore(`${standalone.url}?deployment=${deployment}`);
      const raw = new Redis(standalone.url);
      const catalog = redisKeyspace(deployment).catalog;
      const entry = (name: string, description: string) =>
        JSON.stringify({ namespace: 'ops', name, display_name: name, description, domains: ['ops'], tags: ['t'], manifest_hash: 'sha256:00', updated_at: '2026-01-01T00:00:00.000Z', version: 1 });
      try {
        await raw.hset(catalog, { 'ops/a': entry('a', 'first'), 'ops/b': entry('b', 'second') });
        const first = await store.listMetadata();
        expect(first.map((m) => m.description)).toEqual(['first', 'second']);
        // The entries are shared between reads, so they cannot be changed; the array is the caller's own.
        expect(Object.isFrozen(first[0]) && Object.isFrozen(first[0]!.tags)).toBe(true);
        expect(() => {
          (first[0] as { description: string }).description = 'changed';
        }).toThrow(TypeError);
        first.pop();
        expect((await store.listMetadata()).map((m) => m.description)).toEqual(['first', 'second']);
        expect((await store.listMetadata({ limit: 1 })).map((m) => m.name)).toEqual(['a']);
        // Same length, one byte apart, written behind the store's back.
        await raw.hset(catalog, 'ops/b', entry('b', 'secone'));
        expect((await store.listMetadata()).map((m) => m.description)).toEqual(['first', 'secone']);
        await raw.hdel(catalog, 'ops/a');
        expect((await store.listMetadata()).map((m) => m.name)).toEqual(['b']);
      } finally {
        await raw.del(catalog);
        raw.disconnect();
        await store.close();
      }
    });

    it('lists display names and descriptions outside ASCII exactly, in an all-ASCII catalog and in one with a single such entry', async () => {
      const deployment = 'catalog-text';
      const store = await openRedisStore(`${standalone.url}?deployment=${deployment}`);
      const raw = new Redis(standalone.url);
      const catalog = redisKeyspace(deployment).catalog;
      const entry = (name: string, text: string) =>
        JSON.stringify({ namespace: 'ops', name, display_name: text, description: `${text}.`, domains: ['ops'], tags: ['t'], manifest_hash: 'sha256:00', updated_at: '2026-01-01T00:00:00.000Z', version: 1 });
      const texts = async () => (await store.listMetadata()).map((m) => [m.display_name, m.description]);
      try {
        await raw.hset(catalog, { 'ops/a': entry('a', 'Plain text'), 'ops/b': entry('b', 'Tab\there, quote " and slash \\') });
        expect(await texts()).toEqual([
          ['Plain text', 'Plain text.'],
          ['Tab\there, quote " and slash \\', 'Tab\there, quote " and slash \\.'],
        ]);
        // Latin-1 range, three-byte and four-byte UTF-8: a one-byte decode of these bytes would garble every one.
        const wide = 'Café ÿ – 東京 😀';
        await raw.hset(catalog, 'ops/c', entry('c', wide));
        expect(await texts()).toEqual([
          ['Plain text', 'Plain text.'],
          ['Tab\there, quote " and slash \\', 'Tab\there, quote " and slash \\.'],
          [wide, `${wide}.`],
        ]);
        expect((await store.listMetadata({ namespace: 'ops', domain: 'ops' })).map((m) => m.display_name)).toEqual(['Plain text', 'Tab\there, quote " and slash \\', wide]);
      } finally {
        await raw.del(catalog);
        raw.disconnect();
        await store.close();
      }
    });

    it('writes only documented keys under the deployment prefix', async () => {
      const deployment = 'layout-check';
      const store = await openRedisStore(`${standalone.url}?deployment=${deployment}`);
      const raw = new Redis(standalone.url);
      try {
        const id = { namespace: 'layout', name: 'one' };
        let last = await store.publish({ id, body: body('l1'), precondition: { kind: 'create' }, idempotencyKey: 'layout-key' });
        for (let i = 2; i <= 4; i++) {
          last = await store.publish({ id, body: body(`l${i}`), precondition: { kind: 'if-match', etag: last.etag } });
        }
        await store.deleteVersions({ id, from: 1, to: 2, ifMatch: last.etag, reason: 'layout test' });
        const keys = (await raw.keys(`truvag3:v1:${deployment}:*`)).sort();
        const prefix = keyPrefix(deployment);
        const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        const documented = [
          /^catalog$/,
          /^audit$/,
          /^skill:[a-z0-9-]+\/[a-z0-9-]+:(state|history|tombstones)$/,
          /^skill:[a-z0-9-]+\/[a-z0-9-]+:v:\d+$/,
          /^idem:[a-z0-9-]+\/[a-z0-9-]+:[0-9a-f]{64}$/,
        ];
        for (const key of keys) {
          expect(key.startsWith(prefix), key).toBe(true);
          const rest = key.slice(prefix.length);
          expect(documented.some((re) => re.test(rest)), `undocumented key ${key}`).toBe(true);
          expect(new RegExp(`^${escaped}`).test(key)).toBe(true);
        }
        const ks = redisKeyspace(deployment);
        expect(keys).toEqual(
          [
            ks.catalog,
            ks.audit,
            ks.state(id),
            ks.history(id),
            ks.tombstones(id),
            ks.version(id, 3),
            ks.version(id, 4),
            ks.idempotency(id, keys.find((k) => k.includes(':idem:'))?.split(':').pop() ?? ''),
          ].sort(),
        );
        // The raw Idempotency-Key never appears in a key name.
        expect(keys.join('\n')).not.toContain('layout-key');
        const ttl = await raw.pttl(keys.find((k) => k.includes(':idem:'))!);
        expect(ttl).toBeGreaterThan(23 * 3600 * 1000);
        expect(ttl).toBeLessThanOrEqual(24 * 3600 * 1000);
      } finally {
        await store.close();
        raw.disconnect();
      }
    });

    it('keeps every key of a deployment in one cluster slot', async () => {
      const deployment = 'slot-check';
      const store = await openRedisStore(`${cluster.url}?deployment=${deployment}`);
      const raw = new Cluster(clusterNodes(cluster));
      try {
        for (const ns of ['alpha', 'beta', 'gamma']) {
          const id = { namespace: ns, name: 'x' };
          const first = await store.publish({ id, body: body(`${ns}-1`), precondition: { kind: 'create' }, idempotencyKey: `k-${ns}` });
          const second = await store.publish({ id, body: body(`${ns}-2`), precondition: { kind: 'if-match', etag: first.etag } });
          const third = await store.publish({ id, body: body(`${ns}-3`), precondition: { kind: 'if-match', etag: second.etag } });
          await store.deleteVersions({ id, from: 1, to: 1, ifMatch: third.etag, reason: 'slot test' });
        }
        const keys: string[] = [];
        for (const node of raw.nodes('master')) keys.push(...(await node.keys(`truvag3:v1:${deployment}:*`)));
        expect(keys.length).toBeGreaterThan(15);
        const slots = new Set<number>();
        for (const key of keys) {
          expect(key.startsWith(keyPrefix(deployment))).toBe(true);
          slots.add((await raw.call('CLUSTER', 'KEYSLOT', key)) as number);
        }
        expect(slots.size).toBe(1);
        // Every key sits on the one node that owns that slot.
        const holders = await Promise.all(raw.nodes('master').map(async (n) => (await n.keys(`truvag3:v1:${deployment}:*`)).length));
        expect(holders.filter((n) => n > 0)).toHaveLength(1);
      } finally {
        await store.close();
        raw.disconnect();
      }
    });

    it('delivers audit events to the deployment stream by default', async () => {
      const deployment = 'audit-stream';
      const store = await openRedisStore(`${standalone.url}?deployment=${deployment}`);
      const raw = new Redis(standalone.url);
      try {
        const id = { namespace: 'audit', name: 'one' };
        const created = await store.publish({ id, body: body('a1'), precondition: { kind: 'create' }, actor: 'carol', idempotencyKey: 'k-audit' });
        expect(created.audit_recorded).toBe(true);
        const entries = await raw.xrange(redisKeyspace(deployment).audit, '-', '+');
        expect(entries).toHaveLength(1);
        const [, fields] = entries[0]!;
        const event = JSON.parse(fields[1]!) as AuditEvent;
        expect(event).toMatchObject({ action: 'publish', outcome: 'created', versions: [1], actor: 'carol', namespace: 'audit' });
        const text = JSON.stringify(entries);
        expect(text).not.toContain('Checklist body');
        expect(text).not.toContain('k-audit');
        expect(text).not.toContain(created.etag);
      } finally {
        await store.close();
        raw.disconnect();
      }
    });
  });

  describe('round trips', () => {
    let proxy: Awaited<ReturnType<typeof startTcpProxy>>;
    let raw: Redis;
    beforeAll(async () => {
      proxy = await startTcpProxy(standalone.processes[0]!.port);
      raw = new Redis(standalone.url);
    });
    afterAll(async () => {
      raw?.disconnect();
      await proxy?.close();
    });

    it('lists 10 and 200 skills with the same single command and round trip', async () => {
      const small = await openRedisStore(`redis://127.0.0.1:${proxy.port}?deployment=rt-small`);
      const large = await openRedisStore(`redis://127.0.0.1:${proxy.port}?deployment=rt-large`);
      try {
        await publishMany(small, 'rt', 10);
        await publishMany(large, 'rt', 200);
        const measure = async (store: SkillStore, expected: number) => {
          const before = await commandCalls(raw);
          proxy.reset();
          const list = await store.listMetadata();
          const trips = proxy.roundTrips();
          const calls = delta(before, await commandCalls(raw));
          expect(list).toHaveLength(expected);
          return { trips, calls };
        };
        const a = await measure(small, 10);
        const b = await measure(large, 200);
        expect(a.trips).toBe(1);
        expect(b.trips).toBe(1);
        expect(a.calls).toEqual({ hvals: 1 });
        expect(b.calls).toEqual(a.calls);
      } finally {
        await Promise.all([small.close(), large.close()]);
      }
    });

    it('resolves 10 and 200 bindings in one round trip', async () => {
      const store = await openRedisStore(`redis://127.0.0.1:${proxy.port}?deployment=rt-resolve`);
      try {
        await publishMany(store, 'rt', 200);
        const bindings = (n: number): CandidateRequest[] =>
          Array.from({ length: n }, (_, i) => ({ namespace: 'rt', name: `skill-${i}`, version: i % 2 === 0 ? 'published' : 1 }));
        for (const n of [10, 200]) {
          proxy.reset();
          const results = await store.resolveCandidates(bindings(n));
          expect(proxy.roundTrips()).toBe(1);
          expect(results).toHaveLength(n);
          expect(results.every((r) => r.status === 'found')).toBe(true);
        }
      } finally {
        await store.close();
      }
    });
  });
});
