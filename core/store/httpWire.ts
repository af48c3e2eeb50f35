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
import type { CheckedProposal, DeleteResult, PublishResult, SkillMetadata, StoredRevision, VersionEntry, StoreWarning } from './types';

export type { CheckedProposal } from './types';

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

/** One suggestion of the advisor that is not an edit (or explains one). */
export interface AdvisorSuggestion {
  /** A short stable label such as `description_vocabulary`, when the advisor gives one. */
  code?: string;
  message: string;
  /** JSON Pointer into the package the suggestion is about. */
  path?: string;
}


/** Why a proposal was left out. */
export type DropReason =
  /** Not a JSON Patch document, or a malformed operation. */
  | 'patch_invalid'
  /** The patch does not apply to the package (a path that does not exist, a failed test). */
  | 'patch_failed'
  /** The patched package fails deterministic validation (see `findings`). */
  | 'validation_failed'
  /** The patch reads or edits content the advisor was never shown (resource bodies, change_reason). */
  | 'withheld_content'
  /** The patched package is the same package. */
  | 'no_change'
  /** More proposals than the advisor may make at once. */
  | 'too_many';

/** A proposal that was not kept, with its reason. */
export interface DroppedProposal {
  id: string;
  title: string;
  rationale: string;
  /** The operations as proposed (possibly not a valid patch). */
  patch: unknown;
  reason: DropReason;
  /** What went wrong, for a person. */
  message: string;
  /** The validation errors of the patched package, for `validation_failed`. */
  findings?: Finding[];
}

/** Who produced an analysis, body-free and secret-free. */
export interface AdvisorSource {
  /** The prompt template (`skillbench.authoring`) and its version. */
  prompt?: { id: string; version: string };
  /** The model that answered and its provider, as the provider reported them. */
  model?: string;
  provider?: string;
  reasoning_effort?: 'low' | 'medium' | 'high';
  usage?: { input_tokens: number; output_tokens: number };
  /** Settings the model client could not honour, or other notes about the call. */
  warnings?: string[];
}

/**
 * Advice of the optional authoring advisor; it never changes stored data.
 * Every proposal the advisor made is either in `proposals` (it applies and the
 * result validates) or in `dropped` with its reason.
 */
export interface AuthoringAnalysis {
  summary: string;
  suggestions: AdvisorSuggestion[];
  proposals: CheckedProposal[];
  dropped: DroppedProposal[];
  advisor: AdvisorSource | null;
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
