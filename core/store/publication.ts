/**
 * Rules every store adapter shares (guide sections 5.4, 5.5, 10.5, 11): identity and
 * request checks, validation before publication, ETags, deletion guards, version
 * paging, idempotency replay and audit delivery. Adapters keep only their storage
 * mechanics, so the local, Redis and HTTP stores answer every request identically.
 *
 * Idempotency: a key is scoped to one skill identity and retained for at least
 * {@link IDEMPOTENCY_RETENTION_MS}. Replaying a key with the same fingerprint returns
 * the stored result with `replayed: true` and never creates a revision, even when
 * other revisions were published since; the same key with a different fingerprint is
 * 409 `conflict`. Adapters look the key up before checking preconditions.
 */
import {
  buildManifest,
  canonicalJson,
  computeIntegrity,
  resolveLimits,
  sha256Hex,
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
  DeleteRequest,
  MetadataFilter,
  Precondition,
  PublishRequest,
  PublishResult,
  SkillAdministrationLimits,
  SkillRevisionReader,
  StoreWarning,
  VersionEntry,
  VersionPage,
  VersionQuery,
} from './types';

/** Default administration limits (guide section 9.11). */
export const DEFAULT_ADMINISTRATION_LIMITS: SkillAdministrationLimits = Object.freeze({ maxDeleteVersions: 100 });

/** Minimum time an Idempotency-Key stays bound to its first request: 24 hours. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

/** Longest accepted Idempotency-Key, in characters. */
export const MAX_IDEMPOTENCY_KEY_CHARS = 255;

/** Default and maximum page size of `listVersions`. */
export const VERSION_PAGE_DEFAULT = 20;
/** Largest page `listVersions` returns; larger requests are clamped to it. */
export const VERSION_PAGE_MAX = 100;

/** Warning code of a committed mutation whose audit event was not delivered. */
export const AUDIT_NOT_RECORDED = 'skill_audit_not_recorded';

const SLUG = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/** True when `value` is a V1 slug (lowercase letters, digits, internal hyphens) within `maxChars`. */
export function isSlug(value: unknown, maxChars = 64): value is string {
  return typeof value === 'string' && value.length <= maxChars && SLUG.test(value);
}

/** Throws 400 `invalid_request` unless `id` is a valid `namespace/name` pair. */
export function checkSkillId(id: SkillId, limits?: Partial<SkillAuthoringLimits>): void {
  const max = resolveLimits(limits).maxNameChars;
  for (const part of ['namespace', 'name'] as const) {
    const value = (id as unknown as Record<string, unknown> | null)?.[part];
    if (!isSlug(value, max)) {
      throw new StoreError(
        'invalid_request',
        `invalid skill ${part} ${JSON.stringify(value)}: use a lowercase slug of letters, digits and internal hyphens, at most ${max} characters`,
        { details: { field: part } },
      );
    }
  }
}

/**
 * Parses `namespace/name` (the CLI and URL form) into an identity, or throws 400.
 */
export function parseSkillKey(text: string, limits?: Partial<SkillAuthoringLimits>): SkillId {
  const parts = text.split('/');
  if (parts.length !== 2) {
    throw new StoreError('invalid_request', `invalid skill identity '${text}': expected <namespace>/<name>`);
  }
  const id = { namespace: parts[0] ?? '', name: parts[1] ?? '' };
  checkSkillId(id, limits);
  return id;
}

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

// ---------------------------------------------------------------------------
// ETags (RFC 9110 section 8.8.3).

/** A parsed entity tag. */
export interface EntityTag {
  weak: boolean;
  /** The opaque tag without quotes. */
  tag: string;
}

/**
 * The strong, quoted ETag of a skill's published state. Version numbers are never
 * reused, so it changes with every published revision; deletions of older revisions
 * keep it (a repeated delete with the same ETag stays a no-op).
 */
export function etagFor(version: number, manifestHash: string): string {
  const hex = manifestHash.startsWith('sha256:') ? manifestHash.slice(7) : manifestHash;
  return `"v${version}-${hex.slice(0, 16)}"`;
}

const ETAG = /^(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"$/;

/** Parses one entity tag (`"x"` or `W/"x"`); `undefined` when malformed. */
export function parseEtag(text: string): EntityTag | undefined {
  const m = ETAG.exec(text.trim());
  if (!m) return undefined;
  return { weak: m[1] !== undefined, tag: m[2] ?? '' };
}

/** Parses an If-Match list (`"a", W/"b"`); `undefined` when any member is malformed or the list is `*`. */
export function parseEtagList(text: string): EntityTag[] | undefined {
  const parts = text.split(',').map((p) => p.trim()).filter((p) => p.length > 0);
  if (parts.length === 0) return undefined;
  const tags: EntityTag[] = [];
  for (const part of parts) {
    const tag = parseEtag(part);
    if (!tag) return undefined;
    tags.push(tag);
  }
  return tags;
}

/**
 * True when an If-Match value matches the current ETag. Uses the strong comparison
 * RFC 9110 requires for If-Match: a weak tag (`W/"..."`) never matches, and `*` is
 * not accepted because the guide asks for the current ETag, never a wildcard.
 */
export function etagMatches(ifMatch: string, current: string): boolean {
  const wanted = parseEtag(current);
  const list = parseEtagList(ifMatch);
  if (!wanted || !list || wanted.weak) return false;
  return list.some((t) => !t.weak && t.tag === wanted.tag);
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

// ---------------------------------------------------------------------------
// Deletion.

/**
 * The state-free checks of a deletion, in order: identity, numbers, order and width
 * (400), audit reason (400), If-Match present (428) and well formed (400). Returns
 * the versions of the inclusive range, ascending.
 */
export function checkDeleteRequest(request: DeleteRequest, limits?: Partial<SkillAdministrationLimits>): number[] {
  const { maxDeleteVersions } = { ...DEFAULT_ADMINISTRATION_LIMITS, ...limits };
  checkSkillId(request.id);
  const { from, to } = request;
  if (!Number.isSafeInteger(from) || from < 1 || !Number.isSafeInteger(to) || to < 1) {
    throw new StoreError('invalid_request', `versions must be positive integers, got ${String(from)}-${String(to)}`);
  }
  if (from > to) throw new StoreError('invalid_request', `invalid range ${from}-${to}: from must not exceed to`);
  const width = to - from + 1;
  if (width > maxDeleteVersions) {
    throw new StoreError('invalid_request', `range ${from}-${to} spans ${width} versions, above the limit of ${maxDeleteVersions}`, {
      details: { width, limit: maxDeleteVersions },
    });
  }
  if (typeof request.reason !== 'string' || request.reason.trim().length === 0) {
    throw new StoreError('invalid_request', 'deletion requires an audit reason (X-Audit-Reason)');
  }
  if (request.ifMatch === undefined || request.ifMatch.trim().length === 0) {
    throw new StoreError('precondition_required', 'deletion requires If-Match with the current ETag of the skill');
  }
  if (parseEtagList(request.ifMatch) === undefined) {
    throw new StoreError('invalid_request', `malformed If-Match value ${JSON.stringify(request.ifMatch)}: expected a quoted entity tag`);
  }
  const versions: number[] = [];
  for (let v = from; v <= to; v++) versions.push(v);
  return versions;
}

/**
 * Checks a deletion request against the skill's state and returns the versions of
 * the inclusive range, ascending. After {@link checkDeleteRequest}: If-Match current
 * (412, when `currentEtag` is given), protection of published and published−1 (409),
 * then versions that never existed (404). Nothing is deleted on any failure.
 */
export function checkDeleteRange(
  request: DeleteRequest,
  limits: Partial<SkillAdministrationLimits> | undefined,
  publishedVersion: number,
  currentEtag?: string,
): number[] {
  const versions = checkDeleteRequest(request, limits);
  const { from, to } = request;
  if (currentEtag !== undefined && !etagMatches(request.ifMatch ?? '', currentEtag)) {
    throw new StoreError('precondition_failed', 'the ETag is out of date: read the skill again and retry with its current ETag', {
      details: { current_etag: currentEtag },
    });
  }
  const protectedFrom = Math.max(1, publishedVersion - 1);
  if (to >= protectedFrom && from <= publishedVersion) {
    throw new StoreError(
      'conflict',
      `versions ${protectedFrom}-${publishedVersion} are protected (published and its predecessor); nothing was deleted`,
      { details: { reason: 'protected_version', published: publishedVersion } },
    );
  }
  if (to > publishedVersion) {
    throw new StoreError('not_found', `version ${to} does not exist (latest is ${publishedVersion}); nothing was deleted`);
  }
  return versions;
}

// ---------------------------------------------------------------------------
// Version history.

/** The state-free checks of a version query: 400 on bad numbers, limit clamped to 1..100 (default 20). */
export function clampVersionQuery(query: VersionQuery | undefined): { before: number | undefined; limit: number } {
  const before = query?.before;
  if (before !== undefined && (!Number.isSafeInteger(before) || before < 1)) {
    throw new StoreError('invalid_request', `before must be a positive integer, got ${String(before)}`);
  }
  const limit = query?.limit;
  if (limit === undefined) return { before, limit: VERSION_PAGE_DEFAULT };
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new StoreError('invalid_request', `limit must be a positive integer, got ${String(limit)}`);
  }
  return { before, limit: Math.min(limit, VERSION_PAGE_MAX) };
}

/** The protection marker of `version` when `published` is the current revision. */
export function protectionFor(version: number, published: number): VersionEntry['protection'] {
  if (version === published) return 'published';
  if (version === published - 1) return 'protected';
  return undefined;
}

/**
 * One page of history, newest first, from every entry of a skill (any order,
 * tombstones included). `next_before` is set when older entries remain.
 */
export function pageVersions(entries: readonly VersionEntry[], query: VersionQuery | undefined): VersionPage {
  const { before, limit } = clampVersionQuery(query);
  const older = entries
    .filter((e) => before === undefined || e.version < before)
    .sort((a, b) => b.version - a.version);
  const page = older.slice(0, limit);
  const last = page[page.length - 1];
  return { versions: page, next_before: older.length > limit && last ? last.version : null };
}

// ---------------------------------------------------------------------------
// Listing.

/** Validates a metadata filter (400 on a non-slug value or a bad limit) and returns it normalized. */
export function checkMetadataFilter(filter: MetadataFilter | undefined): MetadataFilter {
  const out: MetadataFilter = {};
  for (const key of ['namespace', 'domain', 'tag'] as const) {
    const value = filter?.[key];
    if (value === undefined) continue;
    if (!isSlug(value)) throw new StoreError('invalid_request', `invalid ${key} filter ${JSON.stringify(value)}: expected a lowercase slug`);
    out[key] = value;
  }
  if (filter?.limit !== undefined) {
    if (!Number.isSafeInteger(filter.limit) || filter.limit < 1) {
      throw new StoreError('invalid_request', `limit must be a positive integer, got ${String(filter.limit)}`);
    }
    out.limit = filter.limit;
  }
  return out;
}

/** True when a catalog entry passes every given filter (exact matches, combined with AND). */
export function matchesFilter(
  entry: { namespace: string; domains: readonly string[]; tags: readonly string[] },
  filter: MetadataFilter,
): boolean {
  if (filter.namespace !== undefined && entry.namespace !== filter.namespace) return false;
  if (filter.domain !== undefined && !entry.domains.includes(filter.domain)) return false;
  if (filter.tag !== undefined && !entry.tags.includes(filter.tag)) return false;
  return true;
}

/** Sort order of listings: namespace, then name (code-unit order, stable across adapters). */
export function compareSkillIds(a: SkillId, b: SkillId): number {
  if (a.namespace !== b.namespace) return a.namespace < b.namespace ? -1 : 1;
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return 0;
}

// ---------------------------------------------------------------------------
// Audit.

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
