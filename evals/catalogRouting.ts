/**
 * Where a catalog's requests went, from the cells of an evaluation run: a
 * skill × skill matrix of the skills each skill's should-activate requests
 * activated, which skills fire together, and the pairs that take each other's
 * requests.
 *
 * Counting rules (the same as evals/aggregate.ts):
 * - a cell is counted once (by model, variant, case and repeat);
 * - `error` cells are counted apart and in no row;
 * - skills bound `always` in the cell's catalog are left out: they are active
 *   on every request and say nothing about routing;
 * - a row is one skill's should-activate requests (its own cases that expect
 *   activation); each answered cell adds one to every skill it activated, or
 *   to `none` when it activated nothing; a cell in which the skill itself
 *   stayed inactive also adds one to `stolen` for every skill that fired;
 * - two skills fire together when both are active in one answered cell, of any case.
 *
 * Cells are streamed: memory holds the counts and one key per cell.
 */
import { compareIds } from '../core/selector/bindings';
import type { SkillAffinity } from '../core/catalog/split';
import type { CatalogRoutingPair, CatalogRoutingRow, CatalogRoutingView } from '../core/api/contract';
import type { CellRecord, RunHeader } from './types';

/** One skill's row of the matrix (the WorkbenchApi's type: `catalog.health` returns this matrix as is). */
export type RoutingRow = CatalogRoutingRow;

/** A pair of skills and how they confuse each other. */
export type RoutingPair = CatalogRoutingPair;

/** The matrix of one run (or the part of it a filter chose). */
export type RoutingMatrix = CatalogRoutingView;

/** Which cells to count. */
export interface RoutingFilter {
  /** Only this model (`--model` spec). */
  model?: string;
  /** Only this variant label (`draft`, `published` ...). */
  variant?: string;
}

const pairKey = (a: string, b: string) => (compareIds(a, b) < 0 ? `${a}\n${b}` : `${b}\n${a}`);

function bump(record: Record<string, number>, key: string, by = 1): void {
  record[key] = (record[key] ?? 0) + by;
}

/** Counts cells into a {@link RoutingMatrix}; add cells one by one, then read {@link RoutingTally.result}. */
export class RoutingTally {
  private readonly cases = new Map<string, { skill: string; expect: string; adjacent: boolean }>();
  private readonly rows = new Map<string, RoutingRow>();
  private readonly together = new Map<string, number>();
  private readonly seen = new Set<string>();
  private readonly always = new Map<string, ReadonlySet<string>>();
  private readonly models = new Set<string>();
  private readonly variants = new Set<string>();
  private readonly skills = new Set<string>();
  private answered = 0;

  constructor(
    private readonly header: Pick<RunHeader, 'cases' | 'catalogs'>,
    private readonly filter: RoutingFilter = {},
  ) {
    for (const c of header.cases) {
      this.cases.set(c.id, { skill: c.skill, expect: c.expect, adjacent: c.source === 'adjacent' });
      this.skills.add(c.skill);
    }
    for (const [key, catalog] of Object.entries(header.catalogs)) {
      this.always.set(key, new Set(catalog.entries.filter((e) => e.activation === 'always').map((e) => e.skill)));
      for (const e of catalog.entries) if (e.activation !== 'always') this.skills.add(e.skill);
    }
  }

  private row(skill: string): RoutingRow {
    let row = this.rows.get(skill);
    if (!row) {
      row = { skill, requests: 0, errors: 0, went_to: {}, none: 0, stolen_by: {}, adjacent: { cells: 0, activated: 0 } };
      this.rows.set(skill, row);
    }
    return row;
  }

  /** Adds one cell; returns false when it was not counted (filtered out, unknown case, or seen before). */
  add(cell: CellRecord): boolean {
    if (this.filter.model !== undefined && cell.model !== this.filter.model) return false;
    if (this.filter.variant !== undefined && cell.variant !== this.filter.variant) return false;
    const info = this.cases.get(cell.case);
    if (!info) return false;
    const key = `${cell.model}|${cell.variant}|${cell.case}|${cell.repeat}`;
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    this.models.add(cell.model);
    this.variants.add(cell.variant);
    const always = this.always.get(`${cell.variant}|${info.skill}`) ?? new Set<string>();
    const own = info.expect === 'activate' ? this.row(info.skill) : undefined;
    if (cell.outcome === 'error') {
      if (own) own.errors++;
      return true;
    }
    this.answered++;
    const fired = [...new Set(cell.activated)].filter((s) => !always.has(s)).sort(compareIds);
    for (const s of fired) this.skills.add(s);
    for (let i = 0; i < fired.length; i++) {
      for (let j = i + 1; j < fired.length; j++) this.together.set(pairKey(fired[i]!, fired[j]!), (this.together.get(pairKey(fired[i]!, fired[j]!)) ?? 0) + 1);
    }
    if (info.adjacent) {
      const row = this.row(info.skill);
      row.adjacent.cells++;
      if (fired.includes(info.skill)) row.adjacent.activated++;
    }
    if (own) {
      own.requests++;
      if (fired.length === 0) own.none++;
      const stayed = !fired.includes(info.skill);
      for (const s of fired) {
        bump(own.went_to, s);
        if (stayed) bump(own.stolen_by, s);
      }
    }
    return true;
  }

  /** The matrix of the cells added so far. */
  result(): RoutingMatrix {
    const skills = [...this.skills].sort(compareIds);
    const rows = skills.map((s) => {
      const r = this.rows.get(s) ?? { skill: s, requests: 0, errors: 0, went_to: {}, none: 0, stolen_by: {}, adjacent: { cells: 0, activated: 0 } };
      return { ...r, went_to: sorted(r.went_to), stolen_by: sorted(r.stolen_by), adjacent: { ...r.adjacent } };
    });
    const byRow = new Map(rows.map((r) => [r.skill, r]));
    const pairs: RoutingPair[] = [];
    for (let i = 0; i < skills.length; i++) {
      for (let j = i + 1; j < skills.length; j++) {
        const a = skills[i]!;
        const b = skills[j]!;
        const pair: RoutingPair = {
          a,
          b,
          a_to_b: byRow.get(a)?.stolen_by[b] ?? 0,
          b_to_a: byRow.get(b)?.stolen_by[a] ?? 0,
          fired_together: this.together.get(pairKey(a, b)) ?? 0,
        };
        if (pair.a_to_b + pair.b_to_a + pair.fired_together > 0) pairs.push(pair);
      }
    }
    pairs.sort((x, y) => y.a_to_b + y.b_to_a - (x.a_to_b + x.b_to_a) || y.fired_together - x.fired_together || compareIds(x.a, y.a) || compareIds(x.b, y.b));
    return { skills, rows, pairs, models: [...this.models].sort(compareIds), variants: [...this.variants].sort(compareIds), cells: this.answered };
  }
}

function sorted(record: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => compareIds(a, b)));
}

/** Counts a whole list of cells (see {@link RoutingTally} for the rules). */
export function routingMatrix(header: Pick<RunHeader, 'cases' | 'catalogs'>, cells: Iterable<CellRecord>, filter: RoutingFilter = {}): RoutingMatrix {
  const tally = new RoutingTally(header, filter);
  for (const cell of cells) tally.add(cell);
  return tally.result();
}

/**
 * How confused each pair is, for a split that keeps confused skills together:
 * requests stolen either way weigh double, requests both took once.
 */
export function routingAffinity(matrix: RoutingMatrix): SkillAffinity[] {
  return matrix.pairs.map((p) => ({ a: p.a, b: p.b, weight: 2 * (p.a_to_b + p.b_to_a) + p.fired_together }));
}
