import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { caseVerdict, compareCases, type CasePair } from '../../../evals/paired';

describe('caseVerdict', () => {
  it('takes the majority of the answered repeats, a tie being no verdict', () => {
    expect(caseVerdict('activate', { activated: 2, answered: 3 })).toBe('right');
    expect(caseVerdict('not_activate', { activated: 2, answered: 3 })).toBe('wrong');
    expect(caseVerdict('activate', { activated: 1, answered: 2 })).toBe('tie');
    expect(caseVerdict('activate', { activated: 0, answered: 0 })).toBe('none');
  });
});

describe('compareCases', () => {
  it('makes one pair per case and counts what it leaves out', () => {
    const result = compareCases([
      { case: 'right-wrong', expect: 'activate', a: { activated: 3, answered: 3 }, b: { activated: 0, answered: 3 } },
      { case: 'tie-on-a', expect: 'activate', a: { activated: 1, answered: 2 }, b: { activated: 2, answered: 2 } },
      { case: 'never-answered-b', expect: 'not_activate', a: { activated: 0, answered: 2 }, b: { activated: 0, answered: 0 } },
      { case: 'both-right', expect: 'not_activate', a: { activated: 1, answered: 3 }, b: { activated: 0, answered: 1 } },
    ]);
    expect(result).toMatchObject({ pairs: 2, flaky_a: 1, flaky_b: 0, unanswered: 1, accuracy_a: 1, accuracy_b: 0.5 });
    expect(result.test).toMatchObject({ aOnly: 1, bOnly: 0, concordant: 1, pValue: 1 });
    expect(result.cases.map((c) => c.difference)).toEqual([1, -0.5, null, 1 / 3]);
    expect(result.mean_abs_trigger_rate_difference).toBeCloseTo((1 + 0.5 + 1 / 3) / 3, 12);
  });

  it('is symmetric: swapping the sides swaps the counts and keeps p', () => {
    const tally = fc.record({ activated: fc.nat(5), extra: fc.nat(5) }).map(({ activated, extra }) => ({ activated, answered: activated + extra }));
    const pair = fc.record({ expect: fc.constantFrom('activate' as const, 'not_activate' as const), a: tally, b: tally });
    fc.assert(
      fc.property(fc.array(pair, { maxLength: 30 }), (raw) => {
        const cases: CasePair[] = raw.map((p, i) => ({ case: `c${i}`, ...p }));
        const ab = compareCases(cases);
        const ba = compareCases(cases.map((c) => ({ ...c, a: c.b, b: c.a })));
        expect([ba.test.aOnly, ba.test.bOnly, ba.pairs, ba.flaky_a, ba.flaky_b, ba.unanswered]).toEqual([ab.test.bOnly, ab.test.aOnly, ab.pairs, ab.flaky_b, ab.flaky_a, ab.unanswered]);
        expect(ba.test.pValue).toBeCloseTo(ab.test.pValue, 12);
        expect(ab.pairs + ab.unanswered).toBeLessThanOrEqual(cases.length);
        // Each case carries both sides' verdicts, and they account for every count of the test.
        const decided = (v: string) => v === 'right' || v === 'wrong';
        expect(ab.cases.map((c) => [c.verdict_a, c.verdict_b])).toEqual(cases.map((c) => [caseVerdict(c.expect, c.a), caseVerdict(c.expect, c.b)]));
        expect(ab.cases.filter((c) => decided(c.verdict_a) && decided(c.verdict_b)).length).toBe(ab.pairs);
        expect(ab.cases.filter((c) => c.verdict_a === 'right' && c.verdict_b === 'wrong').length).toBe(ab.test.aOnly);
        expect(ab.cases.filter((c) => c.verdict_a === 'wrong' && c.verdict_b === 'right').length).toBe(ab.test.bOnly);
        expect(ab.cases.filter((c) => c.verdict_a === 'none' || c.verdict_b === 'none').length).toBe(ab.unanswered);
      }),
    );
  });
});
