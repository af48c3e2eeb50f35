import { describe, expect, it } from 'vitest';
import { AdaptiveLimiter } from '../../../evals/limiter';

describe('AdaptiveLimiter', () => {
  it('holds at most `limit` slots and hands a released slot to the next waiter', async () => {
    const limiter = new AdaptiveLimiter({ max: 2 });
    expect(await limiter.acquire()).toBe(true);
    expect(await limiter.acquire()).toBe(true);
    let third = false;
    const waiting = limiter.acquire().then((ok) => (third = ok));
    await Promise.resolve();
    expect(third).toBe(false);
    expect(limiter.active).toBe(2);
    limiter.release();
    await waiting;
    expect(third).toBe(true);
    expect(limiter.active).toBe(2);
  });

  it('halves on a rate limit once per cool-down and grows back by one per `limit` successes', () => {
    let now = 0;
    const limiter = new AdaptiveLimiter({ max: 8, cooldownMs: 1000, now: () => now, random: () => 0.5 });
    limiter.onRateLimit(undefined);
    expect(limiter.limit).toBe(4);
    // A burst of 429s from calls already in flight is one signal.
    limiter.onRateLimit(undefined);
    limiter.onRateLimit(undefined);
    expect(limiter.limit).toBe(4);
    now = 1000;
    limiter.onRateLimit(undefined);
    expect(limiter.limit).toBe(2);
    for (let i = 0; i < 2; i++) limiter.onSuccess();
    expect(limiter.limit).toBe(3);
    for (let i = 0; i < 3; i++) limiter.onSuccess();
    expect(limiter.limit).toBe(4);
    for (let i = 0; i < 100; i++) limiter.onSuccess();
    expect(limiter.limit).toBe(8);
    now = 5000;
    for (let i = 0; i < 10; i++) {
      now += 1000;
      limiter.onRateLimit(undefined);
    }
    expect(limiter.limit).toBe(1);
  });

  it('honours Retry-After: no new slot until the pause ends', async () => {
    const limiter = new AdaptiveLimiter({ max: 4 });
    expect(limiter.onRateLimit(120)).toBe(120);
    const started = performance.now();
    expect(await limiter.acquire()).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(110);
  });

  it('backs off exponentially with jitter when no Retry-After is given', () => {
    const limiter = new AdaptiveLimiter({ max: 4, baseDelayMs: 100, maxDelayMs: 1000, random: () => 1 });
    expect([1, 2, 3, 4, 5, 6].map((retry) => limiter.onRateLimit(undefined, retry))).toEqual([100, 200, 400, 800, 1000, 1000]);
    const low = new AdaptiveLimiter({ max: 4, baseDelayMs: 100, random: () => 0 });
    expect(low.onRateLimit(undefined, 1)).toBe(50);
  });

  it('gives up waiting when the signal aborts', async () => {
    const limiter = new AdaptiveLimiter({ max: 1 });
    await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort();
    expect(await waiting).toBe(false);
    limiter.release();
    expect(limiter.active).toBe(0);
    expect(await limiter.acquire(controller.signal)).toBe(false);
  });
});
