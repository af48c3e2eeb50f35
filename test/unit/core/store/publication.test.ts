import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StoreError } from '../../../../core/store/errors';
import { etagFor, etagMatches, parseEtag, parseEtagList } from '../../../../core/store/etag';
import { checkDeleteRange, clampVersionQuery, pageVersions } from '../../../../core/store/history';
import { replayIdempotent, type IdempotencyRecord } from '../../../../core/store/idempotency';
import { checkMetadataFilter } from '../../../../core/store/listing';
import { auditAfterCommit, checkPublishPrecondition, preparePublication } from '../../../../core/store/publication';
import { isSlug } from '../../../../core/store/skillIds';
import type { AuditEvent, PublishResult, VersionEntry } from '../../../../core/store/types';
import { samplePackage } from '../../../integration/core/store/samplePackage';

function thrown(fn: () => unknown): StoreError {
  try {
    fn();
  } catch (error) {
    if (error instanceof StoreError) return error;
    throw error;
  }
  throw new Error('expected a StoreError');
}

async function rejected(p: Promise<unknown>): Promise<StoreError> {
  try {
    await p;
  } catch (error) {
    if (error instanceof StoreError) return error;
    throw error;
  }
  throw new Error('expected a StoreError');
}

const tagChar = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/+='.split(''));
const opaque = fc.array(tagChar, { minLength: 1, maxLength: 24 }).map((a) => a.join(''));

describe('ETags', () => {
  it('are strong, quoted and change with the version or the manifest hash', () => {
    const h1 = `sha256:${'a'.repeat(64)}`;
    const h2 = `sha256:${'b'.repeat(64)}`;
    expect(etagFor(3, h1)).toMatch(/^"v3-a{16}"$/);
    expect(etagFor(3, h1)).not.toBe(etagFor(4, h1));
    expect(etagFor(3, h1)).not.toBe(etagFor(3, h2));
    expect(parseEtag(etagFor(3, h1))).toEqual({ weak: false, tag: 'v3-aaaaaaaaaaaaaaaa' });
  });

  it('round-trips any opaque tag through parse, strong and weak', () => {
    fc.assert(
      fc.property(opaque, fc.boolean(), (tag, weak) => {
        const text = `${weak ? 'W/' : ''}"${tag}"`;
        expect(parseEtag(text)).toEqual({ weak, tag });
        expect(parseEtag(`  ${text} `)).toEqual({ weak, tag });
      }),
    );
  });

  it('rejects malformed tags and the wildcard', () => {
    for (const bad of ['v3', '"open', 'open"', '', '*', 'w/"x"', '"a"b"', '"with space"']) expect(parseEtag(bad)).toBeUndefined();
    expect(parseEtagList('*')).toBeUndefined();
    expect(parseEtagList('"a", bogus')).toBeUndefined();
    expect(parseEtagList('"a", W/"b"')).toEqual([
      { weak: false, tag: 'a' },
      { weak: true, tag: 'b' },
    ]);
  });

  it('matches If-Match with strong comparison only', () => {
    fc.assert(
      fc.property(opaque, opaque, (a, b) => {
        expect(etagMatches(`"${a}"`, `"${a}"`)).toBe(true);
        expect(etagMatches(`W/"${a}"`, `"${a}"`)).toBe(false);
        expect(etagMatches(`"${b}", "${a}"`, `"${a}"`)).toBe(true);
        expect(etagMatches(`"${a}"`, `"${b}"`)).toBe(a === b);
      }),
    );
    expect(etagMatches('*', '"x"')).toBe(false);
  });

  it('classifies publish preconditions against state', () => {
    expect(thrown(() => checkPublishPrecondition({ kind: 'create' }, { etag: '"x"' })).code).toBe('precondition_failed');
    expect(thrown(() => checkPublishPrecondition({ kind: 'if-match', etag: '"x"' }, undefined)).code).toBe('precondition_failed');
    expect(thrown(() => checkPublishPrecondition({ kind: 'if-match', etag: '"x"' }, { etag: '"y"' })).code).toBe('precondition_failed');
    expect(() => checkPublishPrecondition({ kind: 'create' }, undefined)).not.toThrow();
    expect(() => checkPublishPrecondition({ kind: 'if-match', etag: '"y"' }, { etag: '"y"' })).not.toThrow();
  });
});

describe('slugs', () => {
  it('accepts exactly lowercase letters, digits and internal hyphens', () => {
    // An independent definition, character by character.
    const allowed = (c: string) => (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c === '-';
    const expected = (s: string) =>
      s.length >= 1 && s.length <= 64 && [...s].every(allowed) && !s.startsWith('-') && !s.endsWith('-');
    const near = fc.array(fc.constantFrom(...'ab-z09A_ .é'.split('')), { maxLength: 70 }).map((a) => a.join(''));
    fc.assert(
      fc.property(fc.oneof(near, fc.string({ maxLength: 70 })), (s) => {
        expect(isSlug(s)).toBe(expected(s));
      }),
      { numRuns: 500 },
    );
    for (const ok of ['a', 'travel', 'weather-assessment', 'a1-b2', 'x'.repeat(64)]) expect(isSlug(ok)).toBe(true);
    for (const bad of ['', '-a', 'a-', 'A', 'a_b', 'a b', 'é', 'x'.repeat(65)]) expect(isSlug(bad)).toBe(false);
  });
});

describe('deletion checks', () => {
  const id = { namespace: 'ns', name: 'n' };
  const ok = { id, ifMatch: '"e"', reason: 'cleanup' };

  it('returns the inclusive range when eligible', () => {
    expect(checkDeleteRange({ ...ok, from: 1, to: 3 }, undefined, 5, '"e"')).toEqual([1, 2, 3]);
  });

  it('orders its failures: 400 shape, 400 reason, 428, 412, 409, 404', () => {
    expect(thrown(() => checkDeleteRange({ ...ok, from: 3, to: 1 }, undefined, 9)).code).toBe('invalid_request');
    expect(thrown(() => checkDeleteRange({ ...ok, from: 1.5, to: 2 }, undefined, 9)).code).toBe('invalid_request');
    expect(thrown(() => checkDeleteRange({ ...ok, from: 1, to: 11 }, { maxDeleteVersions: 10 }, 99)).code).toBe('invalid_request');
    expect(checkDeleteRange({ ...ok, from: 1, to: 10 }, { maxDeleteVersions: 10 }, 99)).toHaveLength(10);
    expect(thrown(() => checkDeleteRange({ id, from: 1, to: 1, ifMatch: '"e"' }, undefined, 9)).code).toBe('invalid_request');
    expect(thrown(() => checkDeleteRange({ id, from: 1, to: 1, reason: 'r' }, undefined, 9)).code).toBe('precondition_required');
    expect(thrown(() => checkDeleteRange({ ...ok, from: 1, to: 1 }, undefined, 9, '"other"')).code).toBe('precondition_failed');
    expect(thrown(() => checkDeleteRange({ ...ok, from: 8, to: 8 }, undefined, 9, '"e"')).code).toBe('conflict');
    expect(thrown(() => checkDeleteRange({ ...ok, from: 12, to: 13 }, undefined, 9, '"e"')).code).toBe('not_found');
  });

  it('never lets a range touch published or published−1 (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 300 }), fc.integer({ min: 0, max: 99 }), (published, from, width) => {
        const to = from + width;
        let versions: number[] | undefined;
        try {
          versions = checkDeleteRange({ ...ok, from, to }, undefined, published, '"e"');
        } catch (error) {
          expect(error).toBeInstanceOf(StoreError);
          return;
        }
        expect(versions).toHaveLength(width + 1);
        expect(versions.every((v) => v < published - 1)).toBe(true);
      }),
    );
  });
});

describe('version queries', () => {
  it('defaults to 20, clamps to 100 and rejects non-positive values', () => {
    expect(clampVersionQuery(undefined)).toEqual({ before: undefined, limit: 20 });
    expect(clampVersionQuery({ limit: 500, before: 3 })).toEqual({ before: 3, limit: 100 });
    for (const bad of [{ limit: 0 }, { limit: -1 }, { limit: 1.5 }, { before: 0 }, { before: Number.NaN }]) {
      expect(thrown(() => clampVersionQuery(bad)).code).toBe('invalid_request');
    }
  });

  it('pages any history newest first without gaps or repeats (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 1, max: 15 }), (count, limit) => {
        const entries: VersionEntry[] = Array.from({ length: count }, (_, i) => ({
          version: i + 1,
          status: i % 3 === 0 ? 'deleted' : 'available',
          created_at: '2026-01-01T00:00:00.000Z',
          manifest_hash: 'sha256:x',
          change_reason: `r${i + 1}`,
        }));
        const seen: number[] = [];
        let before: number | undefined;
        for (;;) {
          const page = pageVersions(entries, before === undefined ? { limit } : { before, limit });
          expect(page.versions.length).toBeLessThanOrEqual(limit);
          seen.push(...page.versions.map((v) => v.version));
          if (page.next_before === null) break;
          before = page.next_before;
        }
        expect(seen).toEqual(Array.from({ length: count }, (_, i) => count - i));
      }),
    );
  });
});

describe('metadata filters', () => {
  it('accepts slugs and rejects anything else with 400', () => {
    expect(checkMetadataFilter({ namespace: 'a', domain: 'b', tag: 'c', limit: 5 })).toEqual({ namespace: 'a', domain: 'b', tag: 'c', limit: 5 });
    expect(checkMetadataFilter(undefined)).toEqual({});
    for (const bad of [{ namespace: 'A' }, { tag: '' }, { domain: 'a b' }, { limit: 0 }]) {
      expect(thrown(() => checkMetadataFilter(bad)).code).toBe('invalid_request');
    }
  });
});

describe('idempotency replay', () => {
  const result = { namespace: 'a', name: 'b', outcome: 'created', version: 1, etag: '"e"', replayed: false } as unknown as PublishResult;
  const now = new Date('2026-03-01T12:00:00Z');

  it('replays the same fingerprint, rejects another with 409, forgets after retention', () => {
    const record: IdempotencyRecord = { fingerprint: 'f1', result, created_at: '2026-03-01T11:00:00Z' };
    expect(replayIdempotent(record, 'f1', now)).toEqual({ ...result, replayed: true });
    const error = thrown(() => replayIdempotent(record, 'f2', now));
    expect(error.code).toBe('conflict');
    expect(error.message).toContain('Idempotency-Key reused with a different request');
    expect(replayIdempotent(undefined, 'f1', now)).toBeUndefined();
    expect(replayIdempotent({ ...record, created_at: '2026-02-27T11:00:00Z' }, 'f2', now)).toBeUndefined();
  });
});

describe('audit delivery', () => {
  const event: AuditEvent = { action: 'publish', namespace: 'a', name: 'b', outcome: 'created', versions: [1], at: '2026-01-01T00:00:00Z' };

  it('reports a delivered event', async () => {
    const seen: AuditEvent[] = [];
    expect(await auditAfterCommit({ record: async (e) => void seen.push(e) }, event)).toEqual({ audit_recorded: true, warnings: [] });
    expect(seen).toEqual([event]);
  });

  it('never rethrows a failing or missing sink and warns instead', async () => {
    const failing = await auditAfterCommit({ record: async () => Promise.reject(new Error('down')) }, event);
    expect(failing.audit_recorded).toBe(false);
    expect(failing.warnings).toEqual([{ code: 'skill_audit_not_recorded', message: expect.any(String) }]);
    expect((await auditAfterCommit(undefined, event)).audit_recorded).toBe(false);
  });
});

describe('preparePublication', () => {
  const id = { namespace: 'travel', name: 'weather' };
  const text = JSON.stringify(samplePackage('prep'));

  it('checks in order: identity 400, precondition 428, size 413, validation 422', async () => {
    expect((await rejected(preparePublication({ id: { namespace: 'Bad', name: 'x' }, body: '{' }))).code).toBe('invalid_request');
    expect((await rejected(preparePublication({ id, body: '{' }))).code).toBe('precondition_required');
    const big = 'x'.repeat(2048);
    expect((await rejected(preparePublication({ id, body: big, precondition: { kind: 'create' } }, { maxPackageBytes: 1024 }))).code).toBe('payload_too_large');
    const invalid = await rejected(preparePublication({ id, body: '{"display_name": 1}', precondition: { kind: 'create' } }));
    expect(invalid.code).toBe('validation_failed');
    expect(invalid.findings.length).toBeGreaterThan(0);
    expect(invalid.details).toHaveProperty('metrics');
    expect((await rejected(preparePublication({ id, body: text, precondition: { kind: 'if-match', etag: 'unquoted' } }))).code).toBe('invalid_request');
    expect((await rejected(preparePublication({ id, body: text, precondition: { kind: 'create' }, idempotencyKey: 'has space' }))).code).toBe('invalid_request');
  });

  it('binds the fingerprint to the content, change_reason and precondition kind, not the ETag value', async () => {
    const a = await preparePublication({ id, body: text, precondition: { kind: 'if-match', etag: '"one"' } });
    const b = await preparePublication({ id, body: text, precondition: { kind: 'if-match', etag: '"two"' } });
    const c = await preparePublication({ id, body: text, precondition: { kind: 'create' } });
    const d = await preparePublication({ id, body: JSON.stringify(samplePackage('prep', { change_reason: 'Other reason' })), precondition: { kind: 'create' } });
    const e = await preparePublication({ id, body: JSON.stringify(JSON.parse(text), null, 4), precondition: { kind: 'create' } });
    expect(a.fingerprint).toBe(b.fingerprint);
    expect(c.fingerprint).not.toBe(a.fingerprint);
    expect(d.fingerprint).not.toBe(c.fingerprint);
    expect(e.fingerprint).toBe(c.fingerprint);
    expect(a.integrity.manifest_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(a.manifest.resources[0]?.content_hash).toBe(a.integrity.resource_hashes['checklist']);
  });
});
