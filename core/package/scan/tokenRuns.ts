/**
 * Token runs: credentials, base64 blobs, encoded executables. The reference
 * search walks the whole string; the sweep's search (`sweptRuns.ts`) hands
 * the same runs to `classifyRun`.
 *
 * Isomorphic: no `node:` imports.
 */
import { CREDENTIAL_PATTERNS, EXECUTABLE_MAGIC, MAX_BASE64_CHARS, PLACEHOLDER_VALUE } from '../rules';
import type { TextHit } from './types';

/** Characters of token-shaped secrets and base64: [A-Za-z0-9_\-+/=.] */
const TOKEN_CHAR = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.') TOKEN_CHAR[c.charCodeAt(0)] = 1;

/**
 * Runs shorter than this are never looked at: every token-shaped credential
 * but the 20-character AWS key ID is at least this long, and that one has its
 * own literal search (`AWS_KEY_ID`), which irregexp runs as a skip search.
 */
export const RUN_MIN = 32;
export const AWS_KEY_ID = /(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}(?![0-9A-Za-z])/g;

const CREDENTIAL_RUN = new RegExp(`(?<![A-Za-z0-9])(?:${CREDENTIAL_PATTERNS.map((p) => `(${p.source})`).join('|')})`, 'g');
const MAGIC_RUN = new RegExp(
  `(?<![A-Za-z0-9+/])(?:${EXECUTABLE_MAGIC.map((m) => `(${m.prefix.replace(/[/+]/g, '\\$&')})`).join('|')})[A-Za-z0-9+/]{12,}`,
  'g',
);
const BEARER_BEFORE = /(?:\bbearer|\bauthorization:\s*basic)\s+$/i;
const BASE64_LINE = /(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{40,}/;
const BASE64_BLOCK = /[A-Za-z0-9+/]{40,}={0,2}(?:\r?\n[A-Za-z0-9+/]{4,}={0,2})*/y;

/** Where the last base64 block measured ends, for one string: its lines are not measured again. */
export interface RunState {
  blockEnd: number;
}

export function isToken(c: number): boolean {
  return c < 128 && TOKEN_CHAR[c] === 1;
}

export const AWS_LABEL = CREDENTIAL_PATTERNS.find((p) => p.kind === 'aws_access_key')?.label ?? 'an AWS access key ID';

export function isAlnum(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

export function scanAwsKeys(text: string, hits: TextHit[]): void {
  AWS_KEY_ID.lastIndex = 0;
  for (let m = AWS_KEY_ID.exec(text); m !== null; m = AWS_KEY_ID.exec(text)) {
    // AWS documents AKIAIOSFODNN7EXAMPLE as its sample key ID.
    if (!isAlnum(text.charCodeAt(m.index - 1)) && !m[0].endsWith('EXAMPLE')) {
      hits.push({ code: 'credential_detected', index: m.index, length: m[0].length, args: [AWS_LABEL] });
    }
  }
}

export function scanTokenRuns(text: string, hits: TextHit[]): void {
  const n = text.length;
  const state: RunState = { blockEnd: -1 };
  let window = 0;
  while (window + RUN_MIN <= n) {
    // Is [window, window + RUN_MIN) all token characters? Check from the end: a
    // breaker at j means no run of RUN_MIN can contain j, so restart after it.
    let j = window + RUN_MIN - 1;
    while (j >= window && isToken(text.charCodeAt(j))) j--;
    if (j >= window) {
      window = j + 1;
      continue;
    }
    let start = window;
    while (start > 0 && isToken(text.charCodeAt(start - 1))) start--;
    let end = window + RUN_MIN;
    while (end < n && isToken(text.charCodeAt(end))) end++;
    window = classifyRun(text, start, end, hits, state);
  }
}

/** Classifies one long token run; returns where scanning resumes (after the run, or after a base64 blob). */
export function classifyRun(text: string, start: number, end: number, hits: TextHit[], state: RunState): number {
  const run = text.slice(start, end);
  let found = false;
  CREDENTIAL_RUN.lastIndex = 0;
  for (let m = CREDENTIAL_RUN.exec(run); m !== null; m = CREDENTIAL_RUN.exec(run)) {
    const which = m.findIndex((group, i) => i > 0 && group !== undefined) - 1;
    const pattern = CREDENTIAL_PATTERNS[which];
    if (pattern && (pattern.verify === undefined || pattern.verify(m[0]))) {
      hits.push({ code: 'credential_detected', index: start + m.index, length: m[0].length, args: [pattern.label] });
      found = true;
    }
  }
  if (!found && /[0-9]/.test(run) && /[A-Za-z]/.test(run) && BEARER_BEFORE.test(text.slice(Math.max(0, start - 40), start))) {
    const token = run.replace(/[.=]+$/, '');
    if (!PLACEHOLDER_VALUE.test(token)) {
      hits.push({ code: 'credential_detected', index: start, length: end - start, args: ['a bearer or basic authorization token'] });
    }
  }
  MAGIC_RUN.lastIndex = 0;
  const magic = MAGIC_RUN.exec(run);
  if (magic !== null) {
    const which = magic.findIndex((group, i) => i > 0 && group !== undefined) - 1;
    hits.push({ code: 'binary_payload', index: start + magic.index, length: magic[0].length, args: [EXECUTABLE_MAGIC[which]?.label ?? 'an encoded executable'] });
    return end + 1;
  }
  // A base64 blob: one long line, or lines wrapped at a fixed width. Lines of a
  // block already measured are not measured again (that would be quadratic).
  const line = start < state.blockEnd ? null : BASE64_LINE.exec(run);
  if (line !== null) {
    BASE64_BLOCK.lastIndex = start + line.index;
    const block = BASE64_BLOCK.exec(text);
    if (block !== null) {
      const body = block[0];
      state.blockEnd = block.index + body.length;
      const chars = body.replace(/\r?\n|=/g, '').length;
      const lines = body.split('\n').length;
      if (chars >= MAX_BASE64_CHARS && chars / lines >= 40 && /[0-9]/.test(body) && /[A-Z]/.test(body) && /[a-z]/.test(body)) {
        const bytes = Math.floor((chars * 3) / 4);
        hits.push({ code: 'binary_payload', index: block.index, length: body.length, args: [`base64 data of about ${bytes} bytes`] });
        return Math.max(end + 1, block.index + body.length);
      }
    }
  }
  return end + 1;
}
