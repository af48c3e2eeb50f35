import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatP, formatRate } from '../../../../core/report/format';
import { correctCount, repeatsFlaky, repeatsVerdict, wrongCount } from '../../../../core/report/repeats';

describe('repeatsVerdict', () => {
  it('passes on a strict majority of all repeats, and lets errors outweigh wrong answers', () => {
    const c = (expect: 'activate' | 'not_activate', activated: number, notActivated: number, errors: number) => ({ expect, activated, notActivated, errors, invalid: 0, n: activated + notActivated + errors });
    expect(repeatsVerdict(c('activate', 3, 2, 0))).toBe('pass');
    expect(repeatsVerdict(c('activate', 2, 2, 0))).toBe('fail');
    expect(repeatsVerdict(c('activate', 2, 0, 2))).toBe('error');
    expect(repeatsVerdict(c('not_activate', 1, 1, 1))).toBe('fail');
    expect(repeatsVerdict(c('not_activate', 0, 0, 0))).toBe('error');
    expect(repeatsFlaky(c('activate', 1, 2, 5))).toBe(true);
    expect(repeatsFlaky(c('activate', 3, 0, 5))).toBe(false);
  });

  it('never passes a case on unusable answers: they are their own verdict, even on a should-not case', () => {
    const c = (expect: 'activate' | 'not_activate', activated: number, notActivated: number, invalid: number, errors: number) => ({ expect, activated, notActivated, invalid, errors, n: activated + notActivated + invalid + errors });
    expect(repeatsVerdict(c('not_activate', 0, 0, 3, 0))).toBe('invalid');
    expect(repeatsVerdict(c('not_activate', 0, 1, 2, 0))).toBe('invalid');
    expect(repeatsVerdict(c('activate', 0, 1, 1, 0))).toBe('fail');
    expect(repeatsVerdict(c('activate', 0, 0, 1, 1))).toBe('invalid');
    expect(repeatsVerdict(c('activate', 0, 0, 1, 2))).toBe('error');
    expect(repeatsVerdict(c('activate', 2, 0, 1, 0))).toBe('pass');
  });

  it('is exhaustive: every repeat is right, wrong, unusable or an error', () => {
    fc.assert(
      fc.property(fc.constantFrom('activate' as const, 'not_activate' as const), fc.nat(9), fc.nat(9), fc.nat(9), fc.nat(9), (label, activated, notActivated, errors, invalid) => {
        const c = { expect: label, activated, notActivated, errors, invalid, n: activated + notActivated + errors + invalid };
        expect(correctCount(c) + wrongCount(c) + invalid + errors).toBe(c.n);
        const v = repeatsVerdict(c);
        if (v === 'pass') expect(correctCount(c) * 2).toBeGreaterThan(c.n);
        else expect(correctCount(c) * 2).toBeLessThanOrEqual(c.n);
      }),
    );
  });
});

describe('formats', () => {
  it('reads the same in every report and on screen', () => {
    expect(formatRate(0.5625)).toBe('56.3%');
    expect(formatRate(null)).toBe('n/a');
    expect(formatP(0.375)).toBe('0.375');
    expect(formatP(1)).toBe('1');
    expect(formatP(0.0004)).toBe('< 0.001');
  });
});
