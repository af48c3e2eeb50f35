import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LONGEST_RETRY_AFTER_WAIT_MS, mayRetry, retryDelayMs, type AttemptFailure, type RetryMode } from '../../../../core/store/httpRetry';

const modes: RetryMode[] = ['read', 'keyed', 'delete', 'unkeyed'];

describe('mayRetry', () => {
  it('repeats every kind of request whose connection could not be made', () => {
    for (const mode of modes) expect(mayRetry(mode, { kind: 'connect' })).toBe(true);
  });

  it('repeats reads and keyed PUTs after ambiguous failures and transient statuses', () => {
    for (const mode of ['read', 'keyed'] as const) {
      expect(mayRetry(mode, { kind: 'ambiguous' })).toBe(true);
      for (const status of [408, 429, 502, 503, 504]) expect(mayRetry(mode, { kind: 'status', status })).toBe(true);
      for (const status of [400, 401, 404, 409, 412, 413, 415, 422, 428, 500]) expect(mayRetry(mode, { kind: 'status', status })).toBe(false);
    }
  });

  it('never repeats an unkeyed PUT that may have reached the host', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }), (status) => {
        expect(mayRetry('unkeyed', { kind: 'status', status })).toBe(false);
      }),
    );
    expect(mayRetry('unkeyed', { kind: 'ambiguous' })).toBe(false);
  });

  it('repeats a DELETE only when the host certainly did nothing', () => {
    expect(mayRetry('delete', { kind: 'ambiguous' })).toBe(false);
    expect(mayRetry('delete', { kind: 'status', status: 503 })).toBe(false);
    expect(mayRetry('delete', { kind: 'status', status: 504 })).toBe(false);
    expect(mayRetry('delete', { kind: 'status', status: 429 })).toBe(true);
  });

  it('is never more permissive for a weaker mode (read ⊇ keyed ⊇ delete ⊇ unkeyed)', () => {
    const failure: fc.Arbitrary<AttemptFailure> = fc.oneof(
      fc.constant<AttemptFailure>({ kind: 'connect' }),
      fc.constant<AttemptFailure>({ kind: 'ambiguous' }),
      fc.integer({ min: 100, max: 599 }).map((status): AttemptFailure => ({ kind: 'status', status })),
    );
    fc.assert(
      fc.property(failure, (f) => {
        const allowed = modes.map((m) => mayRetry(m, f));
        for (let i = 1; i < allowed.length; i++) if (allowed[i]) expect(allowed[i - 1]).toBe(true);
      }),
    );
  });
});

describe('retryDelayMs', () => {
  it('waits the host-given delay, and refuses one that is too long', () => {
    expect(retryDelayMs(1, 1500)).toBe(1500);
    expect(retryDelayMs(3, 0)).toBe(0);
    expect(retryDelayMs(1, LONGEST_RETRY_AFTER_WAIT_MS + 1)).toBeUndefined();
  });

  it('backs off exponentially with equal jitter, from 200 ms up to 5 s, never instantly', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.double({ min: 0, max: 1, noNaN: true }), (attempt, r) => {
        const ceiling = Math.min(5000, 200 * 2 ** (attempt - 1));
        const delay = retryDelayMs(attempt, undefined, () => r)!;
        expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
        expect(delay).toBeLessThanOrEqual(ceiling);
      }),
    );
    expect(retryDelayMs(1, undefined, () => 0)).toBe(100);
    expect(retryDelayMs(3, undefined, () => 1)).toBe(800);
    expect(retryDelayMs(30, undefined, () => 1)).toBe(5000);
  });
});
