import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelayMs, RETRY_AFTER_CLAMP_MS, parseRetryAfter, parseRetryAfterValue } from '../../../core/retry';

const NOW = Date.UTC(2025, 10, 3, 12, 0, 0);

describe('Retry-After parsing', () => {
  it('reads delay-seconds, including fractions', () => {
    expect(parseRetryAfterValue('0', NOW)).toBe(0);
    expect(parseRetryAfterValue('1', NOW)).toBe(1000);
    expect(parseRetryAfterValue(' 120 ', NOW)).toBe(120_000);
    expect(parseRetryAfterValue('1.5', NOW)).toBe(1500);
  });

  it('reads an HTTP-date relative to now; a past date means no wait', () => {
    expect(parseRetryAfterValue('Mon, 03 Nov 2025 12:00:30 GMT', NOW)).toBe(30_000);
    expect(parseRetryAfterValue('Mon, 03 Nov 2025 11:59:00 GMT', NOW)).toBe(0);
    // RFC 850 form, still allowed by RFC 9110 for recipients.
    expect(parseRetryAfterValue('Monday, 03-Nov-25 12:01:00 GMT', NOW)).toBe(60_000);
  });

  it('ignores values that are neither', () => {
    for (const value of ['', 'soon', '-5', '1e3', '0x10', 'NaN', '3 seconds']) expect(parseRetryAfterValue(value, NOW)).toBeUndefined();
  });

  it('clamps absurd values', () => {
    expect(parseRetryAfterValue('999999999', NOW)).toBe(RETRY_AFTER_CLAMP_MS);
  });

  it('reads headers case-insensitively and prefers retry-after-ms', () => {
    expect(parseRetryAfter({ 'Retry-After': '2' }, NOW)).toBe(2000);
    expect(parseRetryAfter({ 'retry-after': '2', 'retry-after-ms': '250' }, NOW)).toBe(250);
    expect(parseRetryAfter({ 'retry-after': '2', 'retry-after-ms': 'junk' }, NOW)).toBe(2000);
    expect(parseRetryAfter({ 'content-type': 'application/json' }, NOW)).toBeUndefined();
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
  });

  it('never throws and never returns a negative or unbounded delay', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()), fc.nat().map(String)), (value) => {
        const ms = parseRetryAfterValue(value, NOW);
        if (ms !== undefined) {
          expect(ms).toBeGreaterThanOrEqual(0);
          expect(ms).toBeLessThanOrEqual(RETRY_AFTER_CLAMP_MS);
        }
      }),
    );
  });
});

describe('backoffDelayMs', () => {
  const policy = { baseDelayMs: 500, maxDelayMs: 8000 };
  it('doubles per retry with equal jitter, capped', () => {
    expect(backoffDelayMs(1, policy, () => 0)).toBe(250);
    expect(backoffDelayMs(1, policy, () => 1)).toBe(500);
    expect(backoffDelayMs(3, policy, () => 0.5)).toBe(1500);
    expect(backoffDelayMs(10, policy, () => 1)).toBe(8000);
    expect(backoffDelayMs(10, policy, () => 0)).toBe(4000);
  });
});
