/**
 * Types of the TruvaG3 V1 skill package model (guide sections 4, 5.2, 10.2).
 *
 * This module is isomorphic: it runs in Node and in a browser worker, so it
 * must not import any `node:` module.
 */

/** Lifecycle boundaries a resource can apply to (`applies_to`). */
export type Boundary = 'planning' | 'continuation' | 'synthesis';

/** Every boundary, in lifecycle order. */
export const BOUNDARIES: readonly Boundary[] = ['planning', 'continuation', 'synthesis'];

/** Resource content types accepted by V1: non-executable text only. */
export type ResourceContentType = 'text/plain' | 'text/markdown';

/** One independently selectable text reference inside a package. */
export interface SkillResource {
  name: string;
  description: string;
  load_when: string;
  /** Empty means "every boundary" (guide section 4). */
  applies_to: Boundary[];
  required_when_selected: boolean;
  content_type: ResourceContentType;
  content: string;
}

/** Labelled requests used by evaluation and authoring; never projected at runtime. */
export interface ActivationExamples {
  should_activate: string[];
  should_not_activate: string[];
}

/**
 * A complete, normalized V1 package: the JSON body of validate/PUT.
 * Optional fields of the wire format are always present here (empty when omitted),
 * so consumers never branch on `undefined`.
 */
export interface SkillPackage {
  display_name: string;
  description: string;
  domains: string[];
  tags: string[];
  planning_instructions: string[];
  response_instructions: string[];
  tool_hints: string[];
  resources: SkillResource[];
  activation_examples: ActivationExamples;
  change_reason: string;
}

/**
 * The fields of a package in the guide's order (section 4): validation, the
 * field diff, the three-way merge and the editor's form all walk them in this
 * order, so the lists cannot disagree. `satisfies` keeps each list complete.
 */
export const PACKAGE_FIELDS = [
  'display_name',
  'description',
  'domains',
  'tags',
  'planning_instructions',
  'response_instructions',
  'tool_hints',
  'resources',
  'activation_examples',
  'change_reason',
] as const satisfies readonly (keyof SkillPackage)[];

/** The fields of a resource in the guide's order (`name` first: it identifies the resource). */
export const RESOURCE_FIELDS = ['name', 'description', 'load_when', 'applies_to', 'required_when_selected', 'content_type', 'content'] as const satisfies readonly (keyof SkillResource)[];

/** The fields of a resource that hold its content, compared one by one between two resources of one name. */
export const RESOURCE_CONTENT_FIELDS = RESOURCE_FIELDS.filter((f): f is Exclude<(typeof RESOURCE_FIELDS)[number], 'name'> => f !== 'name');

/** The two lists of activation examples. */
export const EXAMPLE_KINDS = ['should_activate', 'should_not_activate'] as const satisfies readonly (keyof ActivationExamples)[];

/** The logical identity of a skill: `namespace/name`. */
export interface SkillId {
  namespace: string;
  name: string;
}

/** `namespace/name` of an identity. */
export function skillKey(id: SkillId): string {
  return `${id.namespace}/${id.name}`;
}

/** Severity of a validation finding: errors block publication, warnings advise. */
export type FindingSeverity = 'error' | 'warning';

/**
 * One validation finding. `path` is a JSON Pointer (RFC 6901) into the submitted
 * document ("" is the whole document); `line`/`column` are 1-based positions in the
 * submitted text when it was text, absent when validating an in-memory value.
 */
export interface Finding {
  severity: FindingSeverity;
  /** Stable machine-readable code, e.g. `description_missing_activation_language`. */
  code: string;
  path: string;
  message: string;
  line?: number;
  column?: number;
  /** End of the offending range (exclusive), for editor markers. */
  endLine?: number;
  endColumn?: number;
}

/** The deterministic estimator the metrics were computed with. */
export interface TokenEstimatorInfo {
  name: 'truvag3-canonical';
  version: 'v1';
}

/** Size metrics named as in guide section 5.2. */
export interface PackageMetrics {
  manifest_bytes: number;
  resource_bytes: number;
  package_bytes: number;
  manifest_tokens: number;
  resource_tokens: number;
  resource_count: number;
  token_estimator: TokenEstimatorInfo;
}

/** Result of deterministic validation (guide section 5.2). */
export interface ValidationResult {
  valid: boolean;
  errors: Finding[];
  warnings: Finding[];
  metrics: PackageMetrics;
}

/**
 * Authoring limits (guide sections 4 and 9.11, `SkillAuthoringLimits`).
 * Hard limits are errors; `warn*` values are the early quality warnings.
 */
export interface SkillAuthoringLimits {
  maxNameChars: number;
  maxDescriptionChars: number;
  warnDescriptionChars: number;
  maxManifestTokens: number;
  maxManifestBytes: number;
  warnManifestTokens: number;
  maxResourceTokens: number;
  maxResourceBytes: number;
  warnResourceTokens: number;
  maxResources: number;
  warnResources: number;
  maxPackageBytes: number;
  warnPackageBytes: number;
  warnCombinedTokens: number;
  maxChangeReasonBytes: number;
}

/** SHA-256 integrity hashes of a normalized package (guide section 10.2). */
export interface PackageIntegrity {
  /** `sha256:<hex>` over the canonical manifest form. */
  manifest_hash: string;
  /** `sha256:<hex>` over each resource's canonical content, by resource name. */
  resource_hashes: Record<string, string>;
}

/** Metadata-only index entry of one resource inside a manifest (no body). */
export interface ResourceIndexEntry {
  name: string;
  description: string;
  load_when: string;
  applies_to: Boundary[];
  required_when_selected: boolean;
  content_type: ResourceContentType;
  /** `sha256:<hex>` of the resource body; equals `PackageIntegrity.resource_hashes[name]`. */
  content_hash: string;
}

/**
 * The main manifest the runtime loads after activation: the package without
 * resource bodies and without `change_reason` (which is audit data, not content).
 * `manifest_hash` is SHA-256 over its canonical JSON.
 */
export interface SkillManifest {
  display_name: string;
  description: string;
  domains: string[];
  tags: string[];
  planning_instructions: string[];
  response_instructions: string[];
  tool_hints: string[];
  activation_examples: ActivationExamples;
  resources: ResourceIndexEntry[];
}
