/**
 * Wilcoxon's signed-rank test of paired differences: are they centred on
 * zero, or do they lean one way? Unlike the sign test it weighs each
 * difference by its size, so a case whose trigger rate moved by 2/3 counts
 * for more than one that moved by 1/3.
 *
 * Zero differences are dropped (Wilcoxon's convention); tied magnitudes get
 * mid-ranks. Up to {@link EXACT_MAX_N} non-zero differences the p-values are
 * exact, from the permutation distribution of the signs with the actual
 * (tied) ranks; above it, the normal approximation with the tie correction
 * and a continuity correction.
 */

/** Largest count of non-zero differences for which the p-values are computed exactly. */
export const EXACT_MAX_N = 200;

/** Magnitudes closer than this are one tie (rates like 1/3 and 2/3 − 1/3 differ only by rounding). */
const TIE_RESOLUTION = 1e9;

/** The result of {@link signedRank}. */
export interface SignedRankResult {
  /** Non-zero differences ranked. */
  n: number;
  /** Rank sums of the positive and of the negative differences. */
  w_plus: number;
  w_minus: number;
  /** One-sided p-value that the differences lean negative: P(W+ ≤ observed) under the null. 1 when n = 0. */
  p_less: number;
  /** One-sided p-value that the differences lean positive: P(W+ ≥ observed) under the null. 1 when n = 0. */
  p_greater: number;
  /** True when the p-values are exact. */
  exact: boolean;
}

/** Standard normal CDF (Abramowitz and Stegun 7.1.26 through erf; error below 1.5e-7). */
function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

/** Wilcoxon's signed-rank test of `differences` (see the module comment). Non-finite values are ignored. */
export function signedRank(differences: Iterable<number>): SignedRankResult {
  const nonZero: { magnitude: number; key: number; positive: boolean }[] = [];
  for (const d of differences) {
    if (!Number.isFinite(d)) continue;
    const key = Math.round(Math.abs(d) * TIE_RESOLUTION);
    if (key === 0) continue;
    nonZero.push({ magnitude: Math.abs(d), key, positive: d > 0 });
  }
  const n = nonZero.length;
  if (n === 0) return { n: 0, w_plus: 0, w_minus: 0, p_less: 1, p_greater: 1, exact: true };
  nonZero.sort((a, b) => a.key - b.key);
  // Doubled mid-ranks stay integers: a tie over positions i..j (0-based) has rank (i + j) / 2 + 1.
  const doubled: number[] = new Array<number>(n);
  let tieTerm = 0;
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && nonZero[j + 1]!.key === nonZero[i]!.key) j++;
    for (let k = i; k <= j; k++) doubled[k] = i + j + 2;
    const t = j - i + 1;
    tieTerm += t * t * t - t;
    i = j + 1;
  }
  let plus2 = 0;
  for (let k = 0; k < n; k++) if (nonZero[k]!.positive) plus2 += doubled[k]!;
  const total2 = n * (n + 1);
  const w_plus = plus2 / 2;
  const w_minus = (total2 - plus2) / 2;

  if (n <= EXACT_MAX_N) {
    // Under the null each sign is + or − with probability 1/2, independently.
    let dist = new Float64Array(total2 + 1);
    dist[0] = 1;
    let reach = 0;
    for (const r of doubled) {
      const next = new Float64Array(total2 + 1);
      for (let s = 0; s <= reach; s++) {
        const p = dist[s]!;
        if (p === 0) continue;
        next[s] = next[s]! + p / 2;
        next[s + r] = next[s + r]! + p / 2;
      }
      reach += r;
      dist = next;
    }
    let less = 0;
    let greater = 0;
    for (let s = 0; s <= total2; s++) {
      if (s <= plus2) less += dist[s]!;
      if (s >= plus2) greater += dist[s]!;
    }
    return { n, w_plus, w_minus, p_less: Math.min(1, less), p_greater: Math.min(1, greater), exact: true };
  }
  const mean = (n * (n + 1)) / 4;
  const sd = Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24 - tieTerm / 48);
  if (sd === 0) return { n, w_plus, w_minus, p_less: 1, p_greater: 1, exact: false };
  return { n, w_plus, w_minus, p_less: normalCdf((w_plus - mean + 0.5) / sd), p_greater: 1 - normalCdf((w_plus - mean - 0.5) / sd), exact: false };
}
