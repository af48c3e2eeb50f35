/**
 * Publication as every store adapter does it (guide sections 5.4, 11): the request
 * checks, validation before publication, the precondition against stored state,
 * the conditional publish of the CLI and the workbench, and audit delivery.
 * Adapters keep only their storage mechanics, so the local, Redis and HTTP stores
 * answer every request identically. The shared rules beside it: skill identities
 * (skillIds.ts), ETags (etag.ts), idempotency (idempotency.ts), version history
 * and deletion ranges (history.ts), listing filters (listing.ts).
 */
import {
  buildManifest,
  computeIntegrity,
  resolveLimits,
  utf8Bytes,
  validatePackage,
} from '../package/index';
import type {
  Finding,
  PackageIntegrity,
  PackageMetrics,
  SkillAuthoringLimits,
  SkillId,
  SkillManifest,
  SkillPackage,
} from '../package/types';
import { StoreError } from './errors';
import type {
  AuditEvent,
  AuditSink,
  Precondition,
  PublishRequest,
  PublishResult,
  SkillRevisionReader,
  StoreWarning,
} from './types';
import { etagMatches, parseEtagList } from './etag';
import { checkIdempotencyKey, publicationFingerprint } from './idempotency';
import { checkSkillId } from './skillIds';

/** Warning code of a committed mutation whose audit event was not delivered. */
export const AUDIT_NOT_RECORDED = 'skill_audit_not_recorded';

/** A publication that passed every state-independent check, ready for an adapter to commit. */
export interface PreparedPublication {
  id: SkillId;
  /** The normalized package, `change_reason` included. */
  package: SkillPackage;
  integrity: PackageIntegrity;
  manifest: SkillManifest;
  precondition: Precondition;
  idempotencyKey: string | undefined;
  /**
   * `sha256:<hex>` over the canonical normalized package (with `change_reason`) and
   * the precondition kind: what an Idempotency-Key is bound to.
   */
  fingerprint: string;
  validation: { warnings: Finding[]; metrics: PackageMetrics };
  actor: string | undefined;
}

function bodySize(body: unknown): number {
  if (typeof body === 'string') return utf8Bytes(body);
  if (body instanceof Uint8Array) return body.byteLength;
  // A parsed value: measure the JSON text a client would have sent.
  try {
    const text = JSON.stringify(body);
    return text === undefined ? 0 : utf8Bytes(text);
  } catch {
    return 0;
  }
}

/**
 * The request checks of a publication that need neither stored state nor
 * validation, in the guide's order: identity (400), idempotency key (400),
 * precondition present (428) and well formed (400), body size (413, before
 * parsing). The HTTP client runs them before sending a byte, the stores before
 * validating; both answer a bad request identically. Returns the precondition.
 */
export function checkPublishRequest(request: PublishRequest, limits: SkillAuthoringLimits): Precondition {
  checkSkillId(request.id, limits);
  checkIdempotencyKey(request.idempotencyKey);
  const precondition = request.precondition;
  if (precondition === undefined) {
    throw new StoreError(
      'precondition_required',
      'publishing requires a precondition: If-None-Match: * to create the skill, or If-Match with its current ETag to update it',
    );
  }
  if (precondition.kind === 'if-match' && parseEtagList(precondition.etag) === undefined) {
    throw new StoreError('invalid_request', `malformed If-Match value ${JSON.stringify(precondition.etag)}: expected a quoted entity tag`);
  }
  if (precondition.kind !== 'create' && precondition.kind !== 'if-match') {
    throw new StoreError('invalid_request', 'unknown precondition kind');
  }
  const size = bodySize(request.body);
  if (size > limits.maxPackageBytes) {
    throw new StoreError(
      'payload_too_large',
      `package body is ${size} bytes, above the limit of ${limits.maxPackageBytes} bytes`,
      { details: { bytes: size, limit: limits.maxPackageBytes } },
    );
  }
  return precondition;
}

/**
 * Runs every check of a publication that does not depend on stored state
 * ({@link checkPublishRequest}, then deterministic validation: 422 with
 * `details: {errors, warnings, metrics}`). Then computes the normalized
 * package, its integrity hashes, its manifest and the idempotency fingerprint.
 */
export async function preparePublication(
  request: PublishRequest,
  limits?: Partial<SkillAuthoringLimits>,
): Promise<PreparedPublication> {
  const resolved = resolveLimits(limits);
  const precondition = checkPublishRequest(request, resolved);
  const id = { namespace: request.id.namespace, name: request.id.name };
  const result = validatePackage(request.body, { id, limits: resolved });
  if (!result.valid || result.normalized === undefined) {
    const count = result.errors.length;
    throw new StoreError('validation_failed', `package is invalid: ${count} error${count === 1 ? '' : 's'}`, {
      details: { errors: result.errors, warnings: result.warnings, metrics: result.metrics },
    });
  }
  const pkg = result.normalized;
  const integrity = await computeIntegrity(pkg);
  const manifest = buildManifest(pkg, integrity);
  const fingerprint = await publicationFingerprint(id, pkg, precondition);
  return {
    id,
    package: pkg,
    integrity,
    manifest,
    precondition,
    idempotencyKey: request.idempotencyKey,
    fingerprint,
    validation: { warnings: result.warnings, metrics: result.metrics },
    actor: request.actor,
  };
}

/**
 * Checks a publication's precondition against stored state: creation on an existing
 * skill, an update of a missing skill and a stale ETag are all 412.
 */
export function checkPublishPrecondition(precondition: Precondition, current: { etag: string } | undefined): void {
  if (precondition.kind === 'create') {
    if (current !== undefined) {
      throw new StoreError('precondition_failed', 'the skill already exists: publish an update with If-Match and its current ETag', {
        details: { current_etag: current.etag },
      });
    }
    return;
  }
  if (current === undefined) {
    throw new StoreError('precondition_failed', 'the skill does not exist yet: create it with If-None-Match: *');
  }
  if (!etagMatches(precondition.etag, current.etag)) {
    throw new StoreError('precondition_failed', 'the ETag is out of date: read the current package, reconcile your edit and retry with the new ETag', {
      details: { current_etag: current.etag },
    });
  }
}

/**
 * The precondition a publish without an explicit one uses: If-Match the skill's
 * current ETag, or create when the store has no such skill. Any other read
 * failure is thrown. A conditional publish stays conditional: a concurrent
 * publication between this read and the write is still a 412.
 */
export async function automaticPrecondition(store: Pick<SkillRevisionReader, 'getPublished'>, id: SkillId): Promise<Precondition> {
  try {
    return { kind: 'if-match', etag: (await store.getPublished(id)).etag };
  } catch (error) {
    if (error instanceof StoreError && error.code === 'not_found') return { kind: 'create' };
    throw error;
  }
}

/**
 * What a conditional publication is based on: the revision whose ETag goes in
 * If-Match, `null` for a create (If-None-Match: *), or `'current'` to read the
 * skill's ETag now ({@link automaticPrecondition}).
 */
export type PublishBase = { etag: string } | null | 'current';

/** A publication as its callers describe it: the precondition comes from {@link PublishBase}. */
export interface ConditionalPublish {
  id: SkillId;
  body: PublishRequest['body'];
  base: PublishBase;
  idempotencyKey?: string;
  actor?: string;
}

/**
 * The one conditional, idempotent publication of the CLI, the WorkbenchApi and
 * review requests: the precondition from `base`, the Idempotency-Key and the
 * actor passed through, sent with `send` (the store's own `publish` unless a
 * caller needs another way in, as an approved review request does).
 */
export async function publishConditional(
  store: Pick<SkillRevisionReader, 'getPublished'> & { publish(request: PublishRequest): Promise<PublishResult> },
  request: ConditionalPublish,
  send: (request: PublishRequest) => Promise<PublishResult> = (r) => store.publish(r),
): Promise<PublishResult> {
  const precondition: Precondition =
    request.base === 'current' ? await automaticPrecondition(store, request.id) : request.base === null ? { kind: 'create' } : { kind: 'if-match', etag: request.base.etag };
  return send({
    id: request.id,
    body: request.body,
    precondition,
    ...(request.idempotencyKey !== undefined && { idempotencyKey: request.idempotencyKey }),
    ...(request.actor !== undefined && { actor: request.actor }),
  });
}

/**
 * Delivers an audit event after the mutation committed. Never rethrows: a failing
 * (or missing) sink yields `audit_recorded: false` and the `skill_audit_not_recorded`
 * warning, and the mutation stays committed.
 */
export async function auditAfterCommit(
  sink: AuditSink | undefined,
  event: AuditEvent,
): Promise<{ audit_recorded: boolean; warnings: StoreWarning[] }> {
  try {
    if (!sink) throw new Error('no audit sink');
    await sink.record(event);
    return { audit_recorded: true, warnings: [] };
  } catch {
    return { audit_recorded: false, warnings: [auditNotRecordedWarning()] };
  }
}

/** The warning of a committed mutation whose audit delivery must be repaired. */
export function auditNotRecordedWarning(): StoreWarning {
  return { code: AUDIT_NOT_RECORDED, message: 'The mutation committed, but audit delivery must be repaired.' };
}
