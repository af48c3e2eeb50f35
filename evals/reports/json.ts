/**
 * The JSON report: one complete document, streamed to disk.
 *
 * ```
 * { "format":  "skillbench.eval-report/v1",
 *   "models":  [{ model, skills: [{ skill, tp, fp, tn, fn, errors, accuracy, precision, recall, f1, ...extra }], ...extra }],
 *   "summary": EvalSummary,
 *   "run":     RunHeader,
 *   "cells":   [CellRecord, ...] }
 * ```
 *
 * Traceability: a skill row counts exactly the cells with its `model`,
 * `variant` and `skill` (its `cell_filter`); each such cell lands in one of
 * tp/fp/tn/fn/errors by its `expect` and `outcome` (see docs/eval-reports.md).
 * The writer recounts every row from the cells file before writing (`counted`)
 * and states whether the summary agrees (`matches_cells`).
 *
 * The file is read twice (recount, then copy) and never held in memory: the
 * document's size is bounded only by the disk.
 */
import { addToConfusion, type Confusion } from '../metrics';
import type { CellRecord, EvalSummary, ModelMetrics, RunHeader, SkillMetrics } from '../types';
import { readCells } from './cells';
import { writeReportFile, type ReportSink } from './sink';

/** The JSON report's `format` tag, its first key (as every `--json` document of the CLI has one). */
export const JSON_REPORT_FORMAT = 'skillbench.eval-report/v1';

/** Result of writing a report. */
export interface ReportWritten {
  path: string;
  bytes: number;
  /** Cells read from the cells file. */
  cells: number;
  /** 1 when an incomplete last line of the cells file was skipped. */
  tornLines: number;
}

/** Result of {@link writeJsonReport}. */
export interface JsonReportWritten extends ReportWritten {
  /** Summary rows whose counts differ from a recount of the cells (empty when consistent). */
  mismatches: Array<{ model: string; variant?: string; skill?: string }>;
  /** Cells whose model, variant and skill match no summary row. */
  uncountedCells: number;
}

interface Recount extends Confusion {
  cells: number;
}

const emptyRecount = (): Recount => ({ tp: 0, fp: 0, tn: 0, fn: 0, errors: 0, invalid: 0, cells: 0 });

function rowId(model: string, variant: string, skill: string): string {
  return `${model}\u0000${variant}\u0000${skill}`;
}

/** Recounts every (model, variant, skill) and every model from the cells file. */
async function recount(cellsFile: string): Promise<{ rows: Map<string, Recount>; models: Map<string, Recount>; cells: number }> {
  const rows = new Map<string, Recount>();
  const models = new Map<string, Recount>();
  let cells = 0;
  for await (const cell of readCells(cellsFile)) {
    cells++;
    const id = rowId(cell.model, cell.variant, cell.skill);
    let row = rows.get(id);
    if (!row) rows.set(id, (row = emptyRecount()));
    let model = models.get(cell.model);
    if (!model) models.set(cell.model, (model = emptyRecount()));
    for (const r of [row, model]) {
      addToConfusion(r, { expected: cell.expect, outcome: cell.outcome, invalid: cell.invalid === true });
      r.cells++;
    }
  }
  return { rows, models, cells };
}

const COUNT_FIELDS = ['tp', 'fp', 'tn', 'fn', 'errors', 'invalid', 'cells'] as const;

function skillEntry(model: string, s: SkillMetrics, counted: Recount): Record<string, unknown> {
  const matches = COUNT_FIELDS.every((f) => s[f] === counted[f]);
  // The required fields first, in the documented order; extras after them.
  return {
    skill: s.skill,
    tp: s.tp,
    fp: s.fp,
    tn: s.tn,
    fn: s.fn,
    errors: s.errors,
    accuracy: s.accuracy,
    precision: s.precision,
    recall: s.recall,
    f1: s.f1,
    variant: s.variant,
    invalid: s.invalid,
    cells: s.cells,
    cell_filter: { model, variant: s.variant, skill: s.skill },
    counted: { ...counted },
    matches_cells: matches,
  };
}

function modelEntry(m: ModelMetrics, skills: Record<string, unknown>[], counted: Recount): Record<string, unknown> {
  return {
    model: m.model,
    skills,
    isBaseline: m.isBaseline,
    cells: m.cells,
    errors: m.errors,
    invalid: m.invalid,
    latency_p50_ms: m.latency_p50_ms,
    latency_p95_ms: m.latency_p95_ms,
    input_tokens: m.input_tokens,
    output_tokens: m.output_tokens,
    cost_usd: m.cost_usd,
    cell_filter: { model: m.model },
    counted: { cells: counted.cells, errors: counted.errors, invalid: counted.invalid },
    matches_cells: m.cells === counted.cells && m.errors === counted.errors && m.invalid === counted.invalid,
  };
}

/** `JSON.stringify(value, null, 2)` indented to sit at `depth` inside an outer document. */
function pretty(value: unknown, depth: number): string {
  return JSON.stringify(value, null, 2).replace(/\n/g, `\n${'  '.repeat(depth)}`);
}

async function writeCells(sink: ReportSink, cellsFile: string, onTorn: () => void): Promise<number> {
  let n = 0;
  for await (const cell of readCells(cellsFile, { onTornLine: onTorn })) {
    // One cell per line: the document stays greppable and diffable.
    await sink.write(`${n === 0 ? '\n' : ',\n'}    ${JSON.stringify(cell satisfies CellRecord)}`);
    n++;
  }
  await sink.write(n === 0 ? ']' : '\n  ]');
  return n;
}

/**
 * Writes the JSON report of a run to `path` (atomically), copying every cell
 * of `cellsFile` with its full trace. Memory stays bounded by the summary, not
 * by the number or size of the cells.
 */
export async function writeJsonReport(path: string, header: RunHeader, summary: EvalSummary, cellsFile: string): Promise<JsonReportWritten> {
  const counts = await recount(cellsFile);
  const mismatches: JsonReportWritten['mismatches'] = [];
  const countedRows = new Set<string>();
  const models = summary.models.map((m) => {
    const skills = m.skills.map((s) => {
      const id = rowId(m.model, s.variant, s.skill);
      countedRows.add(id);
      const entry = skillEntry(m.model, s, counts.rows.get(id) ?? emptyRecount());
      if (!entry.matches_cells) mismatches.push({ model: m.model, variant: s.variant, skill: s.skill });
      return entry;
    });
    const entry = modelEntry(m, skills, counts.models.get(m.model) ?? emptyRecount());
    if (!entry.matches_cells) mismatches.push({ model: m.model });
    return entry;
  });
  let uncountedCells = 0;
  for (const [id, r] of counts.rows) if (!countedRows.has(id)) uncountedCells += r.cells;

  let cells = 0;
  let tornLines = 0;
  const bytes = await writeReportFile(path, async (sink) => {
    await sink.write(`{\n  "format": ${JSON.stringify(JSON_REPORT_FORMAT)},\n  "models": ${pretty(models, 1)},\n`);
    await sink.write(`  "summary": ${pretty(summary, 1)},\n`);
    await sink.write(`  "run": ${pretty(header, 1)},\n`);
    await sink.write('  "cells": [');
    cells = await writeCells(sink, cellsFile, () => tornLines++);
    await sink.write('\n}\n');
  });
  return { path, bytes, cells, tornLines, mismatches, uncountedCells };
}
