/**
 * Store contracts (ARCHITECTURE.md section 3; guide sections 5.4-5.6, 6.4, 10, 11, 14).
 *
 * Every adapter (local, redis, http) implements {@link SkillStore}; one conformance
 * suite proves them identical. Results are plain data; failures are `StoreError`s
 * (see `errors.ts`) whose codes map 1:1 to the guide's HTTP statuses.
 */
import type { JsonPatchOperation } from '../package/jsonPatch';
import type {
  Finding,
  PackageMetrics,
  SkillAuthoringLimits,
  SkillId,
  SkillManifest,
  SkillPackage,
  ResourceContentType,
} from '../package/types';

/** A binding's requested version: the `published` alias or an exact positive revision. */
export type VersionSelector = 'published' | number;

/** Body-free catalog entry of a published skill (runtime `ListMetadata`). */
export interface SkillMetadata extends SkillId {
  display_name: string;
  description: string;
  domains: string[];
  tags: string[];
  /** The currently published revision. */
  version: number;
  manifest_hash: string;
  /** ISO-8601 time the published revision was created. */
  updated_at: string;
}

/** Strict independent filters of `GET /api/v1/skills` (all optional, combined with AND). */
export interface MetadataFilter {
  namespace?: string;
  domain?: string;
  tag?: string;
  /** Maximum number of entries; adapters apply their own ceiling. */
  limit?: number;
}

/** One binding to resolve at request start (runtime `ResolveCandidates`). */
export interface CandidateRequest extends SkillId {
  version: VersionSelector;
}

/**
 * One classified result per requested binding, never omitted, in request order.
 * `found` carries the exact pinned tuple.
 */
export type CandidateResult =
  | {
      status: 'found';
      request: CandidateRequest;
      version: number;
      manifest_hash: string;
      metadata: SkillMetadata;
    }
  | { status: 'not_found'; request: CandidateRequest }
  | { status: 'version_unavailable'; request: CandidateRequest }
  | { status: 'invalid'; request: CandidateRequest; reason: string };

/** Exact reference to one immutable manifest. */
export interface ManifestRef extends SkillId {
  version: number;
  manifest_hash: string;
}

/** Exact reference to one immutable resource body. */
export interface ResourceRef {
  skill: ManifestRef;
  name: string;
  expected_hash: string;
}

/** A verified resource body. */
export interface SkillResourceBody {
  name: string;
  content_type: ResourceContentType;
  content: string;
  content_hash: string;
}

/** A retained revision with its body and identities (`GET .../{ns}/{name}` and `.../versions/{n}`). */
export interface StoredRevision extends SkillId {
  version: number;
  /** Strong HTTP entity tag of the skill's *published* state at read time (quoted). */
  etag: string;
  /** The normalized package, `change_reason` included. */
  package: SkillPackage;
  manifest_hash: string;
  resource_hashes: Record<string, string>;
  created_at: string;
  /** True when this is the currently published revision. */
  published: boolean;
}

/** Body-free history entry; deleted revisions remain as tombstones. */
export interface VersionEntry {
  version: number;
  status: 'available' | 'deleted';
  created_at: string;
  manifest_hash: string;
  change_reason: string;
  /** Present on tombstones. */
  deleted_at?: string;
  /** `published` for the current revision, `protected` for published−1. */
  protection?: 'published' | 'protected';
}

/** One page of history, newest first; pass `next_before` as `before` for the next page. */
export interface VersionPage {
  versions: VersionEntry[];
  next_before: number | null;
}

/** Options of `listVersions`. */
export interface VersionQuery {
  /** Only versions strictly older than this one. */
  before?: number;
  /** Page size, 1..100 (default 20). */
  limit?: number;
}

/**
 * The conditional-request precondition of a publish: creation (`If-None-Match: *`)
 * or update against the current ETag (`If-Match`). A publish without one is 428.
 */
export type Precondition = { kind: 'create' } | { kind: 'if-match'; etag: string };

/** Input of a publication. */
export interface PublishRequest {
  id: SkillId;
  /** The submitted document: raw JSON text (preferred: keeps locations) or a parsed value. */
  body: string | unknown;
  precondition?: Precondition;
  idempotencyKey?: string;
  /** Trusted actor from authenticated middleware, never from a raw header. */
  actor?: string;
  /**
   * The signed approval of the review request this publish carries out
   * (`X-Skillbench-Approval`, docs/admin-api.md): sent to admin API hosts, which
   * may enforce it; other stores ignore it.
   */
  approval?: string;
}

/** A management warning such as `skill_audit_not_recorded`. */
export interface StoreWarning {
  code: string;
  message: string;
}

/** Result of a successful publication (including a same-content no-op). */
export interface PublishResult extends SkillId {
  outcome: 'created' | 'published' | 'same_content_noop';
  version: number;
  etag: string;
  manifest_hash: string;
  audit_recorded: boolean;
  warnings: StoreWarning[];
  /** Validation of the submitted package (it passed, warnings may remain). */
  validation: { warnings: Finding[]; metrics: PackageMetrics };
  /** True when this result is the stored reply of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
}

/** Input of a deletion: one version (`from === to`) or an inclusive range. */
export interface DeleteRequest {
  id: SkillId;
  from: number;
  to: number;
  /** Current ETag of the skill; missing is 428, stale is 412. */
  ifMatch?: string;
  /** Required audit reason (`X-Audit-Reason`). */
  reason?: string;
  actor?: string;
  /** The signed approval of the deletion request this carries out (see {@link PublishRequest.approval}). */
  approval?: string;
}

/** Result of a deletion; repeating it is a no-op that reports nothing newly deleted. */
export interface DeleteResult extends SkillId {
  deleted: number[];
  already_deleted: number[];
  etag: string;
  audit_recorded: boolean;
  warnings: StoreWarning[];
}

/** A body-free audit event: never a package body, ETag, idempotency key or credential. */
export interface AuditEvent {
  action: 'publish' | 'delete';
  namespace: string;
  name: string;
  outcome: string;
  versions: number[];
  manifest_hash?: string;
  reason?: string;
  actor?: string;
  at: string;
}

/** Mutation evidence sink; called after commit, its failure never rolls back. */
export interface AuditSink {
  record(event: AuditEvent): Promise<void>;
}

/** Limits of administration (guide section 9.11, `SkillAdministrationLimits`). */
export interface SkillAdministrationLimits {
  /** Inclusive width of one deletion range (default 100). */
  maxDeleteVersions: number;
}

/** Runtime reads (`orchestration.SkillRegistry`). */
export interface SkillRegistryReader {
  listMetadata(filter?: MetadataFilter): Promise<SkillMetadata[]>;
  resolveCandidates(requests: CandidateRequest[]): Promise<CandidateResult[]>;
  /** Exact version; verifies the stored manifest against `manifest_hash` (mismatch: `integrity_mismatch`). */
  getManifest(ref: ManifestRef): Promise<SkillManifest>;
  /** Exact resource; verifies the body against `expected_hash`. */
  getResource(ref: ResourceRef): Promise<SkillResourceBody>;
}

/** Control-plane revision reads. */
export interface SkillRevisionReader {
  getPublished(id: SkillId): Promise<StoredRevision>;
  getVersion(id: SkillId, version: number): Promise<StoredRevision>;
  listVersions(id: SkillId, query?: VersionQuery): Promise<VersionPage>;
}

/** Atomic publication. */
export interface SkillAdministration {
  publish(request: PublishRequest): Promise<PublishResult>;
}

/** Guarded deletion. */
export interface SkillRevisionDeletion {
  deleteVersions(request: DeleteRequest): Promise<DeleteResult>;
}

/** The whole management-capable store every adapter implements. */
export interface SkillStore
  extends SkillRegistryReader,
    SkillRevisionReader,
    SkillAdministration,
    SkillRevisionDeletion {
  /** Human-readable, secret-free description of the connection (e.g. `redis://127.0.0.1:6379 (default)`). */
  readonly description: string;
  /** Authoring limits this store validates publications with. */
  readonly limits: SkillAuthoringLimits;
  /** Releases connections, locks and timers. Idempotent. */
  close(): Promise<void>;
}

/**
 * A proposal that applies to a copy of the normalized package and leaves it
 * valid. Its patch addresses the normalized package (guide 5.3: the author
 * reviews it, applies it, and submits the complete package again).
 */
export interface CheckedProposal {
  /** `p1`, `p2`, ... in the advisor's order (dropped proposals keep their number). */
  id: string;
  title: string;
  rationale: string;
  patch: JsonPatchOperation[];
  /** One line per changed field or resource (the semantic diff of the package). */
  changes: string[];
  /** Warnings of the package that the edit resolves, and those it introduces. */
  warnings_resolved: Finding[];
  warnings_added: Finding[];
  /** Metrics of the patched package. */
  metrics: PackageMetrics;
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
