/**
 * When the HTTP client store may repeat a request, and how long it waits.
 *
 * A request is repeated only when repeating cannot change the outcome:
 * - `read` (GET) and `keyed` (PUT with an Idempotency-Key: the host replays the
 *   first reply) repeat after any transient failure: the connection could not be
 *   made, the connection broke, the attempt timed out, or the host answered 408,
 *   429, 502, 503 or 504;
 * - `delete` repeats only when the host certainly did nothing: the connection could
 *   not be made, or 429. Repeating a committed deletion would be a harmless no-op
 *   (guide section 11), but its reply would then report the versions as
 *   `already_deleted` instead of `deleted`; the caller gets the failure and can
 *   re-run, which is the documented no-op;
 * - `unkeyed` (PUT without a key) repeats only when the connection could not be made.
 */
import { backoffDelayMs } from '../retry';

/** How a request may be repeated. */
export type RetryMode = 'read' | 'keyed' | 'delete' | 'unkeyed';

/** What went wrong with one attempt. */
export type AttemptFailure =
  /** The request never reached the host (refused, unreachable, connect timeout). */
  | { kind: 'connect' }
  /** The connection broke or the attempt timed out after the request was sent. */
  | { kind: 'ambiguous' }
  /** The host answered with this status. */
  | { kind: 'status'; status: number };

/** Longest `Retry-After` the client is willing to wait; a longer one fails at once. */
export const LONGEST_RETRY_AFTER_WAIT_MS = 30_000;

const BASE_DELAY_MS = 200;
const MAX_DELAY_MS = 5_000;

/** True when `failure` of a request in `mode` may be repeated. */
export function mayRetry(mode: RetryMode, failure: AttemptFailure): boolean {
  if (failure.kind === 'connect') return true;
  if (mode === 'unkeyed') return false;
  if (mode === 'delete') return failure.kind === 'status' && failure.status === 429;
  if (failure.kind === 'ambiguous') return true;
  return [408, 429, 502, 503, 504].includes(failure.status);
}

/**
 * The wait before retry number `attempt` (1 for the first retry): the host's
 * `Retry-After` when given, else the shared exponential backoff (200 ms
 * doubling up to 5 s, equal jitter). `undefined` means "do not retry" (Retry-After too long).
 */
export function retryDelayMs(attempt: number, retryAfterMs: number | undefined, random: () => number = Math.random): number | undefined {
  if (retryAfterMs !== undefined) return retryAfterMs > LONGEST_RETRY_AFTER_WAIT_MS ? undefined : retryAfterMs;
  return backoffDelayMs(attempt, { baseDelayMs: BASE_DELAY_MS, maxDelayMs: MAX_DELAY_MS }, random);
}
