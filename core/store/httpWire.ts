/**
 * The wire format of the V1 admin API (guide sections 5 and 11), shared by the
 * reference host (`core/admin/handler.ts`) and the HTTP client store (`http.ts`).
 * docs/admin-api.md describes it for people; this file is the typed version.
 *
 * The guide fixes the routes, the headers and the statuses. The body shapes below
 * that the guide does not show (list, versions, delete, errors) are this project's
 * choice; the client reads them tolerantly so another V1 host may differ. The
 * decoders at the end are that tolerant reading; the client (`http.ts`) keeps the
 * transport, retries and the mapping of statuses to store errors.
 */
import { DEFAULT_AUTHORING_LIMITS } from '../package/limits';
import type { Finding, PackageMetrics, SkillAuthoringLimits, SkillId, SkillPackage, ValidationResult } from '../package/types';
import type { AuthoringAnalysis, DeleteResult, PublishResult, SkillMetadata, StoredRevision, VersionEntry, VersionPage, StoreWarning } from './types';

export type { AdvisorSource, AdvisorSuggestion, AuthoringAnalysis, CheckedProposal, DropReason, DroppedProposal } from './types';

export type { JsonPatchOperation } from '../package/jsonPatch';

/** Where a V1 host mounts the admin API by default. */
export const ADMIN_BASE_PATH = '/api/v1/skills';

/** The only request media type the admin API accepts (an optional `charset=utf-8` is allowed). */
export const JSON_MEDIA_TYPE = 'application/json';

/** Header names of the admin API, lower-case as Node reports them. */
export const ADMIN_HEADERS = {
  idempotencyKey: 'idempotency-key',
  auditReason: 'x-audit-reason',
  ifMatch: 'if-match',
  ifNoneMatch: 'if-none-match',
  etag: 'etag',
  retryAfter: 'retry-after',
  /** The signed approval of a review request (this project's extension; hosts that do not enforce approvals ignore it). */
  approval: 'x-skillbench-approval',
} as const;

/** Every error response: a stable code, a message a person can act on, optional structured details. */
export interface WireError {
  error: {
    /** A `StoreErrorCode`, or one of `unauthorized`, `method_not_allowed`, `host_not_allowed`, `internal_error`. */
    code: string;
    message: string;
    /** For `validation_failed`: `{errors, warnings, metrics}` (findings with JSON Pointer paths and positions). */
    details?: Record<string, unknown>;
  };
}

/** `POST …/{ns}/{name}/validate`: always 200 when the body decoded; `normalized` is null when invalid. */
export interface WireValidateResponse {
  normalized: SkillPackage | null;
  validation: ValidationResult;
}

/** `POST …/{ns}/{name}/analyze`: `analysis` is null when deterministic validation failed (the advisor is not called). */
export interface WireAnalyzeResponse extends WireValidateResponse {
  analysis: AuthoringAnalysis | null;
}

/** `GET /api/v1/skills`: body-free catalog entries sorted by namespace, then name. */
export interface WireListResponse {
  skills: SkillMetadata[];
}

/** `GET …/{ns}/{name}` and `GET …/versions/{n}`: one retained revision with the published ETag. */
export type WireRevision = StoredRevision;

/** `GET …/{ns}/{name}/versions`: one page of body-free history, newest first. */
export interface WireVersionPage {
  namespace: string;
  name: string;
  versions: VersionEntry[];
  next_before: number | null;
}

/** `PUT …/{ns}/{name}`: 201 for `created`, 200 for `published` and `same_content_noop`. */
export interface WirePublishResponse extends Omit<PublishResult, 'validation'> {
  validation: { valid: true; errors: Finding[]; warnings: Finding[]; metrics: PackageMetrics };
}

/** `DELETE …/versions/{n}` and `DELETE …/versions?from=N&to=M`. */
export type WireDeleteResponse = DeleteResult;

/** A management warning as sent on the wire. */
export type WireWarning = StoreWarning;

/**
 * Header values travel as bytes; Node and undici treat them as Latin-1. Free text
 * such as `X-Audit-Reason` is sent as its UTF-8 bytes (what curl sends for a UTF-8
 * shell argument) and decoded back here.
 */
export function encodeHeaderText(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

/** Inverse of {@link encodeHeaderText}; Latin-1 text that is not valid UTF-8 is returned as is. */
export function decodeHeaderText(raw: string): string {
  const bytes = Buffer.from(raw, 'latin1');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return raw;
  }
}

// --- decoders --------------------------------------------------------------------
//
// The client reads a host's answers tolerantly: unknown fields are ignored and
// known ones defaulted, so a V1 host that differs in what this project chose
// (list, versions, delete and error bodies) still works. Only what the client
// cannot do without (a package and a version, a version and an ETag) is required;
// the decoders return `undefined` then and the client names the request.

/** A decoded JSON object. */
export type WireJson = Record<string, unknown>;

/** Whether `value` is a JSON object (not null, not an array). */
export function isWireObject(value: unknown): value is WireJson {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value : fallback;
}

function strs(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : undefined;
}

function numbers(value: unknown): number[] {
  return Array.isArray(value) ? value.filter((v): v is number => typeof v === 'number' && Number.isSafeInteger(v)) : [];
}

const EMPTY_METRICS: PackageMetrics = {
  manifest_bytes: 0,
  resource_bytes: 0,
  package_bytes: 0,
  manifest_tokens: 0,
  resource_tokens: 0,
  resource_count: 0,
  token_estimator: { name: 'truvag3-canonical', version: 'v1' },
};

function metricsOf(value: unknown): PackageMetrics {
  if (!isWireObject(value)) return EMPTY_METRICS;
  const n = (k: keyof PackageMetrics) => num(value[k]) ?? 0;
  const estimator = isWireObject(value['token_estimator']) ? value['token_estimator'] : {};
  return {
    manifest_bytes: n('manifest_bytes'),
    resource_bytes: n('resource_bytes'),
    package_bytes: n('package_bytes'),
    manifest_tokens: n('manifest_tokens'),
    resource_tokens: n('resource_tokens'),
    resource_count: n('resource_count'),
    token_estimator: { ...EMPTY_METRICS.token_estimator, ...(estimator as object) } as PackageMetrics['token_estimator'],
  };
}

function findings(value: unknown): Finding[] {
  return Array.isArray(value) ? value.filter(isWireObject).map((f) => f as unknown as Finding) : [];
}

function warningsOf(value: unknown): StoreWarning[] {
  return Array.isArray(value) ? value.filter(isWireObject).map((w) => ({ code: str(w['code'], 'warning'), message: str(w['message']) })) : [];
}

/** One catalog entry, known fields only; `undefined` without a namespace, name and version. */
export function decodeMetadata(value: unknown): SkillMetadata | undefined {
  if (!isWireObject(value)) return undefined;
  const version = num(value['version']);
  if (typeof value['namespace'] !== 'string' || typeof value['name'] !== 'string' || version === undefined) return undefined;
  // Known fields only: whatever else a host adds stays out of the body-free catalog.
  return {
    namespace: value['namespace'],
    name: value['name'],
    display_name: str(value['display_name']),
    description: str(value['description']),
    domains: strs(value['domains']),
    tags: strs(value['tags']),
    version,
    manifest_hash: str(value['manifest_hash']),
    updated_at: str(value['updated_at']),
  };
}

/** `GET /api/v1/skills` (entries under `skills`, or `items`, or a bare array): the entries that decode. */
export function decodeListResponse(body: WireJson): SkillMetadata[] {
  const list = Array.isArray(body['skills']) ? body['skills'] : Array.isArray(body['items']) ? body['items'] : [];
  return list.map(decodeMetadata).filter((m): m is SkillMetadata => m !== undefined);
}

/**
 * One revision; `undefined` without a package object or a version. The identity
 * defaults to the one asked for, the ETag to the header's, `published` to `published`.
 */
export function decodeRevision(id: SkillId, body: WireJson, defaults: { etag?: string | undefined; published: boolean }): StoredRevision | undefined {
  const pkg = body['package'];
  const version = num(body['version']);
  if (!isWireObject(pkg) || version === undefined) return undefined;
  const hashes = isWireObject(body['resource_hashes']) ? body['resource_hashes'] : {};
  return {
    namespace: str(body['namespace'], id.namespace),
    name: str(body['name'], id.name),
    version,
    etag: str(body['etag'], defaults.etag ?? ''),
    package: pkg as unknown as SkillPackage,
    manifest_hash: str(body['manifest_hash']),
    resource_hashes: Object.fromEntries(Object.entries(hashes).filter(([, v]) => typeof v === 'string')) as Record<string, string>,
    created_at: str(body['created_at']),
    published: typeof body['published'] === 'boolean' ? body['published'] : defaults.published,
  };
}

/** `GET …/versions` (entries under `versions` or `items`): the entries with a version, and the next page's cursor. */
export function decodeVersionPage(body: WireJson): VersionPage {
  const list = Array.isArray(body['versions']) ? body['versions'] : Array.isArray(body['items']) ? body['items'] : [];
  const versions: VersionEntry[] = [];
  for (const v of list) {
    if (!isWireObject(v) || num(v['version']) === undefined) continue;
    const entry: VersionEntry = {
      version: num(v['version']) as number,
      status: v['status'] === 'deleted' ? 'deleted' : 'available',
      created_at: str(v['created_at']),
      manifest_hash: str(v['manifest_hash']),
      change_reason: str(v['change_reason']),
    };
    if (typeof v['deleted_at'] === 'string') entry.deleted_at = v['deleted_at'];
    if (v['protection'] === 'published' || v['protection'] === 'protected') entry.protection = v['protection'];
    versions.push(entry);
  }
  return { versions, next_before: num(body['next_before']) ?? null };
}

/**
 * `PUT …/{ns}/{name}`; `undefined` without a version or an ETag (in the body or
 * `etagHeader`). A host that names no outcome is read by its status (201: created).
 */
export function decodePublishResponse(id: SkillId, body: WireJson, status: number, etagHeader: string | undefined): PublishResult | undefined {
  const version = num(body['version']);
  const etag = str(body['etag'], etagHeader ?? '');
  if (version === undefined || etag.length === 0) return undefined;
  const outcome = body['outcome'];
  const validation = isWireObject(body['validation']) ? body['validation'] : {};
  return {
    namespace: str(body['namespace'], id.namespace),
    name: str(body['name'], id.name),
    outcome: outcome === 'created' || outcome === 'published' || outcome === 'same_content_noop' ? outcome : status === 201 ? 'created' : 'published',
    version,
    etag,
    manifest_hash: str(body['manifest_hash']),
    // A host that does not say whether the audit event was delivered gets no benefit of the doubt.
    audit_recorded: body['audit_recorded'] === true,
    warnings: warningsOf(body['warnings']),
    validation: {
      warnings: findings(validation['warnings']),
      metrics: metricsOf(validation['metrics']),
    },
    replayed: body['replayed'] === true,
  };
}

/** `DELETE …/versions…`: what was deleted, with the identity and ETag defaulted as for a publication. */
export function decodeDeleteResponse(id: SkillId, body: WireJson, etagHeader: string | undefined): DeleteResult {
  return {
    namespace: str(body['namespace'], id.namespace),
    name: str(body['name'], id.name),
    deleted: numbers(body['deleted']),
    already_deleted: numbers(body['already_deleted']),
    etag: str(body['etag'], etagHeader ?? ''),
    audit_recorded: body['audit_recorded'] === true,
    warnings: warningsOf(body['warnings']),
  };
}

/**
 * Authoring limits a host states in its schema's `x-limits` member (our reference
 * host adds it); anything absent keeps the client's defaults.
 */
export function decodeSchemaLimits(schema: unknown): Partial<SkillAuthoringLimits> {
  if (!isWireObject(schema)) return {};
  const out: Partial<SkillAuthoringLimits> = {};
  const ext = schema['x-limits'];
  if (isWireObject(ext)) {
    for (const key of Object.keys(DEFAULT_AUTHORING_LIMITS) as Array<keyof SkillAuthoringLimits>) {
      const v = ext[key];
      if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) out[key] = v;
    }
  }
  return out;
}

/** What an error body says, in whichever of the common shapes a host uses; empty when it says nothing. */
export interface DecodedWireError {
  /** `error.code`, when the body has an `error` object. */
  code: string | undefined;
  /** `error.message`, a bare string `error`, or a top-level `message`. */
  message: string;
  /** `error.details`, with findings a host put at the top level or under `validation` for a `validation_failed`. */
  details: Record<string, unknown> | undefined;
}

/**
 * Reads a non-2xx body. `validationFailed` says whether the answer means
 * `validation_failed` (the client decides that from code and status), so the
 * findings are looked for where other hosts put them.
 */
export function decodeErrorBody(json: unknown, validationFailed: (code: string | undefined) => boolean): DecodedWireError {
  const body = isWireObject(json) ? json : {};
  const err = body['error'];
  const code = isWireObject(err) ? str(err['code']) : undefined;
  const message = isWireObject(err) ? str(err['message']) : typeof err === 'string' ? err : str(body['message']);
  let details: Record<string, unknown> | undefined = isWireObject(err) && isWireObject(err['details']) ? { ...err['details'] } : undefined;
  if (validationFailed(code) && (details === undefined || !Array.isArray(details['errors']))) {
    // Other hosts may put findings at the top level or under `validation`.
    const v = isWireObject(body['validation']) ? body['validation'] : body;
    if (Array.isArray(v['errors'])) details = { ...details, errors: v['errors'], warnings: v['warnings'] ?? [], metrics: v['metrics'] };
  }
  return { code, message, details };
}
