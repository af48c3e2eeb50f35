import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AdaptiveLimiter } from '../../../evals/limiter';

/**
 * The limiter on an injected clock and vitest's fake timers: `advance` moves
 * both together, so no verdict here depends on how fast the machine is.
 */
let clock = 0;
const now = () => clock;
async function advance(ms: number): Promise<void> {
  clock += ms;
  await vi.advanceTimersByTimeAsync(ms);
}

/** An acquisition whose outcome can be read without awaiting it. */
function track(p: Promise<boolean>): { settled: () => boolean; value: () => boolean | undefined; done: Promise<boolean> } {
  let state: boolean | undefined;
  const done = p.then((ok) => (state = ok));
  return { settled: () => state !== undefined, value: () => state, done };
}

beforeEach(() => {
  clock = 0;
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('AdaptiveLimiter: slots', () => {
  it('holds at most `limit` slots and hands a released slot to the next waiter, first come first served', async () => {
    const limiter = new AdaptiveLimiter({ max: 2, now });
    expect(await limiter.acquire()).toBe(true);
    expect(await limiter.acquire()).toBe(true);
    const third = track(limiter.acquire());
    const fourth = track(limiter.acquire());
    await vi.runAllTimersAsync();
    expect([third.settled(), fourth.settled()]).toEqual([false, false]);
    expect(limiter.active).toBe(2);
    limiter.release();
    await vi.runAllTimersAsync();
    expect([third.value(), fourth.settled()]).toEqual([true, false]);
    limiter.release();
    await vi.runAllTimersAsync();
    expect(fourth.value()).toBe(true);
    expect(limiter.active).toBe(2);
  });

  it('with a limit of one, runs strictly one at a time', async () => {
    const limiter = new AdaptiveLimiter({ max: 1, now });
    const order: number[] = [];
    const work = async (i: number) => {
      expect(await limiter.acquire()).toBe(true);
      expect(limiter.active).toBe(1);
      order.push(i);
      await Promise.resolve();
      limiter.release();
    };
    await Promise.all([0, 1, 2, 3, 4].map(work));
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(limiter.active).toBe(0);
  });

  it('after a halving below the slots in use, starts nothing until enough slots are released', async () => {
    const limiter = new AdaptiveLimiter({ max: 4, now, cooldownMs: 1000 });
    for (let i = 0; i < 4; i++) expect(await limiter.acquire()).toBe(true);
    expect(limiter.onRateLimit(0)).toBe(0);
    expect(limiter.limit).toBe(2);
    const waiter = track(limiter.acquire());
    limiter.release();
    limiter.release();
    await vi.runAllTimersAsync();
    // Two still running against a limit of two: no room yet.
    expect(waiter.settled()).toBe(false);
    limiter.release();
    await vi.runAllTimersAsync();
    expect(waiter.value()).toBe(true);
    expect(limiter.active).toBe(2);
  });

  it('a limit that grows back wakes a waiter without any release', async () => {
    const limiter = new AdaptiveLimiter({ max: 2, now, cooldownMs: 1000 });
    limiter.onRateLimit(0);
    expect(limiter.limit).toBe(1);
    expect(await limiter.acquire()).toBe(true);
    const waiter = track(limiter.acquire());
    await vi.runAllTimersAsync();
    expect(waiter.settled()).toBe(false);
    limiter.onSuccess();
    await vi.runAllTimersAsync();
    expect(limiter.limit).toBe(2);
    expect(waiter.value()).toBe(true);
  });

  it('never counts a slot released twice below zero', async () => {
    const limiter = new AdaptiveLimiter({ max: 1, now });
    limiter.release();
    expect(limiter.active).toBe(0);
    expect(await limiter.acquire()).toBe(true);
    expect(limiter.active).toBe(1);
  });

  it('refuses a concurrency that is not a positive integer', () => {
    for (const max of [0, -1, 1.5, Number.NaN]) expect(() => new AdaptiveLimiter({ max })).toThrow(RangeError);
  });
});

describe('AdaptiveLimiter: rate limits', () => {
  it('halves on a rate limit once per cool-down and grows back by one per `limit` successes', () => {
    const limiter = new AdaptiveLimiter({ max: 8, cooldownMs: 1000, now, random: () => 0.5 });
    limiter.onRateLimit(undefined);
    expect(limiter.limit).toBe(4);
    // A burst of 429s from calls already in flight is one signal.
    limiter.onRateLimit(undefined);
    limiter.onRateLimit(undefined);
    expect(limiter.limit).toBe(4);
    clock = 1000;
    limiter.onRateLimit(undefined);
    expect(limiter.limit).toBe(2);
    for (let i = 0; i < 2; i++) limiter.onSuccess();
    expect(limiter.limit).toBe(3);
    for (let i = 0; i < 3; i++) limiter.onSuccess();
    expect(limiter.limit).toBe(4);
    for (let i = 0; i < 100; i++) limiter.onSuccess();
    expect(limiter.limit).toBe(8);
    clock = 5000;
    for (let i = 0; i < 10; i++) {
      clock += 1000;
      limiter.onRateLimit(undefined);
    }
    expect(limiter.limit).toBe(1);
  });

  it('a rate limit breaks the success streak', () => {
    const limiter = new AdaptiveLimiter({ max: 4, cooldownMs: 0, now });
    limiter.onRateLimit(0);
    expect(limiter.limit).toBe(2);
    limiter.onSuccess();
    limiter.onRateLimit(0);
    expect(limiter.limit).toBe(1);
    limiter.onSuccess();
    expect(limiter.limit).toBe(2);
  });

  it('honours Retry-After: no new slot until the pause ends, then the waiter starts without a release', async () => {
    const limiter = new AdaptiveLimiter({ max: 4, now });
    expect(limiter.onRateLimit(120)).toBe(120);
    expect(limiter.state()).toMatchObject({ pausedForMs: 120, active: 0 });
    const waiter = track(limiter.acquire());
    await advance(119);
    expect(waiter.settled()).toBe(false);
    await advance(1);
    expect(waiter.value()).toBe(true);
    expect(limiter.state().pausedForMs).toBe(0);
  });

  it('in a burst of 429s, the pause lasts until the latest Retry-After; a shorter one later does not cut it', async () => {
    const limiter = new AdaptiveLimiter({ max: 4, now });
    limiter.onRateLimit(300);
    await advance(100);
    limiter.onRateLimit(50);
    const waiter = track(limiter.acquire());
    await advance(150);
    expect(waiter.settled()).toBe(false);
    limiter.onRateLimit(400);
    await advance(50);
    // 300 ms have passed: the first pause is over, but the third (until 650) is not.
    expect(waiter.settled()).toBe(false);
    await advance(349);
    expect(waiter.settled()).toBe(false);
    await advance(1);
    expect(waiter.value()).toBe(true);
  });

  it('Retry-After 0 does not pause; a missing, negative or non-finite one backs off', () => {
    const limiter = new AdaptiveLimiter({ max: 4, baseDelayMs: 100, maxDelayMs: 1000, now, random: () => 1 });
    expect(limiter.onRateLimit(0)).toBe(0);
    expect(limiter.state().pausedForMs).toBe(0);
    expect(limiter.onRateLimit(-5)).toBe(100);
    expect(limiter.onRateLimit(Number.NaN, 2)).toBe(200);
    expect(limiter.onRateLimit(Number.POSITIVE_INFINITY, 3)).toBe(400);
  });

  it('backs off exponentially with jitter when no Retry-After is given', () => {
    const limiter = new AdaptiveLimiter({ max: 4, baseDelayMs: 100, maxDelayMs: 1000, random: () => 1, now });
    expect([1, 2, 3, 4, 5, 6].map((retry) => limiter.onRateLimit(undefined, retry))).toEqual([100, 200, 400, 800, 1000, 1000]);
    const low = new AdaptiveLimiter({ max: 4, baseDelayMs: 100, random: () => 0, now });
    expect(low.onRateLimit(undefined, 1)).toBe(50);
  });
});

describe('AdaptiveLimiter: wake-ups', () => {
  it('wakes a waiter whose pause ends between two readings of the clock (119.9 ms, then 120.1 ms)', async () => {
    const readings = [0, 119.9, 120.1];
    const limiter = new AdaptiveLimiter({ max: 4, now: () => (readings.length > 1 ? readings.shift()! : readings[0]!) });
    limiter.onRateLimit(120);
    const waiter = track(limiter.acquire());
    await vi.runAllTimersAsync();
    expect(waiter.value()).toBe(true);
  });

  it('whatever the clock reads while a waiter queues, it is woken once the pause is over (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 500 }), fc.array(fc.double({ min: 0, max: 200, noNaN: true }), { minLength: 1, maxLength: 8 }), async (pause, steps) => {
        vi.clearAllTimers();
        // A non-decreasing clock that crosses the end of the pause at some reading and then stays there.
        const readings = [0, ...steps.map((_, i) => steps.slice(0, i + 1).reduce((a, b) => a + b, 0))];
        readings.push(Math.max(pause, readings[readings.length - 1]!));
        const limiter = new AdaptiveLimiter({ max: 2, now: () => (readings.length > 1 ? readings.shift()! : readings[0]!) });
        limiter.onRateLimit(pause);
        const waiter = track(limiter.acquire());
        await vi.runAllTimersAsync();
        expect(waiter.value()).toBe(true);
        expect(limiter.active).toBe(1);
      }),
      { numRuns: 200 },
    );
  });
});

describe('AdaptiveLimiter: abort', () => {
  it('gives up waiting for a slot when the signal aborts, and the next waiter still gets the slot', async () => {
    const limiter = new AdaptiveLimiter({ max: 1, now });
    await limiter.acquire();
    const controller = new AbortController();
    const aborted = track(limiter.acquire(controller.signal));
    const next = track(limiter.acquire());
    controller.abort();
    expect(await aborted.done).toBe(false);
    limiter.release();
    await vi.runAllTimersAsync();
    expect(next.value()).toBe(true);
    expect(limiter.active).toBe(1);
    expect(await limiter.acquire(controller.signal)).toBe(false);
    expect(limiter.active).toBe(1);
  });

  it('gives up waiting out a pause when the signal aborts, leaving no timer behind', async () => {
    const limiter = new AdaptiveLimiter({ max: 2, now });
    limiter.onRateLimit(30_000);
    const controller = new AbortController();
    const waiter = track(limiter.acquire(controller.signal));
    await vi.advanceTimersByTimeAsync(10);
    expect(vi.getTimerCount()).toBe(1);
    controller.abort();
    expect(await waiter.done).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
    expect(limiter.active).toBe(0);
  });

  it('an abort after the slot was granted changes nothing', async () => {
    const limiter = new AdaptiveLimiter({ max: 1, now });
    const controller = new AbortController();
    expect(await limiter.acquire(controller.signal)).toBe(true);
    controller.abort();
    expect(limiter.active).toBe(1);
    limiter.release();
    expect(limiter.active).toBe(0);
  });
});
