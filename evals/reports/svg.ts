/**
 * Inline SVG charts for the HTML report, generated as strings on the server
 * side: no script, no external font or stylesheet, so they render under the
 * report's strict Content-Security-Policy and in any viewer. Every label goes
 * through {@link escapeHtml}. The `<svg>` elements rely on the HTML parser to
 * place them in the SVG namespace, so no namespace URL appears in the page.
 */
import { fitMiddle } from '../../core/report/modelLabels';
import { escapeHtml as h } from './escape';
import { formatMs, formatRate } from './format';

const FONT = 'font-family="system-ui, sans-serif" font-size="12"';

/** One series value of a bar group; null is drawn as "n/a". */
export interface BarValue {
  name: string;
  value: number | null;
}

/** A group of bars (one model, or one model and variant). */
export interface BarGroup {
  label: string;
  /** What hovering the label shows (the full model spec); default the label. */
  title?: string;
  values: BarValue[];
}

/** Series colours, in series order (colour-blind safe Tableau 10 subset). */
export const SERIES_COLORS = ['#4c78a8', '#f58518', '#54a24b', '#b279a2'];

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

/** Horizontal grouped bars of rates in [0, 1], one group per model. */
export function rateBars(title: string, groups: readonly BarGroup[]): string {
  const labelW = 230;
  const plotW = 420;
  const barH = 13;
  const gap = 3;
  const groupGap = 14;
  const series = groups[0]?.values.map((v) => v.name) ?? [];
  const legendH = 26;
  const groupH = series.length * (barH + gap) - gap;
  const height = legendH + groups.length * (groupH + groupGap) + 22;
  const width = labelW + plotW + 60;
  const parts: string[] = [];
  parts.push(`<svg class="chart" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${h(title)}" ${FONT}><title>${h(title)}</title>`);
  series.forEach((name, i) => {
    const x = labelW + i * 110;
    parts.push(`<rect x="${x}" y="6" width="12" height="12" fill="${SERIES_COLORS[i % SERIES_COLORS.length]}"/><text x="${x + 16}" y="16">${h(name)}</text>`);
  });
  const plotTop = legendH;
  const plotBottom = height - 20;
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    const x = labelW + tick * plotW;
    parts.push(`<line x1="${fmt(x)}" y1="${plotTop}" x2="${fmt(x)}" y2="${plotBottom}" stroke="#ccc" stroke-width="1"/>`);
    parts.push(`<text x="${fmt(x)}" y="${height - 6}" text-anchor="middle" fill="#555">${tick * 100}%</text>`);
  }
  groups.forEach((g, gi) => {
    const top = legendH + gi * (groupH + groupGap);
    // Cut in the middle: the end (the model name, the variant) is what tells two labels apart.
    parts.push(`<text x="${labelW - 8}" y="${fmt(top + groupH / 2 + 4)}" text-anchor="end"><title>${h(g.title ?? g.label)}</title>${h(fitMiddle(g.label, 32))}</text>`);
    g.values.forEach((v, i) => {
      const y = top + i * (barH + gap);
      if (v.value === null || !Number.isFinite(v.value)) {
        parts.push(`<text x="${labelW + 4}" y="${y + barH - 2}" fill="#777">${h(v.name)}: n/a</text>`);
        return;
      }
      const w = Math.max(0, Math.min(1, v.value)) * plotW;
      parts.push(
        `<rect x="${labelW}" y="${y}" width="${fmt(w)}" height="${barH}" fill="${SERIES_COLORS[i % SERIES_COLORS.length]}"><title>${h(`${g.label} ${v.name}: ${formatRate(v.value)}`)}</title></rect>`,
        `<text x="${fmt(labelW + w + 4)}" y="${y + barH - 2}" fill="#333">${formatRate(v.value)}</text>`,
      );
    });
  });
  parts.push('</svg>');
  return parts.join('');
}

/** Counts of a confusion matrix. */
export interface ConfusionCounts {
  tp: number;
  fp: number;
  tn: number;
  fn: number;
  errors: number;
}

/** A 2 × 2 confusion matrix: rows expected, columns actual; errors noted below. */
export function confusionMatrix(title: string, c: ConfusionCounts): string {
  const cellW = 96;
  const cellH = 52;
  const left = 104;
  const top = 44;
  const width = left + 2 * cellW + 8;
  const height = top + 2 * cellH + 30;
  const max = Math.max(1, c.tp, c.fp, c.tn, c.fn);
  const cell = (col: number, rowI: number, label: string, n: number, good: boolean): string => {
    const x = left + col * cellW;
    const y = top + rowI * cellH;
    const alpha = n === 0 ? 0.04 : 0.15 + 0.75 * (n / max);
    const color = good ? '84,162,75' : '228,87,86';
    const dark = alpha > 0.55;
    return (
      `<rect x="${x}" y="${y}" width="${cellW - 2}" height="${cellH - 2}" fill="rgba(${color},${alpha.toFixed(2)})"><title>${h(`${title}: ${label} ${n}`)}</title></rect>` +
      `<text x="${x + cellW / 2 - 1}" y="${y + 22}" text-anchor="middle" font-size="16" font-weight="600" fill="${dark ? '#fff' : '#222'}">${n}</text>` +
      `<text x="${x + cellW / 2 - 1}" y="${y + 38}" text-anchor="middle" fill="${dark ? '#fff' : '#444'}">${label}</text>`
    );
  };
  return (
    `<svg class="chart" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${h(title)}" ${FONT}><title>${h(title)}</title>` +
    `<text x="${left + cellW}" y="14" text-anchor="middle" fill="#555">actual</text>` +
    `<text x="${left + cellW / 2}" y="34" text-anchor="middle">activated</text>` +
    `<text x="${left + cellW * 1.5}" y="34" text-anchor="middle">not activated</text>` +
    `<text x="${left - 8}" y="${top + cellH / 2 - 2}" text-anchor="end">should</text><text x="${left - 8}" y="${top + cellH / 2 + 12}" text-anchor="end">activate</text>` +
    `<text x="${left - 8}" y="${top + cellH * 1.5 - 2}" text-anchor="end">should not</text><text x="${left - 8}" y="${top + cellH * 1.5 + 12}" text-anchor="end">activate</text>` +
    cell(0, 0, 'TP', c.tp, true) +
    cell(1, 0, 'FN', c.fn, false) +
    cell(0, 1, 'FP', c.fp, false) +
    cell(1, 1, 'TN', c.tn, true) +
    `<text x="${left}" y="${height - 8}" fill="#555">errors (not in the matrix): ${c.errors}</text>` +
    '</svg>'
  );
}

/** Bins per decade of the latency histogram. */
const PER_DECADE = 8;
/** Decades from 1 ms: 1 ms … 10^6 ms (about 17 minutes). */
const DECADES = 6;
/** Bin 0 is below 1 ms; the last bin is at or above 10^6 ms. */
export const LATENCY_BINS = DECADES * PER_DECADE + 2;

/** Fixed log-scale latency histogram: constant memory whatever the number of cells. */
export class LatencyHistogram {
  readonly bins = new Array<number>(LATENCY_BINS).fill(0);
  count = 0;

  /** Adds one latency in milliseconds. */
  add(ms: number): void {
    if (!Number.isFinite(ms)) return;
    this.count++;
    this.bins[binOf(ms)]!++;
  }
}

function binOf(ms: number): number {
  if (ms < 1) return 0;
  const i = 1 + Math.floor(Math.log10(ms) * PER_DECADE);
  return Math.min(LATENCY_BINS - 1, i);
}

/** Lower edge of bin `i` in ms. */
function binStart(i: number): number {
  return i === 0 ? 0 : 10 ** ((i - 1) / PER_DECADE);
}

/** A latency histogram with p50 and p95 markers. */
export function latencyChart(title: string, hist: LatencyHistogram, p50: number | null, p95: number | null): string {
  const width = 560;
  const height = 166;
  const left = 40;
  const right = 16;
  const top = 34;
  const bottom = 30;
  const parts: string[] = [`<svg class="chart" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${h(title)}" ${FONT}><title>${h(title)}</title>`];
  if (hist.count === 0) {
    parts.push(`<text x="${left}" y="${height / 2}" fill="#777">no latencies recorded</text></svg>`);
    return parts.join('');
  }
  let first = hist.bins.findIndex((n) => n > 0);
  let last = LATENCY_BINS - 1 - [...hist.bins].reverse().findIndex((n) => n > 0);
  // The summary's percentiles may come from cells the histogram left out (errors): keep them on the axis.
  for (const ms of [p50, p95]) {
    if (ms === null || !Number.isFinite(ms)) continue;
    first = Math.min(first, binOf(ms));
    last = Math.max(last, binOf(ms));
  }
  // Show at least one decade around the data, so a single bin is still readable.
  first = Math.max(0, Math.min(first, last - PER_DECADE));
  last = Math.min(LATENCY_BINS - 1, Math.max(last, first + PER_DECADE));
  const binsShown = last - first + 1;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const bw = plotW / binsShown;
  const max = Math.max(...hist.bins);
  parts.push(`<line x1="${left}" y1="${top + plotH}" x2="${left + plotW}" y2="${top + plotH}" stroke="#999"/>`);
  parts.push(`<text x="${left - 6}" y="${top + 8}" text-anchor="end" fill="#555">${max}</text><text x="${left - 6}" y="${top + plotH}" text-anchor="end" fill="#555">0</text>`);
  for (let i = first; i <= last; i++) {
    const n = hist.bins[i]!;
    const x = left + (i - first) * bw;
    if (n > 0) {
      const bh = (n / max) * plotH;
      const range = i === 0 ? '< 1 ms' : i === LATENCY_BINS - 1 ? `≥ ${formatMs(binStart(i))}` : `${formatMs(binStart(i))} – ${formatMs(binStart(i + 1))}`;
      parts.push(`<rect x="${fmt(x + 0.5)}" y="${fmt(top + plotH - bh)}" width="${fmt(Math.max(1, bw - 1))}" height="${fmt(bh)}" fill="#4c78a8"><title>${h(`${range}: ${n} cell${n === 1 ? '' : 's'}`)}</title></rect>`);
    }
    // Decade labels: the first bin of each decade starts at a power of ten.
    if (i === 0 || (i - 1) % PER_DECADE === 0) {
      parts.push(`<text x="${fmt(x)}" y="${height - 12}" text-anchor="middle" fill="#555">${i === 0 ? '0' : formatMs(binStart(i))}</text>`);
    }
  }
  // Marker labels sit in the strip above the bars, flipped left near the right edge, so no bar hides them.
  const marker = (ms: number | null, label: string, color: string, y: number): void => {
    if (ms === null || !Number.isFinite(ms)) return;
    const b = binOf(ms);
    if (b < first || b > last) return;
    const lo = binStart(b);
    const hi = binStart(b + 1);
    const frac = b === 0 ? ms : b === LATENCY_BINS - 1 ? 0 : (Math.log10(ms) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo));
    const x = left + (b - first + Math.max(0, Math.min(1, frac))) * bw;
    const flip = x > width - 110;
    parts.push(`<line x1="${fmt(x)}" y1="${y - 10}" x2="${fmt(x)}" y2="${top + plotH}" stroke="${color}" stroke-width="2" stroke-dasharray="4 3"/>`);
    parts.push(`<text x="${fmt(flip ? x - 4 : x + 4)}" y="${y}"${flip ? ' text-anchor="end"' : ''} fill="${color}">${label} ${formatMs(ms)}</text>`);
  };
  marker(p50, 'p50', '#d62728', 12);
  marker(p95, 'p95', '#7b4173', 26);
  parts.push('</svg>');
  return parts.join('');
}
