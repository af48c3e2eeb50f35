/**
 * The HTML report: one standalone file with no script and nothing fetched
 * from anywhere (a Content-Security-Policy meta tag forbids it), charts as
 * inline SVG, the case × model matrix, and a trace viewer built on
 * `<details>`. Every string from packages, requests, model specs or model
 * answers is escaped by {@link escapeHtml}.
 *
 * The cells file is read twice and never held in memory: the first pass folds
 * repeats, bins latencies and picks which cells get a trace (wrong answers,
 * then errors, then invalid answers, then cells of flaky cases, then the
 * rest, up to `maxTraces`); the second copies those traces in file order.
 */
import type { CaseInfo, CellRecord, EvalSummary, RunHeader } from '../types';
import { readCells } from './cells';
import { escapeHtml as h, truncate } from './escape';
import { CaseFolder, cellCorrect, correctCount, describeCounts, foldId, isFlaky, orderBy, verdict, type CaseFold } from './fold';
import { catalogGroups, catalogUse, flakyOf, formatCount, formatGateNumber, formatMs, formatP, formatRate, formatUsd, hasVariants, modelKind, runFacts, modelLabels, usableShare, variantTotals, warningLabel } from './format';
import type { ReportWritten } from './json';
import { writeReportFile, type ReportSink } from './sink';
import { EVAL_CHARTS_STYLE, evalChartsHtml } from './charts';
import { confusionMatrix, LatencyHistogram, latencyChart } from './svg';

/** The Content-Security-Policy of every HTML report. */
export const HTML_REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/** Options of {@link writeHtmlReport}. */
export interface HtmlReportOptions {
  /** Most cells whose full trace is included (default 200). */
  maxTraces?: number;
  /** Most case rows in the case × model matrix (default 2,000). */
  maxMatrixRows?: number;
  /** Longest prompt message or answer shown in a trace, in characters (default 20,000). */
  maxTextChars?: number;
}

/** Result of {@link writeHtmlReport}. */
export interface HtmlReportWritten extends ReportWritten {
  /** Cells whose trace is in the page. */
  traces: number;
}

/** Why a cell's trace was picked, in priority order. */
const TRACE_CLASSES = ['wrong', 'error', 'invalid', 'flaky', 'other'] as const;
type TraceClass = (typeof TRACE_CLASSES)[number];
const CLASS_LABEL: Record<TraceClass, string> = { wrong: 'wrong', error: 'error', invalid: 'unusable answer', flaky: 'flaky case', other: 'correct' };

/** The stylesheet of every HTML report (light and dark). */
export const HTML_REPORT_STYLE = `
:root{color-scheme:light dark;--fg:#1d1f23;--muted:#5c6370;--line:#d8dbe0;--bg:#fff;--panel:#f6f7f9;--pass:#dff0d8;--fail:#f8d7da;--err:#e2e3e5;--flaky:#fff3cd;--inv:#e5dbf3}
@media (prefers-color-scheme:dark){:root{--fg:#e6e6e6;--muted:#a0a6b0;--line:#3a3f47;--bg:#16181c;--panel:#1f2228;--pass:#1f3b24;--fail:#4a1f24;--err:#33363b;--flaky:#4a3f1a;--inv:#3a2d52}svg.chart{background:#fff;border-radius:4px}}
body{font:14px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg);margin:0 auto;max-width:1200px;padding:16px 24px 64px}
h1{font-size:22px;margin:8px 0}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:15px;margin:16px 0 6px}h4{font-size:13px;margin:12px 0 4px;color:var(--muted)}
table{border-collapse:collapse;margin:6px 0}th,td{border:1px solid var(--line);padding:3px 7px;text-align:left;vertical-align:top}th{background:var(--panel)}td.n{text-align:right;font-variant-numeric:tabular-nums}
.verdict{display:inline-block;padding:2px 10px;border-radius:4px;font-weight:600}.ok{background:var(--pass)}.bad{background:var(--fail)}.none{background:var(--err)}.warn{background:var(--flaky);outline:2px solid #b54708}
.warning{background:var(--fail);border-left:4px solid #b42318;padding:6px 10px;margin:8px 0;border-radius:4px}
.muted{color:var(--muted)}.charts{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}figure{margin:0}figcaption{font-size:12px;color:var(--muted)}
.matrix td.c{text-align:center;white-space:nowrap}.matrix td.pass{background:var(--pass)}.matrix td.fail{background:var(--fail)}.matrix td.error{background:var(--err)}.matrix td.invalid{background:var(--inv)}.matrix td.flaky{box-shadow:inset 0 0 0 3px #e0a800}
.matrix tr.skill th{background:var(--panel);text-align:left;position:sticky;left:0}.matrix th.col{max-width:9em;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;font-size:12px}.req{max-width:420px;min-width:16em}
.scroll{overflow-x:auto;max-width:100%;border:1px solid var(--line);border-radius:4px}.scroll table{margin:0}.legend span{display:inline-block;padding:0 6px;margin-right:6px;border-radius:3px}.legend .inv{background:var(--inv)}.legend .fl{box-shadow:inset 0 0 0 3px #e0a800}
pre{white-space:pre-wrap;word-break:break-word;background:var(--panel);border:1px solid var(--line);padding:6px 8px;margin:4px 0;max-height:420px;overflow:auto;font:12px/1.4 ui-monospace,monospace}
details{margin:4px 0}details.trace{border:1px solid var(--line);border-radius:4px;padding:4px 8px}details.trace>summary{cursor:pointer}details.call{margin-left:12px}
.tag{display:inline-block;font-size:11px;padding:0 6px;border-radius:3px;margin-right:6px;background:var(--err)}.tag.wrong{background:var(--fail)}.tag.invalid{background:var(--inv)}.tag.flaky{background:var(--flaky)}.tag.other{background:var(--pass)}
.role{font-size:11px;color:var(--muted);text-transform:uppercase;margin-top:6px}
${EVAL_CHARTS_STYLE}`;

function plural(n: number, one: string): string {
  return `${formatCount(n)} ${one}${n === 1 ? '' : 's'}`;
}

function arr(x: unknown): unknown[] {
  return Array.isArray(x) ? x : [];
}

function str(x: unknown): string {
  return typeof x === 'string' ? x : typeof x === 'number' || typeof x === 'boolean' ? String(x) : '';
}

function obj(x: unknown): Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as Record<string, unknown>) : {};
}

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n… (${formatCount(text.length - max)} more characters cut here; the JSON report has the full text)`;
}

function td(text: string, numeric = false): string {
  return numeric ? `<td class="n">${h(text)}</td>` : `<td>${h(text)}</td>`;
}

function tableHtml(head: readonly string[], rows: readonly string[], cls = ''): string {
  return `<table${cls ? ` class="${cls}"` : ''}><thead><tr>${head.map((x) => `<th>${h(x)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** First pass: everything the page needs except the traces themselves. */
interface Scan {
  cells: number;
  tornLines: number;
  folder: CaseFolder;
  latency: Map<string, LatencyHistogram>;
  /** Picked cell key → trace anchor and class. */
  picked: Map<string, { anchor: string; cls: TraceClass }>;
  /** Fold id → anchor of its first picked trace, for the matrix links. */
  anchors: Map<string, string>;
  /** Cells available per class (picked or not). */
  available: Record<TraceClass, number>;
}

async function scan(cellsFile: string, summary: EvalSummary, maxTraces: number): Promise<Scan> {
  const flaky = new Set<string>();
  for (const m of summary.models) for (const s of m.skills) for (const c of s.flaky_cases) flaky.add(foldId(m.model, s.variant, c));
  const folder = new CaseFolder();
  const latency = new Map<string, LatencyHistogram>();
  const candidates: Record<TraceClass, Array<{ key: string; fold: string }>> = { wrong: [], error: [], invalid: [], flaky: [], other: [] };
  const available: Record<TraceClass, number> = { wrong: 0, error: 0, invalid: 0, flaky: 0, other: 0 };
  let cells = 0;
  let tornLines = 0;
  for await (const cell of readCells(cellsFile, { onTornLine: () => tornLines++ })) {
    cells++;
    folder.add(cell);
    if (cell.outcome !== 'error') {
      let hist = latency.get(cell.model);
      if (!hist) latency.set(cell.model, (hist = new LatencyHistogram()));
      hist.add(cell.latency_ms);
    }
    const correct = cellCorrect(cell);
    const fold = foldId(cell.model, cell.variant, cell.case);
    const cls: TraceClass = cell.outcome === 'error' ? 'error' : cell.invalid === true ? 'invalid' : correct === false ? 'wrong' : flaky.has(fold) ? 'flaky' : 'other';
    available[cls]++;
    // Each class keeps at most maxTraces keys: memory stays bounded by the option.
    if (candidates[cls].length < maxTraces) candidates[cls].push({ key: cell.key, fold });
  }
  const picked = new Map<string, { anchor: string; cls: TraceClass }>();
  const anchors = new Map<string, string>();
  for (const cls of TRACE_CLASSES) {
    for (const { key, fold } of candidates[cls]) {
      if (picked.size >= maxTraces) break;
      const anchor = `t${picked.size + 1}`;
      picked.set(key, { anchor, cls });
      if (!anchors.has(fold)) anchors.set(fold, anchor);
    }
  }
  return { cells, tornLines, folder, latency, picked, anchors, available };
}

/** Thresholds and values of rate gates are rates; the comparison gates' bound and margin are plain numbers. */
function gateNumber(gate: string, n: number): string {
  return gate === 'regression' || gate === 'reference' ? formatGateNumber(n) : formatRate(n);
}

/** The verdict badge: the run's verdict (evals/verdict.ts), never derived again here. */
function verdictBadge(summary: EvalSummary): string {
  const v = summary.verdict;
  const cls = v.status === 'passed' ? (v.gates_set === 0 ? 'none' : 'ok') : v.status === 'incomplete' ? 'warn' : 'bad';
  const text = v.status === 'passed' && v.gates_set === 0 ? 'no gates set' : v.status === 'incomplete' ? 'incomplete: no verdict' : v.message;
  return `<span class="verdict ${cls}">${h(text)}</span>`;
}

function headSection(header: RunHeader, summary: EvalSummary): string {
  const gates = summary.gates;
  const verdictHtml = verdictBadge(summary);
  const t = summary.totals;
  const facts = [
    ['Run', header.run_id],
    ['Started', header.started_at],
    ['Config hash', header.config_hash],
    ['Repeats', String(header.repeats)],
    ['Concurrency', String(header.concurrency)],
    ['Cells', `${formatCount(t.cells)} (${plural(t.errors, 'error')}, ${formatCount(t.invalid)} unusable answer${t.invalid === 1 ? '' : 's'}, ${formatCount(t.cached)} from cache)`],
    ...runFacts(header, summary),
  ]
    .map(([k, v]) => `<tr><th>${h(k!)}</th>${td(v!)}</tr>`)
    .join('');
  const models = header.models.map((m) => `<tr>${td(m.spec)}${td(modelKind(m))}</tr>`);
  const variants = header.variants.map((v) => `<tr>${td(v.label)}${td(v.skill)}${td(String(v.version))}${td(truncate(v.manifest_hash, 23))}${td(v.file ?? '')}</tr>`);
  let out = `<h1>Skillbench evaluation ${verdictHtml}</h1>`;
  // As loud as a failed gate: why no verdict was reached, a skipped catalog, errored cells, unusable answers.
  for (const r of summary.verdict.reasons ?? []) out += `<p class="warning"><strong>No verdict:</strong> ${h(r.message)}</p>`;
  for (const w of summary.verdict.warnings) out += `<p class="warning"><strong>${h(warningLabel(w))}:</strong> ${h(w.message)}</p>`;
  out += `<table>${facts}</table>`;
  out += `<h3>Models in the run</h3>${tableHtml(['Model', 'Kind'], models)}`;
  out += '<p class="muted">Baselines are deterministic selectors, not language models: they show what a model has to beat.</p>';
  if (variants.length > 0) out += `<h3>Variants</h3>${tableHtml(['Variant', 'Skill', 'Version', 'Manifest hash', 'File'], variants)}`;
  if (gates.length > 0) {
    const rows = [...gates]
      .sort((a, b) => Number(a.passed) - Number(b.passed))
      .map(
        (g) =>
          `<tr>${td(g.passed ? 'pass' : 'FAIL')}${td(g.gate)}${td(g.model)}${td(g.skill)}${td(g.threshold === undefined ? '' : gateNumber(g.gate, g.threshold), true)}${td(g.value === null ? 'n/a' : gateNumber(g.gate, g.value), true)}${td(g.message)}</tr>`,
      );
    out += `<h2 id="gates">Gates</h2>${tableHtml(['Result', 'Gate', 'Model', 'Skill', 'Threshold', 'Value', 'Message'], rows)}`;
  }
  return out;
}

function modelsSection(summary: EvalSummary, s: Scan): string {
  const variants = hasVariants(summary.models);
  const short = modelLabels(summary.models.map((m) => m.model));
  const rows: string[] = [];
  const matrices: string[] = [];
  summary.models.forEach((m, mi) => {
    for (const v of variantTotals(m)) {
      const label = `${short[mi]}${variants ? ` [${v.variant}]` : ''}${m.isBaseline ? ' (baseline)' : ''}`;
      rows.push(
        `<tr><td title="${h(m.model)}">${h(m.model)}</td>${td(modelKind(m))}${variants ? td(v.variant) : ''}${td(usableShare(v), true)}${td(formatRate(v.accuracy), true)}${td(formatRate(v.precision), true)}${td(formatRate(v.recall), true)}${td(formatRate(v.f1), true)}` +
          `${td(formatCount(v.errors), true)}${td(formatCount(v.invalid), true)}${td(formatMs(m.latency_p50_ms), true)}${td(formatMs(m.latency_p95_ms), true)}${td(formatUsd(m.cost_usd), true)}</tr>`,
      );
      matrices.push(`<figure>${confusionMatrix(`Confusion matrix of ${label}`, v)}<figcaption title="${h(m.model)}">${h(label)}</figcaption></figure>`);
    }
  });
  const head = ['Model', 'Kind', ...(variants ? ['Variant'] : []), 'Usable', 'Accuracy', 'Precision', 'Recall', 'F1', 'Errors', 'Unusable', 'Latency p50', 'Latency p95', 'Cost'];
  let out = `<h2 id="models">Models</h2>${tableHtml(head, rows)}`;
  out += `<p class="muted">Rates over all skills of a model${variants ? ' and variant' : ''}, over its usable answers: "Usable" says how many cells they rest on. Errors and unusable answers (the runtime rejected them) are left out, never counted as "not activated". Latency and cost are per model.</p>`;
  if (summary.models.length > 0) out += evalChartsHtml(summary);
  out += `<h2 id="confusion">Confusion matrices</h2><div class="charts">${matrices.join('')}</div>`;
  const latency = summary.models.map((m, mi) => {
    const hist = s.latency.get(m.model) ?? new LatencyHistogram();
    return `<figure>${latencyChart(`Latency of ${m.model}`, hist, m.latency_p50_ms, m.latency_p95_ms)}<figcaption title="${h(m.model)}">${h(short[mi]!)}: ${formatCount(hist.count)} answered cells, p50 ${h(formatMs(m.latency_p50_ms))}, p95 ${h(formatMs(m.latency_p95_ms))}</figcaption></figure>`;
  });
  out += `<h2 id="latency">Latency</h2><p class="muted">Distribution of cell latencies on a log scale (errors left out); dashed lines mark the summary's p50 and p95.</p><div class="charts">${latency.join('')}</div>`;
  return out;
}

function skillsSection(header: RunHeader, summary: EvalSummary): string {
  const variants = hasVariants(summary.models);
  const cases = new Map(header.cases.map((c) => [c.id, c] as const));
  const rows: string[] = [];
  const flakyRows: string[] = [];
  for (const m of summary.models) {
    for (const s of m.skills) {
      rows.push(
        `<tr>${td(m.model)}${variants ? td(s.variant) : ''}${td(s.skill)}${[s.tp, s.fp, s.tn, s.fn].map((n) => td(formatCount(n), true)).join('')}` +
          `${[s.accuracy, s.precision, s.recall, s.f1].map((r) => td(formatRate(r), true)).join('')}${td(usableShare(s), true)}${td(formatCount(s.errors), true)}${td(formatCount(s.invalid), true)}${td(formatCount(s.flaky_cases.length), true)}` +
          `${td(s.resource_accuracy === null ? 'n/a' : `${formatRate(s.resource_accuracy)} of ${s.resource_cases}`, true)}</tr>`,
      );
      for (const f of flakyOf(s)) {
        const info = cases.get(f.case);
        flakyRows.push(`<tr>${td(m.model)}${variants ? td(s.variant) : ''}${td(s.skill)}${td(f.case)}${td(info?.expect ?? '')}${td(`${f.k}/${f.n}${f.errors > 0 ? ` (+${f.errors} errors)` : ''}`, true)}<td class="req">${h(info ? truncate(info.request, 200) : '')}</td></tr>`);
      }
    }
  }
  const v = variants ? ['Variant'] : [];
  let out = `<h2 id="skills">Skills</h2>${tableHtml(['Model', ...v, 'Skill', 'TP', 'FP', 'TN', 'FN', 'Accuracy', 'Precision', 'Recall', 'F1', 'Usable', 'Errors', 'Unusable', 'Flaky', 'Resources'], rows)}`;
  out += '<h2 id="flaky">Flaky cases</h2>';
  out += flakyRows.length === 0 ? '<p>None: every case gave the same answer on all its repeats.</p>' : tableHtml(['Model', ...v, 'Skill', 'Case', 'Expected', 'Triggered', 'Request'], flakyRows);
  out += '<h2 id="comparisons">Paired comparisons</h2>';
  if (summary.comparisons.length === 0) out += '<p>None in this run.</p>';
  else {
    const short = modelLabels(header.models.map((m) => m.spec));
    const label = (spec: string) => short[header.models.findIndex((m) => m.spec === spec)] ?? spec;
    const cmp = summary.comparisons.map((c) => {
      const better = c.test.aOnly > c.test.bOnly ? 'A' : c.test.bOnly > c.test.aOnly ? 'B' : null;
      const result = c.test.significant ? `significant (α = ${c.test.alpha}${better ? `, ${better} better` : ''})` : `not significant (α = ${c.test.alpha})`;
      const under = c.kind === 'variant' ? `model ${label(c.model ?? '')}` : `variant ${c.variant ?? ''}`;
      const [a, b] = c.kind === 'variant' ? [c.a, c.b] : [label(c.a), label(c.b)];
      return `<tr>${td(c.kind === 'variant' ? 'draft vs published' : 'model vs model')}${td(c.skill)}<td title="${h(c.model ?? c.variant ?? '')}">${h(under)}</td><td title="${h(c.a)}">${h(a)}</td><td title="${h(c.b)}">${h(b)}</td>${td(formatCount(c.pairs), true)}${td(formatRate(c.accuracy_a), true)}${td(formatRate(c.accuracy_b), true)}${td(String(c.test.aOnly), true)}${td(String(c.test.bOnly), true)}${td(formatP(c.test.pValue), true)}${c.test.significant ? `<td><strong>${h(result)}</strong></td>` : td(result)}</tr>`;
    });
    out +=
      '<p class="muted">One pair per case: each side counts by the majority of its usable repeats, and the exact McNemar test runs on the pairs. "A only" counts cases only A got right. A draft comparison is draft (A) vs published (B) under one model; a model comparison is model A vs model B on one variant.</p>' +
      tableHtml(['Kind', 'Skill', 'Under', 'A', 'B', 'Pairs', 'Accuracy A', 'Accuracy B', 'A only', 'B only', 'p-value', 'Result'], cmp);
  }
  out += '<h2 id="catalog">Catalog</h2>';
  const catalogs = Object.entries(header.catalogs);
  if (catalogs.length === 0) out += '<p>No catalog recorded.</p>';
  else {
    out += tableHtml(
      ['Catalog', 'Skills', 'Tokens', 'Budget', 'Use', 'Source'],
      catalogs.map(([name, c]) => {
        const use = catalogUse(c);
        return `<tr>${td(name)}${td(formatCount(c.entries.length), true)}${td(formatCount(c.tokens), true)}${td(formatCount(c.budget), true)}<td class="n">${h(formatRate(use.share))}${use.over ? ' <strong>over budget</strong>' : ''}</td>${td(c.source)}</tr>`;
      }),
    );
    // Catalogs holding the same skills (each testing another) share one table.
    for (const g of catalogGroups(header.catalogs)) {
      out += `<h3>${h(g.names.length === 1 ? `Catalog ${g.names[0]}` : `Catalogs ${g.names.join(', ')}`)}</h3>`;
      out += tableHtml(
        ['Skill', 'Version', 'Activation', 'Under test', 'Manifest hash'],
        g.catalog.entries.map((e) => `<tr>${td(e.skill)}${td(String(e.version))}${td(e.activation)}${td(g.underTest.has(e.skill) ? 'yes' : '')}${td(truncate(e.manifest_hash, 23))}</tr>`),
      );
    }
  }
  return out;
}

function matrixSection(header: RunHeader, s: Scan, maxRows: number): string {
  const folds = s.folder.all();
  const variantOrder = header.variants.map((v) => v.label);
  const variantsSeen = orderBy([...new Set(folds.map((f) => f.variant))], (v) => v, variantOrder);
  const baseline = new Map(header.models.map((m) => [m.spec, m.isBaseline] as const));
  const modelsSeen = orderBy([...new Set(folds.map((f) => f.model))], (m) => m, header.models.map((m) => m.spec));
  const columns = modelsSeen.flatMap((model) => variantsSeen.map((variant) => ({ model, variant })));
  const withVariant = variantsSeen.length > 1;

  // Cases of the header in order, grouped by skill, then cases only the cells name.
  const infos = new Map(header.cases.map((c) => [c.id, c] as const));
  const firstFold = new Map<string, CaseFold>();
  for (const f of folds) if (!firstFold.has(f.case)) firstFold.set(f.case, f);
  const caseIds = [...new Set([...header.cases.map((c) => c.id), ...firstFold.keys()])];
  const skillOf = (id: string): string => infos.get(id)?.skill ?? firstFold.get(id)?.skill ?? '';
  const skills = [...new Set(caseIds.map(skillOf))];

  const short = modelLabels(modelsSeen);
  const labelOf = (model: string) => short[modelsSeen.indexOf(model)] ?? model;
  const headCells = columns.map((c) => {
    const text = `${labelOf(c.model)}${withVariant ? ` [${c.variant}]` : ''}${baseline.get(c.model) ? ' (baseline)' : ''}`;
    return `<th class="col" title="${h(`${c.model}${withVariant ? ` [${c.variant}]` : ''}`)}">${h(text)}</th>`;
  });
  const head = ['Case', 'Expected', ...columns.map(() => '')];
  const rows: string[] = [];
  let shown = 0;
  let hidden = 0;
  const bySkill = new Map<string, string[]>(skills.map((k) => [k, []]));
  for (const id of caseIds) bySkill.get(skillOf(id))!.push(id);
  for (const skill of skills) {
    const ids = bySkill.get(skill)!;
    if (shown >= maxRows) {
      hidden += ids.length;
      continue;
    }
    rows.push(`<tr class="skill"><th colspan="${head.length}">${h(skill)}</th></tr>`);
    for (const id of ids) {
      if (shown >= maxRows) {
        hidden++;
        continue;
      }
      shown++;
      const info: CaseInfo | undefined = infos.get(id);
      const expect = info?.expect ?? firstFold.get(id)?.expect ?? '';
      const cells = columns.map((c) => matrixCell(s.folder.get(c.model, c.variant, id), s));
      rows.push(`<tr><td class="req" title="${h(info?.request ?? '')}"><span class="muted">${h(id)}</span> ${h(truncate(info?.request ?? '(not in the run header)', 140))}</td>${td(expect)}${cells.join('')}</tr>`);
    }
  }
  let out = '<h2 id="matrix">Case × model matrix</h2>';
  out +=
    '<p class="muted">Each cell shows activations / usable answers of the skill under test. A linked cell has a trace below.</p>' +
    '<p class="legend"><span class="ok">pass: the majority of repeats was right</span><span class="bad">fail: wrong</span><span class="inv">unusable: the runtime rejected the answers</span><span class="none">error: no answer</span><span class="fl">flaky</span></p>';
  // The matrix scrolls inside its own box: a wide run (many models × variants) never widens the page.
  out += `<div class="scroll"><table class="matrix"><thead><tr><th>Case</th><th>Expected</th>${headCells.join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
  if (hidden > 0) out += `<p><strong>${formatCount(hidden)} more cases are not shown</strong> (the matrix is limited to ${formatCount(maxRows)} rows); the JSON report has every cell.</p>`;
  return out;
}

function matrixCell(f: CaseFold | undefined, s: Scan): string {
  if (!f) return '<td class="c muted">–</td>';
  const v = verdict(f);
  const answered = f.activated + f.notActivated;
  const flaky = isFlaky(f);
  const text = `${f.activated}/${answered}${f.invalid > 0 ? ` +${f.invalid} unusable` : ''}${f.errors > 0 ? ` +${f.errors} err` : ''}`;
  const title = `${f.expect}; correct ${correctCount(f)}/${f.n}; errors ${f.errors}${f.invalid > 0 ? `; unusable ${f.invalid}` : ''}${f.activatedSkills.size > 0 ? `; activated: ${describeCounts(f.activatedSkills)}` : ''}`;
  const anchor = s.anchors.get(foldId(f.model, f.variant, f.case));
  const content = anchor ? `<a href="#${anchor}">${h(text)}</a>` : h(text);
  return `<td class="c ${v}${flaky ? ' flaky' : ''}" title="${h(title)}">${content}</td>`;
}

function traceHtml(cell: CellRecord, info: CaseInfo | undefined, pick: { anchor: string; cls: TraceClass }, maxText: number): string {
  const trace = obj(cell.trace);
  const summaryLine = `${cell.model} · ${cell.variant} · ${cell.skill} · case ${cell.case} · repeat ${cell.repeat}`;
  const kv: Array<[string, string]> = [
    ['Cell key', cell.key],
    ['Request', info?.request ?? '(not in the run header)'],
    ['Expected', cell.expect],
    ['Outcome', cell.invalid === true && cell.outcome !== 'error' ? `unusable answer (the selector rejected it; the runtime would have ${cell.outcome === 'activated' ? 'activated' : 'not activated'} the skill)` : cell.outcome],
    ['Activated skills', cell.activated.join(', ') || '(none)'],
    ['Resources', `${arr(cell.resources).map(str).join(', ') || '(none)'}${cell.resources_correct === true ? ' (as expected)' : cell.resources_correct === false ? ' (not as expected)' : ''}`],
    ['Latency', formatMs(cell.latency_ms)],
    ['Tokens', `${str(cell.input_tokens) || '0'} in, ${str(cell.output_tokens) || '0'} out`],
    ['Cost', typeof cell.cost_usd === 'number' ? formatUsd(cell.cost_usd) : 'n/a'],
    ['Cached', cell.cached === true ? 'yes' : 'no'],
  ];
  if (typeof cell.error === 'string') kv.push(['Error', cell.error]);
  let out = `<details class="trace" id="${pick.anchor}"><summary><span class="tag ${pick.cls}">${CLASS_LABEL[pick.cls]}</span>${h(summaryLine)}</summary>`;
  out += `<table>${kv.map(([k, v]) => `<tr><th>${h(k)}</th><td>${h(cut(v, maxText))}</td></tr>`).join('')}</table>`;
  const diags = arr(cell.diagnostics).map(obj);
  if (diags.length > 0) out += `<h4>Diagnostics</h4><ul>${diags.map((d) => `<li>${h([str(d.code), str(d.action), str(d.skill), str(d.resource)].filter(Boolean).join(' · '))}: ${h(str(d.message))}</li>`).join('')}</ul>`;
  const pinning = arr(trace.pinning).map(obj);
  if (pinning.length > 0) {
    out += `<h4>Pinning</h4>${tableHtml(
      ['Skill', 'Requested', 'Activation', 'Required', 'Status', 'Version'],
      pinning.map((p) => `<tr>${td(str(p.skill))}${td(str(p.requested))}${td(str(p.activation))}${td(str(p.required))}${td(str(p.status))}${td(str(p.version))}</tr>`),
    )}`;
  }
  const policy = obj(obj(trace.activation).policy);
  if (Object.keys(policy).length > 0) out += `<h4>Activation policy</h4><pre>${h(cut(JSON.stringify(policy, null, 2), maxText))}</pre>`;
  const calls = arr(trace.calls).map(obj);
  out += calls.length === 0 ? '<p class="muted">No selector model call was made.</p>' : '';
  calls.forEach((c, i) => {
    const attempts = arr(c.attempts).map(obj);
    const template = obj(c.template);
    out += `<details class="call"><summary>${h(`Call ${i + 1}: ${str(c.kind)} at ${str(c.boundary)} · template ${str(template.id)}@${str(template.version)} · ${attempts.length} attempt${attempts.length === 1 ? '' : 's'} · ${formatMs(typeof c.latencyMs === 'number' ? c.latencyMs : null)} · ${str(c.model)} (${str(c.provider)})`)}</summary>`;
    out += '<h4>Prompt sent</h4>';
    for (const m of arr(c.messages).map(obj)) out += `<div class="role">${h(str(m.role))}</div><pre>${h(cut(str(m.content), maxText))}</pre>`;
    out += `<h4>Raw answer</h4><pre>${h(c.raw === null || c.raw === undefined ? '(no answer)' : cut(str(c.raw), maxText))}</pre>`;
    out += `<h4>Decision</h4><pre>${h(c.decision === null || c.decision === undefined ? '(none decoded)' : cut(JSON.stringify(c.decision), maxText))}</pre>`;
    out += `<p>Accepted: ${h(arr(c.accepted).map(str).join(', ') || '(none)')} · candidates offered: ${h(arr(c.candidates).map(str).join(', ') || '(none)')} · catalog ${h(str(c.catalogTokens))} tokens</p>`;
    if (attempts.length > 0) {
      out += tableHtml(
        ['Attempt', 'Correction', 'Outcome', 'Latency', 'Error', 'Answer'],
        attempts.map(
          (a) =>
            `<tr>${td(str(a.attempt), true)}${td(a.correction === true ? 'yes' : '')}${td(str(a.outcome))}${td(formatMs(typeof a.latencyMs === 'number' ? a.latencyMs : null), true)}${td(truncate(str(a.error), 300))}${td(truncate(str(a.raw), 300))}</tr>`,
        ),
      );
    }
    const cd = arr(c.diagnostics).map(obj);
    if (cd.length > 0) out += `<ul>${cd.map((d) => `<li>${h(str(d.code))}: ${h(str(d.message))}</li>`).join('')}</ul>`;
    out += '</details>';
  });
  return `${out}</details>\n`;
}

async function writeTraces(sink: ReportSink, cellsFile: string, header: RunHeader, s: Scan, maxText: number): Promise<number> {
  const infos = new Map(header.cases.map((c) => [c.id, c] as const));
  let written = 0;
  for await (const cell of readCells(cellsFile)) {
    const pick = s.picked.get(cell.key);
    if (!pick) continue;
    await sink.write(traceHtml(cell, infos.get(cell.case), pick, maxText));
    written++;
  }
  return written;
}

/**
 * Writes the standalone HTML report of a run to `path` (atomically). Memory
 * is bounded by models × variants × cases plus `maxTraces` cell keys, never by
 * the size of the cells file.
 */
export async function writeHtmlReport(path: string, header: RunHeader, summary: EvalSummary, cellsFile: string, options: HtmlReportOptions = {}): Promise<HtmlReportWritten> {
  const maxTraces = Math.max(0, Math.floor(options.maxTraces ?? 200));
  const maxRows = Math.max(1, Math.floor(options.maxMatrixRows ?? 2000));
  const maxText = Math.max(100, Math.floor(options.maxTextChars ?? 20_000));
  const s = await scan(cellsFile, summary, maxTraces);
  let traces = 0;
  const bytes = await writeReportFile(path, async (sink) => {
    await sink.write(
      '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">' +
        `<meta http-equiv="Content-Security-Policy" content="${HTML_REPORT_CSP}">` +
        '<meta name="referrer" content="no-referrer"><meta name="viewport" content="width=device-width, initial-scale=1">' +
        `<title>${h(`Skillbench evaluation ${header.run_id}`)}</title><style>${HTML_REPORT_STYLE}</style></head><body>\n`,
    );
    await sink.write(headSection(header, summary));
    await sink.write(modelsSection(summary, s));
    await sink.write(skillsSection(header, summary));
    await sink.write(matrixSection(header, s, maxRows));
    const total = s.cells;
    const a = s.available;
    const counts = `${plural(a.wrong, 'wrong answer')}, ${plural(a.error, 'error')}, ${plural(a.invalid, 'unusable answer')} and ${plural(a.flaky, 'other cell')} of flaky cases`;
    await sink.write(
      `<h2 id="traces">Traces</h2><p>This page includes the full selector trace of <strong>${formatCount(s.picked.size)} of ${formatCount(total)} cells</strong> ` +
        `(at most ${formatCount(maxTraces)}), picked in this order: wrong answers, errors, unusable answers, cells of flaky cases, then the rest. ` +
        `The run has ${counts}. The JSON report has the trace of every cell.</p>\n`,
    );
    traces = await writeTraces(sink, cellsFile, header, s, maxText);
    if (s.tornLines > 0) await sink.write('<p class="muted">The last line of the cells file was incomplete (the run was interrupted while writing it) and was left out.</p>');
    await sink.write(`<p class="muted">${h(`${header.format} · run ${header.run_id} · config ${header.config_hash}`)}</p></body></html>\n`);
  });
  return { path, bytes, cells: s.cells, tornLines: s.tornLines, traces };
}
