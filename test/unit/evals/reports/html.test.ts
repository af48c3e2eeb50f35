import { describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HTML_REPORT_CSP, writeHtmlReport, type HtmlReportOptions } from '../../../../evals/reports/html';
import { formatRate } from '../../../../core/report/format';
import { escapeHtml } from '../../../../evals/reports/escape';
import { HOSTILE, MODEL_A, WEATHER, hasForbiddenControl, fixtureCells, fixtureHeader, fixtureSummary, writeRun } from './fixture';
import { measureHeap, writeLargeRun } from './largeRun';

const TAGS = new Set([
  'html', 'head', 'meta', 'title', 'style', 'body', 'h1', 'h2', 'h3', 'h4', 'p', 'span', 'strong', 'table', 'thead', 'tbody', 'tr', 'th', 'td',
  'div', 'figure', 'figcaption', 'svg', 'rect', 'text', 'line', 'details', 'summary', 'pre', 'ul', 'li', 'a', 'g', 'circle',
]);
const ATTRS = new Set([
  'lang', 'charset', 'http-equiv', 'content', 'name', 'class', 'id', 'href', 'title', 'colspan', 'width', 'height', 'viewBox', 'role', 'aria-label',
  'font-family', 'font-size', 'font-weight', 'x', 'y', 'x1', 'y1', 'x2', 'y2', 'fill', 'stroke', 'stroke-width', 'stroke-dasharray', 'text-anchor',
  'cx', 'cy', 'r', 'data-chart', 'data-rate', 'data-spec',
]);

interface Tag {
  name: string;
  closing: boolean;
  attrs: Array<[string, string]>;
}

/**
 * Tokenizes the report's markup. Every `<` must open a tag of the report's own
 * vocabulary with double-quoted attributes: an unescaped `<` from user text
 * fails here.
 */
function tags(html: string): Tag[] {
  const out: Tag[] = [];
  expect(html.startsWith('<!DOCTYPE html>\n')).toBe(true);
  let pos = '<!DOCTYPE html>\n'.length;
  const re = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)((?:\s+[a-zA-Z][a-zA-Z0-9:-]*="[^"<>]*")*)\s*\/?>/y;
  for (let at = html.indexOf('<', pos); at !== -1; at = html.indexOf('<', pos)) {
    re.lastIndex = at;
    const m = re.exec(html);
    if (!m) throw new Error(`stray "<" at ${at}: ${JSON.stringify(html.slice(at, at + 60))}`);
    const attrs = [...m[3]!.matchAll(/([a-zA-Z][a-zA-Z0-9:-]*)="([^"]*)"/g)].map((a) => [a[1]!, a[2]!] as [string, string]);
    out.push({ name: m[2]!, closing: m[1] === '/', attrs });
    pos = at + m[0].length;
    if (m[2] === 'style' && m[1] === '') {
      // Raw text: skip to its end tag (the stylesheet is the report's own constant).
      pos = html.indexOf('</style>', pos);
      expect(pos).toBeGreaterThan(0);
    }
  }
  return out;
}

async function htmlOf(options: HtmlReportOptions = {}, tail = ''): Promise<{ html: string; result: Awaited<ReturnType<typeof writeHtmlReport>> }> {
  const run = await writeRun(fixtureCells(), tail);
  try {
    const path = join(run.dir, 'report.html');
    const result = await writeHtmlReport(path, fixtureHeader(), fixtureSummary(), run.cellsFile, options);
    return { html: await readFile(path, 'utf8'), result };
  } finally {
    await run.cleanup();
  }
}

function matrixCells(html: string): string[][] {
  const table = html.slice(html.indexOf('<table class="matrix">'), html.indexOf('</table>', html.indexOf('<table class="matrix">')));
  return [...table.matchAll(/<tr><td class="req"[^>]*>.*?<\/td><td>(.*?)<\/td>(.*?)<\/tr>/g)].map((row) =>
    [...row[2]!.matchAll(/<td class="c ([^"]*)"[^>]*>(?:<a href="#t\d+">)?(.*?)(?:<\/a>)?<\/td>/g)].map((c) => `${c[1]}:${c[2]}`),
  );
}

describe('writeHtmlReport', () => {
  it('is one standalone page under a strict CSP: no script, nothing external', async () => {
    const { html } = await htmlOf();
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${HTML_REPORT_CSP}">`);
    expect(HTML_REPORT_CSP).toBe("default-src 'none'; style-src 'unsafe-inline'; img-src data:");
    expect(html).not.toMatch(/<script/i);
    const all = tags(html);
    for (const t of all) {
      expect(TAGS, t.name).toContain(t.name);
      for (const [name, value] of t.attrs) {
        expect(ATTRS, name).toContain(name);
        if (name === 'href') expect(value).toMatch(/^#t\d+$/);
      }
    }
    // No stylesheet, font or image is fetched: the only CSS is the inline constant, with no url().
    expect(html).not.toMatch(/url\(|@import|<link/i);
    const svg = all.filter((t) => t.name === 'svg' && !t.closing);
    // Rates with intervals (1), draft-vs-published differences (1), a confusion matrix per model (2), a latency chart per model (2).
    expect(svg).toHaveLength(6);
    for (const s of svg) expect(s.attrs.map(([n]) => n)).not.toContain('xmlns');
  });

  it('charts the rates of every model and the draft-vs-published differences, with a legend of full specs', async () => {
    const { html } = await htmlOf();
    const summary = fixtureSummary();
    const charts = html.slice(html.indexOf('<div class="eval-charts">'), html.indexOf('<h2 id="confusion">'));
    const rates = charts.slice(charts.indexOf('data-chart="rates"'), charts.indexOf('data-chart="deltas"'));
    // One row label per model and skill, its full spec on hover; three marks (accuracy, precision, recall) each.
    for (const m of summary.models) {
      for (const s of m.skills) {
        const title = `<title>${escapeHtml(`${m.model}${m.isBaseline ? ' (baseline)' : ''} · ${s.skill} · ${s.variant}`)}</title>`;
        expect(rates).toContain(title);
        for (const r of ['accuracy', 'precision', 'recall'] as const) expect(rates).toContain(escapeHtml(`${m.model}${m.isBaseline ? ' (baseline)' : ''} · ${s.skill} · ${s.variant} · ${r[0]!.toUpperCase()}${r.slice(1)}: ${formatRate(s[r])}`));
      }
      expect(charts).toContain(`<tr data-spec="${escapeHtml(m.model)}">`);
    }
    const deltas = charts.slice(charts.indexOf('data-chart="deltas"'), charts.indexOf('<table class="chart-legend">'));
    expect(deltas).toContain('published − draft');
    expect(deltas).toContain(escapeHtml(`${MODEL_A} · ${WEATHER}: published − draft`));
  });

  it('escapes every hostile string from requests, answers, errors and catalog sources', async () => {
    const { html } = await htmlOf();
    for (const raw of [HOSTILE.script, HOSTILE.textarea, HOSTILE.img, '"onerror=', '<b>x</b>']) expect(html).not.toContain(raw);
    expect(hasForbiddenControl(html)).toBe(false);
    expect(html).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    // The text is still there, readable once the entities are decoded.
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;/textarea&gt;&lt;textarea&gt;');
    expect(html).toContain('&quot;onerror=alert(1) x=&quot;');
    // The hostile model answer is shown inside a <pre>, escaped.
    expect(html).toContain('<pre>Sure! &lt;script&gt;');
    // javascript: only ever appears as text, never as a link target (hrefs are fragment-only, checked above).
    expect(html).toContain(HOSTILE.js);
  });

  it('shows the case × model matrix with per-cell trigger rates and verdicts', async () => {
    const { html } = await htmlOf();
    expect(matrixCells(html)).toEqual([
      ['pass:3/3', 'fail:0/3'],
      ['pass flaky:2/3', 'pass:3/3'],
      // One of the three answers was unusable: counted apart, never as a right "not activated".
      ['fail:2/2 +1 unusable', 'pass:0/3'],
      ['error:1/1 +2 err', 'pass:2/2 +1 err'],
    ]);
  });

  it('includes traces for at most maxTraces cells, wrong answers first, and says so', async () => {
    const { html, result } = await htmlOf({ maxTraces: 8 });
    expect(result.traces).toBe(8);
    const traces = [...html.matchAll(/<details class="trace" id="(t\d+)"><summary><span class="tag (\w+)">/g)].map((m) => m[2]);
    // 6 wrong cells and 3 errors exist: all 6 wrong ones, then the first 2 errors.
    expect(traces.filter((c) => c === 'wrong')).toHaveLength(6);
    expect(traces.filter((c) => c === 'error')).toHaveLength(2);
    expect(html).toContain('the full selector trace of <strong>8 of 24 cells</strong> (at most 8)');
    // Every matrix link points at a trace that is in the page.
    const ids = new Set([...html.matchAll(/<details class="trace" id="(t\d+)"/g)].map((m) => m[1]));
    const links = [...html.matchAll(/href="#(t\d+)"/g)].map((m) => m[1]);
    expect(links.length).toBeGreaterThan(0);
    for (const l of links) expect(ids).toContain(l);
    // Each included trace carries the prompt sent, the raw answer and the decision of its call.
    expect(html.match(/<h4>Prompt sent<\/h4>/g)).toHaveLength(8);
  });

  it('says when the last line of the cells file was torn', async () => {
    const { html, result } = await htmlOf({}, '{"key":');
    expect(result.tornLines).toBe(1);
    expect(html).toContain('The last line of the cells file was incomplete');
  });

  it('stays small and bounded in memory for 20,000 cells', async () => {
    const run = await writeRun([]);
    try {
      const large = await writeLargeRun(run.cellsFile, { models: ['openai:a', 'openai:b', 'groq:c', 'lexical'], casesPerSkill: 250, repeats: 10 });
      const path = join(run.dir, 'large.html');
      const m = await measureHeap(() => writeHtmlReport(path, large.header, large.summary, run.cellsFile, { maxTraces: 200 }));
      expect(m.result).toMatchObject({ cells: 20_000, traces: 200 });
      expect(m.growth).toBeLessThan(large.bytes / 8);
      expect(m.result.bytes).toBeLessThan(large.bytes / 10);
      const html = await readFile(path, 'utf8');
      expect(html.match(/<details class="trace"/g)).toHaveLength(200);
      // 2 skills × 250 cases, 4 model columns.
      expect(matrixCells(html)).toHaveLength(500);
    } finally {
      await run.cleanup();
    }
    // The property is memory, not speed: 20 MB of cells on a loaded 2-core machine may take minutes.
  }, 300_000);
});
