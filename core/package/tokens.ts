/**
 * The deterministic V1 ingestion token estimator (guide section 4: about 3.5
 * UTF-8 bytes per token) and UTF-8 byte counting.
 *
 * Isomorphic: no `node:` imports.
 */
import type { TokenEstimatorInfo } from './types';

/** Name and version of the estimator every metric is computed with. */
export const TOKEN_ESTIMATOR: TokenEstimatorInfo = Object.freeze({ name: 'truvag3-canonical', version: 'v1' });

/** Encoders keep no state between calls: one serves every counter. */
const encoder = new TextEncoder();

/** Below this length a loop in JavaScript is cheaper than the native encoder. */
const NATIVE_MIN = 48;

/** UTF-8 length of `text` counted a UTF-16 unit at a time; lone surrogates count 3 bytes. */
function countUnits(text: string): number {
  const length = text.length;
  let bytes = 0;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Counts UTF-8 bytes of long strings through the native encoder, into a
 * scratch buffer it owns and reuses, so counting does not allocate a copy of
 * every string. Whoever counts many long strings (a validation, a render of
 * the meters) makes one and passes it to {@link utf8Bytes}; a counter is never
 * shared between callers, so nothing is kept between unrelated counts.
 */
export class Utf8Counter {
  private scratch = new Uint8Array(0);

  /** Number of bytes `text` takes in UTF-8 (lone surrogates count as U+FFFD, 3 bytes). */
  count(text: string): number {
    if (text.length < NATIVE_MIN) return countUnits(text);
    const needed = text.length * 3;
    if (this.scratch.length < needed) this.scratch = new Uint8Array(Math.max(needed, this.scratch.length * 2));
    return encoder.encodeInto(text, this.scratch).written;
  }
}

/**
 * Number of bytes `text` takes in UTF-8. Lone surrogates count as the three
 * bytes of U+FFFD, which is what `TextEncoder` writes for them. With a
 * `counter`, long strings go through the native encoder; without one, the
 * count is a loop in JavaScript that allocates nothing.
 */
export function utf8Bytes(text: string, counter?: Utf8Counter): number {
  return counter === undefined ? countUnits(text) : counter.count(text);
}

/**
 * Estimated tokens of a text or of a UTF-8 byte count: `ceil(bytes / 3.5)`,
 * computed in integers so no float rounding can shift a limit by one.
 */
export function estimateTokens(input: string | number, counter?: Utf8Counter): number {
  const bytes = typeof input === 'number' ? input : utf8Bytes(input, counter);
  if (!Number.isFinite(bytes) || bytes <= 0) return 0;
  return Math.floor((2 * Math.ceil(bytes) + 6) / 7);
}
