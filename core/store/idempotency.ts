/**
 * Idempotency of publication (guide section 5.5): a key is scoped to one skill
 * identity and retained for at least {@link IDEMPOTENCY_RETENTION_MS}. Replaying a
 * key with the same fingerprint returns the stored result with `replayed: true`
 * and never creates a revision, even when other revisions were published since;
 * the same key with a different fingerprint is 409 `conflict`. Adapters look the
 * key up before checking preconditions.
 */
import { canonicalJson, sha256Hex } from '../package/index';
import type { SkillId, SkillPackage } from '../package/types';
import { StoreError } from './errors';
import type { Precondition, PublishResult } from './types';

/** Minimum time an Idempotency-Key stays bound to its first request: 24 hours. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

/** Longest accepted Idempotency-Key, in characters. */
export const MAX_IDEMPOTENCY_KEY_CHARS = 255;

/** Throws 400 unless `key` is an acceptable Idempotency-Key (visible ASCII, 1..255 characters). */
export function checkIdempotencyKey(key: string | undefined): void {
  if (key === undefined) return;
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_CHARS || !/^[\x21-\x7e]+$/.test(key)) {
    throw new StoreError(
      'invalid_request',
      `invalid Idempotency-Key: use 1 to ${MAX_IDEMPOTENCY_KEY_CHARS} visible ASCII characters without spaces`,
    );
  }
}

/**
 * The value an Idempotency-Key is bound to. The If-Match value itself is left out on
 * purpose: a client retrying after a dropped reply resends the same (now stale) ETag.
 */
export function publicationFingerprint(id: SkillId, pkg: SkillPackage, precondition: Precondition): Promise<string> {
  return sha256Hex(canonicalJson({ namespace: id.namespace, name: id.name, package: pkg, precondition: precondition.kind }));
}

/** `sha256:<hex>` of an Idempotency-Key, so stores never keep the raw key. */
export function idempotencyKeyHash(id: SkillId, key: string): Promise<string> {
  return sha256Hex(`${id.namespace}/${id.name}\n${key}`);
}

/** What an adapter keeps per Idempotency-Key. */
export interface IdempotencyRecord {
  fingerprint: string;
  /** The reply of the first request, without `replayed`. */
  result: PublishResult;
  /** ISO-8601 time of the first request. */
  created_at: string;
}

/**
 * Applies idempotency to a stored record: `undefined` when there is none (or it
 * expired) so the publication proceeds; the original reply with `replayed: true`
 * when the fingerprint matches; 409 `conflict` when the key was used for another request.
 */
export function replayIdempotent(
  record: IdempotencyRecord | undefined,
  fingerprint: string,
  now: Date = new Date(),
): PublishResult | undefined {
  if (record === undefined) return undefined;
  const age = now.getTime() - Date.parse(record.created_at);
  if (Number.isFinite(age) && age > IDEMPOTENCY_RETENTION_MS) return undefined;
  if (record.fingerprint !== fingerprint) throw idempotencyConflict();
  return { ...record.result, replayed: true };
}

/** The 409 of an Idempotency-Key reused with a different request. */
export function idempotencyConflict(): StoreError {
  return new StoreError('conflict', 'Idempotency-Key reused with a different request', {
    details: { reason: 'idempotency_key_reused' },
  });
}
