/**
 * Ports of the reference admin host: the optional authoring advisor and the
 * body-free request log.
 */
import type { ResourceIndexEntry, SkillId, SkillManifest, ValidationResult } from '../package/types';
import type { AdvisorSource, AdvisorSuggestion } from '../store/httpWire';

/** Body-free index entry of one resource, as the advisor sees it (no content, no hash). */
export type AdvisorResourceEntry = Omit<ResourceIndexEntry, 'content_hash'>;

/**
 * What the advisor receives (guide section 5.3): normalized metadata, main guidance,
 * tool hints, activation examples, the deterministic findings and a body-free
 * resource index: the manifest's content, so resource bodies and `change_reason`
 * are withheld by construction.
 */
export interface AdvisorInput {
  id: SkillId;
  package: Omit<SkillManifest, 'resources'> & { resources: AdvisorResourceEntry[] };
  validation: ValidationResult;
}

/** One edit an advisor proposes: a JSON Patch (RFC 6902) against the normalized package, and why. */
export interface AdvisorProposal {
  title: string;
  rationale: string;
  /** Untrusted until checked: the host applies it to a copy and revalidates (core/advisor `checkProposals`). */
  patch: unknown;
}

/** What an advisor answers; the host turns it into an `AuthoringAnalysis` by checking every proposal. */
export interface AdvisorAnswer {
  summary: string;
  suggestions: AdvisorSuggestion[];
  proposals: AdvisorProposal[];
  /** Who answered (prompt version, model, usage), when the advisor knows. */
  source?: AdvisorSource;
}

/**
 * An optional AI authoring advisor. It suggests, it never mutates: the host only
 * calls it for a package that passed deterministic validation, and keeps only
 * the proposals that apply to the package and leave it valid.
 */
export interface AuthoringAdvisor {
  /** What the advisor runs on (a model spec, never a key), named when it is unavailable. */
  readonly name?: string;
  /** `signal` aborts when the request times out or the client goes away. */
  analyze(input: AdvisorInput, signal: AbortSignal): Promise<AdvisorAnswer>;
}

/**
 * One request as the handler logs it. Body-free by design: no package, ETag,
 * Idempotency-Key, audit reason, query value, identity or credential ever appears.
 */
export interface AdminLogEntry {
  method: string;
  /** The route template, e.g. `PUT /api/v1/skills/{namespace}/{name}`; `(unmatched)` for unknown paths. */
  route: string;
  status: number;
  duration_ms: number;
  /** The error code of a failed request (`precondition_failed`, …). */
  code?: string;
}

/** Where the handler reports requests and diagnostics. */
export interface AdminLogger {
  request(entry: AdminLogEntry): void;
  /** A body-free diagnostic such as `attribution_invalid`. */
  diagnostic?(code: string, message: string): void;
}
