/**
 * Authoring limits: the defaults of guide section 4 (sizing table) and 9.11
 * (Registry Viewer variables), and their resolution from a partial override.
 *
 * Isomorphic: no `node:` imports.
 */
import { WorkbenchError } from '../errors';
import type { SkillAuthoringLimits } from './types';

/** The guide's default authoring limits. Hard limits are errors, `warn*` values warnings. */
export const DEFAULT_AUTHORING_LIMITS: Readonly<SkillAuthoringLimits> = Object.freeze({
  maxNameChars: 64,
  maxDescriptionChars: 1024,
  warnDescriptionChars: 320,
  maxManifestTokens: 5000,
  maxManifestBytes: 24576,
  warnManifestTokens: 2500,
  maxResourceTokens: 8000,
  maxResourceBytes: 32768,
  warnResourceTokens: 4000,
  maxResources: 32,
  warnResources: 12,
  maxPackageBytes: 1048576,
  warnPackageBytes: 262144,
  warnCombinedTokens: 3000,
  maxChangeReasonBytes: 1024,
});

/**
 * The runtime binding limit on namespace and name length. It is fixed, so a
 * host that raises `maxNameChars` still gets a warning above it: such a skill
 * could be published but not bound by an agent.
 */
export const RUNTIME_MAX_NAME_CHARS = 64;

/** One rejected override of {@link checkLimits}. */
export interface LimitProblem {
  limit: string;
  message: string;
}

/** Result of {@link checkLimits}: resolved limits, or every rejected override. */
export type LimitsCheck = { ok: true; limits: SkillAuthoringLimits } | { ok: false; problems: LimitProblem[] };

/**
 * Merges `partial` over the defaults. Every value must be a positive safe
 * integer (guide 9.11: "Every value must be positive"); unknown names are
 * rejected so a misspelt override cannot silently fall back to the default.
 * `undefined` values mean "use the default".
 */
export function checkLimits(partial?: Partial<SkillAuthoringLimits> | null): LimitsCheck {
  const limits: SkillAuthoringLimits = { ...DEFAULT_AUTHORING_LIMITS };
  if (partial === undefined || partial === null) return { ok: true, limits };
  const problems: LimitProblem[] = [];
  if (typeof partial !== 'object') {
    return { ok: false, problems: [{ limit: '', message: 'limits must be an object' }] };
  }
  for (const [key, value] of Object.entries(partial)) {
    if (!Object.hasOwn(DEFAULT_AUTHORING_LIMITS, key)) {
      problems.push({ limit: key, message: `unknown authoring limit '${key}'` });
      continue;
    }
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
      problems.push({ limit: key, message: `authoring limit '${key}' must be a positive integer, got ${String(value)}` });
      continue;
    }
    limits[key as keyof SkillAuthoringLimits] = value;
  }
  return problems.length === 0 ? { ok: true, limits } : { ok: false, problems };
}

/**
 * Like {@link checkLimits} but throws a `WorkbenchError` with code
 * `invalid_request` naming the first rejected override: for configuration
 * code where a bad limit is a setup mistake.
 */
export function resolveLimits(partial?: Partial<SkillAuthoringLimits> | null): SkillAuthoringLimits {
  const check = checkLimits(partial);
  if (check.ok) return check.limits;
  throw new WorkbenchError('invalid_request', check.problems.map((p) => p.message).join('; '), {
    details: { problems: check.problems },
  });
}
