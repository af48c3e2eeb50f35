/**
 * Folding the repeats of one case: the cells of (model, variant, case) become
 * one row with counts, the basis of a JUnit testcase and of a case × model
 * matrix cell. Memory grows with models × variants × cases, never with repeats
 * or trace sizes.
 */
import { correctCount as sharedCorrect, repeatsFlaky, repeatsVerdict, wrongCount as sharedWrong, type RepeatsVerdict } from '../../core/report/repeats';
import type { Expectation } from '../metrics';
import type { CellRecord } from '../types';

/** How many cell keys a fold keeps to point at its cells (a few examples, not a list that grows with repeats). */
const MAX_KEYS = 4;
const MAX_ERROR_CHARS = 500;

/** The repeats of one case under one model and variant. */
export interface CaseFold {
  model: string;
  variant: string;
  case: string;
  skill: string;
  expect: Expectation;
  /** All repeats seen. */
  n: number;
  /** Usable answers where the skill under test activated. */
  activated: number;
  notActivated: number;
  errors: number;
  /** Answers the selector rejected: unusable, counted apart from activated and not activated. */
  invalid: number;
  /** Other skills activated across the repeats, with counts. */
  activatedSkills: Map<string, number>;
  /** Diagnostic codes seen, with counts. */
  diagnostics: Map<string, number>;
  /** The first cell keys of this case, in file order (at most 4). */
  keys: string[];
  firstError?: string;
  latencyMs: number;
}

/** A fold's verdict: majority correct, else wrong, unusable answers, or errors (core/report/repeats.ts). */
export type FoldVerdict = RepeatsVerdict;

/** Repeats whose answer matched the expectation. */
export const correctCount: (f: CaseFold) => number = sharedCorrect;

/** Repeats that answered and were wrong. */
export const wrongCount: (f: CaseFold) => number = sharedWrong;

/** The fold's verdict (core/report/repeats.ts: the rule every case × model view shares). */
export const verdict: (f: CaseFold) => FoldVerdict = repeatsVerdict;

/** The repeats disagreed among those that answered. */
export const isFlaky: (f: CaseFold) => boolean = repeatsFlaky;

/** Whether one cell's answer matched its expectation (null for an error cell or an unusable answer). */
export function cellCorrect(cell: Pick<CellRecord, 'expect' | 'outcome' | 'invalid'>): boolean | null {
  if (cell.outcome === 'error' || cell.invalid === true) return null;
  return (cell.outcome === 'activated') === (cell.expect === 'activate');
}

/** Accumulates folds from a stream of cells. */
export class CaseFolder {
  private readonly folds = new Map<string, CaseFold>();

  /** Adds one cell to the fold of its (model, variant, case). */
  add(cell: CellRecord): void {
    const id = foldId(cell.model, cell.variant, cell.case);
    let f = this.folds.get(id);
    if (!f) {
      f = {
        model: cell.model,
        variant: cell.variant,
        case: cell.case,
        skill: cell.skill,
        expect: cell.expect,
        n: 0,
        activated: 0,
        notActivated: 0,
        errors: 0,
        invalid: 0,
        activatedSkills: new Map(),
        diagnostics: new Map(),
        keys: [],
        latencyMs: 0,
      };
      this.folds.set(id, f);
    }
    f.n++;
    if (cell.outcome === 'error') {
      f.errors++;
      if (f.firstError === undefined && typeof cell.error === 'string') f.firstError = cell.error.slice(0, MAX_ERROR_CHARS);
    } else if (cell.invalid === true) f.invalid++;
    else if (cell.outcome === 'activated') f.activated++;
    else f.notActivated++;
    for (const s of cell.activated) f.activatedSkills.set(s, (f.activatedSkills.get(s) ?? 0) + 1);
    if (Array.isArray(cell.diagnostics)) {
      for (const d of cell.diagnostics) {
        if (d && typeof d.code === 'string') f.diagnostics.set(d.code, (f.diagnostics.get(d.code) ?? 0) + 1);
      }
    }
    if (f.keys.length < MAX_KEYS) f.keys.push(cell.key);
    if (Number.isFinite(cell.latency_ms)) f.latencyMs += cell.latency_ms;
  }

  /** The fold of (model, variant, case), if any cell was seen. */
  get(model: string, variant: string, caseId: string): CaseFold | undefined {
    return this.folds.get(foldId(model, variant, caseId));
  }

  /** Every fold, in first-seen order. */
  all(): CaseFold[] {
    return [...this.folds.values()];
  }
}

/** The identity of the fold a cell belongs to. */
export function foldId(model: string, variant: string, caseId: string): string {
  return `${model}\u0000${variant}\u0000${caseId}`;
}

/** `a ×2, b ×1`, most frequent first. */
export function describeCounts(counts: Map<string, number>): string {
  return [...counts]
    .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))
    .map(([name, count]) => `${name} ×${count}`)
    .join(', ');
}

/** Orders items by the position of their key in `order`, unknown keys last in first-seen order. */
export function orderBy<T>(items: readonly T[], keyOf: (item: T) => string, order: readonly string[]): T[] {
  const rank = new Map(order.map((k, i) => [k, i] as const));
  return items
    .map((item, i) => ({ item, i, r: rank.get(keyOf(item)) ?? order.length }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.item);
}
