/**
 * Retries and failover. A chain holds one or more backends (a provider and a
 * resolved model each) and runs the guide's error policy (9.4):
 *
 * - per backend, retryable kinds (by default `rate_limit` and `server`) are
 *   retried up to `maxAttempts`, waiting for the server's Retry-After when it
 *   gives one, else exponential backoff with jitter; a Retry-After longer than
 *   `maxWaitMs` is not waited for: the chain moves on instead;
 * - every attempt has its own timeout (`timeout`), the whole call an optional
 *   deadline (`deadline`);
 * - after a backend gives up on outage, auth, rate_limit, server, quota or
 *   timeout, the next backend is tried;
 * - cancelled, deadline and malformed_input stop the chain at once.
 *
 * Every attempt is recorded; the answer names the backend that gave it.
 */
import { backoffDelayMs } from '../retry';
import { costOf } from './aliases';
import { classifyError, type AbortOrigin, type ModelError } from './errors';
import type { FinishReason, GenerateRequest, GenerateResult, ModelAttempt, ModelClient, ModelErrorKind, TokenUsage } from './types';

/** What a backend returns for one successful attempt. */
export interface BackendAnswer {
  text: string;
  usage: TokenUsage;
  /** Settings the backend ignored or adjusted. */
  warnings: string[];
  /** Cost when the backend knows it (0 for local models); otherwise the price table decides. */
  costUsd?: number | null;
  /** The model id the server says answered, when it says one (an alias may map to a dated id). */
  model?: string;
  /** Why the model stopped, when the backend says. */
  finishReason?: FinishReason;
}

/** One provider + resolved model, making single attempts (no retries of its own). */
export interface ModelBackend {
  readonly provider: string;
  readonly model: string;
  /** Makes one attempt; must honour `signal` and throw a {@link ModelError} (or anything {@link classifyError} maps). */
  call(request: GenerateRequest, signal: AbortSignal): Promise<BackendAnswer>;
  close?(): Promise<void>;
}

/** Retry policy per backend. */
export interface RetryPolicy {
  /** Attempts per backend, including the first (default 3). */
  maxAttempts: number;
  /** First backoff delay (default 500 ms); doubles per attempt. */
  baseDelayMs: number;
  /** Ceiling of one backoff delay (default 8 s). */
  maxDelayMs: number;
  /** Longest server-requested wait honoured; a longer Retry-After fails over instead (default 30 s). */
  maxWaitMs: number;
  /** Kinds retried on the same backend (default rate_limit, server). */
  retryOn: ModelErrorKind[];
}

/** The default {@link RetryPolicy}. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 3,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxWaitMs: 30_000,
  retryOn: ['rate_limit', 'server'] as ModelErrorKind[],
});

/** Kinds that end the whole call: the caller or the request itself is the problem, not the provider. */
export const STOP_KINDS: readonly ModelErrorKind[] = ['cancelled', 'deadline', 'malformed_input'];

/** Default per-attempt timeout. */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 60_000;

/** Options of {@link createChainClient}. */
export interface ChainOptions {
  /** Per-attempt timeout in ms (default 60 s). */
  timeoutMs?: number;
  /** Overall budget of one `generate` call in ms, across retries and failover (default none). */
  deadlineMs?: number;
  retries?: Partial<RetryPolicy>;
  /** Random source for backoff jitter (tests pin it). */
  random?: () => number;
}

/**
 * A {@link ModelClient} over `backends`, tried in order under the policy in
 * this module's header. With one backend it is a retrying client.
 */
export function createChainClient(spec: string, backends: ModelBackend[], options: ChainOptions = {}): ModelClient {
  if (backends.length === 0) throw new Error('createChainClient needs at least one backend');
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, retryOn: [...DEFAULT_RETRY_POLICY.retryOn], ...options.retries };
  policy.maxAttempts = Math.max(1, Math.floor(policy.maxAttempts));
  const timeoutMs = options.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  const random = options.random ?? Math.random;

  return {
    spec,
    isBaseline: false,
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const started = performance.now();
      const deadlineAt = options.deadlineMs === undefined ? Infinity : started + options.deadlineMs;
      const attempts: ModelAttempt[] = [];
      // The last failure of each backend tried, for the final message.
      const failures: ModelError[] = [];
      const stop = (error: ModelError): never => {
        throw error.withAttempts(attempts, failures.length > 0 ? summarize([...failures, error]) : error.message);
      };

      for (const backend of backends) {
        let lastError: ModelError | undefined;
        for (let n = 1; n <= policy.maxAttempts; n++) {
          const callerStop = callerAbort(request.signal);
          if (callerStop) stop(classifyError(undefined, { provider: backend.provider, model: backend.model, abortedBy: callerStop }));
          const remaining = deadlineAt - performance.now();
          if (remaining <= 0) stop(classifyError(undefined, { provider: backend.provider, model: backend.model, abortedBy: 'deadline' }));

          const outcome = await attempt(backend, request, Math.min(timeoutMs, remaining), remaining < timeoutMs, timeoutMs);
          attempts.push(outcome.record);
          if (outcome.ok) {
            const usage = outcome.answer.usage;
            return {
              text: outcome.answer.text,
              usage,
              model: outcome.answer.model ?? backend.model,
              provider: backend.provider,
              latencyMs: Math.round(performance.now() - started),
              costUsd: outcome.answer.costUsd !== undefined ? outcome.answer.costUsd : costOf(backend.provider, backend.model, usage),
              attempts,
              ...(outcome.answer.warnings.length > 0 && { warnings: outcome.answer.warnings }),
              ...(outcome.answer.finishReason !== undefined && { finishReason: outcome.answer.finishReason }),
            };
          }
          const error = outcome.error;
          lastError = error;
          if (STOP_KINDS.includes(error.kind)) stop(error);
          if (!policy.retryOn.includes(error.kind) || n === policy.maxAttempts) break;
          if (error.retryAfterMs !== undefined && error.retryAfterMs > policy.maxWaitMs) break;
          const wait = error.retryAfterMs ?? backoffDelayMs(n, policy, random);
          // Waiting past the deadline cannot help; another backend might.
          if (performance.now() + wait >= deadlineAt) break;
          const interrupted = await sleep(wait, request.signal);
          if (interrupted) stop(classifyError(undefined, { provider: backend.provider, model: backend.model, abortedBy: interrupted }));
        }
        if (lastError) failures.push(lastError);
      }
      const last = failures[failures.length - 1]!;
      throw last.withAttempts(attempts, failures.length > 1 ? summarize(failures) : last.message);
    },
    async close() {
      await Promise.all(backends.map((b) => b.close?.()));
    },
  };

  async function attempt(
    backend: ModelBackend,
    request: GenerateRequest,
    budgetMs: number,
    deadlineBound: boolean,
    configuredTimeoutMs: number,
  ): Promise<{ ok: true; answer: BackendAnswer; record: ModelAttempt } | { ok: false; error: ModelError; record: ModelAttempt }> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, Math.max(0, budgetMs));
    const onCallerAbort = () => controller.abort();
    request.signal?.addEventListener('abort', onCallerAbort, { once: true });
    const t0 = performance.now();
    try {
      const answer = await backend.call(request, controller.signal);
      const latencyMs = Math.round(performance.now() - t0);
      return { ok: true, answer, record: { provider: backend.provider, model: backend.model, ok: true, latencyMs } };
    } catch (caught) {
      const latencyMs = Math.round(performance.now() - t0);
      // Who aborted decides the kind, whatever shape the library gave the abort.
      const abortedBy: AbortOrigin | undefined = callerAbort(request.signal) ?? (timedOut ? (deadlineBound ? 'deadline' : 'timeout') : undefined);
      const error =
        abortedBy === undefined
          ? classifyError(caught, { provider: backend.provider, model: backend.model })
          : classifyError(caught, { provider: backend.provider, model: backend.model, abortedBy, timeoutMs: configuredTimeoutMs });
      const record: ModelAttempt = {
        provider: backend.provider,
        model: backend.model,
        ok: false,
        errorKind: error.kind,
        latencyMs,
        ...(error.status !== undefined && { status: error.status }),
      };
      return { ok: false, error, record };
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onCallerAbort);
    }
  }
}

/**
 * How the caller's signal ended the call: an `AbortSignal.timeout()` (a
 * TimeoutError reason) is the caller's deadline, anything else a cancellation.
 */
function callerAbort(signal: AbortSignal | undefined): AbortOrigin | undefined {
  if (!signal?.aborted) return undefined;
  const reason: unknown = signal.reason;
  const name = typeof reason === 'object' && reason !== null ? (reason as { name?: unknown }).name : undefined;
  return name === 'TimeoutError' ? 'deadline' : 'cancelled';
}

/** Resolves after `ms`, or early with the abort origin when `signal` fires. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<AbortOrigin | undefined> {
  return new Promise((resolve) => {
    const early = callerAbort(signal);
    if (early) return resolve(early);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(callerAbort(signal) ?? 'cancelled');
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(undefined);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function summarize(failures: ModelError[]): string {
  return `no model answered: ${failures.map((f) => f.message).join('; ')}`;
}
