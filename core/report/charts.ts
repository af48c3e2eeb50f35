/**
 * The results charts that the HTML report and the workbench's evaluation view
 * both draw, so both show the same picture: per model (and skill and variant
 * when the run has several) the accuracy, precision and recall as a dot with
 * its 95 % case-bootstrap interval as a whisker, and for each draft-vs-
 * published comparison the differences of those rates with their intervals
 * around a zero line. A legend gives every short model label its full spec.
 * Pure and isomorphic.
 *
 * The module is plain data in, plain data out, and touches no DOM:
 * {@link evalChartData} picks the numbers from a summary, {@link forestGeometry}
 * places them, and {@link evalCharts} builds a small element tree that the
 * HTML report writes as markup with inline SVG (evals/reports/charts.ts; its
 * CSP forbids script) and the workbench turns into React elements. Only
 * presentation attributes and classes are used, never `style`, so the
 * workbench's stylesheet can restyle the chart for its themes.
 */
import { formatRate } from './format';
import { fitMiddle, modelLabels } from './modelLabels';

/** A two-sided interval (the shape of evals/intervals.ts). */
export interface Interval {
  low: number;
  high: number;
}

/** A difference with its interval (the shape of evals/intervals.ts). */
export interface RateDelta {
  value: number | null;
  interval: Interval | null;
}

/**
 * What the charts read from an evaluation summary: the shape of the engine's
 * `EvalSummary` (evals/types.ts), declared here so the module stays in core
 * and both the report writer and the workbench can use it.
 */
export interface ChartSummary {
  models: ReadonlyArray<{
    model: string;
    isBaseline: boolean;
    skills: ReadonlyArray<{
      skill: string;
      variant: string;
      accuracy: number | null;
      precision: number | null;
      recall: number | null;
      intervals?: { accuracy: Interval | null; precision: Interval | null; recall: Interval | null };
    }>;
  }>;
  comparisons: ReadonlyArray<{ kind: string; skill: string; a: string; b: string; model?: string; deltas?: { accuracy: RateDelta; precision: RateDelta; recall: RateDelta } }>;
}

/** The rates every chart shows, in panel order. */
export const CHART_RATES = ['accuracy', 'precision', 'recall'] as const;
/** One of {@link CHART_RATES}. */
export type ChartRate = (typeof CHART_RATES)[number];

/** A point estimate with its interval (null: not measured, or too few cases for an interval). */
export interface ChartPoint {
  value: number | null;
  interval: Interval | null;
}

/** One row of a chart: a model (with its skill and variant when the run has several). */
export interface ChartRow {
  /** The model spec. */
  model: string;
  /** What the row's label says: the model's short label, then skill and variant when needed. */
  label: string;
  /** The full description for a tooltip. */
  title: string;
  isBaseline: boolean;
  points: Record<ChartRate, ChartPoint>;
}

/** A legend entry: a short label and the spec it stands for. */
export interface LegendEntry {
  label: string;
  spec: string;
  isBaseline: boolean;
}

/** The numbers the charts show, picked from a summary. */
export interface EvalChartData {
  rates: ChartRow[];
  /** Draft − published, one row per model and skill of a variant comparison. */
  deltas: ChartRow[];
  /** What the delta rows subtract, e.g. `draft − published`. */
  deltaCaption: string;
  legend: LegendEntry[];
}

const SKILL_LABEL_MAX = 20;

function point(value: number | null | undefined, interval: Interval | null | undefined): ChartPoint {
  return { value: value ?? null, interval: value === null || value === undefined ? null : (interval ?? null) };
}

function deltaPoint(d: RateDelta | undefined): ChartPoint {
  return point(d?.value, d?.interval);
}

/** The numbers of the charts of `summary`: rate rows in model order, then the variant comparisons. */
export function evalChartData(summary: ChartSummary): EvalChartData {
  const specs = summary.models.map((m) => m.model);
  const labels = modelLabels(specs);
  const labelOf = new Map(specs.map((s, i) => [s, labels[i]!] as const));
  const baseline = new Map(summary.models.map((m) => [m.model, m.isBaseline] as const));
  const skills = new Set(summary.models.flatMap((m) => m.skills.map((s) => s.skill)));
  const variants = new Set(summary.models.flatMap((m) => m.skills.map((s) => s.variant)));
  const rowLabel = (model: string, skill: string, variant: string | null): string =>
    [labelOf.get(model) ?? model, ...(skills.size > 1 ? [fitMiddle(skill, SKILL_LABEL_MAX)] : []), ...(variant !== null && variants.size > 1 ? [variant] : [])].join(' · ');
  const rates: ChartRow[] = summary.models.flatMap((m) =>
    m.skills.map((s) => ({
      model: m.model,
      label: rowLabel(m.model, s.skill, s.variant),
      title: `${m.model}${m.isBaseline ? ' (baseline)' : ''} · ${s.skill} · ${s.variant}`,
      isBaseline: m.isBaseline,
      points: { accuracy: point(s.accuracy, s.intervals?.accuracy), precision: point(s.precision, s.intervals?.precision), recall: point(s.recall, s.intervals?.recall) },
    })),
  );
  const variantComparisons = summary.comparisons.filter((c) => c.kind === 'variant' && c.model !== undefined);
  const deltas: ChartRow[] = variantComparisons.map((c) => ({
    model: c.model!,
    label: rowLabel(c.model!, c.skill, null),
    title: `${c.model!} · ${c.skill}: ${c.a} − ${c.b}`,
    isBaseline: baseline.get(c.model!) ?? false,
    points: { accuracy: deltaPoint(c.deltas?.accuracy), precision: deltaPoint(c.deltas?.precision), recall: deltaPoint(c.deltas?.recall) },
  }));
  const sides = [...new Set(variantComparisons.map((c) => `${c.a} − ${c.b}`))];
  return {
    rates,
    deltas,
    deltaCaption: sides.length === 1 ? sides[0]! : 'draft − published',
    legend: summary.models.map((m) => ({ label: labelOf.get(m.model) ?? m.model, spec: m.model, isBaseline: m.isBaseline })),
  };
}

/** The placed marks of one value in one panel. */
export interface MarkGeometry {
  /** Centre of the dot; null when the value is not measured. */
  cx: number | null;
  /** Ends of the whisker; null without an interval. */
  x1: number | null;
  x2: number | null;
  /** The value's text, right-aligned at `textX` in a column of its own right of the panel. */
  text: string;
  textX: number;
}

/** One panel (one rate) of a forest chart. */
export interface PanelGeometry {
  rate: ChartRate;
  /** Left and right edge of the axis. */
  x0: number;
  x1: number;
  domain: [number, number];
  ticks: Array<{ x: number; value: number; text: string }>;
}

/** A whole forest chart, placed. */
export interface ForestGeometry {
  width: number;
  height: number;
  /** Right edge of the row labels. */
  labelRight: number;
  /** Top of the first row, bottom of the last. */
  plotTop: number;
  plotBottom: number;
  panels: PanelGeometry[];
  rows: Array<{ y: number; top: number; row: ChartRow; marks: MarkGeometry[] }>;
}

const ROW_H = 24;
const PANEL_W = 200;
/** Width of the value column right of each panel, and the space after it. */
const VALUE_W = 50;
const PANEL_GAP = VALUE_W + 22;
const HEAD_H = 40;
const AXIS_H = 26;
/** Average advance of a 12 px system-ui character, for sizing the label column. */
const CHAR_W = 6.8;

/** The axis of a forest chart and how its numbers read. */
export interface ForestAxis {
  domain: [number, number];
  ticks: readonly number[];
  formatTick: (v: number) => string;
  formatValue: (v: number) => string;
  /** Right edge of the row labels, so charts drawn one above the other line up (default: as wide as the longest label needs). */
  labelRight?: number;
}

/** The right edge of the row labels that `rows` need. */
export function labelColumn(rows: readonly ChartRow[]): number {
  const longest = Math.max(8, ...rows.map((r) => [...r.label].length));
  return Math.round(Math.min(300, Math.max(90, longest * CHAR_W + 16)));
}

/** Places `rows` on one panel per rate over the axis's domain; intervals and values are clamped to it. */
export function forestGeometry(rows: readonly ChartRow[], axis: ForestAxis): ForestGeometry {
  const { domain, ticks, formatTick, formatValue } = axis;
  const labelRight = axis.labelRight ?? labelColumn(rows);
  const [lo, hi] = domain;
  const scale = (x0: number, v: number): number => x0 + ((Math.max(lo, Math.min(hi, v)) - lo) / (hi - lo)) * PANEL_W;
  const panels: PanelGeometry[] = CHART_RATES.map((rate, i) => {
    const x0 = labelRight + 12 + i * (PANEL_W + PANEL_GAP);
    return { rate, x0, x1: x0 + PANEL_W, domain: [lo, hi], ticks: ticks.map((t) => ({ x: scale(x0, t), value: t, text: formatTick(t) })) };
  });
  const plotTop = HEAD_H;
  const placed = rows.map((row, ri) => {
    const top = plotTop + ri * ROW_H;
    const marks = panels.map((p): MarkGeometry => {
      const pt = row.points[p.rate];
      const textX = p.x1 + 8 + VALUE_W;
      if (pt.value === null || !Number.isFinite(pt.value)) return { cx: null, x1: null, x2: null, text: 'n/a', textX };
      const cx = scale(p.x0, pt.value);
      const iv = pt.interval && Number.isFinite(pt.interval.low) && Number.isFinite(pt.interval.high) ? pt.interval : null;
      const x1 = iv ? scale(p.x0, Math.min(iv.low, iv.high)) : null;
      const x2 = iv ? scale(p.x0, Math.max(iv.low, iv.high)) : null;
      return { cx, x1, x2, text: formatValue(pt.value), textX };
    });
    return { y: top + ROW_H / 2, top, row, marks };
  });
  const plotBottom = plotTop + rows.length * ROW_H;
  const width = panels[panels.length - 1]!.x1 + PANEL_GAP - 12;
  return { width, height: plotBottom + AXIS_H, labelRight, plotTop, plotBottom, panels, rows: placed };
}

/** The axis of the delta chart: symmetric around zero, wide enough for every interval, in steps a reader can use. */
export function deltaDomain(rows: readonly ChartRow[]): [number, number] {
  let m = 0;
  for (const r of rows) {
    for (const rate of CHART_RATES) {
      const p = r.points[rate];
      for (const v of [p.value, p.interval?.low, p.interval?.high]) if (typeof v === 'number' && Number.isFinite(v)) m = Math.max(m, Math.abs(v));
    }
  }
  const step = [0.1, 0.2, 0.25, 0.5, 1].find((s) => m <= s) ?? 1;
  return [-step, step];
}

/** An element of a chart: plain data, written as markup by the HTML report or turned into React elements by the workbench. */
export interface ChartNode {
  tag: string;
  attrs: Record<string, string | number>;
  /** Text content (escaped when written) or child elements. */
  children: Array<ChartNode | string>;
}

function el(tag: string, attrs: Record<string, string | number | undefined>, ...children: Array<ChartNode | string>): ChartNode {
  const clean: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) clean[k] = typeof v === 'number' ? Math.round(v * 10) / 10 : v;
  return { tag, attrs: clean, children };
}

const RATE_TITLE: Record<ChartRate, string> = { accuracy: 'Accuracy', precision: 'Precision', recall: 'Recall' };
/** One colour for every rate: the panels name them, and red or green would read as a verdict. */
const RATE_COLOR = '#3b6fb6';
/** Delta marks: better, worse, or an interval that includes zero (the change is not shown). */
const DELTA_COLOR = { up: '#1b7f3b', down: '#c0312b', flat: '#6b7280' };

function signed(v: number): string {
  return `${v > 0 ? '+' : ''}${formatRate(v)}`;
}

function describe(p: ChartPoint, fmt: (v: number) => string): string {
  if (p.value === null) return 'n/a';
  return `${fmt(p.value)}${p.interval ? ` (95 % interval ${fmt(p.interval.low)} to ${fmt(p.interval.high)})` : ' (no interval: too few answered cases)'}`;
}

function forestSvg(kind: 'rates' | 'deltas', title: string, g: ForestGeometry): ChartNode {
  const fmt = kind === 'rates' ? formatRate : signed;
  const parts: ChartNode[] = [el('title', {}, title)];
  g.rows.forEach((r, i) => {
    if (i % 2 === 1) parts.push(el('rect', { class: 'band', x: 0, y: r.top, width: g.width, height: ROW_H, fill: '#f3f4f6' }));
  });
  for (const p of g.panels) {
    parts.push(el('text', { class: 'head', x: (p.x0 + p.x1) / 2, y: 16, 'text-anchor': 'middle', 'font-weight': 600, fill: '#1d1f23' }, kind === 'rates' ? RATE_TITLE[p.rate] : `Δ ${RATE_TITLE[p.rate].toLowerCase()}`));
    for (const t of p.ticks) {
      const zero = kind === 'deltas' && t.value === 0;
      parts.push(el('line', { class: zero ? 'zero' : 'grid', x1: t.x, y1: g.plotTop - 6, x2: t.x, y2: g.plotBottom, stroke: zero ? '#374151' : '#d1d5db', 'stroke-width': zero ? 1.5 : 1 }));
      parts.push(el('text', { class: 'tick', x: t.x, y: g.plotBottom + 16, 'text-anchor': 'middle', 'font-size': 11, fill: '#4b5563' }, t.text));
    }
  }
  for (const r of g.rows) {
    parts.push(el('text', { class: r.row.isBaseline ? 'label baseline' : 'label', x: g.labelRight, y: r.y + 4, 'text-anchor': 'end', fill: r.row.isBaseline ? '#4b5563' : '#1d1f23' }, el('title', {}, r.row.title), r.row.label));
    r.marks.forEach((m, i) => {
      const rate = g.panels[i]!.rate;
      const pt = r.row.points[rate];
      const tip = `${r.row.title} · ${kind === 'rates' ? RATE_TITLE[rate] : `Δ ${rate}`}: ${describe(pt, fmt)}`;
      if (m.cx === null) {
        parts.push(el('text', { class: 'na', x: m.textX, y: r.y + 4, 'text-anchor': 'end', 'font-size': 11, fill: '#6b7280' }, el('title', {}, tip), 'n/a'));
        return;
      }
      const direction = pt.interval && pt.interval.low > 0 ? 'up' : pt.interval && pt.interval.high < 0 ? 'down' : 'flat';
      const color = kind === 'rates' ? RATE_COLOR : DELTA_COLOR[direction];
      const mark: ChartNode[] = [el('title', {}, tip)];
      if (m.x1 !== null && m.x2 !== null) {
        mark.push(
          el('line', { class: 'whisker', x1: m.x1, y1: r.y, x2: m.x2, y2: r.y, stroke: color, 'stroke-width': 2 }),
          el('line', { class: 'whisker', x1: m.x1, y1: r.y - 5, x2: m.x1, y2: r.y + 5, stroke: color, 'stroke-width': 2 }),
          el('line', { class: 'whisker', x1: m.x2, y1: r.y - 5, x2: m.x2, y2: r.y + 5, stroke: color, 'stroke-width': 2 }),
        );
      }
      mark.push(el('circle', { class: 'dot', cx: m.cx, cy: r.y, r: 4.5, fill: color }));
      mark.push(el('text', { class: 'value', x: m.textX, y: r.y + 4, 'text-anchor': 'end', 'font-size': 11, fill: '#374151' }, m.text));
      parts.push(el('g', { class: kind === 'rates' ? `mark ${rate}` : `mark ${direction}`, 'data-rate': rate }, ...mark));
    });
  }
  return el(
    'svg',
    { class: `chart forest ${kind}`, width: g.width, height: g.height, viewBox: `0 0 ${Math.round(g.width)} ${Math.round(g.height)}`, role: 'img', 'aria-label': title, 'font-family': 'system-ui, sans-serif', 'font-size': 12 },
    ...parts,
  );
}

/** Ticks read as whole percentages (or halves: ±12.5 %), values with one decimal. */
function percentTick(v: number): string {
  return `${Math.round(v * 1000) / 10}%`;
}

/** Tick positions of the rates chart. */
const RATE_TICKS = [0, 0.25, 0.5, 0.75, 1];

/**
 * The charts of a summary as one element tree: a figure with the rates chart,
 * the delta chart when the run compared a draft with the published revision,
 * and the legend of model labels.
 */
export function evalCharts(summary: ChartSummary): ChartNode {
  const data = evalChartData(summary);
  const rateTitle = 'Accuracy, precision and recall with 95 % intervals';
  const figures: ChartNode[] = [];
  // Both charts share the label column, so their panels line up one above the other.
  const labelRight = labelColumn([...data.rates, ...data.deltas]);
  if (data.rates.length > 0) {
    const g = forestGeometry(data.rates, { domain: [0, 1], ticks: RATE_TICKS, formatTick: percentTick, formatValue: formatRate, labelRight });
    figures.push(el('figure', { class: 'chart-figure', 'data-chart': 'rates' }, forestSvg('rates', rateTitle, g), el('figcaption', {}, 'Dot: the rate over every answered cell; whisker: its 95 % case-bootstrap interval. Errors are left out of the rates.')));
  }
  if (data.deltas.length > 0) {
    const [lo, hi] = deltaDomain(data.deltas);
    const ticks = [lo, lo / 2, 0, hi / 2, hi];
    const g = forestGeometry(data.deltas, { domain: [lo, hi], ticks, formatTick: (v) => `${v > 0 ? '+' : ''}${percentTick(v)}`, formatValue: signed, labelRight });
    figures.push(
      el(
        'figure',
        { class: 'chart-figure', 'data-chart': 'deltas' },
        forestSvg('deltas', `Differences ${data.deltaCaption} with 95 % intervals`, g),
        el('figcaption', {}, `Difference ${data.deltaCaption} per model, with its 95 % paired case-bootstrap interval. Green: the interval is above zero; red: below; grey: it includes zero.`),
      ),
    );
  }
  const legend = el(
    'table',
    { class: 'chart-legend' },
    el('thead', {}, el('tr', {}, el('th', {}, 'Label'), el('th', {}, 'Model'))),
    el('tbody', {}, ...data.legend.map((e) => el('tr', { 'data-spec': e.spec }, el('td', { class: 'legend-label' }, e.label), el('td', { class: 'legend-spec' }, `${e.spec}${e.isBaseline ? ' (baseline, not a language model)' : ''}`)))),
  );
  return el('div', { class: 'eval-charts' }, ...figures, legend);
}
