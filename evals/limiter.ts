/**
 * Concurrency of one provider during an evaluation, adapted to its rate
 * limits (additive increase, multiplicative decrease):
 *
 * - at most `limit` cells of the provider run at once, starting at the
 *   configured maximum;
 * - a rate-limit answer halves the limit (at most once per cool-down, so a
 *   burst of 429s from calls already in flight counts as one signal) and
 *   pauses new cells for the server's Retry-After;
 * - every `limit` consecutive successes raise it by one again, up to the maximum;
 * - waiting cells start first come, first served.
 *
 * The queue is a plain array rather than p-queue: the pause still needs its
 * own timer and an injectable clock, so a task queue would add a dependency
 * without removing code.
 */
import { backoffDelayMs } from '../core/retry';

/** Options of {@link AdaptiveLimiter}. */
export interface LimiterOptions {
  /** The configured (and highest) concurrency. */
  max: number;
  /** Shortest time between two halvings, in ms (default 1000). */
  cooldownMs?: number;
  /** First backoff when a rate limit carries no Retry-After, in ms (default 500); doubles per retry. */
  baseDelayMs?: number;
  /** Ceiling of one computed backoff, in ms (default 30 s). */
  maxDelayMs?: number;
  /** Clock in ms (tests pin it). */
  now?: () => number;
  /** Random source for jitter (tests pin it). */
  random?: () => number;
}

/** A snapshot for progress displays. */
export interface LimiterState {
  limit: number;
  max: number;
  active: number;
  /** Milliseconds until new cells may start again (0 when not paused). */
  pausedForMs: number;
}

/** Adaptive concurrency of one provider; see the module comment. */
export class AdaptiveLimiter {
  readonly max: number;
  private current: number;
  private running = 0;
  private streak = 0;
  private lastDecrease = -Infinity;
  private pausedUntil = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly waiters: Array<() => void> = [];
  private readonly cooldownMs: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(options: LimiterOptions) {
    if (!Number.isSafeInteger(options.max) || options.max < 1) throw new RangeError(`concurrency must be a positive integer, got ${options.max}`);
    this.max = options.max;
    this.current = options.max;
    this.cooldownMs = options.cooldownMs ?? 1_000;
    this.baseDelayMs = options.baseDelayMs ?? 500;
    this.maxDelayMs = options.maxDelayMs ?? 30_000;
    this.now = options.now ?? (() => performance.now());
    this.random = options.random ?? Math.random;
  }

  /** The concurrency in force now. */
  get limit(): number {
    return this.current;
  }

  /** Cells holding a slot. */
  get active(): number {
    return this.running;
  }

  /** A snapshot of the limiter. */
  state(): LimiterState {
    return { limit: this.current, max: this.max, active: this.running, pausedForMs: Math.max(0, Math.round(this.pausedUntil - this.now())) };
  }

  /**
   * Waits for a free slot (below the limit and not paused) and takes it.
   * Resolves false, without a slot, when `signal` aborts first.
   */
  acquire(signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    // Waiters go first: a newcomer never overtakes a cell already queued.
    if (this.waiters.length === 0 && this.canStart(this.now())) {
      this.running++;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const onAbort = () => {
        const i = this.waiters.indexOf(wake);
        if (i >= 0) this.waiters.splice(i, 1);
        if (this.waiters.length === 0) this.clearTimer();
        resolve(false);
      };
      const wake = () => {
        signal?.removeEventListener('abort', onAbort);
        this.running++;
        resolve(true);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(wake);
      this.pump();
    });
  }

  /** Gives a slot back. */
  release(): void {
    this.running = Math.max(0, this.running - 1);
    this.pump();
  }

  /** Records a successful call: after `limit` of them in a row the limit grows by one. */
  onSuccess(): void {
    if (this.current >= this.max) return;
    this.streak++;
    if (this.streak >= this.current) {
      this.current++;
      this.streak = 0;
      this.pump();
    }
  }

  /**
   * Records a rate-limit answer and returns how long the failed call should
   * wait before retrying: the server's Retry-After when given, else an
   * exponential backoff with jitter for retry number `retry` (1 for the first).
   */
  onRateLimit(retryAfterMs: number | undefined, retry = 1): number {
    const now = this.now();
    this.streak = 0;
    if (now - this.lastDecrease >= this.cooldownMs) {
      this.current = Math.max(1, Math.floor(this.current / 2));
      this.lastDecrease = now;
    }
    const wait = retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs >= 0 ? retryAfterMs : backoffDelayMs(retry, { baseDelayMs: this.baseDelayMs, maxDelayMs: this.maxDelayMs }, this.random);
    this.pausedUntil = Math.max(this.pausedUntil, now + wait);
    return wait;
  }

  private canStart(now: number): boolean {
    return this.running < this.current && now >= this.pausedUntil;
  }

  /**
   * Starts the waiters there is room for and, when a pause holds the rest
   * back, arms the timer that ends it. Both decisions read the clock once:
   * deciding "paused" on one reading and "no pause left to wait for" on a
   * later one would leave a waiter that nothing wakes.
   */
  private pump(): void {
    const now = this.now();
    while (this.waiters.length > 0 && this.canStart(now)) this.waiters.shift()!();
    if (this.waiters.length === 0) return this.clearTimer();
    // Held back by the limit only: the next release or growth pumps again.
    if (now >= this.pausedUntil || this.timer !== undefined) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.pump();
      },
      // A timer may fire a fraction of a millisecond before the clock says the pause is over; pump then re-arms it.
      Math.max(1, Math.ceil(this.pausedUntil - now)),
    );
  }

  private clearTimer(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
