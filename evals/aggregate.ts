/**
 * Streaming aggregation of an evaluation run's cells into an {@link EvalSummary},
 * and the quality gates a CI job checks against it.
 *
 * Memory does not grow with the cells' content: each cell updates counters
 * and is dropped. What is kept per cell is one byte of paired correctness (for
 * McNemar's test on the same case and repeat) and one latency number (for
 * percentiles), so 100,000 cells cost about a megabyte.
 *
 * Conventions:
 * - `error` cells (transport failures, timeouts) count in `errors` and in no
 *   rate; `invalid` answers count as "not activated" and in `invalid`;
 * - a cell that appears twice (same model, variant, case and repeat) counts once;
 *   cells outside the header's matrix are ignored;
 * - co-activation leaves out skills bound `always` in the cell's catalog: they
 *   are active on every request and say nothing about competition;
 * - latency percentiles are over cells that did not error; cost counts only
 *   cells that made model calls in this run (cached cells cost nothing).
 */
import { addToConfusion, mcnemarExact, percentile, rates, type Confusion, type TriggerRate } from './metrics';
import type { CellRecord, EvalSummary, GateResult, ModelMetrics, PairedComparison, RunHeader, SkillMetrics } from './types';

/** Paired-correctness states, one byte per matrix slot. */
const ABSENT = 0;
const RIGHT = 1;
const WRONG = 2;
const ERRORED = 3;

interface CaseCount {
  k: number;
  n: number;
  errors: number;
}

interface Group {
  model: string;
  variant: string;
  skill: string;
  confusion: Confusion;
  cells: number;
  cases: Map<string, CaseCount>;
  co: Map<string, number>;
  stolen: Map<string, number>;
  resourceScored: number;
  resourceCorrect: number;
  resourceCases: Set<string>;
  always: ReadonlySet<string>;
}

interface ModelTotals {
  latencies: number[];
  inputTokens: number;
  outputTokens: number;
  spent: number;
  costUnknown: boolean;
  errors: number;
  invalid: number;
  cells: number;
  cached: number;
}

const increment = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
const sortedRecord = (map: Map<string, number>): Record<string, number> =>
  Object.fromEntries([...map].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));

/**
 * Incremental aggregation over the matrix of `header`: `add` each cell as it
 * finishes (or as it is read back), then `summary()` at any time.
 */
export class Aggregator {
  private readonly modelIndex = new Map<string, number>();
  private readonly variantIndex = new Map<string, number>();
  private readonly caseIndex = new Map<string, number>();
  /** `<variant>|<skill>` pairs of the matrix. */
  private readonly variantSkills = new Set<string>();
  private readonly casesBySkill = new Map<string, number[]>();
  private readonly state: Uint8Array;
  private readonly groups = new Map<string, Group>();
  private readonly models: ModelTotals[];
  private readonly totals = { cells: 0, errors: 0, invalid: 0, cached: 0 };
  private readonly V: number;
  private readonly C: number;
  private readonly R: number;

  constructor(private readonly header: RunHeader) {
    header.models.forEach((m, i) => this.modelIndex.set(m.spec, i));
    for (const v of header.variants) {
      if (!this.variantIndex.has(v.label)) this.variantIndex.set(v.label, this.variantIndex.size);
      this.variantSkills.add(`${v.label}|${v.skill}`);
    }
    header.cases.forEach((c, i) => {
      this.caseIndex.set(c.id, i);
      const list = this.casesBySkill.get(c.skill) ?? [];
      list.push(i);
      this.casesBySkill.set(c.skill, list);
    });
    this.V = Math.max(1, this.variantIndex.size);
    this.C = Math.max(1, header.cases.length);
    this.R = Math.max(1, header.repeats);
    this.state = new Uint8Array(header.models.length * this.V * this.C * this.R);
    this.models = header.models.map(() => ({ latencies: [], inputTokens: 0, outputTokens: 0, spent: 0, costUnknown: false, errors: 0, invalid: 0, cells: 0, cached: 0 }));
    for (const m of header.models) for (const v of header.variants) this.group(m.spec, v.label, v.skill);
  }

  private slot(m: number, v: number, c: number, r: number): number {
    return ((m * this.V + v) * this.C + c) * this.R + r;
  }

  private group(model: string, variant: string, skill: string): Group {
    const key = `${model}|${variant}|${skill}`;
    let g = this.groups.get(key);
    if (!g) {
      const catalog = this.header.catalogs[`${variant}|${skill}`];
      const always = new Set((catalog?.entries ?? []).filter((e) => e.activation === 'always').map((e) => e.skill));
      g = {
        model,
        variant,
        skill,
        confusion: { tp: 0, fp: 0, tn: 0, fn: 0, errors: 0, invalid: 0 },
        cells: 0,
        cases: new Map(),
        co: new Map(),
        stolen: new Map(),
        resourceScored: 0,
        resourceCorrect: 0,
        resourceCases: new Set(),
        always,
      };
      this.groups.set(key, g);
    }
    return g;
  }

  /** Adds one cell; returns false when it was ignored (outside the matrix, or already counted). */
  add(cell: CellRecord): boolean {
    const m = this.modelIndex.get(cell.model);
    const v = this.variantIndex.get(cell.variant);
    const c = this.caseIndex.get(cell.case);
    if (m === undefined || v === undefined || c === undefined) return false;
    if (!Number.isSafeInteger(cell.repeat) || cell.repeat < 0 || cell.repeat >= this.R) return false;
    const info = this.header.cases[c]!;
    if (!this.variantSkills.has(`${cell.variant}|${info.skill}`)) return false;
    const slot = this.slot(m, v, c, cell.repeat);
    if (this.state[slot] !== ABSENT) return false;
    const error = cell.outcome === 'error';
    const activated = cell.outcome === 'activated';
    this.state[slot] = error ? ERRORED : activated === (info.expect === 'activate') ? RIGHT : WRONG;

    const g = this.group(cell.model, cell.variant, info.skill);
    g.cells++;
    addToConfusion(g.confusion, { expected: info.expect, outcome: cell.outcome, invalid: cell.invalid });
    const count = g.cases.get(cell.case) ?? { k: 0, n: 0, errors: 0 };
    if (error) count.errors++;
    else {
      count.n++;
      if (activated) count.k++;
    }
    g.cases.set(cell.case, count);
    if (!error) {
      const stolen = info.expect === 'activate' && !activated;
      for (const other of cell.activated) {
        if (other === info.skill || g.always.has(other)) continue;
        increment(g.co, other);
        if (stolen) increment(g.stolen, other);
      }
    }
    if (cell.resources_correct !== null && cell.resources_correct !== undefined) {
      g.resourceScored++;
      if (cell.resources_correct) g.resourceCorrect++;
      g.resourceCases.add(cell.case);
    }

    const t = this.models[m]!;
    t.cells++;
    this.totals.cells++;
    if (error) {
      t.errors++;
      this.totals.errors++;
    } else if (Number.isFinite(cell.latency_ms)) t.latencies.push(cell.latency_ms);
    if (cell.invalid) {
      t.invalid++;
      this.totals.invalid++;
    }
    t.inputTokens += cell.input_tokens || 0;
    t.outputTokens += cell.output_tokens || 0;
    if (cell.cached) {
      t.cached++;
      this.totals.cached++;
    } else if (cell.cost_usd === null || cell.cost_usd === undefined) {
      if (!error) t.costUnknown = true;
    } else t.spent += cell.cost_usd;
    return true;
  }

  /** Cells counted so far. */
  get cells(): number {
    return this.totals.cells;
  }

  /** Errors counted so far. */
  get errors(): number {
    return this.totals.errors;
  }

  private skillMetrics(g: Group): SkillMetrics {
    const trigger: Record<string, TriggerRate> = {};
    const flaky: string[] = [];
    for (const caseId of this.casesBySkill.get(g.skill) ?? []) {
      const id = this.header.cases[caseId]!.id;
      const count = g.cases.get(id);
      if (!count) continue;
      const isFlaky = count.k > 0 && count.k < count.n;
      trigger[id] = { k: count.k, n: count.n, errors: count.errors, flaky: isFlaky };
      if (isFlaky) flaky.push(id);
    }
    return {
      skill: g.skill,
      variant: g.variant,
      ...g.confusion,
      ...rates(g.confusion),
      cells: g.cells,
      flaky_cases: flaky,
      trigger_rates: trigger,
      co_activated: sortedRecord(g.co),
      stolen_by: sortedRecord(g.stolen),
      resource_accuracy: g.resourceScored === 0 ? null : g.resourceCorrect / g.resourceScored,
      resource_cases: g.resourceCases.size,
    };
  }

  private compare(kind: PairedComparison['kind'], skill: string, a: { m: number; v: number }, b: { m: number; v: number }): PairedComparison {
    const pairs: { a: boolean; b: boolean }[] = [];
    let rightA = 0;
    let rightB = 0;
    for (const c of this.casesBySkill.get(skill) ?? []) {
      for (let r = 0; r < this.R; r++) {
        const sa = this.state[this.slot(a.m, a.v, c, r)];
        const sb = this.state[this.slot(b.m, b.v, c, r)];
        if ((sa !== RIGHT && sa !== WRONG) || (sb !== RIGHT && sb !== WRONG)) continue;
        pairs.push({ a: sa === RIGHT, b: sb === RIGHT });
        if (sa === RIGHT) rightA++;
        if (sb === RIGHT) rightB++;
      }
    }
    const labels = [...this.variantIndex.keys()];
    const specs = this.header.models.map((m) => m.spec);
    const comparison: PairedComparison = {
      kind,
      skill,
      a: kind === 'variant' ? labels[a.v]! : specs[a.m]!,
      b: kind === 'variant' ? labels[b.v]! : specs[b.m]!,
      accuracy_a: pairs.length === 0 ? null : rightA / pairs.length,
      accuracy_b: pairs.length === 0 ? null : rightB / pairs.length,
      test: mcnemarExact(pairs),
      pairs: pairs.length,
    };
    if (kind === 'variant') comparison.model = specs[a.m]!;
    else comparison.variant = labels[a.v]!;
    return comparison;
  }

  /** The summary of everything added so far (gates empty: see {@link evaluateGates}). */
  summary(): EvalSummary {
    const models: ModelMetrics[] = this.header.models.map((info, m) => {
      const t = this.models[m]!;
      const skills = this.header.variants.map((v) => this.skillMetrics(this.group(info.spec, v.label, v.skill)));
      return {
        model: info.spec,
        isBaseline: info.isBaseline,
        skills,
        latency_p50_ms: percentile(t.latencies, 50),
        latency_p95_ms: percentile(t.latencies, 95),
        input_tokens: t.inputTokens,
        output_tokens: t.outputTokens,
        cost_usd: t.costUnknown ? null : t.spent,
        cached: t.cached,
        errors: t.errors,
        invalid: t.invalid,
        cells: t.cells,
      };
    });
    const comparisons: PairedComparison[] = [];
    const skills = [...new Set(this.header.variants.map((v) => v.skill))];
    for (const skill of skills) {
      const labels = [...new Set(this.header.variants.filter((v) => v.skill === skill).map((v) => v.label))];
      const draft = this.variantIndex.get('draft');
      if (draft !== undefined && labels.includes('draft')) {
        for (const other of labels) {
          if (other === 'draft') continue;
          const v = this.variantIndex.get(other)!;
          this.header.models.forEach((_, m) => comparisons.push(this.compare('variant', skill, { m, v: draft }, { m, v })));
        }
      }
      for (const label of labels) {
        const v = this.variantIndex.get(label)!;
        for (let i = 0; i < this.header.models.length; i++) {
          for (let j = i + 1; j < this.header.models.length; j++) comparisons.push(this.compare('model', skill, { m: i, v }, { m: j, v }));
        }
      }
    }
    return { models, comparisons, totals: { ...this.totals }, gates: [] };
  }
}

/** Aggregates a stream of cells (for example `readCells(file)`) against the run's header. */
export async function summarize(header: RunHeader, cells: AsyncIterable<CellRecord> | Iterable<CellRecord>): Promise<EvalSummary> {
  const aggregator = new Aggregator(header);
  for await (const cell of cells) aggregator.add(cell);
  return aggregator.summary();
}

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
 * on the pairs where both answered, the published revision was right on more
 * of the disagreeing pairs than the draft, and either McNemar's exact test
 * finds the difference significant (p < alpha), or there are too few
 * disagreeing pairs for the test to ever reach significance (with n of them
 * the smallest two-sided p is 2^(1-n), so n ≤ 5 at alpha 0.05). With enough
 * disagreeing pairs and no significance, the difference is treated as noise.
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

/**
 * Evaluates the gates. Thresholds apply to every model and skill, on the
 * draft when the run has one for the skill, else on its stored revision; a
 * metric that cannot be computed (no answered cell, no positive case for
 * recall, no activation for precision) fails its gate. The regression gate
 * covers each model's draft-vs-published comparisons.
 */
export function evaluateGates(summary: EvalSummary, options: GateOptions): GateResult[] {
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
              ? `only ${n} disagreeing pair${n === 1 ? '' : 's'}, too few to test, so lower accuracy counts`
              : `${p}, not significant`;
      results.push({
        gate: 'regression',
        threshold: t.alpha,
        model: c.model ?? '',
        skill: c.skill,
        value: t.pValue,
        passed: !regression,
        message: `${c.model ?? ''} ${c.skill}: ${c.a} ${fmt(c.accuracy_a)} vs ${c.b} ${fmt(c.accuracy_b)} on ${c.pairs ?? t.aOnly + t.bOnly + t.concordant} pairs (${c.a} alone right ${t.aOnly}, ${c.b} alone right ${t.bOnly}; ${note})${regression ? ': regression' : ''}`,
      });
    }
  }
  return results;
}
