/**
 * What a reader of the Markdown and HTML reports needs to tell rows apart:
 * comparison rows that name their model or variant and say how pairs are
 * formed, chart and matrix labels that keep two endpoints of one model id
 * apart, a wide matrix that scrolls inside its own box, one catalog table
 * for catalogs that hold the same skills, and gate numbers that read as
 * numbers.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fitMiddle, modelLabels } from '../../../../core/report/modelLabels';
import { writeHtmlReport } from '../../../../evals/reports/html';
import { renderMarkdownReport } from '../../../../evals/reports/markdown';
import type { CellRecord, EvalSummary, RunHeader } from '../../../../evals/types';
import { FLIGHTS, MODEL_A, MODEL_B, WEATHER, fixtureCells, fixtureHeader, fixtureSummary, writeRun } from './fixture';
import { tablesOf } from './markdownTable';

/** Two endpoints serving the same model id: every label cut after ~20 characters reads the same. */
const ALPHA_1 = 'openai-compatible:http://127.0.0.1:40001/v1#alpha';
const ALPHA_2 = 'openai-compatible:http://127.0.0.1:40002/v1#alpha';

/** The fixture with its two models renamed (every occurrence, in header, summary and cells). */
function renamed<T>(value: T): T {
  const json = JSON.stringify(value).split(JSON.stringify(MODEL_A)).join(JSON.stringify(ALPHA_1)).split(JSON.stringify(MODEL_B)).join(JSON.stringify(ALPHA_2));
  return JSON.parse(json) as T;
}

function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`### ${heading}`);
  expect(start).toBeGreaterThanOrEqual(0);
  const end = markdown.indexOf('\n### ', start + 4);
  return markdown.slice(start, end === -1 ? undefined : end);
}

async function html(header: RunHeader, summary: EvalSummary, cells: CellRecord[]): Promise<string> {
  const run = await writeRun(cells);
  try {
    const path = join(run.dir, 'report.html');
    await writeHtmlReport(path, header, summary, run.cellsFile);
    return await readFile(path, 'utf8');
  } finally {
    await run.cleanup();
  }
}

describe('report readability', () => {
  it('names the model or variant of every comparison row, and says a pair is one case', async () => {
    const header = renamed(fixtureHeader());
    const summary = renamed(fixtureSummary());
    const md = section(renderMarkdownReport(header, summary), 'Paired comparisons');
    expect(md).toContain('One pair per case');
    expect(md).not.toContain('same cases and repeats');
    const [table] = tablesOf(md);
    expect(table![0]!.slice(0, 5)).toEqual(['Kind', 'Skill', 'Under', 'A', 'B']);
    // The model comparison names the variant it ran on and both models apart; the draft comparison names its model.
    expect(table![2]!.slice(0, 5)).toEqual(['model vs model', WEATHER, 'variant draft', 'alpha @\u206040001', 'alpha @\u206040002']);
    expect(table![3]!.slice(0, 5)).toEqual(['draft vs published', WEATHER, 'model alpha @\u206040001', 'published', 'draft']);

    const page = await html(header, summary, renamed(fixtureCells()));
    const comparisons = page.slice(page.indexOf('<h2 id="comparisons">'), page.indexOf('<h2 id="catalog">'));
    expect(comparisons).toContain('One pair per case');
    expect(comparisons).toContain('>variant draft<');
    expect(comparisons).toContain('>model alpha @40001<');
  });

  it('keeps chart labels of two endpoints serving one model id apart, with the full spec on hover', async () => {
    const labels = modelLabels([ALPHA_1, ALPHA_2, 'openai:gpt-x', 'baseline:lexical']);
    expect(labels).toEqual(['alpha @40001', 'alpha @40002', 'gpt-x', 'baseline:lexical']);
    // A tighter bound still keeps them apart, and a cut text is exactly as long as asked.
    const tight = modelLabels([ALPHA_1, ALPHA_2], 10);
    expect(new Set(tight).size).toBe(2);
    for (const label of tight) expect(Array.from(label).length).toBeLessThanOrEqual(10);
    expect(Array.from(fitMiddle(ALPHA_1, 20))).toHaveLength(20);

    const page = await html(renamed(fixtureHeader()), renamed(fixtureSummary()), renamed(fixtureCells()));
    const chart = page.slice(page.indexOf('<svg'), page.indexOf('</svg>'));
    const shown = [...chart.matchAll(/<text[^>]*><title>([^<]*)<\/title>([^<]*)<\/text>/g)].map((m) => ({ full: m[1]!, label: m[2]! }));
    // Each row's hover names its full spec (then its skill and variant).
    expect(new Set(shown.map((s) => s.full.split(' ')[0]))).toEqual(new Set([ALPHA_1, ALPHA_2]));
    expect(new Set(shown.map((s) => s.label)).size).toBe(shown.length);
  });

  it('scrolls a wide case × model matrix inside its own box, not the page', async () => {
    const page = await html(fixtureHeader(), fixtureSummary(), fixtureCells());
    expect(page).toContain('<div class="scroll"><table class="matrix">');
    expect(page).toMatch(/\.scroll\{overflow-x:auto;max-width:100%/);
  });

  it('shows one catalog table for catalogs holding the same skills, each testing another', async () => {
    const header = fixtureHeader();
    const draft = header.catalogs['draft']!;
    // One catalog per skill under test, as a workspace evaluated together records them.
    header.catalogs = {
      [`draft|${WEATHER}`]: { ...draft, entries: draft.entries.map((e) => ({ ...e, under_test: e.skill === WEATHER })) },
      [`draft|${FLIGHTS}`]: { ...draft, entries: draft.entries.map((e) => ({ ...e, under_test: e.skill === FLIGHTS })) },
    };
    const md = section(renderMarkdownReport(header, fixtureSummary()), 'Catalog');
    expect(md.match(/<details>/g)).toHaveLength(1);
    expect(md).toContain(`Catalogs draft\\|${WEATHER}, draft\\|${FLIGHTS}: 2 skills`);
    // Both skills are marked as under test in the one table.
    const entries = tablesOf(md)[1]!;
    expect(entries.slice(2).map((r) => [r[0], r[3]])).toEqual([
      [WEATHER, 'yes'],
      [FLIGHTS, 'yes'],
    ]);

    const page = await html(header, fixtureSummary(), fixtureCells());
    expect(page.match(/<h3>Catalogs? /g)).toHaveLength(1);
  });

  it('prints a comparison gate bound as a number a person reads, never 0.21875000000000006', async () => {
    const summary = fixtureSummary();
    summary.gates = [{ gate: 'regression', threshold: 0.05, model: MODEL_B, skill: WEATHER, value: 0.21875000000000006, passed: false, message: 'the draft may be worse by up to 0.219' }];
    const md = renderMarkdownReport(fixtureHeader(), summary);
    const gates = tablesOf(section(md, 'Gates'))[0]!;
    expect(gates[2]!.slice(4, 6)).toEqual(['0.05', '0.219']);
    expect(md).not.toContain('0.21875000000000006');
    const page = await html(fixtureHeader(), summary, fixtureCells());
    expect(page).toContain('>0.219<');
    expect(page).not.toContain('0.21875000000000006');
  });
});
