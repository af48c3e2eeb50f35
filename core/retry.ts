/**
 * Waiting before a retry, for every client that retries (model calls, the
 * evals limiter, the HTTP store client): reading a server's "come back later"
 * hint, and exponential backoff with jitter when there is none.
 *
 * The hint is `Retry-After` (RFC 9110: delay-seconds or an HTTP-date; fractions
 * are read too, as a lenient recipient); OpenAI also sends the finer
 * `retry-after-ms`, which wins when both are present. What a caller does with a
 * long hint is its own policy (a run waits; the store client gives up).
 */

/** Longest hint read at face value; larger values are clamped so a bad header cannot park a run for days. */
export const RETRY_AFTER_CLAMP_MS = 24 * 60 * 60 * 1000;

const DELAY_SECONDS = /^\d+(?:\.\d+)?$/;

/**
 * Parses one `Retry-After` value into milliseconds from `now`.
 * Returns `undefined` for a value that is neither delay-seconds nor a date;
 * a date in the past gives 0.
 */
export function parseRetryAfterValue(value: string, now: number = Date.now()): number | undefined {
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (DELAY_SECONDS.test(trimmed)) return clamp(Math.ceil(Number(trimmed) * 1000));
  // Only accept text that looks like a date: Date.parse is lenient enough to read "1" or "-5" as years.
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return clamp(at - now);
}

/**
 * The retry delay a response asks for, in milliseconds, from its headers
 * (names matched case-insensitively), or `undefined` when it gives none.
 */
export function parseRetryAfter(
  headers: Record<string, string | undefined> | undefined,
  now: number = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  let seconds: string | undefined;
  let millis: string | undefined;
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    if (lower === 'retry-after-ms') millis = value;
    else if (lower === 'retry-after') seconds = value;
  }
  if (millis !== undefined && DELAY_SECONDS.test(millis.trim())) return clamp(Math.ceil(Number(millis.trim())));
  return seconds === undefined ? undefined : parseRetryAfterValue(seconds, now);
}

function clamp(ms: number): number {
  return Math.min(RETRY_AFTER_CLAMP_MS, Math.max(0, ms));
}

/** The growth of {@link backoffDelayMs}: the first delay and the ceiling, in ms. */
export interface BackoffPolicy {
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * Delay before retry number `retry` (1 for the first retry): exponential
 * growth from `baseDelayMs` capped at `maxDelayMs`, with "equal jitter" (half
 * fixed, half random) so concurrent clients do not retry in lockstep yet never
 * retry instantly.
 */
export function backoffDelayMs(retry: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.round(exp / 2 + (exp / 2) * random());
}
