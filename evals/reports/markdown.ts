/**
 * The Markdown report: a GitHub pull-request comment. It leads with the gate
 * verdict, then the tables a reviewer needs to judge a skill change: models,
 * skills, flaky cases, paired comparisons and the catalog budget. Every string
 * that comes from a package, a case or a model spec goes through
 * {@link escapeMarkdown}; numbers are formatted independently of locale.
 */
import type { CaseInfo, EvalSummary, GateResult, RunHeader } from '../types';
import { escapeMarkdown as md, truncate } from './escape';
import { catalogGroups, catalogUse, flakyOf, formatCount, formatGateNumber, formatMs, formatP, formatRate, formatUsd, hasVariants, modelKind, runFacts, modelLabels, usableShare, variantTotals, warningLabel } from './format';
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
const NUMERIC = new Set(['Threshold', 'Value', 'Usable', 'Accuracy', 'Precision', 'Recall', 'F1', 'Errors', 'Unusable', 'Latency p50', 'Latency p95', 'Cost', 'TP', 'FP', 'TN', 'FN', 'Flaky', 'Triggered', 'Accuracy A', 'Accuracy B', 'A only', 'B only', 'p-value', 'Skills', 'Tokens', 'Budget', 'Use', 'Version']);

function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

function table(head: readonly string[], rows: readonly string[][], maxRows: number, what: string): string[] {
  const align = head.map((h) => (NUMERIC.has(h) ? '---:' : '---'));
  const out = [row(head), row(align), ...rows.slice(0, maxRows).map(row)];
  if (rows.length > maxRows) out.push('', `… and ${formatCount(rows.length - maxRows)} more ${what} (see the JSON or HTML report).`);
  return out;
}

/** Rate gates show rates; the comparison gates' bound and margin are plain numbers (never `0.21875000000000006`). */
function gateNumber(g: GateResult, n: number | null | undefined): string {
  if (n === undefined) return '';
  if (n === null) return 'n/a';
  return g.gate === 'regression' || g.gate === 'reference' ? formatGateNumber(n) : formatRate(n);
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
      return `## ⚠️ Skillbench evaluation incomplete, no verdict: ${md(v.message.replace(/^incomplete: /, ''))}`;
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
      `${plural(t.cells, 'cell')} (${plural(t.errors, 'error')}, ${formatCount(t.invalid)} unusable answer${t.invalid === 1 ? '' : 's'}, ${formatCount(t.cached)} from cache).`,
  );
  out.push('', ...runFacts(header, summary).map(([k, v]) => `- **${md(k)}:** ${md(v)}`));
  // Why no verdict was reached, then the warnings, right under the headline: each changes what every number below means.
  for (const r of summary.verdict.reasons ?? []) out.push('', `❌ **No verdict:** ${md(r.message)}`);
  for (const w of summary.verdict.warnings) out.push('', `⚠️ **${md(warningLabel(w))}:** ${md(w.message)}`);
  if (t.errors > 0 || t.invalid > 0) {
    out.push('', `In all, ${plural(t.errors, 'cell')} ended in an error (transport failure or timeout) and ${plural(t.invalid, 'answer')} ${t.invalid === 1 ? 'was' : 'were'} unusable (the runtime rejected ${t.invalid === 1 ? 'it' : 'them'}). Both are left out of the rates, never counted as "not activated"; "Usable" says how many cells each rate rests on.`);
  }

  if (summary.gates.length > 0) {
    out.push('', '### Gates', '');
    const sorted = [...summary.gates].sort((a, b) => Number(a.passed) - Number(b.passed));
    out.push(
      ...table(
        ['Result', 'Gate', 'Model', 'Skill', 'Threshold', 'Value', 'Message'],
        sorted.map((g) => [g.passed ? '✅ pass' : '❌ fail', md(g.gate), md(g.model), md(g.skill), gateNumber(g, g.threshold), gateNumber(g, g.value), md(g.message)]),
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
        usableShare(v),
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
    ...table(['Model', 'Kind', ...(variants ? ['Variant'] : []), 'Usable', 'Accuracy', 'Precision', 'Recall', 'F1', 'Errors', 'Unusable', 'Latency p50', 'Latency p95', 'Cost'], modelRows, maxRows, 'rows'),
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
        usableShare(s),
        formatCount(s.errors),
        formatCount(s.invalid),
        formatCount(s.flaky_cases.length),
      ]);
    }
  }
  out.push(...table(['Model', ...(variants ? ['Variant'] : []), 'Skill', 'TP', 'FP', 'TN', 'FN', 'Accuracy', 'Precision', 'Recall', 'F1', 'Usable', 'Errors', 'Unusable', 'Flaky'], skillRows, maxRows, 'skill rows'));

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
    const short = modelLabels(header.models.map((m) => m.spec));
    const label = (spec: string) => short[header.models.findIndex((m) => m.spec === spec)] ?? spec;
    out.push(
      'One pair per case: each side counts by the majority of its usable repeats, and the exact McNemar test runs on the pairs. "A only" counts cases only A got right. A draft comparison is draft (A) vs published (B) under one model; a model comparison is model A vs model B on one variant.',
      '',
    );
    out.push(
      ...table(
        ['Kind', 'Skill', 'Under', 'A', 'B', 'Pairs', 'Accuracy A', 'Accuracy B', 'A only', 'B only', 'p-value', 'Result'],
        summary.comparisons.map((c) => {
          const better = c.test.aOnly > c.test.bOnly ? 'A' : c.test.bOnly > c.test.aOnly ? 'B' : null;
          const result = c.test.significant ? `**significant** (α = ${c.test.alpha}${better ? `, ${better} better` : ''})` : `not significant (α = ${c.test.alpha})`;
          const under = c.kind === 'variant' ? `model ${label(c.model ?? '')}` : `variant ${c.variant ?? ''}`;
          const [a, b] = c.kind === 'variant' ? [c.a, c.b] : [label(c.a), label(c.b)];
          return [md(c.kind === 'variant' ? 'draft vs published' : 'model vs model'), md(c.skill), md(under), md(a), md(b), formatCount(c.pairs), formatRate(c.accuracy_a), formatRate(c.accuracy_b), formatCount(c.test.aOnly), formatCount(c.test.bOnly), formatP(c.test.pValue), result];
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
    // Catalogs holding the same skills (each testing another) share one table.
    for (const g of catalogGroups(header.catalogs)) {
      const names = g.names.length === 1 ? `Catalog ${md(g.names[0]!)}` : `Catalogs ${g.names.map(md).join(', ')}`;
      out.push('', `<details><summary>${names}: ${formatCount(g.catalog.entries.length)} skills</summary>`, '');
      out.push(
        ...table(
          ['Skill', 'Version', 'Activation', 'Under test', 'Manifest hash'],
          g.catalog.entries.map((e) => [md(e.skill), md(String(e.version)), md(e.activation), g.underTest.has(e.skill) ? 'yes' : '', md(truncate(e.manifest_hash, 23))]),
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
