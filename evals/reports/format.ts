/**
 * Number formatting shared by the human-readable reports. Independent of the
 * machine's locale so a report reads the same wherever it was written.
 */
import { describeRunCases } from '../../core/report/cases';
import { formatCount } from '../../core/report/format';
import type { Confusion, Rates } from '../metrics';
import { rates } from '../metrics';
import type { CatalogRecord, EvalSummary, ModelMetrics, RunHeader, SkillMetrics, VerdictWarning } from '../types';
import { formatGateNumber } from '../verdict';

export { formatGateNumber } from '../verdict';
export { modelLabels } from '../../core/report/modelLabels';

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

/**
 * `17/19 (1 err, 1 unusable)`: the cells a row's rates rest on (usable
 * answers) out of all its cells, with what was left out. Shown next to every
 * rate, so a rate over a third of the cells never reads as a rate over all.
 */
export function usableShare(c: Pick<Confusion, 'errors' | 'invalid'> & { cells: number }): string {
  const usable = c.cells - c.errors - c.invalid;
  const apart = [c.errors > 0 ? `${formatCount(c.errors)} err` : '', c.invalid > 0 ? `${formatCount(c.invalid)} unusable` : ''].filter(Boolean);
  return `${formatCount(usable)}/${formatCount(c.cells)}${apart.length > 0 ? ` (${apart.join(', ')})` : ''}`;
}

/** The label of a warning, as every report heads it. */
export function warningLabel(w: Pick<VerdictWarning, 'code'>): string {
  switch (w.code) {
    case 'cell_errors':
      return 'Errors';
    case 'invalid_answers':
      return 'Unusable answers';
    case 'never_asked':
      return 'Selector never asked';
    default:
      return 'Automatic activation skipped';
  }
}

/**
 * The facts a reader needs before any number, the same in every report's
 * header: which cases each skill brought, which models selected activation
 * and resources, and the limits the verdict was judged under. Plain text;
 * each report escapes it.
 */
export function runFacts(header: RunHeader, summary: Pick<EvalSummary, 'verdict'>): Array<[string, string]> {
  const limits = summary.verdict.limits;
  const judged = limits
    ? [
        `--max-error-rate ${formatGateNumber(limits.max_error_rate)}`,
        `--max-invalid-rate ${formatGateNumber(limits.max_invalid_rate)}`,
        ...(limits.regression_margin !== undefined ? [`--regression-margin ${formatGateNumber(limits.regression_margin)}`] : []),
        ...(limits.allow_skipped_activation ? ['--allow-skipped-activation'] : []),
      ].join(', ')
    : undefined;
  return [
    ['Cases', describeRunCases(header.cases, header.extras ?? {}).join('; ')],
    ['Activation models', header.models.map((m) => m.spec).join(', ')],
    ['Resource model', header.resource_model ?? 'each activation model selects its own resources'],
    ...(judged !== undefined ? [['Judged under', judged] as [string, string]] : []),
  ];
}

/** One group of catalogs that hold the same skills (each testing another of them): shown as one table. */
export interface CatalogGroup {
  /** The catalogs (`<variant>|<skill>`) the group stands for. */
  names: string[];
  /** The first catalog's record (sizes differ by nothing but what each tests). */
  catalog: CatalogRecord;
  /** Skills under test in any catalog of the group. */
  underTest: Set<string>;
}

/**
 * Catalogs with the same entries (skill, version, hash and activation),
 * grouped whatever skill each tests: a workspace of nine skills evaluated
 * together shows one nine-row table, not nine.
 */
export function catalogGroups(catalogs: Readonly<Record<string, CatalogRecord>>): CatalogGroup[] {
  const groups = new Map<string, CatalogGroup>();
  for (const [name, c] of Object.entries(catalogs)) {
    const key = JSON.stringify(c.entries.map((e) => [e.skill, e.version, e.manifest_hash, e.activation]));
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { names: [], catalog: c, underTest: new Set() }));
    g.names.push(name);
    for (const e of c.entries) if (e.under_test) g.underTest.add(e.skill);
  }
  return [...groups.values()];
}

/** Share of the budget a catalog uses, and whether it is over. */
export function catalogUse(c: CatalogRecord): { share: number | null; over: boolean } {
  return { share: c.budget > 0 ? c.tokens / c.budget : null, over: c.tokens > c.budget };
}
