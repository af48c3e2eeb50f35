/**
 * Catalog health: an agent's whole binding list measured against the limits
 * the runtime enforces on it (guide 9.10) and the authoring limits each
 * manifest must respect (guide 4, 9.11).
 *
 * Every figure comes from the code the selector and the validator use: the
 * activation catalog is rendered by {@link renderCatalog} exactly as the
 * activation stage renders it (auto candidates in identity order), tokens are
 * {@link estimateTokens}, and the limits are {@link SelectorLimits} and
 * {@link SkillAuthoringLimits}. Nothing here restates a number.
 *
 * Isomorphic: no `node:` imports.
 */
import { DEFAULT_AUTHORING_LIMITS } from '../package/limits';
import { estimateTokens, utf8Bytes } from '../package/tokens';
import type { SkillAuthoringLimits, SkillManifest } from '../package/types';
import { compareIds } from '../selector/bindings';
import { DEFAULT_SELECTOR_LIMITS, SELECTOR_LIMIT_VARIABLES, type SelectorLimits } from '../selector/limits';
import { activationEntry, renderCatalog } from '../selector/render';
import type { PinnedCandidate, PinningRecord, SkillBinding } from '../selector/types';

/** Size of a manifest's main instructions, as the validator measures it. */
export interface ManifestSize {
  /** UTF-8 bytes of `planning_instructions`, `response_instructions` and `tool_hints`. */
  bytes: number;
  /** Estimated tokens of those bytes. */
  tokens: number;
}

/**
 * The main-instruction size of a manifest: the same sum the validator checks
 * against `maxManifestBytes` and `maxManifestTokens` (a test keeps the two equal).
 */
export function manifestSize(manifest: Pick<SkillManifest, 'planning_instructions' | 'response_instructions' | 'tool_hints'>): ManifestSize {
  let bytes = 0;
  for (const field of [manifest.planning_instructions, manifest.response_instructions, manifest.tool_hints]) {
    for (const entry of field) bytes += utf8Bytes(entry);
  }
  return { bytes, tokens: estimateTokens(bytes) };
}

/** Which limit a {@link Budget} measures. */
export type BudgetKind = 'bindings' | 'auto_candidates' | 'catalog_tokens' | 'manifest_bytes' | 'manifest_tokens';

/** One figure against its limit. */
export interface Budget {
  kind: BudgetKind;
  /** What is measured, in words: `activation catalog tokens`. */
  label: string;
  /** The limit's field (`catalogTokenBudget`, `maxManifestBytes` ...). */
  limit: keyof SelectorLimits | keyof SkillAuthoringLimits;
  /** The deployment variable that sets it, for the runtime limits. */
  variable?: string;
  value: number;
  max: number;
  over: boolean;
  /** The skill a per-skill budget is about. */
  skill?: string;
}

/** One bound skill of the catalog. */
export interface CatalogSkillHealth {
  skill: string;
  activation: SkillBinding['activation'];
  required: boolean;
  /** The pinned revision; absent when the binding could not be pinned. */
  version?: number;
  /** Pinning status (`pinned`, `not_found` ...). */
  status: PinningRecord['status'];
  /** Estimated tokens of the skill's own activation-catalog line (auto candidates only, else 0). */
  catalog_tokens: number;
  /** Its part of the activation catalog: its line's tokens over the sum of the lines' tokens (0 when not auto). */
  share: number;
  /** Main-instruction size of the pinned manifest, when it was read. */
  manifest?: ManifestSize;
}

/** The health of one binding list. */
export interface CatalogHealth {
  skills: CatalogSkillHealth[];
  /** Every budget, catalog-wide first, then per skill. */
  budgets: Budget[];
  /** The budgets over their limit: every one, not only the first. */
  broken: Budget[];
  /** Estimated tokens of the rendered activation catalog (what the selector compares with its budget). */
  catalog_tokens: number;
  auto_candidates: number;
  /**
   * Whether the runtime would ask the selector at all: false when the auto
   * candidates or the catalog tokens are over their limit (activation is then
   * skipped for every request).
   */
  selector_asked: boolean;
}

/** Input of {@link catalogHealth}. */
export interface CatalogHealthInput {
  bindings: readonly SkillBinding[];
  /** Pinning result of those bindings (one record per binding). */
  records: readonly PinningRecord[];
  /** The pinned candidates. */
  candidates: readonly PinnedCandidate[];
  /** Manifests read for pinned candidates, by `namespace/name`. */
  manifests?: ReadonlyMap<string, Pick<SkillManifest, 'planning_instructions' | 'response_instructions' | 'tool_hints'>>;
  limits?: SelectorLimits;
  authoring?: SkillAuthoringLimits;
}

/** The auto candidates in the order the activation stage renders them. */
export function autoCandidates(candidates: readonly PinnedCandidate[]): PinnedCandidate[] {
  return candidates.filter((c) => c.activation === 'auto').sort((a, b) => compareIds(a.id, b.id));
}

/** Estimated tokens of the activation catalog the selector would render for these candidates. */
export function activationCatalogTokens(candidates: readonly PinnedCandidate[]): number {
  return renderCatalog(autoCandidates(candidates).map(activationEntry)).tokens;
}

/** Measures a binding list against every runtime and manifest limit. */
export function catalogHealth(input: CatalogHealthInput): CatalogHealth {
  const limits = input.limits ?? DEFAULT_SELECTOR_LIMITS;
  const authoring = input.authoring ?? DEFAULT_AUTHORING_LIMITS;
  const auto = autoCandidates(input.candidates);
  const rendered = renderCatalog(auto.map(activationEntry));
  const lineTokens = new Map(auto.map((c, i) => [c.id, estimateTokens(rendered.lines[i]!)]));
  const lineSum = [...lineTokens.values()].reduce((a, b) => a + b, 0);
  const pinned = new Map(input.candidates.map((c) => [c.id, c]));

  const runtime = (kind: BudgetKind, label: string, limit: keyof SelectorLimits, value: number): Budget => ({
    kind,
    label,
    limit,
    variable: SELECTOR_LIMIT_VARIABLES[limit],
    value,
    max: limits[limit],
    over: value > limits[limit],
  });
  const budgets: Budget[] = [
    runtime('bindings', 'bindings', 'maxBindings', input.bindings.length),
    runtime('auto_candidates', 'auto candidates', 'maxAutoCandidates', auto.length),
    runtime('catalog_tokens', 'activation catalog tokens', 'catalogTokenBudget', rendered.tokens),
  ];

  const skills: CatalogSkillHealth[] = input.records.map((record) => {
    const candidate = pinned.get(record.skill);
    const tokens = lineTokens.get(record.skill) ?? 0;
    const manifest = input.manifests?.get(record.skill);
    const size = manifest ? manifestSize(manifest) : undefined;
    if (size) {
      budgets.push(
        { kind: 'manifest_bytes', label: 'manifest bytes', limit: 'maxManifestBytes', value: size.bytes, max: authoring.maxManifestBytes, over: size.bytes > authoring.maxManifestBytes, skill: record.skill },
        { kind: 'manifest_tokens', label: 'manifest tokens', limit: 'maxManifestTokens', value: size.tokens, max: authoring.maxManifestTokens, over: size.tokens > authoring.maxManifestTokens, skill: record.skill },
      );
    }
    return {
      skill: record.skill,
      activation: record.activation,
      required: record.required,
      ...(candidate && { version: candidate.version }),
      status: record.status,
      catalog_tokens: tokens,
      share: lineSum === 0 ? 0 : tokens / lineSum,
      ...(size && { manifest: size }),
    };
  });
  const broken = budgets.filter((b) => b.over);
  const selectorAsked = auto.length > 0 && auto.length <= limits.maxAutoCandidates && rendered.tokens <= limits.catalogTokenBudget;
  return { skills, budgets, broken, catalog_tokens: rendered.tokens, auto_candidates: auto.length, selector_asked: selectorAsked };
}

/** One line naming a broken budget: `activation catalog tokens 2636 > 2000 (catalogTokenBudget, TRUVAG3_SKILL_CATALOG_TOKEN_BUDGET)`. */
export function describeBudget(b: Budget): string {
  const where = b.skill ? `${b.skill}: ` : '';
  const limit = b.variable ? `${b.limit}, ${b.variable}` : b.limit;
  return `${where}${b.label} ${b.value} ${b.over ? '>' : '<='} ${b.max} (${limit})`;
}
