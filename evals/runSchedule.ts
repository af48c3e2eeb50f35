/**
 * Scheduling of an evaluation's cells: one adaptive limiter per provider (the
 * prefix of a model spec), model clients that wait out rate limits under that
 * limiter and meet their cells' other calls at event-loop turns, and the loop
 * that hands each provider's missing cells to workers in matrix order (repeat,
 * then unit, then model).
 */
import { setImmediate } from 'node:timers';
import type { GenerateRequest, GenerateResult, ModelClient } from '../core/models/types';
import { AdaptiveLimiter } from './limiter';

/** The provider prefix of a spec (`openai:fast` → `openai`): the unit of concurrency and rate limits. */
export function providerOf(spec: string): string {
  const i = spec.indexOf(':');
  return i < 0 ? spec : spec.slice(0, i);
}

/** Waits `ms`; resolves true when `signal` aborted first. */
function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(true);
  return new Promise((done) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      done(false);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      done(true);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The limiters of a run: the models grouped by provider, and one limiter per provider. */
export interface ProviderLimiters {
  /** Model indexes of each provider, in the order the models were given. */
  byProvider: Map<string, number[]>;
  limiters: Map<string, AdaptiveLimiter>;
}

/**
 * One limiter per provider of `specs`, each allowing at most `concurrency`
 * calls. A resource model of another provider gets that provider's limiter:
 * its rate limits slow its own calls only.
 */
export function providerLimiters(
  specs: readonly string[],
  resourceSpec: string | undefined,
  concurrency: number,
  options: { cooldownMs?: number; baseDelayMs?: number; maxDelayMs?: number } = {},
): ProviderLimiters {
  const byProvider = new Map<string, number[]>();
  specs.forEach((s, m) => {
    const p = providerOf(s);
    const list = byProvider.get(p);
    if (list) list.push(m);
    else byProvider.set(p, [m]);
  });
  const limiters = new Map([...byProvider.keys()].map((p) => [p, new AdaptiveLimiter({ max: concurrency, ...options })]));
  if (resourceSpec !== undefined && !limiters.has(providerOf(resourceSpec))) limiters.set(providerOf(resourceSpec), new AdaptiveLimiter({ max: concurrency, ...options }));
  return { byProvider, limiters };
}

/** A rate limit the client waits out before retrying (the runner reports it). */
export interface RateLimitEvent {
  provider: string;
  model: string;
  concurrency: number;
  waitMs: number;
  retry: number;
}

/**
 * `model` under its provider's limiter: a success lets the limiter grow back;
 * a rate limit halves it, waits (the server's Retry-After when given) and
 * retries, up to `maxRetries` times and never for a Retry-After above
 * `maxWaitMs`. Cancellation ends the wait with the rate-limit error.
 */
export function rateLimited(
  model: ModelClient,
  limiter: AdaptiveLimiter,
  options: { maxRetries: number; maxWaitMs: number; onRateLimit?: (event: RateLimitEvent) => void },
): ModelClient {
  const provider = providerOf(model.spec);
  return {
    spec: model.spec,
    isBaseline: model.isBaseline,
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      for (let retry = 1; ; retry++) {
        try {
          const result = await model.generate(request);
          limiter.onSuccess();
          return result;
        } catch (error) {
          const e = error as { kind?: unknown; retryAfterMs?: unknown };
          if (e?.kind !== 'rate_limit' || retry > options.maxRetries || request.signal?.aborted) throw error;
          const retryAfter = typeof e.retryAfterMs === 'number' ? e.retryAfterMs : undefined;
          if (retryAfter !== undefined && retryAfter > options.maxWaitMs) throw error;
          const waitMs = limiter.onRateLimit(retryAfter, retry);
          options.onRateLimit?.({ provider, model: model.spec, concurrency: limiter.limit, waitMs, retry });
          if (await sleep(waitMs, request.signal)) throw error;
        }
      }
    },
  };
}

let turn: Promise<void> | undefined;

/**
 * Resolves in the event loop's next check phase, after the I/O callbacks of
 * the current turn; every caller in one turn shares the promise, so their
 * continuations run back to back. The timer is Node's own (`node:timers`), not
 * the global a test may fake: a run never waits on a fake clock.
 */
export function nextTurn(): Promise<void> {
  return (turn ??= new Promise<void>((resolve) => {
    setImmediate(() => {
      turn = undefined;
      resolve();
    });
  }));
}

/**
 * `model` with its calls grouped by event-loop turn: a call leaves at the next
 * turn with every other call made meanwhile, and its caller continues at the
 * turn after its answer, with every other caller answered in the same turn.
 *
 * Without this, at the rates of a fast local endpoint, the main thread runs the
 * model client (request building, HTTP, the SDK's response parsing and
 * validation) and the selector's pipeline for the cell just answered in strict
 * alternation. Measured that way, the runner's own work cost about 2.5 times
 * what it costs run alone (about 175 against 71 microseconds a cell), the mark
 * of two bodies of code evicting each other from the CPU caches; in
 * `npm run bench`'s evals suite (4,000 cells, concurrency 32, an instant
 * endpoint) the run took 1.26x the client's time alone, and 0.96x to 0.99x
 * grouped. A turn costs one `setImmediate`, shared by every cell in it; a call
 * to a slow endpoint waits two turns longer, microseconds against its latency.
 */
export function groupedByTurn(model: ModelClient): ModelClient {
  return {
    spec: model.spec,
    isBaseline: model.isBaseline,
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      await nextTurn();
      try {
        return await model.generate(request);
      } finally {
        await nextTurn();
      }
    },
  };
}

/** The matrix one provider's dispatcher walks. */
export interface ProviderSchedule {
  limiter: AdaptiveLimiter;
  /** Indexes of this provider's models. */
  models: readonly number[];
  repeats: number;
  /** Units (variant × case) per repeat. */
  units: number;
  /** Models in the matrix (the stride of a cell index). */
  modelCount: number;
  /** One flag per cell, indexed `(repeat * units + unit) * modelCount + model`: set once a cell is recorded or scheduled. */
  done: Uint8Array;
  /** No new cells at all. */
  stop: AbortSignal;
  /** Whether model `m` was stopped on its own (the run's `stop` is checked apart). */
  modelStopped(m: number): boolean;
  /** Runs one cell; a rejection is handed to `onFatal`. */
  runCell(m: number, unit: number, repeat: number): Promise<void>;
  /** A cell could not be recorded: the run must end. */
  onFatal(error: unknown): void;
}

/**
 * Schedules one provider's missing cells, each once a limiter slot is free,
 * and resolves when they have all finished. Scheduling stops at `stop`; a
 * stopped model's cells are skipped, including one that waited for a slot.
 */
export async function dispatchProvider(s: ProviderSchedule): Promise<void> {
  const inflight = new Set<Promise<void>>();
  outer: for (let r = 0; r < s.repeats; r++) {
    for (let u = 0; u < s.units; u++) {
      for (const m of s.models) {
        const index = (r * s.units + u) * s.modelCount + m;
        if (s.done[index] || s.modelStopped(m)) continue;
        if (s.stop.aborted) break outer;
        if (!(await s.limiter.acquire(s.stop))) break outer;
        // The model may have been stopped while this cell waited for a slot.
        if (s.modelStopped(m)) {
          s.limiter.release();
          continue;
        }
        s.done[index] = 1;
        const task: Promise<void> = s
          .runCell(m, u, r)
          .catch(s.onFatal)
          .finally(() => {
            s.limiter.release();
            inflight.delete(task);
          });
        inflight.add(task);
      }
    }
  }
  await Promise.all(inflight);
}
