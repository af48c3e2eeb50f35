/**
 * The Markdown report: a GitHub pull-request comment. It leads with the gate
 * verdict, then the tables a reviewer needs to judge a skill change: models,
 * skills, flaky cases, paired comparisons and the catalog budget. Every string
 * that comes from a package, a case or a model spec goes through
 * {@link escapeMarkdown}; numbers are formatted independently of locale.
 */
import type { CaseInfo, EvalSummary, GateResult, RunHeader } from '../types';
import { escapeMarkdown as md, truncate } from './escape';
import { catalogUse, flakyOf, formatCount, formatMs, formatP, formatRate, formatUsd, hasVariants, modelKind, variantTotals } from './format';
import { writeReportFile } from './sink';

/** Hidden first line of every Markdown report, for bots that update their previous PR comment. */
export const MARKDOWN_REPORT_MARKER = '<!-- skillbench-eval-report -->';

/** Options of {@link renderMarkdownReport}. */
export interface MarkdownOptions {
  /** Most rows per table before the rest is summarised in one line (default 50). */
  maxRows?: number;
  /** Longest request excerpt in a table cell (default 120 characters). */
  maxRequestChars?: number;
  /**
   * Longest report in characters (default 65,000: GitHub rejects comments over
   * 65,536). Longer reports are rendered again with fewer rows per table.
   */
  maxChars?: number;
}

function row(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`;
}

/** Columns holding numbers are right-aligned; everything else reads left to right. */
const NUMERIC = new Set(['Threshold', 'Value', 'Accuracy', 'Precision', 'Recall', 'F1', 'Errors', 'Invalid', 'Latency p50', 'Latency p95', 'Cost', 'TP', 'FP', 'TN', 'FN', 'Flaky', 'Triggered', 'Accuracy A', 'Accuracy B', 'A only', 'B only', 'p-value', 'Skills', 'Tokens', 'Budget', 'Use', 'Version']);

function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

function table(head: readonly string[], rows: readonly string[][], maxRows: number, what: string): string[] {
  const align = head.map((h) => (NUMERIC.has(h) ? '---:' : '---'));
  const out = [row(head), row(align), ...rows.slice(0, maxRows).map(row)];
  if (rows.length > maxRows) out.push('', `… and ${formatCount(rows.length - maxRows)} more ${what} (see the JSON or HTML report).`);
  return out;
}

function gateValue(g: GateResult): string {
  if (g.value === null) return 'n/a';
  return g.gate === 'regression' ? String(g.value) : formatRate(g.value);
}

/** The headline: the run's verdict (evals/verdict.ts), never derived again here. */
function headline(summary: EvalSummary): string {
  const v = summary.verdict;
  switch (v.status) {
    case 'passed':
      return v.gates_set === 0 ? '## Skillbench evaluation: no gates set' : `## ✅ Skillbench evaluation ${md(v.message)}`;
    case 'failed':
      return `## ❌ Skillbench evaluation ${md(v.message)}`;
    case 'unavailable':
      return `## ❌ Skillbench evaluation: model unavailable, every cell errored: ${v.unavailable_models.map(md).join(', ')}`;
    case 'incomplete':
      return `## ⏸️ Skillbench evaluation ${md(v.message)}`;
  }
}

/**
 * Renders the Markdown report of a run. Pure: the same header and summary
 * always give the same text. Tables are cut (with a line saying how much was
 * left out) until the text fits `maxChars`.
 */
export function renderMarkdownReport(header: RunHeader, summary: EvalSummary, options: MarkdownOptions = {}): string {
  const maxChars = options.maxChars ?? 65_000;
  let maxRows = Math.max(1, Math.floor(options.maxRows ?? 50));
  for (;;) {
    const text = render(header, summary, maxRows, options.maxRequestChars ?? 120);
    if (text.length <= maxChars) return text;
    if (maxRows === 1) {
      const cut = text.slice(0, Math.max(0, maxChars - 120)).replace(/\n[^\n]*$/, '');
      return `${cut}\n\n… report cut at ${formatCount(maxChars)} characters; see the JSON or HTML report.\n`;
    }
    maxRows = Math.max(1, Math.floor(maxRows / 2));
  }
}

function render(header: RunHeader, summary: EvalSummary, maxRows: number, maxRequest: number): string {
  const cases = new Map<string, CaseInfo>(header.cases.map((c) => [c.id, c]));
  const variants = hasVariants(summary.models);
  // The marker lets a CI job find and update its earlier comment instead of adding another.
  const out: string[] = [MARKDOWN_REPORT_MARKER, headline(summary), ''];

  const t = summary.totals;
  out.push(
    `Run ${md(header.run_id)} started ${md(header.started_at)}: ${plural(header.models.length, 'model')}, ${plural(header.cases.length, 'case')}, ${plural(header.repeats, 'repeat')}; ` +
      `${plural(t.cells, 'cell')} (${plural(t.errors, 'error')}, ${plural(t.invalid, 'invalid answer')}, ${formatCount(t.cached)} from cache).`,
  );
  // Warnings stand right under the headline: a skipped catalog or errored cells change what every number below means.
  for (const w of summary.verdict.warnings) out.push('', `⚠️ **${md(w.code === 'cell_errors' ? 'Errors' : 'Automatic activation skipped')}:** ${md(w.message)}`);
  if (t.errors > 0) out.push('', `${plural(t.errors, 'cell')} ended in an error (transport failure or timeout) in all. Errors are excluded from the rates, not counted as "not activated".`);

  if (summary.gates.length > 0) {
    out.push('', '### Gates', '');
    const sorted = [...summary.gates].sort((a, b) => Number(a.passed) - Number(b.passed));
    out.push(
      ...table(
        ['Result', 'Gate', 'Model', 'Skill', 'Threshold', 'Value', 'Message'],
        sorted.map((g) => [g.passed ? '✅ pass' : '❌ fail', md(g.gate), md(g.model), md(g.skill), g.threshold === undefined ? '' : g.gate === 'regression' ? String(g.threshold) : formatRate(g.threshold), gateValue(g), md(g.message)]),
        maxRows,
        'gates',
      ),
    );
  }

  out.push('', '### Models', '');
  const modelRows: string[][] = [];
  for (const m of summary.models) {
    for (const v of variantTotals(m)) {
      modelRows.push([
        md(m.model),
        modelKind(m),
        ...(variants ? [md(v.variant)] : []),
        formatRate(v.accuracy),
        formatRate(v.precision),
        formatRate(v.recall),
        formatRate(v.f1),
        formatCount(v.errors),
        formatCount(v.invalid),
        formatMs(m.latency_p50_ms),
        formatMs(m.latency_p95_ms),
        formatUsd(m.cost_usd),
      ]);
    }
  }
  out.push(
    ...table(['Model', 'Kind', ...(variants ? ['Variant'] : []), 'Accuracy', 'Precision', 'Recall', 'F1', 'Errors', 'Invalid', 'Latency p50', 'Latency p95', 'Cost'], modelRows, maxRows, 'rows'),
  );
  out.push('', `Latency and cost are per model${variants ? ' over all variants' : ''}. Baselines are deterministic selectors, not language models: they show what a model has to beat.`);

  out.push('', '### Skills', '');
  const skillRows: string[][] = [];
  for (const m of summary.models) {
    for (const s of m.skills) {
      skillRows.push([
        md(m.model),
        ...(variants ? [md(s.variant)] : []),
        md(s.skill),
        formatCount(s.tp),
        formatCount(s.fp),
        formatCount(s.tn),
        formatCount(s.fn),
        formatRate(s.accuracy),
        formatRate(s.precision),
        formatRate(s.recall),
        formatRate(s.f1),
        formatCount(s.errors),
        formatCount(s.flaky_cases.length),
      ]);
    }
  }
  out.push(...table(['Model', ...(variants ? ['Variant'] : []), 'Skill', 'TP', 'FP', 'TN', 'FN', 'Accuracy', 'Precision', 'Recall', 'F1', 'Errors', 'Flaky'], skillRows, maxRows, 'skill rows'));

  const flakyRows: string[][] = [];
  for (const m of summary.models) {
    for (const s of m.skills) {
      for (const f of flakyOf(s)) {
        const info = cases.get(f.case);
        flakyRows.push([
          md(m.model),
          ...(variants ? [md(s.variant)] : []),
          md(s.skill),
          md(f.case),
          info ? md(info.expect) : '',
          `${f.k}/${f.n}${f.errors > 0 ? ` (+${f.errors} errors)` : ''}`,
          info ? md(truncate(info.request, maxRequest)) : '',
        ]);
      }
    }
  }
  out.push('', '### Flaky cases', '');
  if (flakyRows.length === 0) out.push('None: every case gave the same answer on all its repeats.');
  else {
    out.push('The model disagreed with itself across repeats. "Triggered" is activations / answered repeats.', '');
    out.push(...table(['Model', ...(variants ? ['Variant'] : []), 'Skill', 'Case', 'Expected', 'Triggered', 'Request'], flakyRows, maxRows, 'flaky cases'));
  }

  out.push('', '### Paired comparisons', '');
  if (summary.comparisons.length === 0) out.push('None in this run.');
  else {
    out.push('Exact McNemar test on the same cases and repeats; "A only" counts pairs where only A was right.', '');
    out.push(
      ...table(
        ['Kind', 'Skill', 'A', 'B', 'Accuracy A', 'Accuracy B', 'A only', 'B only', 'p-value', 'Result'],
        summary.comparisons.map((c) => {
          const better = c.test.aOnly > c.test.bOnly ? 'A' : c.test.bOnly > c.test.aOnly ? 'B' : null;
          const result = c.test.significant ? `**significant** (α = ${c.test.alpha}${better ? `, ${better} better` : ''})` : `not significant (α = ${c.test.alpha})`;
          return [
            md(c.kind),
            md(c.skill),
            md(c.a),
            md(c.b),
            formatRate(c.accuracy_a),
            formatRate(c.accuracy_b),
            formatCount(c.test.aOnly),
            formatCount(c.test.bOnly),
            formatP(c.test.pValue),
            result,
          ];
        }),
        maxRows,
        'comparisons',
      ),
    );
  }

  out.push('', '### Catalog', '');
  const catalogs = Object.entries(header.catalogs);
  if (catalogs.length === 0) out.push('No catalog recorded.');
  else {
    out.push(
      ...table(
        ['Catalog', 'Skills', 'Tokens', 'Budget', 'Use', 'Source'],
        catalogs.map(([name, c]) => {
          const use = catalogUse(c);
          return [md(name), formatCount(c.entries.length), formatCount(c.tokens), formatCount(c.budget), `${formatRate(use.share)}${use.over ? ' ⚠️ over budget' : ''}`, md(c.source)];
        }),
        maxRows,
        'catalogs',
      ),
    );
    for (const [name, c] of catalogs) {
      out.push('', `<details><summary>Catalog ${md(name)}: ${formatCount(c.entries.length)} skills</summary>`, '');
      out.push(
        ...table(
          ['Skill', 'Version', 'Activation', 'Under test', 'Manifest hash'],
          c.entries.map((e) => [md(e.skill), md(String(e.version)), md(e.activation), e.under_test ? 'yes' : '', md(truncate(e.manifest_hash, 23))]),
          maxRows,
          'skills',
        ),
      );
      out.push('', '</details>');
    }
  }
  out.push('', `<sub>config ${md(truncate(header.config_hash, 24))} · ${md(header.format)}</sub>`, '');
  return out.join('\n');
}

/** Writes the Markdown report of a run to `path` (atomically). */
export async function writeMarkdownReport(path: string, header: RunHeader, summary: EvalSummary, options: MarkdownOptions = {}): Promise<{ path: string; bytes: number }> {
  const text = renderMarkdownReport(header, summary, options);
  const bytes = await writeReportFile(path, (sink) => sink.write(text));
  return { path, bytes };
}
