/**
 * Number formats of evaluation results, shared by the report writers
 * (evals/reports) and the workbench UI, so a number reads the same in a
 * Markdown comment, an HTML report and on screen. Independent of the
 * machine's locale. Pure and isomorphic.
 */

/** `12345` → `12,345`. */
export function formatCount(n: number): string {
  const sign = n < 0 ? '-' : '';
  const digits = String(Math.trunc(Math.abs(n)));
  return sign + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A rate in [0, 1] as a percentage with one decimal; `n/a` for null. */
export function formatRate(r: number | null): string {
  return r === null || !Number.isFinite(r) ? 'n/a' : `${(r * 100).toFixed(1)}%`;
}

/** Milliseconds: `840 ms`, `1.25 s`, `n/a`. */
export function formatMs(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return 'n/a';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/** US dollars: `$0`, `$0.0042`, `$12.30`; `n/a` when any price was unknown. */
export function formatUsd(usd: number | null): string {
  if (usd === null || !Number.isFinite(usd)) return 'n/a';
  if (usd === 0) return '$0';
  if (usd < 1) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

/** A p-value with three significant digits, `< 0.001` below that. */
export function formatP(p: number): string {
  if (p < 0.001) return '< 0.001';
  return p.toPrecision(3).replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
}
