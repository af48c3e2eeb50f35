import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MARKDOWN_REPORT_MARKER, renderMarkdownReport, writeMarkdownReport } from '../../../../evals/reports/markdown';
import type { EvalSummary } from '../../../../evals/types';
import { HOSTILE_TEXT, MODEL_A, fixtureHeader, fixtureSummary, writeRun } from './fixture';
import { tablesOf } from './markdownTable';

function headingTable(md: string, heading: string): string[][] {
  const at = md.indexOf(`### ${heading}\n`);
  expect(at, heading).toBeGreaterThanOrEqual(0);
  const next = md.indexOf('\n### ', at + 4);
  return tablesOf(md.slice(at, next === -1 ? undefined : next))[0]!;
}

describe('renderMarkdownReport', () => {
  it('keeps every table row at its header column count despite hostile text', () => {
    const md = renderMarkdownReport(fixtureHeader(), fixtureSummary());
    const tables = tablesOf(md);
    expect(tables.length).toBeGreaterThanOrEqual(7);
    for (const t of tables) for (const r of t) expect(r).toHaveLength(t[0]!.length);
    // No raw HTML from user text: the only tags are the report's own.
    const tags = [...md.matchAll(/<\/?([a-zA-Z]+)[^>]*>/g)].map((m) => m[1]);
    expect(new Set(tags)).toEqual(new Set(['details', 'summary', 'sub']));
    expect(md).not.toContain('<script');
    expect(md).not.toContain('<img');
  });

  it('stays structurally intact for any model spec, skill and request', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }), (model, text) => {
        const summary = fixtureSummary();
        summary.models[0]!.model = model;
        summary.models[0]!.skills[0]!.skill = text;
        const header = fixtureHeader();
        header.cases[1]!.request = text;
        const md = renderMarkdownReport(header, summary);
        for (const t of tablesOf(md)) for (const r of t) expect(r).toHaveLength(t[0]!.length);
      }),
      { numRuns: 80 },
    );
  });

  it('leads with the verdict the run carries, never deriving it again', () => {
    const failed = renderMarkdownReport(fixtureHeader(), fixtureSummary()).split('\n');
    expect(failed[0]).toBe(MARKDOWN_REPORT_MARKER);
    expect(failed[1]).toBe('## ❌ Skillbench evaluation failed: 1 of 2 gates failed');
    const verdict = fixtureSummary().verdict;
    const passing: EvalSummary = { ...fixtureSummary(), verdict: { ...verdict, status: 'passed', message: 'passed: all 2 gates passed', gates_failed: 0 } };
    expect(renderMarkdownReport(fixtureHeader(), passing).split('\n')[1]).toBe('## ✅ Skillbench evaluation passed: all 2 gates passed');
    const none: EvalSummary = { ...fixtureSummary(), gates: [], verdict: { ...verdict, status: 'passed', message: 'passed: no gates set', gates_set: 0, gates_failed: 0 } };
    expect(renderMarkdownReport(fixtureHeader(), none).split('\n')[1]).toBe('## Skillbench evaluation: no gates set');
    const unavailable: EvalSummary = { ...fixtureSummary(), verdict: { ...verdict, status: 'unavailable', message: `model unavailable (every cell errored): ${MODEL_A}`, unavailable_models: [MODEL_A] } };
    expect(renderMarkdownReport(fixtureHeader(), unavailable).split('\n')[1]).toMatch(/^## ❌ Skillbench evaluation: model unavailable, every cell errored: openai:gpt-4o\\\|&lt;img/);
  });

  it('puts an over-budget catalog in the headline, as loud as errors', () => {
    const lines = renderMarkdownReport(fixtureHeader(), fixtureSummary()).split('\n');
    const firstTable = lines.findIndex((l) => l.startsWith('### '));
    const head = lines.slice(0, firstTable).join('\n');
    expect(head).toContain('⚠️ **Automatic activation skipped:** catalog draft: 2150 estimated tokens, above its budget of 2000');
    expect(head).toMatch(/⚠️ \*\*Errors:\*\* .+: 2 of 12 cells ended in an error/);
  });

  it('tabulates models with rates over all skills, latency, cost and baselines labelled', () => {
    const rows = headingTable(renderMarkdownReport(fixtureHeader(), fixtureSummary()), 'Models');
    expect(rows[0]).toEqual(['Model', 'Kind', 'Usable', 'Accuracy', 'Precision', 'Recall', 'F1', 'Errors', 'Unusable', 'Latency p50', 'Latency p95', 'Cost']);
    // Model A over both skills: TP 6, FP 2, FN 1 over 9 usable of 12 cells → accuracy 6/9, precision 6/8, recall 6/7, F1 12/15.
    expect(rows[2]!.slice(1)).toEqual(['language model', '9/12 (2 err, 1 unusable)', '66.7%', '75.0%', '85.7%', '80.0%', '2', '1', '600 ms', '1.20 s', '$0.0012']);
    // Baseline over both skills: TP 5, TN 3, FN 3 → 8/11, 5/5, 5/8, F1 10/13.
    expect(rows[3]).toEqual(['lexical', 'baseline (not a language model)', '11/12 (1 err)', '72.7%', '100.0%', '62.5%', '76.9%', '1', '0', '1.80 s', '2.40 s', '$0']);
  });

  it('lists per-skill rows and flaky cases with k/n', () => {
    const md = renderMarkdownReport(fixtureHeader(), fixtureSummary());
    const skills = headingTable(md, 'Skills');
    expect(skills.slice(2).map((r) => r.slice(1, 7))).toEqual([
      ['travel/weather', '5', '2', '0', '1', '62.5%'],
      ['travel/flights', '1', '0', '0', '0', '100.0%'],
      ['travel/weather', '3', '0', '3', '3', '66.7%'],
      ['travel/flights', '2', '0', '0', '0', '100.0%'],
    ]);
    // Each row says how many cells its rates rest on.
    expect(skills[2]!.slice(10, 13)).toEqual(['8/9 (1 unusable)', '0', '1']);
    const flaky = headingTable(md, 'Flaky cases');
    expect(flaky.slice(2).map((r) => [r[2], r[4]])).toEqual([['c2', '2/3']]);
    expect(flaky[2]![5]).toContain('&lt;script&gt;');
  });

  it('gives p-values and calls a non-significant difference not significant', () => {
    const rows = headingTable(renderMarkdownReport(fixtureHeader(), fixtureSummary()), 'Paired comparisons');
    expect(rows[2]!.slice(-2)).toEqual(['1', 'not significant (α = 0.05)']);
    expect(rows[3]!.slice(-2)).toEqual(['0.00391', '**significant** (α = 0.05, B better)']);
  });

  it('shows the catalog tokens against the budget', () => {
    const rows = headingTable(renderMarkdownReport(fixtureHeader(), fixtureSummary()), 'Catalog');
    expect(rows[2]!.slice(0, 5)).toEqual(['draft', '2', '2,150', '2,000', '107.5% ⚠️ over budget']);
  });

  it('cuts long tables and says how many rows were left out', () => {
    const summary = fixtureSummary();
    const md = renderMarkdownReport(fixtureHeader(), summary, { maxRows: 1 });
    expect(headingTable(md, 'Skills')).toHaveLength(3);
    expect(md).toContain('… and 3 more skill rows');
  });
});

describe('writeMarkdownReport', () => {
  it('writes the rendered text atomically', async () => {
    const run = await writeRun([]);
    try {
      const path = join(run.dir, 'comment.md');
      const result = await writeMarkdownReport(path, fixtureHeader(), fixtureSummary());
      const text = await readFile(path, 'utf8');
      expect(text).toBe(renderMarkdownReport(fixtureHeader(), fixtureSummary()));
      expect(result.bytes).toBe(Buffer.byteLength(text));
      expect(text).toContain(MODEL_A.slice(0, 13));
      expect(text).not.toContain(HOSTILE_TEXT);
    } finally {
      await run.cleanup();
    }
  });
});

describe('the PR comment size limit', () => {
  it('cuts tables until the report fits maxChars', () => {
    const summary = fixtureSummary();
    const template = summary.models[0]!.skills[0]!;
    summary.models[0]!.skills = Array.from({ length: 400 }, (_, i) => ({ ...template, skill: `ns/skill-${i}` }));
    const full = renderMarkdownReport(fixtureHeader(), summary, { maxRows: 1000, maxChars: 10_000_000 });
    expect(full.length).toBeGreaterThan(65_000);
    const fitted = renderMarkdownReport(fixtureHeader(), summary, { maxRows: 1000 });
    expect(fitted.length).toBeLessThanOrEqual(65_000);
    expect(fitted).toMatch(/… and [\d,]+ more skill rows/);
    for (const t of tablesOf(fitted)) for (const r of t) expect(r).toHaveLength(t[0]!.length);
  });
});
