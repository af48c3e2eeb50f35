/**
 * The wire format of the V1 admin API (guide sections 5 and 11), shared by the
 * reference host (`core/admin/handler.ts`) and the HTTP client store (`http.ts`).
 * docs/admin-api.md describes it for people; this file is the typed version.
 *
 * The guide fixes the routes, the headers and the statuses. The body shapes below
 * that the guide does not show (list, versions, delete, errors) are this project's
 * choice; the client reads them tolerantly so another V1 host may differ.
 */
import type { Finding, PackageMetrics, SkillPackage, ValidationResult } from '../package/types';
import type { DeleteResult, PublishResult, SkillMetadata, StoredRevision, VersionEntry, StoreWarning } from './types';

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

/** One proposed JSON Patch operation (RFC 6902) of the optional advisor. */
export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  value?: unknown;
  from?: string;
}

/** Advice of the optional authoring advisor; it never changes stored data. */
export interface AuthoringAnalysis {
  summary: string;
  suggestions: Array<{ code?: string; message: string; path?: string }>;
  patch: JsonPatchOperation[];
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
