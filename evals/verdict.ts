/**
 * The verdict of an evaluation run: the quality gates a CI job sets
 * (`--min-accuracy`, `--fail-on-regression`, ...), the "model unavailable"
 * rule, and the warnings a reader must see before trusting any number.
 *
 * It is computed here, once, from the run's header and aggregated summary,
 * and stored in `summary.json` and every report, so the CLI, the reports and
 * the desktop UI show the same verdict without deriving it again. The shape
 * is plain data and stable: add fields, never repurpose one.
 */
import { catalogOverBudget } from '../core/report/catalog';
import type { EvalSummary, EvalVerdict, GateResult, PairedComparison, RunHeader, SkillMetrics, VerdictWarning } from './types';

export { catalogOverBudget } from '../core/report/catalog';

/** Gate thresholds; each is off when unset. */
export interface GateOptions {
  /** Lowest accepted accuracy, 0..1. */
  minAccuracy?: number;
  /** Lowest accepted recall, 0..1. */
  minRecall?: number;
  /** Lowest accepted precision, 0..1. */
  minPrecision?: number;
  /** Fail when a draft regresses against its published revision (see {@link isRegression}). */
  failOnRegression?: boolean;
}

/**
 * Whether a draft-vs-published comparison (draft in `a`) is a regression:
 * on the cases both sides decided by majority, the published revision was
 * right on more of the disagreeing cases than the draft, and either McNemar's
 * exact test finds the difference significant (p < alpha), or there are too
 * few disagreeing cases for the test to ever reach significance (with n of
 * them the smallest two-sided p is 2^(1-n), so n ≤ 5 at alpha 0.05). With
 * enough disagreeing cases and no significance, the difference is treated as
 * noise. Repeats do not change the verdict of a deterministic model: the
 * pairs are cases, not cells.
 */
export function isRegression(comparison: PairedComparison): boolean {
  const { aOnly, bOnly, significant, alpha } = comparison.test;
  if (bOnly <= aOnly) return false;
  return significant || underpowered(aOnly + bOnly, alpha);
}

function underpowered(discordant: number, alpha: number): boolean {
  return Math.min(1, 2 ** (1 - discordant)) >= alpha;
}

const fmt = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));

/** `, 2 left out (1 flaky, 1 unanswered)` when cases were left out of a comparison. */
function excluded(c: PairedComparison): string {
  const flaky = c.cases.length - c.pairs - c.unanswered;
  if (flaky + c.unanswered === 0) return '';
  const parts = [flaky > 0 ? `${flaky} flaky` : '', c.unanswered > 0 ? `${c.unanswered} unanswered` : ''].filter(Boolean);
  return `, ${flaky + c.unanswered} left out (${parts.join(', ')})`;
}

/**
 * Evaluates the gates. Thresholds apply to every model and skill, on the
 * draft when the run has one for the skill, else on its stored revision; a
 * metric that cannot be computed (no answered cell, no positive case for
 * recall, no activation for precision) fails its gate. The regression gate
 * covers each model's draft-vs-published comparisons.
 */
export function evaluateGates(summary: Pick<EvalSummary, 'models' | 'comparisons'>, options: GateOptions): GateResult[] {
  const results: GateResult[] = [];
  const thresholds: Array<[GateResult['gate'], 'accuracy' | 'recall' | 'precision', number | undefined]> = [
    ['min-accuracy', 'accuracy', options.minAccuracy],
    ['min-recall', 'recall', options.minRecall],
    ['min-precision', 'precision', options.minPrecision],
  ];
  for (const model of summary.models) {
    const bySkill = new Map<string, SkillMetrics>();
    for (const s of model.skills) {
      const current = bySkill.get(s.skill);
      if (!current || (s.variant === 'draft' && current.variant !== 'draft')) bySkill.set(s.skill, s);
    }
    for (const s of bySkill.values()) {
      for (const [gate, metric, threshold] of thresholds) {
        if (threshold === undefined) continue;
        const value = s[metric];
        const passed = value !== null && value >= threshold;
        const why = value === null ? `${metric} cannot be computed (${s.cells - s.errors} answered cell${s.cells - s.errors === 1 ? '' : 's'})` : `${metric} ${fmt(value)} ${passed ? '>=' : '<'} ${threshold}`;
        results.push({ gate, threshold, model: model.model, skill: s.skill, value, passed, message: `${model.model} ${s.skill} (${s.variant}): ${why}` });
      }
    }
  }
  if (options.failOnRegression) {
    for (const c of summary.comparisons) {
      if (c.kind !== 'variant') continue;
      const regression = isRegression(c);
      const t = c.test;
      const n = t.aOnly + t.bOnly;
      const p = `McNemar p=${t.pValue.toPrecision(3)}`;
      const note =
        t.bOnly <= t.aOnly
          ? `${c.a} not worse; ${p}`
          : t.significant
            ? `${p} < ${t.alpha}`
            : underpowered(n, t.alpha)
              ? `only ${n} disagreeing case${n === 1 ? '' : 's'}, too few to test, so lower accuracy counts`
              : `${p}, not significant`;
      results.push({
        gate: 'regression',
        threshold: t.alpha,
        model: c.model ?? '',
        skill: c.skill,
        value: t.pValue,
        passed: !regression,
        message: `${c.model ?? ''} ${c.skill}: ${c.a} ${fmt(c.accuracy_a)} vs ${c.b} ${fmt(c.accuracy_b)} on ${c.pairs} paired case${c.pairs === 1 ? '' : 's'}${excluded(c)} (${c.a} alone right on ${t.aOnly}, ${c.b} alone right on ${t.bOnly}; ${note})${regression ? ': regression' : ''}`,
      });
    }
  }
  return results;
}

/** Cells the matrix of `header` holds when every cell is recorded. */
export function expectedCells(header: RunHeader): number {
  const casesBySkill = new Map<string, number>();
  for (const c of header.cases) casesBySkill.set(c.skill, (casesBySkill.get(c.skill) ?? 0) + 1);
  const units = header.variants.reduce((n, v) => n + (casesBySkill.get(v.skill) ?? 0), 0);
  return units * header.models.length * Math.max(1, header.repeats);
}

/** The warnings of a run: over-budget catalogs (the model was never asked) and error cells. */
export function runWarnings(header: RunHeader, summary: Pick<EvalSummary, 'models' | 'totals'>): VerdictWarning[] {
  const warnings: VerdictWarning[] = [];
  for (const [key, catalog] of Object.entries(header.catalogs)) {
    const over = catalogOverBudget(catalog);
    if (over) warnings.push({ code: over.code, catalog: key, message: `catalog ${key}: ${over.reason}: the selector skipped automatic activation and the model was never asked, so its cases measure nothing about the skill` });
  }
  for (const m of summary.models) {
    if (m.errors > 0 && m.errors < m.cells) warnings.push({ code: 'cell_errors', model: m.model, message: `${m.model}: ${m.errors} of ${m.cells} cells ended in an error and are left out of every rate (${m.cells - m.errors} answered)` });
  }
  return warnings;
}

/**
 * The verdict of a run, from its header, the aggregated summary and the
 * gates set. Status, in order of precedence: `incomplete` when cells are
 * missing, `unavailable` when every cell of some model errored (its numbers
 * mean nothing), `failed` when a gate failed, else `passed` (also when no
 * gate was set: `gates_set` says so).
 */
export function judgeRun(header: RunHeader, summary: Pick<EvalSummary, 'models' | 'comparisons' | 'totals'>, options: GateOptions = {}): { gates: GateResult[]; verdict: EvalVerdict } {
  const gates = evaluateGates(summary, options);
  const failed = gates.filter((g) => !g.passed).length;
  const unavailable = summary.models.filter((m) => m.cells > 0 && m.errors === m.cells).map((m) => m.model);
  const expected = expectedCells(header);
  const recorded = summary.totals.cells;
  const status: EvalVerdict['status'] = recorded < expected ? 'incomplete' : unavailable.length > 0 ? 'unavailable' : failed > 0 ? 'failed' : 'passed';
  const gateWords = gates.length === 0 ? 'no gates set' : failed === 0 ? (gates.length === 1 ? 'the gate passed' : `all ${gates.length} gates passed`) : `${failed} of ${gates.length} gate${gates.length === 1 ? '' : 's'} failed`;
  const message =
    status === 'incomplete'
      ? `incomplete: ${recorded} of ${expected} cells recorded`
      : status === 'unavailable'
        ? `model unavailable (every cell errored): ${unavailable.join(', ')}`
        : status === 'failed'
          ? `failed: ${gateWords}`
          : `passed: ${gateWords}`;
  return {
    gates,
    verdict: {
      status,
      message,
      gates_set: gates.length,
      gates_failed: failed,
      unavailable_models: unavailable,
      cells: { recorded, expected },
      warnings: runWarnings(header, summary),
    },
  };
}
