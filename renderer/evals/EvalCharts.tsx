/**
 * The results charts of a run, drawn from the same element tree the HTML
 * report writes (core/report/charts.ts), so the screen and the exported
 * report show the same picture: rates with their intervals, the draft-vs-
 * published differences, and the legend of model labels. React escapes every
 * text; the tree carries only presentation attributes and classes, which
 * charts.css restyles for the theme.
 */
import { createElement, useMemo, type ReactNode } from 'react';
import { evalCharts, type ChartNode, type ChartSummary } from '../../core/report/charts';
import './charts.css';

/** `text-anchor` → `textAnchor`, `class` → `className`; `aria-*` and `data-*` stay as they are. */
function propName(attr: string): string {
  if (attr === 'class') return 'className';
  if (attr.startsWith('aria-') || attr.startsWith('data-')) return attr;
  return attr.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

function render(node: ChartNode | string, key: number): ReactNode {
  if (typeof node === 'string') return node;
  const props: Record<string, string | number> = { key };
  for (const [k, v] of Object.entries(node.attrs)) props[propName(k)] = v;
  return createElement(node.tag, props, ...node.children.map(render));
}

export function EvalCharts({ summary }: { summary: ChartSummary }) {
  const tree = useMemo(() => evalCharts(summary), [summary]);
  return (
    <section className="eval-charts-view" data-testid="eval-charts" aria-label="Charts">
      {render(tree, 0)}
    </section>
  );
}
