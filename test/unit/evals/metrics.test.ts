import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { confusion, mcnemarExact, percentile, rates, triggerRate, type ScoredCell } from '../../../evals/metrics';

const cell = (expected: ScoredCell['expected'], outcome: ScoredCell['outcome'], invalid = false): ScoredCell => ({ expected, outcome, invalid });

describe('confusion and rates', () => {
  it('computes a hand-checked matrix', () => {
    // 3 TP, 1 FN, 1 FP, 4 TN, 2 errors (one on each label), and 1 unusable answer on each label: their own outcome.
    const cells = [
      cell('activate', 'activated'),
      cell('activate', 'activated'),
      cell('activate', 'activated'),
      cell('activate', 'not_activated'),
      cell('activate', 'not_activated', true),
      cell('not_activate', 'not_activated', true),
      cell('activate', 'error'),
      cell('not_activate', 'activated'),
      cell('not_activate', 'not_activated'),
      cell('not_activate', 'not_activated'),
      cell('not_activate', 'not_activated'),
      cell('not_activate', 'not_activated'),
      cell('not_activate', 'error'),
    ];
    const c = confusion(cells);
    expect(c).toEqual({ tp: 3, fp: 1, tn: 4, fn: 1, errors: 2, invalid: 2 });
    const r = rates(c);
    expect(r.accuracy).toBeCloseTo(7 / 9, 12);
    expect(r.precision).toBeCloseTo(3 / 4, 12);
    expect(r.recall).toBeCloseTo(3 / 4, 12);
    expect(r.f1).toBeCloseTo(3 / 4, 12);
  });

  it('keeps errors out of the rates instead of counting them as not activated', () => {
    const r = rates(confusion([cell('activate', 'activated'), cell('activate', 'error'), cell('activate', 'error')]));
    expect(r.recall).toBe(1);
    expect(r.accuracy).toBe(1);
  });

  it('gives unusable answers no free true negative: a model whose every answer was unusable has no accuracy', () => {
    const unusable = rates(confusion([cell('not_activate', 'not_activated', true), cell('not_activate', 'not_activated', true), cell('activate', 'not_activated', true)]));
    expect(unusable).toEqual({ accuracy: null, precision: null, recall: null, f1: null });
  });

  it('reports null where a denominator is zero (F1 too, where precision or recall is), and F1 0 when nothing was right', () => {
    // Positives all missed and nothing activated: recall 0, precision undefined, so F1 is undefined too.
    expect(rates(confusion([cell('activate', 'not_activated')]))).toEqual({ accuracy: 0, precision: null, recall: 0, f1: null });
    expect(rates(confusion([]))).toEqual({ accuracy: null, precision: null, recall: null, f1: null });
    const onlyNegatives = rates(confusion([cell('not_activate', 'not_activated')]));
    expect(onlyNegatives.precision).toBeNull();
    expect(onlyNegatives.recall).toBeNull();
    expect(onlyNegatives.accuracy).toBe(1);
    const allWrong = rates(confusion([cell('activate', 'not_activated'), cell('not_activate', 'activated')]));
    expect(allWrong.f1).toBe(0);
  });

  it('rates stay within [0, 1] for any cells', () => {
    const arb = fc.array(fc.record({ expected: fc.constantFrom('activate', 'not_activate'), outcome: fc.constantFrom('activated', 'not_activated', 'error'), invalid: fc.boolean() })) as fc.Arbitrary<ScoredCell[]>;
    fc.assert(
      fc.property(arb, (cells) => {
        const c = confusion(cells);
        expect(c.tp + c.fp + c.tn + c.fn + c.errors + c.invalid).toBe(cells.length);
        for (const v of Object.values(rates(c))) if (v !== null) expect(v >= 0 && v <= 1).toBe(true);
      }),
    );
  });
});

describe('triggerRate', () => {
  it('counts k of n and flags flaky cases', () => {
    expect(triggerRate(['activated', 'not_activated', 'activated', 'error'])).toEqual({ k: 2, n: 3, errors: 1, flaky: true });
    expect(triggerRate(['activated', 'activated'])).toEqual({ k: 2, n: 2, errors: 0, flaky: false });
    expect(triggerRate(['error'])).toEqual({ k: 0, n: 0, errors: 1, flaky: false });
  });
});

describe('percentile (nearest rank)', () => {
  it('returns observed values', () => {
    const v = [15, 20, 35, 40, 50];
    expect(percentile(v, 50)).toBe(35);
    expect(percentile(v, 95)).toBe(50);
    expect(percentile(v, 100)).toBe(50);
    expect(percentile(v, 1)).toBe(15);
    expect(percentile([], 50)).toBeNull();
    expect(() => percentile(v, 0)).toThrow(RangeError);
  });
});

describe('mcnemarExact', () => {
  const pairs = (aOnly: number, bOnly: number, same: number) => [
    ...Array.from({ length: aOnly }, () => ({ a: true, b: false })),
    ...Array.from({ length: bOnly }, () => ({ a: false, b: true })),
    ...Array.from({ length: same }, () => ({ a: true, b: true })),
  ];

  it('matches hand-computed binomial tails', () => {
    // b=1, c=0: p = 2 * 0.5 = 1.
    expect(mcnemarExact(pairs(1, 0, 10)).pValue).toBe(1);
    // b=6, c=0: p = 2 * (1/64) = 0.03125 -> significant at 0.05.
    const six = mcnemarExact(pairs(6, 0, 3));
    expect(six.pValue).toBeCloseTo(0.03125, 12);
    expect(six.significant).toBe(true);
    // b=5, c=0: p = 2/32 = 0.0625 -> not significant.
    expect(mcnemarExact(pairs(5, 0, 0)).significant).toBe(false);
    // b=8, c=2: p = 2 * (1 + 10 + 45) / 1024 = 0.109375.
    expect(mcnemarExact(pairs(8, 2, 0)).pValue).toBeCloseTo(0.109375, 12);
  });

  it('is symmetric, 1 without discordant pairs, and a probability', () => {
    expect(mcnemarExact(pairs(0, 0, 20)).pValue).toBe(1);
    fc.assert(
      fc.property(fc.nat(300), fc.nat(300), (a, b) => {
        const ab = mcnemarExact(pairs(a, b, 0)).pValue;
        expect(ab).toBeCloseTo(mcnemarExact(pairs(b, a, 0)).pValue, 12);
        expect(ab > 0 && ab <= 1).toBe(true);
      }),
    );
  });
});
