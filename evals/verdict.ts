/**
 * The verdict of an evaluation run: the quality gates a CI job sets
 * (`--min-accuracy`, `--fail-on-regression`, `--reference-model`, ...), the
 * limits under which a run reaches no verdict at all (`--max-error-rate`,
 * `--max-invalid-rate`, a selector that was never asked), the "model
 * unavailable" rule, and the warnings a reader must see before trusting any
 * number.
 *
 * It is computed here, once, from the run's header and aggregated summary,
 * and stored in `summary.json` and every report, so the CLI, the reports and
 * the desktop UI show the same verdict without deriving it again. The shape
 * is plain data and stable: add fields, never repurpose one.
 *
 * Every rule is monotone: a run whose results get worse (a case lost, one
 * more error or unusable answer) can move from passed to failed or
 * incomplete, never back. The comparison gates are a non-inferiority test
 * (see {@link nonInferiority}), proven monotone by a property test.
 */
import { catalogOverBudget } from '../core/report/catalog';
import type { EvalSummary, EvalVerdict, GateResult, ModelMetrics, PairedComparison, RunHeader, SkillMetrics, VerdictReason, VerdictWarning } from './types';

export { catalogOverBudget } from '../core/report/catalog';

/** The margin a draft (or a model) may lose to its reference before the comparison gates fail it. */
export const DEFAULT_REGRESSION_MARGIN = 0.05;
/** Largest margin accepted: above it the bound used is no longer monotone, and the gate would mean nothing. */
export const MAX_REGRESSION_MARGIN = 0.5;
/** The one-sided 95 % normal quantile of the upper bound. */
const Z_95 = 1.6448536269514722;

/** Gate thresholds; each is off when unset, except the limits with a default. */
export interface GateOptions {
  /** Lowest accepted accuracy, 0..1. */
  minAccuracy?: number;
  /** Lowest accepted recall, 0..1. */
  minRecall?: number;
  /** Lowest accepted precision, 0..1. */
  minPrecision?: number;
  /** Fail when a draft is not shown non-inferior to its published revision (see {@link nonInferiority}). */
  failOnRegression?: boolean;
  /** The loss in paired accuracy the comparison gates tolerate, 0..{@link MAX_REGRESSION_MARGIN} (default {@link DEFAULT_REGRESSION_MARGIN}). */
  regressionMargin?: number;
  /** Fail when another model of the matrix is not shown non-inferior to this one (a model of the run). */
  referenceModel?: string;
  /** Highest share of a model's cells that may end in an error before the run is `incomplete` (default 0). */
  maxErrorRate?: number;
  /** Highest share of a model's cells whose answer may be unusable before the run is `incomplete` (default 0). */
  maxInvalidRate?: number;
  /**
   * The run measures a catalog the selector skips (over its budget) on
   * purpose: a skill row whose selector never asked the model is a warning,
   * not an `incomplete` run.
   */
  allowSkippedActivation?: boolean;
}

/** The outcome of {@link nonInferiority} for one paired comparison. */
export interface NonInferiority {
  /** Cases both sides decided by majority. */
  pairs: number;
  /** Cases only the candidate (the draft, or the model under test) got right. */
  candidateOnly: number;
  /** Cases only the reference (the published revision, or the reference model) got right. */
  referenceOnly: number;
  /** Observed loss: (referenceOnly − candidateOnly) / pairs, the reference's paired accuracy minus the candidate's; null without pairs. */
  loss: number | null;
  /** One-sided 95 % upper bound of the loss; null without pairs. */
  upper: number | null;
  margin: number;
  /** McNemar's exact test finds the candidate worse (p < alpha, and it lost more cases than it won). */
  significantlyWorse: boolean;
  pValue: number;
  alpha: number;
  /** The gate fails. */
  failed: boolean;
}

/**
 * The non-inferiority rule of the comparison gates. On the cases both sides
 * decided (one pair per case), with `c` cases only the candidate got right
 * and `r` only the reference, the candidate fails when it lost more cases
 * than it won (`r > c`) and either
 *
 * - the one-sided 95 % upper bound of the loss in paired accuracy,
 *   `(r − c)/n + 1.645 · sqrt(c + r − (r − c)²/n) / n` (the Wald interval of
 *   a paired difference), exceeds `margin`; or
 * - McNemar's exact test finds it significantly worse (p < alpha).
 *
 * No pair at all fails too: nothing shows the candidate is not worse.
 * Moving one case from "candidate right" to "candidate wrong" raises the
 * bound and lowers p, so the rule can only get stricter as the candidate
 * loses more (a property test checks it for every margin allowed).
 */
export function nonInferiority(comparison: Pick<PairedComparison, 'pairs' | 'test'>, margin: number, orientation: 'a' | 'b' = 'a'): NonInferiority {
  const t = comparison.test;
  const candidateOnly = orientation === 'a' ? t.aOnly : t.bOnly;
  const referenceOnly = orientation === 'a' ? t.bOnly : t.aOnly;
  const n = comparison.pairs;
  if (!(n > 0)) return { pairs: 0, candidateOnly, referenceOnly, loss: null, upper: null, margin, significantlyWorse: false, pValue: t.pValue, alpha: t.alpha, failed: true };
  const loss = (referenceOnly - candidateOnly) / n;
  const variance = Math.max(0, candidateOnly + referenceOnly - (referenceOnly - candidateOnly) ** 2 / n);
  const upper = loss + (Z_95 * Math.sqrt(variance)) / n;
  const lostMore = referenceOnly > candidateOnly;
  const significantlyWorse = lostMore && t.pValue < t.alpha;
  return { pairs: n, candidateOnly, referenceOnly, loss, upper, margin, significantlyWorse, pValue: t.pValue, alpha: t.alpha, failed: lostMore && (upper > margin || significantlyWorse) };
}

/** A number as reports print it: at most three decimals, never `0.21875000000000006`. */
export function formatGateNumber(x: number | null): string {
  if (x === null) return 'n/a';
  return String(Number(x.toFixed(3)));
}

const fmt = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** `, 2 left out (1 flaky, 1 unanswered)` when cases were left out of a comparison. */
function excluded(c: PairedComparison): string {
  const flaky = c.cases.length - c.pairs - c.unanswered;
  if (flaky + c.unanswered === 0) return '';
  const parts = [flaky > 0 ? `${flaky} flaky` : '', c.unanswered > 0 ? `${c.unanswered} unanswered` : ''].filter(Boolean);
  return `, ${flaky + c.unanswered} left out (${parts.join(', ')})`;
}

/** The reason a non-inferiority gate passed or failed, in words. */
function nonInferiorityNote(r: NonInferiority, candidate: string, reference: string): string {
  if (r.pairs === 0) return 'no case was decided by both sides, so nothing shows the candidate is not worse';
  const bound = `loss ${formatGateNumber(r.loss)}, upper 95 % bound ${formatGateNumber(r.upper)}`;
  if (r.referenceOnly <= r.candidateOnly) return `${candidate} lost no more cases than it won; ${bound}`;
  const against = `${r.upper! > r.margin ? '>' : '<='} margin ${formatGateNumber(r.margin)}`;
  const p = `McNemar p=${r.pValue.toPrecision(3)}${r.significantlyWorse ? ` < ${r.alpha}: significantly worse than ${reference}` : ''}`;
  return `${bound} ${against}; ${p}`;
}

/** The skill row each gate judges per model and skill: the draft when the run has one, else the stored revision. */
function judgedRows(model: ModelMetrics): SkillMetrics[] {
  const bySkill = new Map<string, SkillMetrics>();
  for (const s of model.skills) {
    const current = bySkill.get(s.skill);
    if (!current || (s.variant === 'draft' && current.variant !== 'draft')) bySkill.set(s.skill, s);
  }
  return [...bySkill.values()];
}

/** `17 of 19 cells usable (1 error, 1 unusable)`: the share of cells a rate rests on. */
export function restsOn(s: Pick<SkillMetrics, 'cells' | 'errors' | 'invalid'>): string {
  const usable = s.cells - s.errors - s.invalid;
  const apart = [s.errors > 0 ? plural(s.errors, 'error') : '', s.invalid > 0 ? `${s.invalid} unusable` : ''].filter(Boolean);
  return `${usable} of ${plural(s.cells, 'cell')} usable${apart.length > 0 ? ` (${apart.join(', ')})` : ''}`;
}

/**
 * Evaluates the gates. Thresholds apply to every model and skill, on the
 * draft when the run has one for the skill, else on its stored revision; a
 * metric that cannot be computed (no usable answer, no positive case for
 * recall, no activation for precision) fails its gate. The regression gate
 * covers each model's draft-vs-published comparisons; the reference gate
 * every other model against the reference model, per variant.
 */
export function evaluateGates(summary: Pick<EvalSummary, 'models' | 'comparisons'>, options: GateOptions): GateResult[] {
  const results: GateResult[] = [];
  const margin = options.regressionMargin ?? DEFAULT_REGRESSION_MARGIN;
  const thresholds: Array<[GateResult['gate'], 'accuracy' | 'recall' | 'precision', number | undefined]> = [
    ['min-accuracy', 'accuracy', options.minAccuracy],
    ['min-recall', 'recall', options.minRecall],
    ['min-precision', 'precision', options.minPrecision],
  ];
  for (const model of summary.models) {
    for (const s of judgedRows(model)) {
      for (const [gate, metric, threshold] of thresholds) {
        if (threshold === undefined) continue;
        const value = s[metric];
        const passed = value !== null && value >= threshold;
        const why = value === null ? `${metric} cannot be computed` : `${metric} ${fmt(value)} ${passed ? '>=' : '<'} ${formatGateNumber(threshold)}`;
        results.push({ gate, threshold, model: model.model, skill: s.skill, value, passed, message: `${model.model} ${s.skill} (${s.variant}): ${why}, over ${restsOn(s)}` });
      }
    }
  }
  if (options.failOnRegression) {
    for (const c of summary.comparisons) {
      if (c.kind !== 'variant') continue;
      const r = nonInferiority(c, margin, 'a');
      const t = c.test;
      results.push({
        gate: 'regression',
        threshold: margin,
        model: c.model ?? '',
        skill: c.skill,
        value: r.upper,
        passed: !r.failed,
        message:
          `${c.model ?? ''} ${c.skill}: ${c.a} ${fmt(c.accuracy_a)} vs ${c.b} ${fmt(c.accuracy_b)} on ${plural(c.pairs, 'paired case')}${excluded(c)} ` +
          `(${c.a} alone right on ${t.aOnly}, ${c.b} alone right on ${t.bOnly}; ${nonInferiorityNote(r, c.a, c.b)})${r.failed ? ': regression' : ''}`,
      });
    }
  }
  if (options.referenceModel !== undefined) {
    const reference = options.referenceModel;
    for (const c of summary.comparisons) {
      if (c.kind !== 'model' || (c.a !== reference && c.b !== reference)) continue;
      const candidateIsA = c.b === reference;
      const candidate = candidateIsA ? c.a : c.b;
      const r = nonInferiority(c, margin, candidateIsA ? 'a' : 'b');
      const [accCandidate, accReference] = candidateIsA ? [c.accuracy_a, c.accuracy_b] : [c.accuracy_b, c.accuracy_a];
      results.push({
        gate: 'reference',
        threshold: margin,
        model: candidate,
        skill: c.skill,
        value: r.upper,
        passed: !r.failed,
        message:
          `${candidate} vs ${reference} ${c.skill}${c.variant ? ` (${c.variant})` : ''}: ${fmt(accCandidate)} vs ${fmt(accReference)} on ${plural(c.pairs, 'paired case')}${excluded(c)} ` +
          `(${candidate} alone right on ${r.candidateOnly}, ${reference} alone right on ${r.referenceOnly}; ${nonInferiorityNote(r, candidate, reference)})${r.failed ? `: worse than ${reference}` : ''}`,
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

/** Skill rows that answered but whose activation selector never asked the model (`asked` 0). */
function unaskedRows(summary: Pick<EvalSummary, 'models'>): Array<{ model: string; row: SkillMetrics }> {
  const out: Array<{ model: string; row: SkillMetrics }> = [];
  for (const m of summary.models) {
    for (const s of m.skills) if (s.asked === 0 && s.cells - s.errors > 0) out.push({ model: m.model, row: s });
  }
  return out;
}

const share = (n: number, of: number) => (of === 0 ? 0 : n / of);

/**
 * Why no verdict can be reached, if so: cells missing; a model with more
 * error cells or unusable answers than allowed; a skill row the selector
 * never asked the model about (unless that is what the run measures).
 */
export function incompleteReasons(header: RunHeader, summary: Pick<EvalSummary, 'models' | 'totals'>, options: GateOptions = {}): VerdictReason[] {
  const reasons: VerdictReason[] = [];
  const expected = expectedCells(header);
  if (summary.totals.cells < expected) {
    reasons.push({ code: 'cells_missing', value: summary.totals.cells, threshold: expected, message: `${summary.totals.cells} of ${expected} cells recorded` });
  }
  const maxError = options.maxErrorRate ?? 0;
  const maxInvalid = options.maxInvalidRate ?? 0;
  for (const m of summary.models) {
    // A model whose every cell errored is `unavailable`, its own verdict.
    if (m.cells === 0 || m.errors === m.cells) continue;
    const errorRate = share(m.errors, m.cells);
    if (errorRate > maxError) {
      reasons.push({
        code: 'error_rate',
        model: m.model,
        value: errorRate,
        threshold: maxError,
        message: `${m.model}: ${m.errors} of ${m.cells} cells ended in an error (${formatGateNumber(errorRate)}), above --max-error-rate ${formatGateNumber(maxError)}`,
      });
    }
    const invalidRate = share(m.invalid, m.cells);
    if (invalidRate > maxInvalid) {
      reasons.push({
        code: 'invalid_rate',
        model: m.model,
        value: invalidRate,
        threshold: maxInvalid,
        message: `${m.model}: ${m.invalid} of ${m.cells} answers were unusable (${formatGateNumber(invalidRate)}), above --max-invalid-rate ${formatGateNumber(maxInvalid)}`,
      });
    }
  }
  if (!options.allowSkippedActivation) {
    for (const { model, row } of unaskedRows(summary)) {
      const catalog = `${row.variant}|${row.skill}`;
      const over = header.catalogs[catalog] ? catalogOverBudget(header.catalogs[catalog]) : undefined;
      reasons.push({
        code: 'never_asked',
        model,
        catalog,
        message: `${model} ${row.skill} (${row.variant}): the selector never asked the model on any cell${over ? ` (the catalog is ${over.reason})` : ''}, so the rates measure nothing about the skill (--allow-skipped-activation if that is what this run measures)`,
      });
    }
  }
  return reasons;
}

/**
 * The warnings of a run: over-budget catalogs (the model was never asked),
 * error cells and unusable answers (with their share and the limit they were
 * judged against), and skipped activation a user allowed.
 */
export function runWarnings(header: RunHeader, summary: Pick<EvalSummary, 'models' | 'totals'>, options: GateOptions = {}): VerdictWarning[] {
  const warnings: VerdictWarning[] = [];
  for (const [key, catalog] of Object.entries(header.catalogs)) {
    const over = catalogOverBudget(catalog);
    if (over) warnings.push({ code: over.code, codes: over.codes, catalog: key, message: `catalog ${key}: ${over.reason}: the selector skipped automatic activation and the model was never asked, so its cases measure nothing about the skill` });
  }
  for (const m of summary.models) {
    if (m.errors > 0 && m.errors < m.cells) {
      warnings.push({
        code: 'cell_errors',
        model: m.model,
        message: `${m.model}: ${m.errors} of ${m.cells} cells ended in an error (${formatGateNumber(share(m.errors, m.cells))}, --max-error-rate ${formatGateNumber(options.maxErrorRate ?? 0)}) and are left out of every rate (${m.cells - m.errors} answered)`,
      });
    }
    if (m.invalid > 0) {
      warnings.push({
        code: 'invalid_answers',
        model: m.model,
        message: `${m.model}: ${m.invalid} of ${m.cells} answers were unusable (${formatGateNumber(share(m.invalid, m.cells))}, --max-invalid-rate ${formatGateNumber(options.maxInvalidRate ?? 0)}): the runtime rejected them, so they count in no rate, as neither right nor wrong`,
      });
    }
  }
  if (options.allowSkippedActivation) {
    for (const { model, row } of unaskedRows(summary)) {
      warnings.push({ code: 'never_asked', model, catalog: `${row.variant}|${row.skill}`, message: `${model} ${row.skill} (${row.variant}): the selector never asked the model (allowed by --allow-skipped-activation)` });
    }
  }
  return warnings;
}

/**
 * The verdict of a run, from its header, the aggregated summary and the
 * gates set. Status, in order of precedence: `incomplete` when cells are
 * missing; `unavailable` when every cell of some model errored (its numbers
 * mean nothing); `incomplete` when a model has more error cells or unusable
 * answers than allowed, or the selector never asked about a skill: no
 * verdict can be reached, whatever the gates say; `failed` when a gate
 * failed; else `passed` (also when no gate was set: `gates_set` says so).
 */
export function judgeRun(header: RunHeader, summary: Pick<EvalSummary, 'models' | 'comparisons' | 'totals'>, options: GateOptions = {}): { gates: GateResult[]; verdict: EvalVerdict } {
  const gates = evaluateGates(summary, options);
  const failed = gates.filter((g) => !g.passed).length;
  const unavailable = summary.models.filter((m) => m.cells > 0 && m.errors === m.cells).map((m) => m.model);
  const expected = expectedCells(header);
  const recorded = summary.totals.cells;
  const reasons = incompleteReasons(header, summary, options);
  const missing = reasons.some((r) => r.code === 'cells_missing');
  const status: EvalVerdict['status'] = missing ? 'incomplete' : unavailable.length > 0 ? 'unavailable' : reasons.length > 0 ? 'incomplete' : failed > 0 ? 'failed' : 'passed';
  const gateWords = gates.length === 0 ? 'no gates set' : failed === 0 ? (gates.length === 1 ? 'the gate passed' : `all ${gates.length} gates passed`) : `${failed} of ${gates.length} gate${gates.length === 1 ? '' : 's'} failed`;
  const message =
    status === 'incomplete'
      ? `incomplete: ${(missing ? reasons.filter((r) => r.code === 'cells_missing') : reasons).map((r) => r.message).join('; ')}`
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
      warnings: runWarnings(header, summary, options),
      reasons,
      limits: {
        max_error_rate: options.maxErrorRate ?? 0,
        max_invalid_rate: options.maxInvalidRate ?? 0,
        ...((options.failOnRegression || options.referenceModel !== undefined) && { regression_margin: options.regressionMargin ?? DEFAULT_REGRESSION_MARGIN }),
        ...(options.allowSkippedActivation && { allow_skipped_activation: true }),
      },
    },
  };
}
