/**
 * Reading a server's "come back later" hint. Providers send it as `Retry-After`
 * (RFC 9110: delay-seconds or an HTTP-date); OpenAI also sends the finer
 * `retry-after-ms`, which wins when both are present.
 */

/** Longest hint we accept at face value; larger values are clamped so a bad header cannot park a run for days. */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

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
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}
