/**
 * Authority bypass: find a lead, then match the full pattern there. The
 * reference searches the whole text; the sweep's path searches only the
 * clauses around the anchors it found.
 *
 * Isomorphic: no `node:` imports.
 */
import { AUTHORITY_PATTERNS, CONDITIONAL_CUES, NEGATION_CUES, REPORTING_CUES, type AuthorityGuard } from '../rules';
import type { TextHit } from './types';

const LEADS = AUTHORITY_PATTERNS.map((p) => `(${p.lead})`).join('|');
// One character before a lead: a space, line break or tab, or emphasis and a parenthesis
// ("**Ignore", "(bypass"). irregexp jumps between those characters and tries the leads only there.
const LEAD_AFTER_MARK = new RegExp(`[ \\n\\t*_(](?:${LEADS})`, 'gi');
const LEAD_AT_START = new RegExp(`[\\t >*#_"'\`(-]*(?:${LEADS})`, 'iy');
const FULL = AUTHORITY_PATTERNS.map((p) => new RegExp(p.source, 'iy'));
const CLAUSE_END = /[.!?;:\n][^.!?;:\n]*$/;

function excused(text: string, at: number, guard: AuthorityGuard): boolean {
  const before = text.slice(Math.max(0, at - 160), at);
  const end = CLAUSE_END.exec(before);
  const clause = end === null ? before : end[0].slice(1);
  if (REPORTING_CUES.test(clause)) return true;
  if (guard === 'reporting') return false;
  if (NEGATION_CUES.test(clause)) return true;
  return guard === 'conditional' && CONDITIONAL_CUES.test(clause);
}

/** Checks the lead `m` found in `text` at `offset + m.index` (regions are scanned as slices). */
function authorityAt(text: string, m: RegExpExecArray, offset: number, hits: TextHit[]): void {
  const which = m.findIndex((group, i) => i > 0 && group !== undefined) - 1;
  const lead = m[which + 1];
  const pattern = AUTHORITY_PATTERNS[which];
  const full = FULL[which];
  if (pattern === undefined || full === undefined || lead === undefined) return;
  const at = offset + m.index + m[0].length - lead.length;
  // A quoted phrase is being mentioned, not given as an instruction.
  if (/["'`]/.test(m[0].slice(0, m[0].length - lead.length))) return;
  full.lastIndex = at;
  const phrase = full.exec(text);
  if (phrase === null || excused(text, at, pattern.guard)) return;
  hits.push({ code: 'authority_bypass', index: at, length: phrase[0].length, args: [pattern.label, phrase[0].replace(/\s+/g, ' ')] });
}

export function scanAuthority(text: string, hits: TextHit[]): void {
  LEAD_AT_START.lastIndex = 0;
  const first = LEAD_AT_START.exec(text);
  if (first !== null) authorityAt(text, first, 0, hits);
  LEAD_AFTER_MARK.lastIndex = 0;
  for (let m = LEAD_AFTER_MARK.exec(text); m !== null; m = LEAD_AFTER_MARK.exec(text)) authorityAt(text, m, 0, hits);
}

/** Whitespace as the regex `\s` sees it. */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * Characters a lead match can contain: its mark (space, tab, line break, `*`,
 * `_`, `(`), ASCII letters (case-insensitive matching never maps other letters
 * to ASCII), the apostrophe of "don't", and whitespace. Any other character
 * ends every lead match, so the global lead search finds the same matches
 * after it whether it started there or at the beginning of the text.
 */
function inLead(c: number): boolean {
  return ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a) || c === 0x27 || c === 0x2a || c === 0x5f || c === 0x28 || isSpace(c);
}

const LEAD_IN_REGION = new RegExp(LEAD_AFTER_MARK.source, 'gi');

/**
 * `scanAuthority`, run only in the clauses around `anchors` (sorted UTF-16
 * indices). Every reportable phrase contains an anchor, and nothing but lead
 * characters lies between an anchor and the mark of its lead, so the clause
 * (the run of lead characters around the anchor) holds that lead. The clause
 * is bounded by characters no lead match contains, so the global search finds
 * the same leads inside it as over the whole text, in the same order.
 */
export function scanAuthorityNear(text: string, anchors: number[], hits: TextHit[]): void {
  LEAD_AT_START.lastIndex = 0;
  const first = LEAD_AT_START.exec(text);
  if (first !== null) authorityAt(text, first, 0, hits);
  if (anchors.length > 1) anchors.sort((a, b) => a - b);
  const n = text.length;
  let done = 0;
  for (const at of anchors) {
    if (at < done) continue;
    let start = at;
    while (start > done && inLead(text.charCodeAt(start - 1))) start--;
    let end = at;
    while (end < n && inLead(text.charCodeAt(end))) end++;
    const clause = text.slice(start, end);
    LEAD_IN_REGION.lastIndex = 0;
    for (let m = LEAD_IN_REGION.exec(clause); m !== null; m = LEAD_IN_REGION.exec(clause)) authorityAt(text, m, start, hits);
    done = end;
  }
}
