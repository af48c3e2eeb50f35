/**
 * Number formatting shared by the human-readable reports. Independent of the
 * machine's locale so a report reads the same wherever it was written.
 */
import type { Confusion, Rates } from '../metrics';
import { rates } from '../metrics';
import type { CatalogRecord, ModelMetrics, SkillMetrics } from '../types';

export { formatCount, formatMs, formatP, formatRate, formatUsd } from '../../core/report/format';

/** The label of a model, with baselines marked as not language models. */
export function modelKind(m: { isBaseline: boolean }): string {
  return m.isBaseline ? 'baseline (not a language model)' : 'language model';
}

/** Confusion counts of one model and variant, summed over its skills. */
export interface VariantTotals extends Confusion, Rates {
  variant: string;
  cells: number;
}

/**
 * Sums the skill rows of `model` per variant, in first-seen order. The rates
 * are recomputed from the summed counts (never averaged), so they weigh every
 * cell equally.
 */
export function variantTotals(model: ModelMetrics): VariantTotals[] {
  const byVariant = new Map<string, Confusion & { cells: number }>();
  for (const s of model.skills) {
    let t = byVariant.get(s.variant);
    if (!t) {
      t = { tp: 0, fp: 0, tn: 0, fn: 0, errors: 0, invalid: 0, cells: 0 };
      byVariant.set(s.variant, t);
    }
    t.tp += s.tp;
    t.fp += s.fp;
    t.tn += s.tn;
    t.fn += s.fn;
    t.errors += s.errors;
    t.invalid += s.invalid;
    t.cells += s.cells;
  }
  return [...byVariant].map(([variant, t]) => ({ variant, ...t, ...rates(t) }));
}

/** True when the run has more than one variant anywhere. */
export function hasVariants(models: readonly ModelMetrics[]): boolean {
  const seen = new Set<string>();
  for (const m of models) for (const s of m.skills) seen.add(s.variant);
  return seen.size > 1;
}

/** The flaky cases of a skill row with their trigger counts, in case order. */
export function flakyOf(s: SkillMetrics): Array<{ case: string; k: number; n: number; errors: number }> {
  return s.flaky_cases.map((id) => {
    const t = s.trigger_rates[id];
    return { case: id, k: t?.k ?? 0, n: t?.n ?? 0, errors: t?.errors ?? 0 };
  });
}

/** Share of the budget a catalog uses, and whether it is over. */
export function catalogUse(c: CatalogRecord): { share: number | null; over: boolean } {
  return { share: c.budget > 0 ? c.tokens / c.budget : null, over: c.tokens > c.budget };
}
