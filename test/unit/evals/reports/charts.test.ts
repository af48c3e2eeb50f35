import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deltaDomain, evalChartData, evalCharts, forestGeometry, type CHART_RATES, type ChartNode, type ChartPoint, type ChartRow, type ForestAxis } from '../../../../core/report/charts';
import { chartMarkup } from '../../../../evals/reports/charts';
import { formatRate } from '../../../../core/report/format';
import { HOSTILE, MODEL_A, MODEL_B, fixtureSummary } from './fixture';

const RATES: ForestAxis = { domain: [0, 1], ticks: [0, 0.5, 1], formatTick: formatRate, formatValue: formatRate };

function row(label: string, p: Partial<Record<(typeof CHART_RATES)[number], ChartPoint>>): ChartRow {
  const none: ChartPoint = { value: null, interval: null };
  return { model: label, label, title: label, isBaseline: false, points: { accuracy: p.accuracy ?? none, precision: p.precision ?? none, recall: p.recall ?? none } };
}

function find(node: ChartNode | string, test: (n: ChartNode) => boolean): ChartNode[] {
  if (typeof node === 'string') return [];
  return [...(test(node) ? [node] : []), ...node.children.flatMap((c) => find(c, test))];
}

function text(node: ChartNode | string): string {
  return typeof node === 'string' ? node : node.children.map(text).join('');
}

const rate = fc.double({ min: 0, max: 1, noNaN: true });
const chartPoint = fc.oneof(
  fc.constant<ChartPoint>({ value: null, interval: null }),
  fc.tuple(rate, fc.double({ min: -2, max: 2, noNaN: true }), fc.double({ min: -2, max: 2, noNaN: true }), fc.boolean()).map(([value, a, b, withInterval]): ChartPoint => ({ value, interval: withInterval ? { low: Math.min(a, b), high: Math.max(a, b) } : null })),
);

describe('forestGeometry', () => {
  it('maps a value to its place on the axis of its own panel', () => {
    const g = forestGeometry([row('m', { accuracy: { value: 0.25, interval: { low: 0.1, high: 0.4 } }, precision: { value: 1, interval: null }, recall: { value: 0, interval: null } })], RATES);
    const [acc, prec, rec] = g.panels;
    const width = acc!.x1 - acc!.x0;
    const m = g.rows[0]!.marks;
    expect(m[0]!.cx).toBeCloseTo(acc!.x0 + 0.25 * width);
    expect(m[0]!.x1).toBeCloseTo(acc!.x0 + 0.1 * width);
    expect(m[0]!.x2).toBeCloseTo(acc!.x0 + 0.4 * width);
    expect(m[1]!.cx).toBeCloseTo(prec!.x1);
    expect(m[2]!.cx).toBeCloseTo(rec!.x0);
    expect(m[1]!.x1).toBeNull();
    // Panels never overlap, and each sits right of the labels.
    expect(acc!.x0).toBeGreaterThan(g.labelRight);
    expect(prec!.x0).toBeGreaterThan(acc!.x1);
    expect(rec!.x0).toBeGreaterThan(prec!.x1);
    expect(g.width).toBeGreaterThanOrEqual(rec!.x1);
    // Ticks: 0, 50 %, 100 % at the left edge, the middle and the right edge.
    expect(acc!.ticks.map((t) => t.x)).toEqual([acc!.x0, (acc!.x0 + acc!.x1) / 2, acc!.x1]);
  });

  it('keeps every dot and whisker within its panel, in order, and rows in order down the plot', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ accuracy: chartPoint, precision: chartPoint, recall: chartPoint }), { minLength: 1, maxLength: 8 }), (points) => {
        const g = forestGeometry(
          points.map((p, i) => row(`model ${i}`, p)),
          RATES,
        );
        g.rows.forEach((r, ri) => {
          expect(r.y).toBeGreaterThan(g.plotTop);
          expect(r.y).toBeLessThan(g.plotBottom);
          if (ri > 0) expect(r.y).toBeGreaterThan(g.rows[ri - 1]!.y);
          r.marks.forEach((m, i) => {
            const p = g.panels[i]!;
            const pt = r.row.points[p.rate];
            // The value's text sits in its own column, between its panel and the next: no two texts collide.
            expect(m.textX).toBeGreaterThan(p.x1);
            expect(m.textX).toBeLessThan(g.panels[i + 1]?.x0 ?? g.width + 1);
            if (pt.value === null) return expect(m.cx).toBeNull();
            expect(m.cx).toBeGreaterThanOrEqual(p.x0);
            expect(m.cx).toBeLessThanOrEqual(p.x1);
            expect(m.cx).toBeCloseTo(p.x0 + pt.value * (p.x1 - p.x0));
            if (!pt.interval) return expect(m.x1).toBeNull();
            expect(m.x1!).toBeGreaterThanOrEqual(p.x0);
            expect(m.x2!).toBeLessThanOrEqual(p.x1);
            expect(m.x1!).toBeLessThanOrEqual(m.x2!);
          });
        });
      }),
    );
  });

  it('never orders two dots against their values', () => {
    fc.assert(
      fc.property(rate, rate, (a, b) => {
        const g = forestGeometry([row('a', { recall: { value: a, interval: null } }), row('b', { recall: { value: b, interval: null } })], RATES);
        const [x, y] = g.rows.map((r) => r.marks[2]!.cx!);
        if (a <= b) expect(x!).toBeLessThanOrEqual(y!);
        else expect(x!).toBeGreaterThanOrEqual(y!);
      }),
    );
  });
});

describe('deltaDomain', () => {
  it('is symmetric around zero and holds every delta and interval', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true })), { minLength: 1, maxLength: 6 }), (pairs) => {
        const rows = pairs.map(([a, b], i) => row(`m${i}`, { accuracy: { value: (a + b) / 2, interval: { low: Math.min(a, b), high: Math.max(a, b) } } }));
        const [lo, hi] = deltaDomain(rows);
        expect(lo).toBe(-hi);
        expect([0.1, 0.2, 0.25, 0.5, 1]).toContain(hi);
        for (const [a, b] of pairs) expect(Math.max(Math.abs(a), Math.abs(b))).toBeLessThanOrEqual(hi);
      }),
    );
  });
});

describe('evalChartData', () => {
  it('has a row per model and skill, the variant comparison as a delta row, and every model in the legend', () => {
    const data = evalChartData(fixtureSummary());
    expect(data.rates.map((r) => [r.model, r.points.accuracy.value, r.points.recall.value])).toEqual([
      [MODEL_A, 5 / 8, 5 / 6],
      [MODEL_A, 1, 1],
      [MODEL_B, 6 / 9, 0.5],
      [MODEL_B, 1, 1],
    ]);
    // Two skills, one variant: the skill is in the label, the variant is not.
    expect(data.rates[0]!.label).toContain('travel/weather');
    expect(data.rates[0]!.label).not.toContain('draft');
    expect(data.deltas).toHaveLength(1);
    expect(data.deltas[0]!.model).toBe(MODEL_A);
    expect(data.deltaCaption).toBe('published − draft');
    expect(data.legend.map((e) => e.spec)).toEqual([MODEL_A, MODEL_B]);
    expect(new Set(data.legend.map((e) => e.label)).size).toBe(2);
  });

  it('draws no interval it does not have, and an n/a for a rate that is not measured', () => {
    const summary = fixtureSummary();
    summary.models[0]!.skills[0]!.intervals = { method: 'case bootstrap', level: 0.95, resamples: 2000, accuracy: { low: 0.4, high: 0.9 }, precision: null, recall: { low: 0.5, high: 1 }, f1: null };
    summary.models[1]!.skills[0]!.precision = null;
    const tree = evalCharts(summary);
    const rates = find(tree, (n) => n.attrs['data-chart'] === 'rates')[0]!;
    const whiskers = find(rates, (n) => n.tag === 'g' && String(n.attrs.class).startsWith('mark ')).filter((g) => find(g, (n) => n.attrs.class === 'whisker').length > 0);
    expect(whiskers.map((g) => g.attrs['data-rate'])).toEqual(['accuracy', 'recall']);
    expect(find(rates, (n) => n.attrs.class === 'na').map(text)).toEqual([expect.stringContaining('n/a')]);
  });
});

describe('chartMarkup', () => {
  it('writes one SVG per chart and escapes every spec', () => {
    const html = chartMarkup(evalCharts(fixtureSummary()));
    expect(html.match(/<svg /g)).toHaveLength(2);
    expect(html).not.toContain(HOSTILE.img);
    expect(html).toContain('&lt;img src=x onerror=alert(2)&gt;');
    expect(html).not.toMatch(/ style=/);
  });
});
