import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EXACT_MAX_N, signedRank } from '../../../evals/signedRank';

/** P(W+ ≤ w) and P(W+ ≥ w) by enumerating every sign assignment of the ranks (the definition of the exact test). */
function bruteForce(differences: number[]): { less: number; greater: number } {
  const nonZero = differences.filter((d) => Math.abs(d) > 1e-12);
  const n = nonZero.length;
  if (n === 0) return { less: 1, greater: 1 };
  const magnitudes = nonZero.map((d) => Math.abs(d));
  const rank = (m: number) => {
    const below = magnitudes.filter((x) => x < m - 1e-12).length;
    const equal = magnitudes.filter((x) => Math.abs(x - m) <= 1e-12).length;
    return below + (equal + 1) / 2;
  };
  const ranks = magnitudes.map(rank);
  const observed = nonZero.reduce((sum, d, i) => sum + (d > 0 ? ranks[i]! : 0), 0);
  let less = 0;
  let greater = 0;
  for (let mask = 0; mask < 1 << n; mask++) {
    let w = 0;
    for (let i = 0; i < n; i++) if (mask & (1 << i)) w += ranks[i]!;
    if (w <= observed + 1e-9) less++;
    if (w >= observed - 1e-9) greater++;
  }
  return { less: less / 2 ** n, greater: greater / 2 ** n };
}

const step = fc.integer({ min: -3, max: 3 }).map((k) => k / 3);

describe('signedRank', () => {
  it('gives the textbook values', () => {
    // Five cases all worse, distinct sizes: only one of 32 sign patterns is as extreme.
    expect(signedRank([-0.1, -0.2, -0.3, -0.4, -0.5])).toMatchObject({ n: 5, w_plus: 0, w_minus: 15, p_less: 1 / 32, exact: true });
    // Four tied differences: W+ = 0 has probability 1/16 whatever the ranks.
    expect(signedRank([-1 / 3, -1 / 3, -1 / 3, -1 / 3]).p_less).toBeCloseTo(1 / 16, 12);
    // Zeros are dropped.
    expect(signedRank([0, 0, -1, 0])).toMatchObject({ n: 1, p_less: 0.5, p_greater: 1 });
    expect(signedRank([])).toMatchObject({ n: 0, p_less: 1, p_greater: 1 });
    expect(signedRank([Number.NaN, 0])).toMatchObject({ n: 0 });
  });

  it('treats magnitudes that differ only by rounding as one tie', () => {
    const a = signedRank([2 / 3 - 1 / 3, -1 / 3, 1 / 3]);
    expect(a.w_plus).toBe(4);
    expect(a.w_minus).toBe(2);
  });

  it('matches the enumeration of every sign assignment, ties included (property)', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 12 }), (differences) => {
        const r = signedRank(differences);
        const b = bruteForce(differences);
        expect(r.p_less).toBeCloseTo(b.less, 10);
        expect(r.p_greater).toBeCloseTo(b.greater, 10);
      }),
      { numRuns: 300 },
    );
  });

  it('is symmetric, and turning a difference against the winner never makes "worse" less likely (property)', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 30 }), fc.nat(), (differences, pick) => {
        const r = signedRank(differences);
        const mirrored = signedRank(differences.map((d) => -d));
        expect(mirrored.p_less).toBeCloseTo(r.p_greater, 12);
        const i = pick % differences.length;
        if (differences[i]! <= 0) return;
        const flipped = differences.map((d, j) => (j === i ? -d : d));
        expect(signedRank(flipped).p_less).toBeLessThanOrEqual(r.p_less + 1e-12);
      }),
      { numRuns: 300 },
    );
  });

  it('uses the normal approximation beyond the exact range, close to the exact value at its edge', () => {
    const edge = Array.from({ length: EXACT_MAX_N }, (_, i) => (i % 3 === 0 ? 1 : -1) * ((i % 7) + 1));
    const exact = signedRank(edge);
    expect(exact.exact).toBe(true);
    const beyond = signedRank([...edge, 0.5]);
    expect(beyond.exact).toBe(false);
    expect(Math.abs(beyond.p_less - exact.p_less)).toBeLessThan(0.02);
    expect(signedRank(Array.from({ length: 400 }, () => -1)).p_less).toBeLessThan(1e-6);
    const balanced = signedRank(Array.from({ length: 400 }, (_, i) => (i % 2 ? 1 : -1) * (i + 1)));
    expect(balanced.p_less).toBeGreaterThan(0.3);
    expect(balanced.p_greater).toBeGreaterThan(0.3);
  });
});
