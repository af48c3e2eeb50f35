import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { caseCounts, MIN_CASES, rateDeltas, rateIntervals, seedOf, type CaseCounts } from '../../../evals/intervals';
import { rates } from '../../../evals/metrics';

/** A small deterministic generator for simulated runs (independent of the one under test). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

const caseArb = fc.record({ expect: fc.constantFrom('activate' as const, 'not_activate' as const), k: fc.nat(3), extra: fc.nat(3) }).map(({ expect, k, extra }) => caseCounts(expect, k, k + extra));

/**
 * The bootstrap written the plain way, as an oracle: draw a case index from
 * mulberry32, add that case's counts, for every draw of every resample.
 */
function plainBootstrap<T>(cases: readonly T[], label: string, resamples: number, statistic: (drawn: T[]) => number | null): number[] {
  let a = seedOf(label) | 0;
  const draw = (n: number) => {
    a = (a + 0x6d2b79f5) | 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
  const values: number[] = [];
  for (let b = 0; b < resamples; b++) {
    const drawn = cases.map(() => cases[draw(cases.length)]!);
    const v = statistic(drawn);
    if (v !== null) values.push(v);
  }
  return values.sort((x, y) => x - y);
}

const total = (cases: readonly CaseCounts[]) => ({ ...cases.reduce((t, c) => ({ tp: t.tp + c.tp, fp: t.fp + c.fp, tn: t.tn + c.tn, fn: t.fn + c.fn }), { tp: 0, fp: 0, tn: 0, fn: 0 }), errors: 0, invalid: 0 });

/** The nearest-rank 95 % interval of sorted resampled values, as the module states it (tails of (1 - 0.95) / 2). */
const nearestRank = (values: number[]) => {
  const tail = (1 - 0.95) / 2;
  const at = (p: number) => values[Math.min(values.length, Math.max(1, Math.ceil(p * values.length))) - 1]!;
  return { low: at(tail), high: at(1 - tail) };
};

describe('rateIntervals', () => {
  it('is deterministic, and repeats of a deterministic model do not narrow it (cases are resampled, not cells)', () => {
    const once: CaseCounts[] = Array.from({ length: 24 }, (_, i) => caseCounts(i % 2 ? 'activate' : 'not_activate', i % 3 === 0 ? 1 : 0, 1));
    const a = rateIntervals(once, 'm|draft|s/x');
    expect(rateIntervals(once, 'm|draft|s/x')).toEqual(a);
    // Five identical repeats of every case: the same intervals, not five times the evidence.
    const five = once.map((c) => ({ tp: c.tp * 5, fp: c.fp * 5, tn: c.tn * 5, fn: c.fn * 5 }));
    expect(rateIntervals(five, 'm|draft|s/x')).toEqual(a);
    expect(a.recall).not.toBeNull();
    expect(a.recall!.low).toBeLessThan(a.recall!.high);
  });

  it('draws the same resamples as every earlier version, so a report read again gives the same intervals', () => {
    // Values from the published mulberry32 sequence; a change to the generator's arithmetic shows here.
    const cases = Array.from({ length: 40 }, (_, i) => ({ tp: i % 3 === 0 ? 2 : 0, fp: i % 5 === 0 ? 1 : 0, tn: i % 3 === 1 ? 1 : 0, fn: i % 4 === 0 ? 1 : 0 }));
    expect(rateIntervals(cases, 'model|draft|ns/skill')).toEqual({
      method: 'case bootstrap',
      level: 0.95,
      resamples: 2000,
      accuracy: { low: 0.5967741935483871, high: 0.7931034482758621 },
      precision: { low: 0.6363636363636364, high: 0.8979591836734694 },
      recall: { low: 0.5925925925925926, high: 0.851063829787234 },
      f1: { low: 0.631578947368421, high: 0.8484848484848486 },
    });
  });

  it('brackets the rate and stays inside [0, 1]', () => {
    fc.assert(
      fc.property(fc.array(caseArb, { minLength: MIN_CASES, maxLength: 40 }), fc.string(), (cases, label) => {
        const r = rateIntervals(cases, label, { resamples: 300 });
        const point = rates({ ...cases.reduce((t, c) => ({ tp: t.tp + c.tp, fp: t.fp + c.fp, tn: t.tn + c.tn, fn: t.fn + c.fn }), { tp: 0, fp: 0, tn: 0, fn: 0 }), errors: 0, invalid: 0 });
        for (const name of ['accuracy', 'precision', 'recall', 'f1'] as const) {
          const i = r[name];
          if (point[name] === null) expect(i).toBeNull();
          if (!i) continue;
          expect(i.low).toBeGreaterThanOrEqual(0);
          expect(i.high).toBeLessThanOrEqual(1);
          expect(i.low).toBeLessThanOrEqual(i.high);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('gives no interval on too few answered cases, or when a rate has no denominator', () => {
    const few = Array.from({ length: MIN_CASES - 1 }, () => caseCounts('activate', 1, 2));
    expect(rateIntervals(few, 'x')).toMatchObject({ accuracy: null, precision: null, recall: null, f1: null });
    // Unanswered cases (every repeat errored) do not count toward the minimum.
    expect(rateIntervals([...few, caseCounts('activate', 0, 0)], 'x').recall).toBeNull();
    const neverActivated = Array.from({ length: 10 }, () => caseCounts('not_activate', 0, 3));
    const r = rateIntervals(neverActivated, 'x');
    expect(r.precision).toBeNull();
    expect(r.recall).toBeNull();
    expect(r.accuracy).toEqual({ low: 1, high: 1 });
  });

  it('covers a known recall about 95 % of the time on simulated runs', () => {
    const truth = 0.7;
    const runs = 300;
    let covered = 0;
    const random = lcg(12345);
    for (let run = 0; run < runs; run++) {
      const cases = Array.from({ length: 50 }, () => caseCounts('activate', random() < truth ? 1 : 0, 1));
      const r = rateIntervals(cases, `sim${run}`, { resamples: 1000 });
      if (r.recall && r.recall.low <= truth && truth <= r.recall.high) covered++;
    }
    // Percentile bootstrap intervals run slightly narrow on 50 cases; far from 95 % would be a bug.
    expect(covered / runs).toBeGreaterThan(0.89);
    expect(covered / runs).toBeLessThan(0.99);
  });

  it('gives the intervals of drawing the cases one by one, however many cases share their counts', () => {
    fc.assert(
      fc.property(fc.array(caseArb, { minLength: MIN_CASES, maxLength: 30 }), fc.string(), (cases, label) => {
        const used = cases.filter((c) => c.tp + c.fp + c.tn + c.fn > 0);
        fc.pre(used.length >= MIN_CASES);
        const r = rateIntervals(cases, label, { resamples: 200 });
        const values = plainBootstrap(used, label, 200, (drawn) => rates(total(drawn)).recall);
        if (r.recall) expect(r.recall).toEqual(nearestRank(values));
        const accuracy = plainBootstrap(used, label, 200, (drawn) => rates(total(drawn)).accuracy);
        if (r.accuracy) expect(r.accuracy).toEqual(nearestRank(accuracy));
      }),
      { numRuns: 60 },
    );
  });

  it('seeds from the label', () => {
    expect(seedOf('a')).not.toBe(seedOf('b'));
    expect(seedOf('')).toBe(0x811c9dc5);
  });
});

describe('rateDeltas', () => {
  it('gives the interval of drawing the paired cases one by one', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ a: caseArb, b: caseArb }), { minLength: MIN_CASES, maxLength: 30 }), fc.string(), (pairs, label) => {
        const d = rateDeltas(pairs, label, { resamples: 200 });
        fc.pre(d.accuracy.interval !== null);
        const used = pairs.filter((p) => p.a.tp + p.a.fp + p.a.tn + p.a.fn > 0 || p.b.tp + p.b.fp + p.b.tn + p.b.fn > 0);
        const values = plainBootstrap(used, label, 200, (drawn) => {
          const x = rates(total(drawn.map((p) => p.a))).accuracy;
          const y = rates(total(drawn.map((p) => p.b))).accuracy;
          return x === null || y === null ? null : x - y;
        });
        expect(d.accuracy.interval).toEqual(nearestRank(values));
      }),
      { numRuns: 60 },
    );
  });

  it('is the difference of the two rows\' rates, zero with a zero-width interval for identical sides, and antisymmetric', () => {
    const side = Array.from({ length: 20 }, (_, i) => caseCounts(i % 2 ? 'activate' : 'not_activate', i % 3 === 0 ? 2 : 1, 3));
    const same = rateDeltas(side.map((x) => ({ a: x, b: x })), 'v');
    expect(same.recall).toEqual({ value: 0, interval: { low: 0, high: 0 } });
    const worse = side.map((x) => ({ ...x, tp: 0, fn: x.tp + x.fn }));
    const ab = rateDeltas(side.map((x, i) => ({ a: x, b: worse[i]! })), 'v');
    const ba = rateDeltas(side.map((x, i) => ({ a: worse[i]!, b: x })), 'v');
    expect(ab.recall.value).toBeGreaterThan(0);
    expect(ba.recall.value).toBeCloseTo(-ab.recall.value!, 12);
    // Same seed, mirrored draws: the interval mirrors too.
    expect(ba.recall.interval!.low).toBeCloseTo(-ab.recall.interval!.high, 12);
    expect(ab.recall.interval!.low).toBeGreaterThan(0);
    // Precision of the worse side is undefined (it never activates on a positive case, yet it does on negatives: 0).
    expect(ab.precision.value).not.toBeNull();
  });

  it('counts a case one side never answered on the other side alone, so the interval stays around the rows\' difference', () => {
    // The draft (a) is right exactly on the eight cases the published side (b) never answered; b is right on the rest.
    const pairs = Array.from({ length: 16 }, (_, i) => {
      const skipped = i < 8;
      return { a: caseCounts('activate', skipped ? 3 : 0, 3), b: skipped ? caseCounts('activate', 0, 0) : caseCounts('activate', 3, 3) };
    });
    const r = rateDeltas(pairs, 'v');
    expect(r.recall.value).toBe(-0.5);
    for (const name of ['accuracy', 'recall'] as const) {
      const d = r[name];
      expect(d.interval).not.toBeNull();
      expect(d.interval!.low).toBeLessThanOrEqual(d.value!);
      expect(d.interval!.high).toBeGreaterThanOrEqual(d.value!);
    }
  });

  it('leaves out cases a side never answered, and gives no interval below the minimum', () => {
    const pairs = Array.from({ length: MIN_CASES }, () => ({ a: caseCounts('activate', 1, 1), b: caseCounts('activate', 0, 1) }));
    expect(rateDeltas(pairs, 'v').recall.interval).not.toBeNull();
    pairs[0] = { a: caseCounts('activate', 1, 1), b: caseCounts('activate', 0, 0) };
    const r = rateDeltas(pairs, 'v');
    expect(r.recall.value).toBe(1);
    expect(r.recall.interval).toBeNull();
  });
});
