/**
 * Runtime selector limits (guide section 9.10): defaults and the cross-field
 * rules a configuration must satisfy before any request uses it.
 *
 * Isomorphic: no `node:` imports.
 */

/** The runtime limit table of guide 9.10, in code form. */
export interface SelectorLimits {
  /** Size of the complete binding list. */
  maxBindings: number;
  /** Auto candidates sent to one activation selection. */
  maxAutoCandidates: number;
  /** Estimated tokens of the body-free activation catalog. */
  catalogTokenBudget: number;
  /** Resource entries considered at one boundary. */
  maxResourceCandidates: number;
  /** Estimated tokens of the body-free resource catalog. */
  resourceCatalogTokenBudget: number;
  /** Admitted active skills per execution. */
  maxActiveSkills: number;
  /** Total skill projection at one boundary. */
  totalTokenBudget: number;
  /** Main instruction projection at one boundary. */
  mainTokenBudget: number;
  /** Resource-content projection at one boundary. */
  resourceTokenBudget: number;
  /** Admitted resources at one boundary. */
  maxResourcesPerPhase: number;
  /** Distinct resources across the execution. */
  maxResourcesPerExecution: number;
  /** Selector output ceiling (`maxOutputTokens` of every selector call). */
  resolutionMaxTokens: number;
  /** Skill projection at synthesis. */
  synthesisTokenBudget: number;
  /** Optional model-context allowance; 0 disables the 10% cap. */
  effectiveInputTokenBudget: number;
  /** Time allowed for each registry operation, in milliseconds. */
  registryReadTimeoutMs: number;
}

/** The defaults of guide 9.10. */
export const DEFAULT_SELECTOR_LIMITS: Readonly<SelectorLimits> = Object.freeze({
  maxBindings: 32,
  maxAutoCandidates: 16,
  catalogTokenBudget: 2000,
  maxResourceCandidates: 32,
  resourceCatalogTokenBudget: 2000,
  maxActiveSkills: 6,
  totalTokenBudget: 8192,
  mainTokenBudget: 6144,
  resourceTokenBudget: 4096,
  maxResourcesPerPhase: 2,
  maxResourcesPerExecution: 8,
  resolutionMaxTokens: 512,
  synthesisTokenBudget: 6000,
  effectiveInputTokenBudget: 0,
  registryReadTimeoutMs: 5000,
});

/** The environment variable of each limit, for messages and for reading a deployment's settings. */
export const SELECTOR_LIMIT_VARIABLES: Readonly<Record<keyof SelectorLimits, string>> = Object.freeze({
  maxBindings: 'TRUVAG3_SKILL_MAX_BINDINGS',
  maxAutoCandidates: 'TRUVAG3_SKILL_MAX_AUTO_CANDIDATES',
  catalogTokenBudget: 'TRUVAG3_SKILL_CATALOG_TOKEN_BUDGET',
  maxResourceCandidates: 'TRUVAG3_SKILL_MAX_RESOURCE_CANDIDATES',
  resourceCatalogTokenBudget: 'TRUVAG3_SKILL_RESOURCE_CATALOG_TOKEN_BUDGET',
  maxActiveSkills: 'TRUVAG3_SKILL_MAX_ACTIVE_SKILLS',
  totalTokenBudget: 'TRUVAG3_SKILL_TOTAL_TOKEN_BUDGET',
  mainTokenBudget: 'TRUVAG3_SKILL_MAIN_TOKEN_BUDGET',
  resourceTokenBudget: 'TRUVAG3_SKILL_RESOURCE_TOKEN_BUDGET',
  maxResourcesPerPhase: 'TRUVAG3_SKILL_MAX_RESOURCES_PER_PHASE',
  maxResourcesPerExecution: 'TRUVAG3_SKILL_MAX_RESOURCES_PER_EXECUTION',
  resolutionMaxTokens: 'TRUVAG3_SKILL_RESOLUTION_MAX_TOKENS',
  synthesisTokenBudget: 'TRUVAG3_SKILL_SYNTHESIS_TOKEN_BUDGET',
  effectiveInputTokenBudget: 'TRUVAG3_SKILL_EFFECTIVE_INPUT_TOKEN_BUDGET',
  registryReadTimeoutMs: 'TRUVAG3_SKILL_REGISTRY_READ_TIMEOUT',
});

/** One rejected limit value or cross-field rule; `path` is the field (or fields) at fault. */
export interface LimitIssue {
  path: string;
  message: string;
}

/** Result of {@link resolveSelectorLimits}. */
export type LimitsResult = { ok: true; limits: SelectorLimits } | { ok: false; issues: LimitIssue[] };

const KEYS = Object.keys(DEFAULT_SELECTOR_LIMITS) as (keyof SelectorLimits)[];
// Values allowed to be zero: the optional allowance (0 disables it) and the timeout (0 = no timeout).
const ZERO_ALLOWED = new Set<keyof SelectorLimits>(['effectiveInputTokenBudget', 'registryReadTimeoutMs']);

/**
 * Fills unset fields with the 9.10 defaults and checks every rule: integer
 * values, positivity (except the effective-input allowance and the timeout),
 * token sub-budgets (main, resource, synthesis) not above the total, the
 * per-phase resource count not above the per-execution count, and the auto
 * candidate and active-skill counts not above the binding count. Unknown fields
 * are rejected so a misspelt limit never silently keeps its default.
 */
export function resolveSelectorLimits(partial: unknown = {}): LimitsResult {
  // Limits this function resolved are frozen: passing them again (a run's limits, cell after cell) needs no second check.
  if (resolvedLimits.has(partial as object)) return { ok: true, limits: partial as SelectorLimits };
  const issues: LimitIssue[] = [];
  if (partial === null || typeof partial !== 'object' || Array.isArray(partial)) {
    return { ok: false, issues: [{ path: '', message: 'limits must be an object' }] };
  }
  const input = partial as Record<string, unknown>;
  const limits: SelectorLimits = { ...DEFAULT_SELECTOR_LIMITS };
  for (const key of Object.keys(input)) {
    if (!(KEYS as string[]).includes(key)) issues.push({ path: key, message: `unknown limit '${key}'` });
  }
  for (const key of KEYS) {
    const value = Object.hasOwn(input, key) ? input[key] : undefined;
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      issues.push({ path: key, message: `${key} (${SELECTOR_LIMIT_VARIABLES[key]}) must be an integer` });
      continue;
    }
    const min = ZERO_ALLOWED.has(key) ? 0 : 1;
    if (value < min) {
      issues.push({ path: key, message: `${key} (${SELECTOR_LIMIT_VARIABLES[key]}) must be ${min === 0 ? 'zero or more' : 'positive'}, got ${value}` });
      continue;
    }
    limits[key] = value;
  }
  if (issues.length > 0) return { ok: false, issues };
  for (const key of ['mainTokenBudget', 'resourceTokenBudget', 'synthesisTokenBudget'] as const) {
    if (limits[key] > limits.totalTokenBudget) {
      issues.push({ path: `${key},totalTokenBudget`, message: `${key} (${limits[key]}) exceeds totalTokenBudget (${limits.totalTokenBudget})` });
    }
  }
  if (limits.maxResourcesPerPhase > limits.maxResourcesPerExecution) {
    issues.push({
      path: 'maxResourcesPerPhase,maxResourcesPerExecution',
      message: `maxResourcesPerPhase (${limits.maxResourcesPerPhase}) exceeds maxResourcesPerExecution (${limits.maxResourcesPerExecution})`,
    });
  }
  for (const key of ['maxAutoCandidates', 'maxActiveSkills'] as const) {
    if (limits[key] > limits.maxBindings) {
      issues.push({ path: `${key},maxBindings`, message: `${key} (${limits[key]}) exceeds maxBindings (${limits.maxBindings}); lower it together with maxBindings` });
    }
  }
  if (issues.length > 0) return { ok: false, issues };
  resolvedLimits.add(Object.freeze(limits));
  return { ok: true, limits };
}

/** Complete, valid limits objects returned by {@link resolveSelectorLimits} (frozen, so they stay valid). */
const resolvedLimits = new WeakSet<object>();

/**
 * The total skill budget in force: the configured total, capped at a tenth of
 * the effective model input allowance when one is set (guide 9.10).
 */
export function effectiveTotalBudget(limits: SelectorLimits): number {
  if (limits.effectiveInputTokenBudget <= 0) return limits.totalTokenBudget;
  return Math.min(limits.totalTokenBudget, Math.floor(limits.effectiveInputTokenBudget / 10));
}
