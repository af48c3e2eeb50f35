/**
 * Whether the runtime selector would skip automatic activation for an
 * evaluation's catalog, and what that means, shared by the engine's verdict
 * and the workbench's setup and results views. Pure and isomorphic.
 */

/** The size facts of a recorded catalog. */
export interface CatalogSize {
  /** Estimated tokens of the rendered body-free activation catalog. */
  tokens: number;
  /** Its budget (guide 9.10 default 2,000). */
  budget: number;
  auto_candidates?: number;
  max_auto_candidates?: number;
}

/** One reason the selector skips automatic activation for a catalog. */
export interface CatalogOverflow {
  code: 'catalog_over_budget' | 'too_many_auto_candidates';
  reason: string;
}

/**
 * Every reason the selector skips automatic activation for a catalog: over
 * its token budget, and more auto candidates than the limit. Both are
 * reported when both hold, so fixing one does not reveal the other later.
 */
export function catalogOverflows(c: CatalogSize): CatalogOverflow[] {
  const out: CatalogOverflow[] = [];
  if (c.tokens > c.budget) out.push({ code: 'catalog_over_budget', reason: `${c.tokens} estimated tokens, above its budget of ${c.budget}` });
  if (c.auto_candidates !== undefined && c.max_auto_candidates !== undefined && c.auto_candidates > c.max_auto_candidates) {
    out.push({ code: 'too_many_auto_candidates', reason: `${c.auto_candidates} auto candidates, above maxAutoCandidates (${c.max_auto_candidates})` });
  }
  return out;
}

/**
 * Why the selector skips automatic activation for a catalog, if it does: the
 * first reason's code, every reason's code, and all reasons in one phrase.
 */
export function catalogOverBudget(c: CatalogSize): { code: CatalogOverflow['code']; codes: CatalogOverflow['code'][]; reason: string } | undefined {
  const all = catalogOverflows(c);
  if (all.length === 0) return undefined;
  return { code: all[0]!.code, codes: all.map((o) => o.code), reason: all.map((o) => o.reason).join(', and ') };
}

/** The runtime's consequence of a catalog the selector will not offer, in one sentence; null when it will. */
export function catalogConsequence(c: CatalogSize): string | null {
  const over = catalogOverBudget(c);
  if (!over) return null;
  return `${over.reason}: the runtime skips automatic activation (skill_activation_catalog_budget_exceeded) and never asks the model, so only always-on and trusted explicit skills activate and the cases measure nothing about the skill.`;
}
