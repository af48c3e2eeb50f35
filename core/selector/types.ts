/**
 * Data types of the runtime selector simulation (guide sections 6.1, 7, 8, 9, 13.5).
 *
 * Everything here is plain JSON-serializable data so results, traces and
 * activation state can cross IPC/HTTP, be stored with an evaluation run, and be
 * compared byte for byte between runs. Isomorphic: no `node:` imports.
 */
import type { ChatMessage, TokenUsage } from '../models/types';
import type { Boundary } from '../package/types';
import type { VersionSelector } from '../store/types';

/** How a binding becomes active (guide 6.1). There is no default. */
export type ActivationMode = 'always' | 'auto' | 'explicit';

/** One eligible skill binding (guide 6.1, `TRUVAG3_SKILL_BINDINGS_JSON`). */
export interface SkillBinding {
  namespace: string;
  name: string;
  /** `published` or an exact positive revision. */
  version: VersionSelector;
  activation: ActivationMode;
  /** Availability, integrity or admission failures of this skill fail the request. */
  required: boolean;
}

/** Domain compatibility mode (guide 9.3). */
export type DomainCompatibilityMode = 'off' | 'warn' | 'enforce';

/** Diagnostic codes of guide section 13.5 that the simulator can emit. */
export type SelectorDiagnosticCode =
  | 'skill_registry_unavailable'
  | 'skill_candidate_result_missing'
  | 'skill_candidate_result_invalid'
  | 'skill_domain_mismatch'
  | 'skill_required_candidate_unavailable'
  | 'skill_trusted_activation_ineligible'
  | 'skill_trusted_resource_ineligible'
  | 'skill_activation_policy_failed'
  | 'skill_activation_policy_invalid'
  | 'skill_activation_selection_failed'
  | 'skill_activation_selection_invalid'
  | 'skill_resource_selection_failed'
  | 'skill_resource_selection_invalid'
  | 'skill_resource_selection_timeout'
  | 'skill_activation_catalog_budget_exceeded'
  | 'skill_resource_catalog_budget_exceeded'
  | 'skill_active_limit_exceeded'
  | 'skill_budget_exceeded'
  | 'skill_resource_limit_exceeded'
  | 'skill_resource_budget_exceeded'
  | 'skill_manifest_load_failed'
  | 'skill_manifest_hash_mismatch'
  | 'skill_resource_load_failed'
  | 'skill_resource_hash_mismatch'
  | 'skill_content_omitted';

/**
 * What the runtime did about a diagnosed condition. A code alone does not say
 * whether the request failed; the action does (guide 13.5).
 */
export type SelectorAction =
  /** A required skill or resource failed: the request (pinning) or the boundary fails. */
  | 'request_failed'
  | 'boundary_failed'
  /** Optional content or an optional candidate was left out. */
  | 'omitted'
  /** Kept despite the condition (domain mode `warn`). */
  | 'allowed'
  /** Every automatic activation of this step was skipped. */
  | 'auto_activation_skipped'
  /** The model resource selection of this boundary was skipped. */
  | 'resource_selection_skipped'
  /** A trusted entry was ignored. */
  | 'ignored'
  /** Selected but not admitted (a count limit). */
  | 'not_admitted'
  /** One attempt failed and the next one was made. */
  | 'retry';

/** One runtime diagnostic: what happened, where, and what was done about it. */
export interface SelectorDiagnostic {
  code: SelectorDiagnosticCode;
  boundary?: Boundary;
  /** `namespace/name`. */
  skill?: string;
  /** Resource name inside `skill`. */
  resource?: string;
  action?: SelectorAction;
  message: string;
}

/** A binding pinned to an exact immutable revision at request start. */
export interface PinnedCandidate {
  /** `namespace/name`. */
  id: string;
  namespace: string;
  name: string;
  activation: ActivationMode;
  required: boolean;
  requested: VersionSelector;
  version: number;
  manifest_hash: string;
  display_name: string;
  description: string;
  domains: string[];
  tags: string[];
}

/** Pinning evidence for one binding (the Registry Viewer's "candidate pinning" row). */
export interface PinningRecord {
  skill: string;
  requested: VersionSelector;
  activation: ActivationMode;
  required: boolean;
  status:
    | 'pinned'
    | 'not_found'
    | 'version_unavailable'
    | 'invalid'
    | 'missing'
    | 'registry_unavailable'
    | 'domain_omitted';
  version?: number;
  manifest_hash?: string;
}

/** Where an active skill's activation came from. */
export type ActivationSource = 'always' | 'explicit' | 'policy' | 'model';

/** An admitted active skill; once active it stays active (activation is monotonic). */
export interface ActiveSkill {
  skill: string;
  source: ActivationSource;
  /** Boundary at which it was activated. */
  boundary: Boundary;
  required: boolean;
  version: number;
  manifest_hash: string;
}

/** A resource selected at one boundary. */
export interface ResourceSelection {
  skill: string;
  name: string;
}

/** Where a selected resource came from. */
export type ResourceSource = 'trusted' | 'model';

/** One admitted resource selection in the execution history. */
export interface ResourceHistoryEntry extends ResourceSelection {
  boundary: Boundary;
  source: ResourceSource;
}

/**
 * Body-free state of one execution, the part a HITL checkpoint would keep:
 * pinned candidates, active skills, and the resource-selection history.
 */
export interface SelectionState {
  candidates: PinnedCandidate[];
  active: ActiveSkill[];
  resourceHistory: ResourceHistoryEntry[];
}

/**
 * Bounded lifecycle context offered to the selectors (guide 8, 9.5, 9.8).
 * It is encoded before rendering, never trusted, and never widens eligibility.
 */
export interface SelectionContext {
  /** Objective of the current phase (continuation). */
  objective?: string;
  /** Summaries of prior phase results, oldest first. */
  priorResults?: string[];
  /** Host-supplied expected capability hints (guide 9.8). */
  expectedCapabilities?: string[];
  /** Bounded selector guidance for activation (guide 9.5). */
  activationGuidance?: string;
  /** Bounded selector guidance for resource selection (guide 9.5). */
  resourceGuidance?: string;
}

/** The kind of a selector model task. */
export type SelectorKind = 'activation' | 'resource';

/** Outcome of one model attempt. */
export type AttemptOutcome = 'ok' | 'malformed' | 'invalid' | 'failed' | 'timeout';

/** One attempt of a selector model call. */
export interface SelectorAttempt {
  attempt: number;
  /** True when this attempt carried the correction message. */
  correction: boolean;
  outcome: AttemptOutcome;
  /** Raw answer text (bounded: very long answers are cut, see `rawTruncated`). */
  raw?: string;
  rawTruncated?: boolean;
  /** Why the answer was rejected, or the model error message. */
  error?: string;
  usage?: TokenUsage;
  latencyMs: number;
  model?: string;
  provider?: string;
}

/** Decision parsed from a selector answer. */
export type SelectorDecision = { activate: string[] } | { resources: ResourceSelection[] };

/** The trace every selector model call leaves behind. */
export interface SelectorCallTrace {
  kind: SelectorKind;
  boundary: Boundary;
  template: { id: string; version: string };
  /** The prompt sent on the last attempt (with the correction message when there was one). */
  messages: readonly ChatMessage[];
  /** Raw answer of the last attempt that answered. */
  raw: string | null;
  /** The decision after decoding, before revalidation; null when no attempt decoded. */
  decision: SelectorDecision | null;
  /** Identities the decision named that revalidation accepted. */
  accepted: string[];
  attempts: SelectorAttempt[];
  diagnostics: SelectorDiagnostic[];
  /** Sum over attempts. */
  usage: TokenUsage;
  /** Sum over attempts, as reported by the model client. */
  latencyMs: number;
  /** Model that actually answered (last attempt), or the client spec when none did. */
  model: string;
  provider: string;
  /** Candidates offered, in prompt order. */
  candidates: string[];
  /** Estimated tokens of the rendered body-free catalog. */
  catalogTokens: number;
}
