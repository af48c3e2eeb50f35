/**
 * Token runs found by the sweep: the same checks as `scanAwsKeys` and
 * `scanTokenRuns` (`tokenRuns.ts`), run only where the sweep saw something.
 *
 * Isomorphic: no `node:` imports.
 */
import { AWS_KEY_ID, AWS_LABEL, classifyRun, isAlnum, isToken, RUN_MIN, type RunState } from './tokenRuns';
import type { TextHit } from './types';

/** The characters [+-z]: every token character, and a range four bytes can be tested against at once. */
export function isTokenish(c: number): boolean {
  return c >= 0x2b && c <= 0x7a;
}

const AWS_KEY_AT = new RegExp(AWS_KEY_ID.source, 'y');

/**
 * `scanAwsKeys`, trying the pattern only where an uppercase A is followed by
 * the second letter of a key prefix. Matches of the global search cannot
 * overlap (each ends before a character that cannot be in another), so trying
 * every such position finds the same ones.
 */
export function scanAwsKeysFast(text: string, hits: TextHit[]): void {
  const last = text.length - 20;
  for (let at = text.indexOf('A'); at !== -1 && at <= last; at = text.indexOf('A', at + 1)) {
    const next = text.charCodeAt(at + 1);
    if (next !== 0x4b && next !== 0x53 && next !== 0x47 && next !== 0x49 && next !== 0x52 && next !== 0x4e) continue;
    AWS_KEY_AT.lastIndex = at;
    const m = AWS_KEY_AT.exec(text);
    if (m !== null && !isAlnum(text.charCodeAt(at - 1)) && !m[0].endsWith('EXAMPLE')) {
      hits.push({ code: 'credential_detected', index: at, length: m[0].length, args: [AWS_LABEL] });
    }
  }
}

/**
 * Maximal runs of at least `RUN_MIN` token characters, as start and end
 * pairs of UTF-16 indices in order, in the stretches of token-like characters
 * around the sweep's stretch points. Stretches are ASCII, so they are walked
 * over the UTF-8 bytes the sweep left in `bytes` (its first `written`), where
 * each byte is one character.
 */
export function tokenRunsNear(bytes: Uint8Array, points: number[], offsets: number[], written: number, runs: number[]): void {
  runs.length = 0;
  let done = 0;
  for (let p = 0; p < points.length; p++) {
    const at = offsets[p]!;
    if (at < done) continue;
    // UTF-16 index of byte offset k inside the stretch.
    const shift = points[p]! - at;
    let start = at;
    while (start > 0 && isTokenish(bytes[start - 1]!)) start--;
    let end = at;
    while (end < written && isTokenish(bytes[end]!)) end++;
    for (let k = start; k < end; ) {
      if (!isToken(bytes[k]!)) {
        k++;
        continue;
      }
      let stop = k + 1;
      while (stop < end && isToken(bytes[stop]!)) stop++;
      if (stop - k >= RUN_MIN) runs.push(k + shift, stop + shift);
      k = stop;
    }
    done = end;
  }
}

/**
 * `scanTokenRuns` given the maximal runs: its window loop classifies, in
 * order, each run that still has `RUN_MIN` characters at or after where the
 * previous classification resumed.
 */
export function scanTokenRunsIn(text: string, runs: number[], hits: TextHit[]): void {
  const state: RunState = { blockEnd: -1 };
  let window = 0;
  for (let r = 0; r < runs.length; r += 2) {
    const start = runs[r]!;
    const end = runs[r + 1]!;
    if (Math.max(start, window) + RUN_MIN <= end) window = classifyRun(text, start, end, hits, state);
  }
}
