/**
 * Streaming aggregation of an evaluation run's cells into an {@link EvalSummary},
 * judged by the gates of evals/verdict.ts.
 *
 * Memory does not grow with the cells' content: each cell updates counters
 * and is dropped. What is kept per cell is one byte (so a cell read twice
 * counts once) and one latency number (for percentiles), so 100,000 cells
 * cost about a megabyte. Paired comparisons are per case (evals/paired.ts),
 * from the per-case trigger counts.
 *
 * Conventions:
 * - `error` cells (transport failures, timeouts) count in `errors` and in no
 *   rate; unusable answers (`invalid`) count in `invalid` and in no rate
 *   either, nor in trigger rates or paired comparisons (evals/metrics.ts);
 * - a cell whose activation selector asked a model counts in `asked`: a skill
 *   row whose answered cells never did measures nothing about the skill;
 * - a cell that appears twice (same model, variant, case and repeat) counts once;
 *   cells outside the header's matrix are ignored;
 * - co-activation leaves out skills bound `always` in the cell's catalog: they
 *   are active on every request and say nothing about competition;
 * - latency percentiles are over cells that did not error; cost counts only
 *   cells that made model calls in this run (cached cells cost nothing).
 */
import { caseCounts, rateDeltas, rateIntervals, type CaseCounts } from './intervals';
import { addToConfusion, percentile, rates, type Confusion, type TriggerRate } from './metrics';
import { compareCases } from './paired';
import { judgeRun, type GateOptions } from './verdict';
import type { CellRecord, EvalSummary, ModelMetrics, PairedComparison, RunHeader, SkillMetrics } from './types';

/** Whether a matrix slot already holds a cell. */
const ABSENT = 0;
const PRESENT = 1;

interface CaseCount {
  /** Usable answers that activated the skill. */
  k: number;
  /** Usable answers. */
  n: number;
  errors: number;
  invalid: number;
}

interface Group {
  model: string;
  variant: string;
  skill: string;
  confusion: Confusion;
  cells: number;
  asked: number;
  /** Adjacent negatives (other skills' should-activate examples), counted apart from the skill's own cases. */
  adjacent: Confusion & { cells: number };
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

/** Whether the cell's activation selector asked its model (a skipped catalog, or only always-on and trusted skills, ask none). */
function askedModel(cell: CellRecord): boolean {
  const calls = (cell.trace as { calls?: unknown } | undefined)?.calls;
  return Array.isArray(calls) && calls.some((c) => (c as { kind?: unknown } | null)?.kind === 'activation');
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
      if (c.source === 'adjacent') return;
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
        asked: 0,
        adjacent: { tp: 0, fp: 0, tn: 0, fn: 0, errors: 0, invalid: 0, cells: 0 },
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
    const unusable = !error && cell.invalid === true;
    const activated = cell.outcome === 'activated';
    this.state[slot] = PRESENT;

    const g = this.group(cell.model, cell.variant, info.skill);
    const adjacent = info.source === 'adjacent';
    if (adjacent) g.adjacent.cells++;
    else {
      g.cells++;
      if (!error && askedModel(cell)) g.asked++;
    }
    addToConfusion(adjacent ? g.adjacent : g.confusion, { expected: info.expect, outcome: cell.outcome, invalid: cell.invalid });
    const count = g.cases.get(cell.case) ?? { k: 0, n: 0, errors: 0, invalid: 0 };
    if (error) count.errors++;
    else if (unusable) count.invalid++;
    else {
      count.n++;
      if (activated) count.k++;
    }
    g.cases.set(cell.case, count);
    if (!error && !unusable) {
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
    if (unusable) {
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

  /** The answered repeats of each case of a skill, as confusion counts, in case order. */
  private caseCounts(g: Group): CaseCounts[] {
    return (this.casesBySkill.get(g.skill) ?? []).map((c) => {
      const info = this.header.cases[c]!;
      const count = g.cases.get(info.id);
      return caseCounts(info.expect, count?.k ?? 0, count?.n ?? 0);
    });
  }

  private skillMetrics(g: Group): SkillMetrics {
    const trigger: Record<string, TriggerRate> = {};
    const flaky: string[] = [];
    for (const caseId of this.casesBySkill.get(g.skill) ?? []) {
      const id = this.header.cases[caseId]!.id;
      const count = g.cases.get(id);
      if (!count) continue;
      const isFlaky = count.k > 0 && count.k < count.n;
      trigger[id] = { k: count.k, n: count.n, errors: count.errors, invalid: count.invalid, flaky: isFlaky };
      if (isFlaky) flaky.push(id);
    }
    return {
      skill: g.skill,
      variant: g.variant,
      ...g.confusion,
      ...rates(g.confusion),
      cells: g.cells,
      asked: g.asked,
      flaky_cases: flaky,
      trigger_rates: trigger,
      co_activated: sortedRecord(g.co),
      stolen_by: sortedRecord(g.stolen),
      resource_accuracy: g.resourceScored === 0 ? null : g.resourceCorrect / g.resourceScored,
      resource_cases: g.resourceCases.size,
      ...(g.adjacent.cells > 0 && { adjacent: { ...g.adjacent } }),
      intervals: rateIntervals(this.caseCounts(g), `${g.model}|${g.variant}|${g.skill}`),
    };
  }

  private compare(kind: PairedComparison['kind'], skill: string, a: { m: number; v: number }, b: { m: number; v: number }): PairedComparison {
    const labels = [...this.variantIndex.keys()];
    const specs = this.header.models.map((m) => m.spec);
    const groupA = this.group(specs[a.m]!, labels[a.v]!, skill);
    const groupB = this.group(specs[b.m]!, labels[b.v]!, skill);
    const tally = (g: Group, id: string) => {
      const count = g.cases.get(id);
      return { activated: count?.k ?? 0, answered: count?.n ?? 0 };
    };
    const result = compareCases(
      (this.casesBySkill.get(skill) ?? []).map((c) => {
        const info = this.header.cases[c]!;
        return { case: info.id, expect: info.expect, a: tally(groupA, info.id), b: tally(groupB, info.id) };
      }),
    );
    const comparison: PairedComparison = {
      kind,
      skill,
      a: kind === 'variant' ? labels[a.v]! : specs[a.m]!,
      b: kind === 'variant' ? labels[b.v]! : specs[b.m]!,
      unit: 'case',
      ...result,
    };
    if (kind === 'variant') comparison.model = specs[a.m]!;
    else comparison.variant = labels[a.v]!;
    const countsA = this.caseCounts(groupA);
    const countsB = this.caseCounts(groupB);
    comparison.deltas = rateDeltas(
      countsA.map((x, i) => ({ a: x, b: countsB[i]! })),
      `${kind}|${skill}|${comparison.a}|${comparison.b}|${comparison.model ?? comparison.variant}`,
    );
    return comparison;
  }

  /** The summary of everything added so far, judged against `gates` (see evals/verdict.ts). */
  summary(gates: GateOptions = {}): EvalSummary {
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
    const aggregated = { models, comparisons, totals: { ...this.totals } };
    return { ...aggregated, ...judgeRun(this.header, aggregated, gates) };
  }
}

/** Aggregates a stream of cells (for example `readCells(file)`) against the run's header, judged against `gates`. */
export async function summarize(header: RunHeader, cells: AsyncIterable<CellRecord> | Iterable<CellRecord>, gates: GateOptions = {}): Promise<EvalSummary> {
  const aggregator = new Aggregator(header);
  for await (const cell of cells) aggregator.add(cell);
  return aggregator.summary(gates);
}

