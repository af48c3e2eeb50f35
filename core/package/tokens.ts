/**
 * The deterministic V1 ingestion token estimator (guide section 4: about 3.5
 * UTF-8 bytes per token) and a UTF-8 byte counter that does not allocate.
 *
 * Isomorphic: no `node:` imports.
 */
import type { TokenEstimatorInfo } from './types';

/** Name and version of the estimator every metric is computed with. */
export const TOKEN_ESTIMATOR: TokenEstimatorInfo = Object.freeze({ name: 'truvag3-canonical', version: 'v1' });

const encoder = new TextEncoder();
// One scratch buffer reused across calls: `encodeInto` is native and fast, and
// counting through it avoids allocating a copy of every long string.
let scratch = new Uint8Array(0);

/**
 * Number of bytes `text` takes in UTF-8. Lone surrogates count as the three
 * bytes of U+FFFD, which is what `TextEncoder` writes for them.
 */
export function utf8Bytes(text: string): number {
  const length = text.length;
  if (length < 48) {
    // Short strings: a loop is cheaper than the native call.
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
  const needed = length * 3;
  if (scratch.length < needed) scratch = new Uint8Array(Math.max(needed, scratch.length * 2));
  return encoder.encodeInto(text, scratch).written;
}

/**
 * Estimated tokens of a text or of a UTF-8 byte count: `ceil(bytes / 3.5)`,
 * computed in integers so no float rounding can shift a limit by one.
 */
export function estimateTokens(input: string | number): number {
  const bytes = typeof input === 'number' ? input : utf8Bytes(input);
  if (!Number.isFinite(bytes) || bytes <= 0) return 0;
  return Math.floor((2 * Math.ceil(bytes) + 6) / 7);
}
