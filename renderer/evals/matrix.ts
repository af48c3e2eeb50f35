/**
 * The case × model matrix of an evaluation run, as the results view shows it:
 * one row per case (grouped by skill, in the run's order), one column per
 * model and variant, and in each slot the counts of that case's repeats.
 *
 * Cells are added as they land (a live run) or as they are read back (a
 * finished one); the counts live in flat typed arrays, so 10,000 cells cost a
 * few hundred kilobytes and a scroll reads numbers, not objects. What a slot
 * *means* (pass, fail, error, flaky) is the rule every report uses
 * (core/report/repeats.ts); nothing here computes a rate.
 */
import type { CaseInfo, CellRecord, ModelInfo, VariantInfo } from '../../evals/types';
import { modelLabels } from '../../core/report/modelLabels';
import { repeatsFlaky, repeatsVerdict, type RepeatCounts, type RepeatsVerdict } from '../../core/report/repeats';

/** A cell as the matrix keeps it: everything but the trace (fetched on demand). */
export type MatrixCell = Omit<CellRecord, 'trace'>;

/** What the matrix is built over: the run header's facts. */
export interface MatrixShape {
  models: readonly ModelInfo[];
  variants: readonly Pick<VariantInfo, 'label' | 'skill'>[];
  cases: readonly CaseInfo[];
  repeats: number;
}

/** One column: a model under one variant. */
export interface MatrixColumn {
  index: number;
  model: string;
  isBaseline: boolean;
  variant: string;
  /** Short, distinguishing label of the model (full spec in `model`). */
  label: string;
}

/** One row: a case. */
export interface MatrixRow {
  index: number;
  case: CaseInfo;
}

/** What a slot shows. `na`: the case's skill has no such variant; `pending`: no repeat recorded yet. */
export type SlotState = 'na' | 'pending' | RepeatsVerdict;

/** The counts of one slot. */
export interface SlotCounts extends RepeatCounts {
  /** Repeats the run will record for this slot. */
  expected: number;
}

const FIELDS = 5;
const N = 0;
const ACTIVATED = 1;
const NOT_ACTIVATED = 2;
const ERRORS = 3;
const INVALID = 4;

/**
 * Short labels that still tell models apart, the same the HTML report's
 * charts use (core/report/modelLabels.ts); the full spec goes in a tooltip.
 */
export function shortLabels(specs: readonly string[]): string[] {
  return modelLabels(specs);
}

/** The matrix of one run. */
export class MatrixModel {
  readonly columns: readonly MatrixColumn[];
  readonly rows: readonly MatrixRow[];
  readonly repeats: number;
  /** Bumped on every change, so a view knows when to redraw. */
  version = 0;
  private readonly counts: Uint16Array;
  private readonly applicable: Uint8Array;
  private readonly cells = new Map<string, MatrixCell>();
  private readonly rowOf = new Map<string, number>();
  private readonly columnOf = new Map<string, number>();

  constructor(shape: MatrixShape) {
    this.repeats = Math.max(1, shape.repeats);
    const labels = [...new Set(shape.variants.map((v) => v.label))];
    const short = shortLabels(shape.models.map((m) => m.spec));
    const columns: MatrixColumn[] = [];
    shape.models.forEach((m, i) => {
      for (const variant of labels) columns.push({ index: columns.length, model: m.spec, isBaseline: m.isBaseline, variant, label: short[i]! });
    });
    this.columns = columns;
    for (const c of columns) this.columnOf.set(`${c.model}\u0000${c.variant}`, c.index);
    // Rows grouped by skill, in the order skills first appear.
    const skills = [...new Set(shape.cases.map((c) => c.skill))];
    const ordered = skills.flatMap((s) => shape.cases.filter((c) => c.skill === s));
    this.rows = ordered.map((c, index) => ({ index, case: c }));
    this.rows.forEach((r) => this.rowOf.set(r.case.id, r.index));
    const variantsOf = new Map<string, Set<string>>();
    for (const v of shape.variants) variantsOf.set(v.skill, (variantsOf.get(v.skill) ?? new Set()).add(v.label));
    this.applicable = new Uint8Array(this.rows.length * columns.length);
    for (const r of this.rows) {
      const own = variantsOf.get(r.case.skill);
      for (const c of columns) this.applicable[r.index * columns.length + c.index] = own?.has(c.variant) ? 1 : 0;
    }
    this.counts = new Uint16Array(this.rows.length * columns.length * FIELDS);
  }

  /** Cells recorded so far. */
  get size(): number {
    return this.cells.size;
  }

  /** Adds cells (a cell seen before, or outside the matrix, is ignored); returns how many were new. */
  add(cells: Iterable<MatrixCell>): number {
    let added = 0;
    for (const cell of cells) {
      if (this.cells.has(cell.key)) continue;
      const r = this.rowOf.get(cell.case);
      const c = this.columnOf.get(`${cell.model}\u0000${cell.variant}`);
      if (r === undefined || c === undefined) continue;
      this.cells.set(cell.key, cell);
      const at = (r * this.columns.length + c) * FIELDS;
      this.counts[at + N]!++;
      // Each repeat in exactly one count: an unusable answer is neither activated nor not (core/report/repeats.ts).
      if (cell.outcome === 'error') this.counts[at + ERRORS]!++;
      else if (cell.invalid) this.counts[at + INVALID]!++;
      else if (cell.outcome === 'activated') this.counts[at + ACTIVATED]!++;
      else this.counts[at + NOT_ACTIVATED]!++;
      added++;
    }
    if (added > 0) this.version++;
    return added;
  }

  /** Whether the case of row `r` is evaluated under column `c`'s variant. */
  isApplicable(r: number, c: number): boolean {
    return this.applicable[r * this.columns.length + c] === 1;
  }

  /** The counts of slot (row, column). */
  slot(r: number, c: number): SlotCounts {
    const at = (r * this.columns.length + c) * FIELDS;
    const counts = this.counts;
    return {
      expect: this.rows[r]!.case.expect,
      n: counts[at + N]!,
      activated: counts[at + ACTIVATED]!,
      notActivated: counts[at + NOT_ACTIVATED]!,
      errors: counts[at + ERRORS]!,
      invalid: counts[at + INVALID]!,
      expected: this.isApplicable(r, c) ? this.repeats : 0,
    };
  }

  /** What slot (row, column) shows. */
  state(r: number, c: number): SlotState {
    if (!this.isApplicable(r, c)) return 'na';
    const counts = this.slot(r, c);
    return counts.n === 0 ? 'pending' : repeatsVerdict(counts);
  }

  /** Whether the answered repeats of slot (row, column) disagree. */
  flaky(r: number, c: number): boolean {
    return repeatsFlaky(this.slot(r, c));
  }

  /** The key of repeat `repeat` of slot (row, column), as the run records it. */
  key(r: number, c: number, repeat: number): string {
    const column = this.columns[c]!;
    return `${column.model}|${column.variant}|${this.rows[r]!.case.id}|${repeat}`;
  }

  /** The recorded cells of slot (row, column), by repeat (undefined where a repeat is not recorded). */
  repeatsOf(r: number, c: number): (MatrixCell | undefined)[] {
    return Array.from({ length: this.repeats }, (_, i) => this.cells.get(this.key(r, c, i)));
  }

  /** Every recorded cell, in the order they were added. */
  allCells(): IterableIterator<MatrixCell> {
    return this.cells.values();
  }

  /** Recorded cells of each column, and the cells the run expects there. */
  columnProgress(c: number): { recorded: number; expected: number } {
    let recorded = 0;
    let expected = 0;
    for (let r = 0; r < this.rows.length; r++) {
      if (!this.isApplicable(r, c)) continue;
      expected += this.repeats;
      recorded += this.counts[(r * this.columns.length + c) * FIELDS + N]!;
    }
    return { recorded, expected };
  }
}

/** Which rows the matrix shows (promptfoo's display modes, plus Flaky). */
export type DisplayMode = 'all' | 'failures' | 'errors' | 'flaky' | 'different';

/** The display modes, in the order the toolbar shows them, with their meaning. */
export const DISPLAY_MODES: readonly { mode: DisplayMode; label: string; title: string }[] = [
  { mode: 'all', label: 'All', title: 'Every case' },
  { mode: 'failures', label: 'Failures', title: 'Cases a column got wrong (a majority of its repeats wrong)' },
  { mode: 'errors', label: 'Errors', title: 'Cases with at least one repeat that ended in an error' },
  { mode: 'flaky', label: 'Flaky', title: 'Cases whose answered repeats disagree in some column' },
  { mode: 'different', label: 'Different', title: 'Cases the columns do not all give the same verdict' },
];

/** Why a cell did not pass, for the failure-group chips. */
export function failureKind(cell: MatrixCell): string | undefined {
  if (cell.outcome !== 'error' && cell.invalid) return 'unusable answer';
  if (cell.outcome === 'error') {
    const message = cell.error ?? '';
    const kind = /call failed: ([a-z_]+):/.exec(message)?.[1];
    if (kind) return `error: ${kind.replace(/_/g, ' ')}`;
    const first = message.split(/[.:\n]/)[0]!.replace(/\d+/g, '#').trim();
    return `error: ${first.slice(0, 60) || 'unknown'}`;
  }
  const correct = (cell.outcome === 'activated') === (cell.expect === 'activate');
  if (correct) return undefined;
  if (cell.expect === 'not_activate') return 'activated when it should not';
  return cell.activated.length > 0 ? 'missed: another skill activated' : 'missed: nothing activated';
}

/** One failure group: cells sharing a failure kind. */
export interface FailureGroup {
  kind: string;
  /** Cells (repeats) of this kind. */
  cells: number;
  /** Rows holding at least one of them. */
  rows: Set<number>;
}

/** The failure groups of the matrix, most cells first. */
export function failureGroups(matrix: MatrixModel): FailureGroup[] {
  const groups = new Map<string, FailureGroup>();
  const rowIndex = new Map(matrix.rows.map((r) => [r.case.id, r.index]));
  for (const cell of matrix.allCells()) {
    const kind = failureKind(cell);
    if (!kind) continue;
    let g = groups.get(kind);
    if (!g) groups.set(kind, (g = { kind, cells: 0, rows: new Set() }));
    g.cells++;
    const r = rowIndex.get(cell.case);
    if (r !== undefined) g.rows.add(r);
  }
  return [...groups.values()].sort((a, b) => b.cells - a.cells || (a.kind < b.kind ? -1 : 1));
}

/** The filter of the matrix toolbar. */
export interface MatrixFilter {
  mode: DisplayMode;
  /** A regular expression (case-insensitive) over the case's request, id and skill; empty for none. */
  search: string;
  /** The failure group shown alone, if one is chosen. */
  group?: string;
}

/** The filter's search as a RegExp, or the reason it is not one. */
export function searchPattern(search: string): RegExp | string | undefined {
  if (search.trim() === '') return undefined;
  try {
    return new RegExp(search, 'i');
  } catch (error) {
    return (error as Error).message;
  }
}

function rowMatchesMode(matrix: MatrixModel, r: number, mode: DisplayMode): boolean {
  if (mode === 'all') return true;
  const seen = new Set<SlotState>();
  for (let c = 0; c < matrix.columns.length; c++) {
    const state = matrix.state(r, c);
    if (state === 'na' || state === 'pending') continue;
    if (mode === 'failures' && state === 'fail') return true;
    if (mode === 'errors' && matrix.slot(r, c).errors > 0) return true;
    if (mode === 'flaky' && matrix.flaky(r, c)) return true;
    seen.add(state);
  }
  return mode === 'different' && seen.size > 1;
}

/**
 * The rows the filter keeps, in matrix order. An invalid regular expression
 * filters nothing (the toolbar says why).
 */
export function visibleRows(matrix: MatrixModel, filter: MatrixFilter, groups?: readonly FailureGroup[]): number[] {
  const pattern = searchPattern(filter.search);
  const regex = pattern instanceof RegExp ? pattern : undefined;
  const group = filter.group ? (groups ?? failureGroups(matrix)).find((g) => g.kind === filter.group) : undefined;
  const out: number[] = [];
  for (const row of matrix.rows) {
    if (filter.group && !group?.rows.has(row.index)) continue;
    if (regex && !regex.test(row.case.request) && !regex.test(row.case.id) && !regex.test(row.case.skill)) continue;
    if (!rowMatchesMode(matrix, row.index, filter.mode)) continue;
    out.push(row.index);
  }
  return out;
}
