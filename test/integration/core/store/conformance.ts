/**
 * The store conformance suite: one set of behaviours every `SkillStore` adapter
 * (local, redis, http) must show. Register it from an adapter's test file:
 *
 *   describeStoreConformance('local', async ({ audit }) => { ... return { store, cleanup, corrupt } });
 *
 * The factory is called once per registration; every test uses fresh skill
 * identities, so all tests share that one store. The factory must wire the given
 * audit sink into the store (or into the server behind it), so audit delivery and
 * audit failure can be observed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildManifest, computeIntegrity, validatePackage } from '../../../../core/package/index';
import type { SkillId, SkillPackage } from '../../../../core/package/types';
import { StoreError } from '../../../../core/store/errors';
import type { AuditEvent, AuditSink, PublishRequest, SkillStore } from '../../../../core/store/types';
import { samplePackage } from './samplePackage';

export { samplePackage };

/** An audit sink the suite controls: it records events, or fails on demand. */
export class ControlledAuditSink implements AuditSink {
  readonly events: AuditEvent[] = [];
  failing = false;

  async record(event: AuditEvent): Promise<void> {
    if (this.failing) throw new Error('audit sink unavailable (conformance test)');
    this.events.push(structuredClone(event));
  }
}

/** What the factory receives. */
export interface ConformanceOpenOptions {
  audit: AuditSink;
}

/** What the factory returns. */
export interface ConformanceTarget {
  store: SkillStore;
  cleanup(): Promise<void>;
  /** Damages the stored bytes of one revision (manifest-visible text and every resource body). */
  corrupt?(id: SkillId, version: number): Promise<void>;
}

/** Options of the suite. */
export interface ConformanceOptions {
  /** Run the on-disk corruption tests (the factory must return `corrupt`). Default true. */
  corruption?: boolean;
}

let counter = 0;
const runId = Math.random().toString(36).slice(2, 8);

/** A fresh identity for one test: unique namespace, so filters isolate it too. */
function freshId(name = 'skill'): SkillId {
  counter += 1;
  return { namespace: `conf-${runId}-${counter}`, name };
}

const body = (seed: string, overrides: Record<string, unknown> = {}) => JSON.stringify(samplePackage(seed, overrides), null, 2);

async function rejection(promise: Promise<unknown>): Promise<StoreError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof StoreError) return error;
    throw new Error(`expected a StoreError, got ${String(error)}`, { cause: error });
  }
  throw new Error('expected the call to fail, but it succeeded');
}

/** All history entries of a skill, newest first, walking every page. */
async function allVersions(store: SkillStore, id: SkillId) {
  const out = [];
  let before: number | undefined;
  for (;;) {
    const page = await store.listVersions(id, before === undefined ? { limit: 100 } : { before, limit: 100 });
    out.push(...page.versions);
    if (page.next_before === null) return out;
    before = page.next_before;
  }
}

/**
 * Registers the conformance tests for one adapter. `open` is called once, before
 * the tests; `cleanup` once, after them.
 */
export function describeStoreConformance(
  label: string,
  open: (options: ConformanceOpenOptions) => Promise<ConformanceTarget>,
  options: ConformanceOptions = {},
): void {
  describe(`store conformance: ${label}`, () => {
    const audit = new ControlledAuditSink();
    let target: ConformanceTarget;
    let store: SkillStore;

    beforeAll(async () => {
      target = await open({ audit });
      store = target.store;
    });
    afterAll(async () => {
      await target?.cleanup();
    });

    /** Creates a skill with `n` revisions (seeds `${tag}-1` ... `${tag}-n`) and returns the last result. */
    async function publishRevisions(id: SkillId, n: number, tag = 'rev') {
      let result = await store.publish({ id, body: body(`${tag}-1`), precondition: { kind: 'create' } });
      for (let i = 2; i <= n; i++) {
        result = await store.publish({ id, body: body(`${tag}-${i}`), precondition: { kind: 'if-match', etag: result.etag } });
      }
      return result;
    }

    describe('publication', () => {
      it('creates version 1 with a strong ETag and returns the normalized package on read', async () => {
        const id = freshId();
        const result = await store.publish({ id, body: body('create'), precondition: { kind: 'create' }, idempotencyKey: `k-${id.namespace}` });
        expect(result).toMatchObject({ ...id, outcome: 'created', version: 1, replayed: false, audit_recorded: true, warnings: [] });
        expect(result.etag).toMatch(/^"[^"]+"$/);
        expect(result.manifest_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
        const normalized = validatePackage(body('create'), { id }).normalized as SkillPackage;
        const read = await store.getPublished(id);
        expect(read).toMatchObject({ ...id, version: 1, etag: result.etag, published: true, manifest_hash: result.manifest_hash });
        expect(read.package).toEqual(normalized);
        expect(read.resource_hashes).toEqual((await computeIntegrity(normalized)).resource_hashes);
      });

      it('publishes the next revision with the current ETag and changes the ETag', async () => {
        const id = freshId();
        const first = await store.publish({ id, body: body('a'), precondition: { kind: 'create' } });
        const second = await store.publish({ id, body: body('b'), precondition: { kind: 'if-match', etag: first.etag } });
        expect(second).toMatchObject({ outcome: 'published', version: 2, replayed: false });
        expect(second.etag).not.toBe(first.etag);
        expect((await store.getPublished(id)).package.display_name).toBe('Conformance b');
      });

      it('treats unchanged content as a same-content no-op that creates nothing', async () => {
        const id = freshId();
        const first = await store.publish({ id, body: body('same'), precondition: { kind: 'create' } });
        const again = await store.publish({ id, body: body('same'), precondition: { kind: 'if-match', etag: first.etag } });
        expect(again).toMatchObject({ outcome: 'same_content_noop', version: 1, etag: first.etag, replayed: false });
        expect((await allVersions(store, id)).map((v) => v.version)).toEqual([1]);
      });

      it('treats a change of change_reason alone as a same-content no-op', async () => {
        const id = freshId();
        const first = await store.publish({ id, body: body('reason'), precondition: { kind: 'create' } });
        const again = await store.publish({
          id,
          body: body('reason', { change_reason: 'Only the audit explanation changed' }),
          precondition: { kind: 'if-match', etag: first.etag },
        });
        expect(again).toMatchObject({ outcome: 'same_content_noop', version: 1, etag: first.etag });
        expect((await store.getPublished(id)).package.change_reason).toBe('Revision reason');
      });

      it('rejects a publication without a precondition with 428 and stores nothing', async () => {
        const id = freshId();
        const error = await rejection(store.publish({ id, body: body('none') }));
        expect(error.code).toBe('precondition_required');
        expect(error.status).toBe(428);
        expect((await rejection(store.getPublished(id))).code).toBe('not_found');
      });

      it('rejects a stale ETag, creation of an existing skill and an update of a missing one with 412', async () => {
        const id = freshId();
        const first = await store.publish({ id, body: body('s1'), precondition: { kind: 'create' } });
        await store.publish({ id, body: body('s2'), precondition: { kind: 'if-match', etag: first.etag } });
        const stale = await rejection(store.publish({ id, body: body('s3'), precondition: { kind: 'if-match', etag: first.etag } }));
        expect(stale.code).toBe('precondition_failed');
        expect(stale.status).toBe(412);
        const create = await rejection(store.publish({ id, body: body('s4'), precondition: { kind: 'create' } }));
        expect(create.code).toBe('precondition_failed');
        const weak = await rejection(
          store.publish({ id, body: body('s5'), precondition: { kind: 'if-match', etag: `W/${(await store.getPublished(id)).etag}` } }),
        );
        expect(weak.code).toBe('precondition_failed');
        const missing = await rejection(store.publish({ id: freshId(), body: body('s6'), precondition: { kind: 'if-match', etag: first.etag } }));
        expect(missing.code).toBe('precondition_failed');
        expect((await store.getPublished(id)).version).toBe(2);
      });

      it('checks the precondition before the same-content no-op', async () => {
        const id = freshId();
        const first = await store.publish({ id, body: body('p1'), precondition: { kind: 'create' } });
        await store.publish({ id, body: body('p2'), precondition: { kind: 'if-match', etag: first.etag } });
        const error = await rejection(store.publish({ id, body: body('p2'), precondition: { kind: 'if-match', etag: first.etag } }));
        expect(error.code).toBe('precondition_failed');
      });

      it('rejects an invalid package with 422 and its findings, storing nothing', async () => {
        const id = freshId();
        const invalid = body('bad', { planning_instructions: [], unknown_field: true });
        const error = await rejection(store.publish({ id, body: invalid, precondition: { kind: 'create' } }));
        expect(error.code).toBe('validation_failed');
        expect(error.status).toBe(422);
        expect(error.findings.length).toBeGreaterThan(0);
        for (const f of error.findings) {
          expect(f.severity).toBe('error');
          expect(typeof f.code).toBe('string');
          expect(typeof f.path).toBe('string');
        }
        expect(error.findings.map((f) => f.path)).toContain('/unknown_field');
        expect(error.details?.['metrics']).toBeTypeOf('object');
        expect((await rejection(store.getPublished(id))).code).toBe('not_found');
      });

      it('rejects a body above the package limit with 413 before validating it', async () => {
        const id = freshId();
        const huge = `{"display_name": "${'x'.repeat(store.limits.maxPackageBytes + 16)}"`; // not even valid JSON
        const error = await rejection(store.publish({ id, body: huge, precondition: { kind: 'create' } }));
        expect(error.code).toBe('payload_too_large');
        expect(error.status).toBe(413);
      });

      it('rejects an invalid identity with 400', async () => {
        for (const id of [
          { namespace: 'Bad_NS', name: 'x' },
          { namespace: 'ok', name: '-lead' },
          { namespace: 'ok', name: 'x'.repeat(store.limits.maxNameChars + 1) },
        ]) {
          const error = await rejection(store.publish({ id, body: body('id'), precondition: { kind: 'create' } }));
          expect(error.code).toBe('invalid_request');
          expect(error.status).toBe(400);
        }
      });
    });

    describe('idempotency', () => {
      it('replays a dropped reply: same result, replayed, one revision — even after newer publications', async () => {
        const id = freshId();
        const key = `retry-${id.namespace}`;
        const first = await store.publish({ id, body: body('i1'), precondition: { kind: 'create' } });
        const request: PublishRequest = { id, body: body('i2'), precondition: { kind: 'if-match', etag: first.etag }, idempotencyKey: key };
        await store.publish(request); // the reply is "lost"
        const replay = await store.publish(request);
        expect(replay).toMatchObject({ outcome: 'published', version: 2, replayed: true });
        expect((await allVersions(store, id)).map((v) => v.version)).toEqual([2, 1]);
        const third = await store.publish({ id, body: body('i3'), precondition: { kind: 'if-match', etag: replay.etag } });
        expect(third.version).toBe(3);
        const late = await store.publish(request);
        expect(late).toMatchObject({ version: 2, etag: replay.etag, replayed: true });
        expect((await allVersions(store, id)).map((v) => v.version)).toEqual([3, 2, 1]);
      });

      it('replays a creation with the same key', async () => {
        const id = freshId();
        const request: PublishRequest = { id, body: body('c'), precondition: { kind: 'create' }, idempotencyKey: 'create-once' };
        const a = await store.publish(request);
        const b = await store.publish(request);
        expect(b).toEqual({ ...a, replayed: true });
      });

      it('rejects the same key with a different body with 409 and creates nothing', async () => {
        const id = freshId();
        const first = await store.publish({ id, body: body('d1'), precondition: { kind: 'create' }, idempotencyKey: 'reused' });
        const error = await rejection(
          store.publish({ id, body: body('d2'), precondition: { kind: 'if-match', etag: first.etag }, idempotencyKey: 'reused' }),
        );
        expect(error.code).toBe('conflict');
        expect(error.status).toBe(409);
        expect((await store.getPublished(id)).version).toBe(1);
      });

      it('scopes keys to one skill identity', async () => {
        const a = freshId();
        const b = freshId();
        const ra = await store.publish({ id: a, body: body('scope'), precondition: { kind: 'create' }, idempotencyKey: 'shared-key' });
        const rb = await store.publish({ id: b, body: body('scope'), precondition: { kind: 'create' }, idempotencyKey: 'shared-key' });
        expect(ra.replayed).toBe(false);
        expect(rb).toMatchObject({ ...b, outcome: 'created', replayed: false });
      });
    });

    describe('concurrency', () => {
      it('lets exactly one of 20 concurrent publishes with the same ETag win, losing no revision', async () => {
        const id = freshId();
        const first = await store.publish({ id, body: body('race-0'), precondition: { kind: 'create' } });
        const results = await Promise.allSettled(
          Array.from({ length: 20 }, (_, i) =>
            store.publish({ id, body: body(`race-${i + 1}`), precondition: { kind: 'if-match', etag: first.etag } }),
          ),
        );
        const ok = results.filter((r) => r.status === 'fulfilled');
        const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
        expect(ok).toHaveLength(1);
        expect(failed).toHaveLength(19);
        for (const f of failed) expect((f.reason as StoreError).code).toBe('precondition_failed');
        const history = await allVersions(store, id);
        expect(history.map((v) => v.version)).toEqual([2, 1]);
        const winner = (ok[0] as PromiseFulfilledResult<{ version: number; etag: string }>).value;
        expect(winner.version).toBe(2);
        expect((await store.getPublished(id)).etag).toBe(winner.etag);
      });

      it('lets exactly one of 10 concurrent creations win', async () => {
        const id = freshId();
        const results = await Promise.allSettled(
          Array.from({ length: 10 }, (_, i) => store.publish({ id, body: body(`new-${i}`), precondition: { kind: 'create' } })),
        );
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        expect((await allVersions(store, id)).map((v) => v.version)).toEqual([1]);
      });

      it('keeps history contiguous under concurrent read-modify-write retries', async () => {
        const id = freshId();
        await store.publish({ id, body: body('loop-0'), precondition: { kind: 'create' } });
        const writers = Array.from({ length: 4 }, async (_, w) => {
          for (let i = 0; i < 3; i++) {
            for (;;) {
              const etag = (await store.getPublished(id)).etag;
              try {
                await store.publish({ id, body: body(`loop-${w}-${i}`), precondition: { kind: 'if-match', etag } });
                break;
              } catch (error) {
                if (!(error instanceof StoreError && error.code === 'precondition_failed')) throw error;
              }
            }
          }
        });
        await Promise.all(writers);
        const versions = (await allVersions(store, id)).map((v) => v.version);
        expect(versions).toEqual(Array.from({ length: 13 }, (_, i) => 13 - i));
      });
    });

    describe('history and exact reads', () => {
      it('pages versions newest first with before/limit', async () => {
        const id = freshId();
        await publishRevisions(id, 5);
        const p1 = await store.listVersions(id, { limit: 2 });
        expect(p1.versions.map((v) => v.version)).toEqual([5, 4]);
        expect(p1.next_before).toBe(4);
        const p2 = await store.listVersions(id, { before: 4, limit: 2 });
        expect(p2.versions.map((v) => v.version)).toEqual([3, 2]);
        expect(p2.next_before).toBe(2);
        const p3 = await store.listVersions(id, { before: 2, limit: 2 });
        expect(p3.versions.map((v) => v.version)).toEqual([1]);
        expect(p3.next_before).toBeNull();
        const all = await store.listVersions(id);
        expect(all.versions).toHaveLength(5);
        expect(all.versions[0]).toMatchObject({ version: 5, status: 'available', change_reason: 'Revision rev-5', protection: 'published' });
        expect(all.versions[1]).toMatchObject({ version: 4, protection: 'protected' });
        expect(all.versions[2]?.protection).toBeUndefined();
        for (const v of all.versions) {
          expect(v.manifest_hash).toMatch(/^sha256:/);
          expect(Number.isNaN(Date.parse(v.created_at))).toBe(false);
        }
      });

      it('rejects bad paging values with 400 and clamps large limits to 100', async () => {
        const id = freshId();
        await publishRevisions(id, 1);
        expect((await rejection(store.listVersions(id, { limit: 0 }))).code).toBe('invalid_request');
        expect((await rejection(store.listVersions(id, { before: 0 }))).code).toBe('invalid_request');
        expect((await store.listVersions(id, { limit: 1000 })).versions).toHaveLength(1);
        expect((await rejection(store.listVersions(freshId()))).code).toBe('not_found');
      });

      it('reads old versions exactly after newer publications', async () => {
        const id = freshId();
        const first = await store.publish({ id, body: body('old'), precondition: { kind: 'create' } });
        await store.publish({ id, body: body('new-1'), precondition: { kind: 'if-match', etag: first.etag } });
        const current = await store.getPublished(id);
        await store.publish({ id, body: body('new-2'), precondition: { kind: 'if-match', etag: current.etag } });
        const v1 = await store.getVersion(id, 1);
        expect(v1).toMatchObject({ version: 1, published: false, manifest_hash: first.manifest_hash });
        expect(v1.package).toEqual(validatePackage(body('old'), { id }).normalized);
        expect((await store.getVersion(id, 3)).published).toBe(true);
        expect((await rejection(store.getVersion(id, 4))).code).toBe('not_found');
        expect((await rejection(store.getVersion(id, 0))).code).toBe('invalid_request');
        expect((await rejection(store.getPublished(freshId()))).code).toBe('not_found');
      });
    });

    describe('deletion', () => {
      const reason = 'Retention review completed';

      it('deletes one old version and leaves a tombstone; numbers are never reused', async () => {
        const id = freshId();
        const last = await publishRevisions(id, 4);
        const result = await store.deleteVersions({ id, from: 1, to: 1, ifMatch: last.etag, reason });
        expect(result).toMatchObject({ ...id, deleted: [1], already_deleted: [], etag: last.etag, audit_recorded: true });
        expect((await rejection(store.getVersion(id, 1))).code).toBe('not_found');
        const tomb = (await allVersions(store, id)).find((v) => v.version === 1);
        expect(tomb).toMatchObject({ status: 'deleted', change_reason: 'Revision rev-1' });
        expect(tomb?.deleted_at).toBeDefined();
        const next = await store.publish({ id, body: body('after-delete'), precondition: { kind: 'if-match', etag: last.etag } });
        expect(next.version).toBe(5);
      });

      it('deletes an inclusive range atomically and a repeat is a no-op', async () => {
        const id = freshId();
        const last = await publishRevisions(id, 6);
        const result = await store.deleteVersions({ id, from: 2, to: 4, ifMatch: last.etag, reason });
        expect(result.deleted).toEqual([2, 3, 4]);
        const repeat = await store.deleteVersions({ id, from: 2, to: 4, ifMatch: last.etag, reason });
        expect(repeat).toMatchObject({ deleted: [], already_deleted: [2, 3, 4] });
        const overlap = await store.deleteVersions({ id, from: 1, to: 3, ifMatch: last.etag, reason });
        expect(overlap).toMatchObject({ deleted: [1], already_deleted: [2, 3] });
        const statuses = (await allVersions(store, id)).map((v) => `${v.version}:${v.status}`);
        expect(statuses).toEqual(['6:available', '5:available', '4:deleted', '3:deleted', '2:deleted', '1:deleted']);
        expect((await store.getVersion(id, 5)).version).toBe(5);
      });

      it('protects published and published−1 with 409 and deletes nothing', async () => {
        const id = freshId();
        const last = await publishRevisions(id, 4);
        for (const [from, to] of [
          [4, 4],
          [3, 3],
          [1, 3],
          [2, 4],
        ] as const) {
          const error = await rejection(store.deleteVersions({ id, from, to, ifMatch: last.etag, reason }));
          expect(error.code).toBe('conflict');
          expect(error.status).toBe(409);
        }
        expect((await allVersions(store, id)).every((v) => v.status === 'available')).toBe(true);
        const single = freshId();
        const only = await publishRevisions(single, 1);
        expect((await rejection(store.deleteVersions({ id: single, from: 1, to: 1, ifMatch: only.etag, reason }))).code).toBe('conflict');
      });

      it('enforces the range width limit, numbers, reason and If-Match', async () => {
        const id = freshId();
        const last = await publishRevisions(id, 3);
        const wide = await rejection(store.deleteVersions({ id, from: 1, to: 101, ifMatch: last.etag, reason }));
        expect(wide.code).toBe('invalid_request');
        expect((await rejection(store.deleteVersions({ id, from: 2, to: 1, ifMatch: last.etag, reason }))).code).toBe('invalid_request');
        expect((await rejection(store.deleteVersions({ id, from: 0, to: 1, ifMatch: last.etag, reason }))).code).toBe('invalid_request');
        expect((await rejection(store.deleteVersions({ id, from: 1, to: 1, ifMatch: last.etag }))).code).toBe('invalid_request');
        expect((await rejection(store.deleteVersions({ id, from: 1, to: 1, ifMatch: last.etag, reason: '  ' }))).code).toBe('invalid_request');
        const missing = await rejection(store.deleteVersions({ id, from: 1, to: 1, reason }));
        expect(missing.code).toBe('precondition_required');
        expect(missing.status).toBe(428);
        const stale = await rejection(store.deleteVersions({ id, from: 1, to: 1, ifMatch: '"not-the-etag"', reason }));
        expect(stale.code).toBe('precondition_failed');
        expect((await rejection(store.deleteVersions({ id, from: 7, to: 9, ifMatch: last.etag, reason }))).code).toBe('not_found');
        expect((await rejection(store.deleteVersions({ id: freshId(), from: 1, to: 1, ifMatch: last.etag, reason }))).code).toBe('not_found');
        expect((await allVersions(store, id)).every((v) => v.status === 'available')).toBe(true);
      });
    });

    describe('audit', () => {
      it('delivers body-free events for publications and deletions', async () => {
        const id = freshId();
        const key = `audit-key-${id.namespace}`;
        const start = audit.events.length;
        const first = await store.publish({ id, body: body('audit-1'), precondition: { kind: 'create' }, idempotencyKey: key, actor: 'alice' });
        const second = await store.publish({ id, body: body('audit-2'), precondition: { kind: 'if-match', etag: first.etag } });
        const third = await store.publish({ id, body: body('audit-3'), precondition: { kind: 'if-match', etag: second.etag } });
        await store.deleteVersions({ id, from: 1, to: 1, ifMatch: third.etag, reason: 'Cleanup after review' });
        const events = audit.events.slice(start).filter((e) => e.namespace === id.namespace);
        expect(events.map((e) => [e.action, e.outcome, e.versions])).toEqual([
          ['publish', 'created', [1]],
          ['publish', 'published', [2]],
          ['publish', 'published', [3]],
          ['delete', 'deleted', [1]],
        ]);
        expect(events[0]).toMatchObject({ name: id.name, manifest_hash: first.manifest_hash, actor: 'alice' });
        expect(events[3]?.reason).toBe('Cleanup after review');
        const text = JSON.stringify(events);
        for (const secretish of [key, first.etag, second.etag, third.etag, 'Checklist body for audit', 'Check the audit-1 inputs']) {
          expect(text).not.toContain(secretish);
        }
      });

      it('reports audit_recorded false with a warning when the sink fails, keeping the mutation', async () => {
        const id = freshId();
        audit.failing = true;
        try {
          const created = await store.publish({ id, body: body('unaudited'), precondition: { kind: 'create' } });
          expect(created).toMatchObject({ outcome: 'created', audit_recorded: false });
          expect(created.warnings).toContainEqual(expect.objectContaining({ code: 'skill_audit_not_recorded' }));
          const last = await publishRevisions(freshId(), 1);
          expect(last.audit_recorded).toBe(false);
          const v2 = await store.publish({ id, body: body('unaudited-2'), precondition: { kind: 'if-match', etag: created.etag } });
          const v3 = await store.publish({ id, body: body('unaudited-3'), precondition: { kind: 'if-match', etag: v2.etag } });
          const del = await store.deleteVersions({ id, from: 1, to: 1, ifMatch: v3.etag, reason: 'audit outage test' });
          expect(del).toMatchObject({ deleted: [1], audit_recorded: false });
          expect(del.warnings.map((w) => w.code)).toEqual(['skill_audit_not_recorded']);
        } finally {
          audit.failing = false;
        }
        expect((await store.getPublished(id)).version).toBe(3);
        expect((await rejection(store.getVersion(id, 1))).code).toBe('not_found');
      });
    });

    describe('runtime reads', () => {
      it('classifies candidates one per request, in order', async () => {
        const id = freshId();
        const last = await publishRevisions(id, 4);
        await store.deleteVersions({ id, from: 1, to: 1, ifMatch: last.etag, reason: 'candidate test' });
        const v2 = await store.getVersion(id, 2);
        const missing = freshId();
        const results = await store.resolveCandidates([
          { ...id, version: 'published' },
          { ...id, version: 2 },
          { ...missing, version: 'published' },
          { ...id, version: 1 },
          { ...id, version: 9 },
          { namespace: 'Bad NS', name: 'x', version: 'published' },
          { ...id, version: 0 },
          { ...id, version: 'published' },
        ]);
        expect(results.map((r) => r.status)).toEqual([
          'found',
          'found',
          'not_found',
          'version_unavailable',
          'version_unavailable',
          'invalid',
          'invalid',
          'found',
        ]);
        const published = results[0];
        expect(published).toMatchObject({ status: 'found', version: 4, manifest_hash: last.manifest_hash });
        if (published?.status === 'found') {
          expect(published.metadata).toMatchObject({ ...id, version: 4, display_name: 'Conformance rev-4', domains: ['testing'] });
        }
        expect(results[1]).toMatchObject({ status: 'found', version: 2, manifest_hash: v2.manifest_hash });
        expect(results[2]?.request).toEqual({ ...missing, version: 'published' });
        expect(await store.resolveCandidates([])).toEqual([]);
      });

      it('returns the exact manifest and resource for expected hashes and rejects a wrong hash', async () => {
        const id = freshId();
        const first = await store.publish({ id, body: body('exact-1'), precondition: { kind: 'create' } });
        await store.publish({ id, body: body('exact-2'), precondition: { kind: 'if-match', etag: first.etag } });
        const v1 = await store.getVersion(id, 1);
        const manifest = await store.getManifest({ ...id, version: 1, manifest_hash: first.manifest_hash });
        const integrity = await computeIntegrity(v1.package);
        expect(manifest).toEqual(buildManifest(v1.package, integrity));
        expect(JSON.stringify(manifest)).not.toContain('Checklist body');
        const hash = v1.resource_hashes['checklist'] ?? '';
        const resource = await store.getResource({ skill: { ...id, version: 1, manifest_hash: first.manifest_hash }, name: 'checklist', expected_hash: hash });
        expect(resource).toEqual({
          name: 'checklist',
          content_type: 'text/markdown',
          content: 'Checklist body for exact-1: verify inputs, outputs and error codes.',
          content_hash: hash,
        });
        const wrongManifest = await rejection(store.getManifest({ ...id, version: 1, manifest_hash: `sha256:${'0'.repeat(64)}` }));
        expect(wrongManifest.code).toBe('integrity_mismatch');
        const wrongResource = await rejection(
          store.getResource({ skill: { ...id, version: 1, manifest_hash: first.manifest_hash }, name: 'checklist', expected_hash: `sha256:${'1'.repeat(64)}` }),
        );
        expect(wrongResource.code).toBe('integrity_mismatch');
        const noResource = await rejection(
          store.getResource({ skill: { ...id, version: 1, manifest_hash: first.manifest_hash }, name: 'absent', expected_hash: hash }),
        );
        expect(noResource.code).toBe('not_found');
        expect((await rejection(store.getManifest({ ...id, version: 7, manifest_hash: first.manifest_hash }))).code).toBe('not_found');
      });

      if (options.corruption ?? true) {
        it('detects stored bytes that no longer match their hashes', async () => {
          expect(target.corrupt, 'the factory must return corrupt() or pass {corruption: false}').toBeTypeOf('function');
          const id = freshId();
          const created = await store.publish({ id, body: body('corrupt'), precondition: { kind: 'create' } });
          const before = await store.getPublished(id);
          const hash = before.resource_hashes['checklist'] ?? '';
          await target.corrupt?.(id, 1);
          const manifest = await rejection(store.getManifest({ ...id, version: 1, manifest_hash: created.manifest_hash }));
          expect(manifest.code).toBe('integrity_mismatch');
          expect(manifest.status).toBe(502);
          const resource = await rejection(
            store.getResource({ skill: { ...id, version: 1, manifest_hash: created.manifest_hash }, name: 'checklist', expected_hash: hash }),
          );
          expect(resource.code).toBe('integrity_mismatch');
        });
      }

      it('lists body-free metadata with exact, combinable filters, sorted by namespace and name', async () => {
        const ns = freshId().namespace;
        const other = freshId().namespace;
        const mk = (namespace: string, name: string, domains: string[], tags: string[]) =>
          store.publish({ id: { namespace, name }, body: body(`${namespace}-${name}`, { domains, tags }), precondition: { kind: 'create' } });
        await mk(ns, 'zeta', ['travel'], ['weather']);
        await mk(ns, 'alpha', ['travel', 'finance'], ['rates']);
        const mid = await mk(ns, 'mid', ['finance'], ['weather', 'rates']);
        await mk(other, 'alpha', ['travel'], ['weather']);
        await store.publish({ id: { namespace: ns, name: 'mid' }, body: body('mid-2', { domains: ['finance'], tags: ['rates'] }), precondition: { kind: 'if-match', etag: mid.etag } });

        const names = async (filter: Parameters<SkillStore['listMetadata']>[0]) => (await store.listMetadata(filter)).map((m) => `${m.namespace}/${m.name}`);
        expect(await names({ namespace: ns })).toEqual([`${ns}/alpha`, `${ns}/mid`, `${ns}/zeta`]);
        expect(await names({ namespace: ns, domain: 'travel' })).toEqual([`${ns}/alpha`, `${ns}/zeta`]);
        expect(await names({ namespace: ns, tag: 'weather' })).toEqual([`${ns}/zeta`]);
        expect(await names({ namespace: ns, domain: 'finance', tag: 'rates' })).toEqual([`${ns}/alpha`, `${ns}/mid`]);
        expect(await names({ namespace: ns, domain: 'nowhere' })).toEqual([]);
        expect(await names({ namespace: ns, limit: 2 })).toEqual([`${ns}/alpha`, `${ns}/mid`]);
        const all = await names({ tag: 'weather' });
        expect(all).toContain(`${other}/alpha`);
        expect(all).toEqual([...all].sort());

        const [entry] = await store.listMetadata({ namespace: ns, tag: 'rates', domain: 'finance' }).then((l) => l.filter((m) => m.name === 'mid'));
        expect(entry).toMatchObject({ namespace: ns, name: 'mid', version: 2, display_name: `Conformance mid-2`, tags: ['rates'] });
        expect(entry?.manifest_hash).toMatch(/^sha256:/);
        for (const bodyField of ['planning_instructions', 'response_instructions', 'resources', 'package', 'change_reason']) {
          expect(entry).not.toHaveProperty(bodyField);
        }
        expect((await rejection(store.listMetadata({ domain: 'Not A Slug' }))).code).toBe('invalid_request');
      });
    });
  });
}
