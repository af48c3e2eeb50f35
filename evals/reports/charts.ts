/**
 * The results charts of core/report/charts.ts written as HTML with inline
 * SVG for the standalone report: no script, no `style` attribute, every text
 * and attribute escaped by {@link escapeHtml}. The workbench draws the same
 * element tree, so the report and the screen show the same picture.
 */
import { evalCharts, type ChartNode, type ChartSummary } from '../../core/report/charts';
import { escapeHtml } from './escape';

/** Writes a chart tree as HTML (inline SVG for the charts); every text and attribute is escaped. */
export function chartMarkup(node: ChartNode | string): string {
  if (typeof node === 'string') return escapeHtml(node);
  const attrs = Object.entries(node.attrs)
    .map(([k, v]) => ` ${k}="${escapeHtml(String(v))}"`)
    .join('');
  return `<${node.tag}${attrs}>${node.children.map(chartMarkup).join('')}</${node.tag}>`;
}

/** The charts of a summary as HTML: rates with intervals, draft-vs-published differences, and the legend of model labels. */
export function evalChartsHtml(summary: ChartSummary): string {
  return chartMarkup(evalCharts(summary));
}

/** The HTML report's rules for the charts: the legend's specs wrap anywhere, a chart never overflows the page. */
export const EVAL_CHARTS_STYLE =
  '.eval-charts{margin:8px 0}.eval-charts figure{margin:0 0 12px}.eval-charts svg{max-width:100%;height:auto}' +
  '.chart-legend td.legend-label{white-space:nowrap;font-weight:600}.chart-legend td.legend-spec{font:12px/1.4 ui-monospace,monospace;word-break:break-all}';
