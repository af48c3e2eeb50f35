import { describe, expect, it } from 'vitest';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeJsonReport } from '../../../../evals/reports/json';
import { WorkbenchError } from '../../../../core/errors';
import type { EvalSummary } from '../../../../evals/types';
import { judgeRun } from '../../../../evals/verdict';
import { FLIGHTS, MODEL_A, MODEL_B, WEATHER, fixtureCells, fixtureHeader, fixtureSummary, writeRun } from './fixture';
import { measureHeap, writeLargeRun } from './largeRun';

const REQUIRED_SKILL_FIELDS = ['skill', 'tp', 'fp', 'tn', 'fn', 'errors', 'accuracy', 'precision', 'recall', 'f1'];

describe('writeJsonReport', () => {
  it('refuses a path whose folder does not exist, naming it, and creates nothing', async () => {
    const run = await writeRun(fixtureCells());
    try {
      const path = join(run.dir, 'missing', 'deeper', 'report.json');
      const error = await writeJsonReport(path, fixtureHeader(), fixtureSummary(), run.cellsFile).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WorkbenchError);
      expect(error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining(`the folder ${join(run.dir, 'missing', 'deeper')} does not exist`) });
      expect(await readdir(run.dir)).not.toContain('missing');
    } finally {
      await run.cleanup();
    }
  });

  it('writes one document: its format tag, models (required shape first), summary, run, and every cell with its trace', async () => {
    const cells = fixtureCells();
    const run = await writeRun(cells, '{"key": "torn');
    try {
      const path = join(run.dir, 'report.json');
      const result = await writeJsonReport(path, fixtureHeader(), fixtureSummary(), run.cellsFile);
      const text = await readFile(path, 'utf8');
      const doc = JSON.parse(text) as Record<string, unknown>;
      expect(Object.keys(doc)).toEqual(['format', 'models', 'summary', 'run', 'cells']);
      expect(doc.format).toBe('skillbench.eval-report/v1');
      expect(result).toMatchObject({ path, cells: 24, tornLines: 1, mismatches: [], uncountedCells: 0 });
      expect(result.bytes).toBe(Buffer.byteLength(text));

      const models = doc.models as Array<Record<string, unknown>>;
      expect(models.map((m) => Object.keys(m).slice(0, 2))).toEqual([
        ['model', 'skills'],
        ['model', 'skills'],
      ]);
      expect(models.map((m) => m.model)).toEqual([MODEL_A, MODEL_B]);
      const skills = models.flatMap((m) => m.skills as Array<Record<string, unknown>>);
      for (const s of skills) expect(Object.keys(s).slice(0, REQUIRED_SKILL_FIELDS.length)).toEqual(REQUIRED_SKILL_FIELDS);
      // The hand-computed numbers of model A / weather.
      expect(skills[0]).toMatchObject({ skill: WEATHER, tp: 5, fp: 2, tn: 0, fn: 1, errors: 0, accuracy: 5 / 8, precision: 5 / 7, recall: 5 / 6, f1: 10 / 13 });
      expect(skills[0]).toMatchObject({ cell_filter: { model: MODEL_A, variant: 'draft', skill: WEATHER }, counted: { tp: 5, fp: 2, tn: 0, fn: 1, errors: 0, invalid: 1, cells: 9 }, matches_cells: true });
      expect(skills[3]).toMatchObject({ skill: FLIGHTS, tp: 2, errors: 1, matches_cells: true });
      expect(models[1]).toMatchObject({ isBaseline: true, matches_cells: true, counted: { cells: 12, errors: 1, invalid: 0 } });

      expect(doc.summary).toEqual(fixtureSummary());
      expect(doc.run).toEqual(fixtureHeader());
      // Every cell, in order, byte-for-byte equal after parsing (the torn line is not one).
      expect(doc.cells).toEqual(cells);
    } finally {
      await run.cleanup();
    }
  });

  it('lets a reader select the cells behind any number with the documented filter', async () => {
    const cells = fixtureCells();
    const run = await writeRun(cells);
    try {
      const path = join(run.dir, 'report.json');
      await writeJsonReport(path, fixtureHeader(), fixtureSummary(), run.cellsFile);
      const doc = JSON.parse(await readFile(path, 'utf8')) as { models: Array<{ skills: Array<Record<string, number> & { cell_filter: Record<string, string> }> }>; cells: typeof cells };
      for (const s of doc.models.flatMap((m) => m.skills)) {
        const f = s.cell_filter;
        const mine = doc.cells.filter((c) => c.model === f.model && c.variant === f.variant && c.skill === f.skill);
        // Unusable answers are their own count, whatever the runtime did with them.
        const count = (expect: string, outcome: string) => mine.filter((c) => c.expect === expect && c.outcome === outcome && !c.invalid).length;
        expect(count('activate', 'activated')).toBe(s.tp);
        expect(count('not_activate', 'activated')).toBe(s.fp);
        expect(count('not_activate', 'not_activated')).toBe(s.tn);
        expect(count('activate', 'not_activated')).toBe(s.fn);
        expect(mine.filter((c) => c.outcome === 'error')).toHaveLength(s.errors!);
        expect(mine.filter((c) => c.outcome !== 'error' && c.invalid)).toHaveLength(s.invalid!);
      }
    } finally {
      await run.cleanup();
    }
  });

  it('flags summary rows that the cells do not support', async () => {
    const run = await writeRun(fixtureCells());
    try {
      const summary: EvalSummary = fixtureSummary();
      summary.models[0]!.skills[0]!.fp = 0; // an aggregation bug that hides two false positives
      const result = await writeJsonReport(join(run.dir, 'r.json'), fixtureHeader(), summary, run.cellsFile);
      expect(result.mismatches).toEqual([{ model: MODEL_A, variant: 'draft', skill: WEATHER }]);
      const doc = JSON.parse(await readFile(join(run.dir, 'r.json'), 'utf8')) as { models: Array<{ skills: Array<{ matches_cells: boolean; counted: { fp: number } }> }> };
      expect(doc.models[0]!.skills[0]).toMatchObject({ matches_cells: false, counted: { fp: 2 } });
    } finally {
      await run.cleanup();
    }
  });

  it('leaves the previous report untouched and no temp file behind when the cells are corrupt', async () => {
    const cells = fixtureCells();
    const run = await writeRun([]);
    try {
      const path = join(run.dir, 'report.json');
      await writeFile(path, 'previous');
      await writeFile(run.cellsFile, `${JSON.stringify(cells[0])}\nnot json\n${JSON.stringify(cells[1])}\n`);
      await expect(writeJsonReport(path, fixtureHeader(), fixtureSummary(), run.cellsFile)).rejects.toBeInstanceOf(WorkbenchError);
      expect(await readFile(path, 'utf8')).toBe('previous');
      expect((await readdir(run.dir)).sort()).toEqual(['cells.jsonl', 'report.json']);
    } finally {
      await run.cleanup();
    }
  });

  it('writes a valid document for a run with no cells yet', async () => {
    const run = await writeRun([]);
    try {
      const path = join(run.dir, 'report.json');
      const totals = { cells: 0, errors: 0, invalid: 0, cached: 0 };
      await writeJsonReport(path, fixtureHeader(), { models: [], comparisons: [], totals, ...judgeRun(fixtureHeader(), { models: [], comparisons: [], totals }) }, run.cellsFile);
      expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ models: [], cells: [] });
    } finally {
      await run.cleanup();
    }
  });

  it('streams 20,000 cells with traces in bounded memory', async () => {
    const run = await writeRun([]);
    try {
      const large = await writeLargeRun(run.cellsFile, { models: ['openai:a', 'openai:b', 'groq:c', 'lexical'], casesPerSkill: 250, repeats: 10 });
      expect(large.cells).toBe(20_000);
      const path = join(run.dir, 'large.json');
      const m = await measureHeap(() => writeJsonReport(path, large.header, large.summary, run.cellsFile));
      expect(m.result.cells).toBe(20_000);
      expect(m.result.mismatches).toEqual([]);
      expect(m.samples).toBeGreaterThanOrEqual(3);
      // Building the document in memory would need at least the data size; streaming stays far below it.
      expect(large.bytes).toBeGreaterThan(20_000_000);
      expect(m.growth).toBeLessThan(large.bytes / 8);
      const doc = JSON.parse(await readFile(path, 'utf8')) as { cells: unknown[] };
      expect(doc.cells).toHaveLength(20_000);
    } finally {
      await run.cleanup();
    }
    // The property is memory, not speed: 20 MB of cells on a loaded 2-core machine may take minutes.
  }, 300_000);
});
