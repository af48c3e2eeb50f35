/**
 * Scanning of package text for forbidden characters, credentials, binary and
 * executable payloads, authority-bypass instructions and reserved framework
 * tags, using the tables of `rules.ts`. Counting UTF-8 bytes rides along, so
 * each string is measured once.
 *
 * Two paths give the same hits for every text. `scanTextPrecise`, the
 * reference, runs every check over the whole string: regexes that start with
 * something rare in prose, `indexOf` for single characters, and a window that
 * jumps over prose a word at a time to find long runs of token characters.
 *
 * `scanText` is the one the validator uses. A package can hold 1 MiB of text
 * and the editor validates on every keystroke, and regex passes over prose
 * cost about as much as `JSON.parse` each, so it first encodes the string to
 * UTF-8 and makes one pass over the bytes, a 32-bit word at a time (`sweep`),
 * then runs the precise checks only where that pass saw something:
 * - the whole-string character check, when a control, C1, bidi or
 *   replacement character shows in the bytes;
 * - the token-run checks (credentials, base64), inside the stretches of
 *   token-like characters that cover a whole aligned group of 16 bytes;
 * - the authority patterns, inside the clause around each anchor
 *   (`AuthorityPattern.anchors`) or whitespace beyond ASCII.
 * AWS key IDs and PEM blocks are found from their rare uppercase letters; the
 * cheap `indexOf`-driven checks run as in the reference.
 *
 * Isomorphic: no `node:` imports.
 */
import {
  AUTHORITY_PATTERNS,
  CONDITIONAL_CUES,
  CREDENTIAL_PATTERNS,
  EXECUTABLE_MAGIC,
  MAX_BASE64_CHARS,
  MAX_HITS_PER_STRING,
  NEGATION_CUES,
  PLACEHOLDER_VALUE,
  PRIVATE_KEY_PATTERN,
  REPORTING_CUES,
  RESERVED_TAGS,
  SECRET_NAMES,
  type AuthorityGuard,
  type AuthorityPattern,
} from './rules';
import { utf8Bytes } from './tokens';

/** One match inside a string: where it is (UTF-16 indices) and what it is. */
export interface TextHit {
  code:
    | 'control_character'
    | 'bidi_control'
    | 'lone_surrogate'
    | 'credential_detected'
    | 'binary_payload'
    | 'executable_content'
    | 'authority_bypass'
    | 'reserved_tag';
  index: number;
  length: number;
  /** Message arguments for the code's rule (never secret text). */
  args: string[];
}

/** What to look for in one string. */
export interface ScanScope {
  /** Text the runtime projects into prompts: also checked for authority bypass and reserved tags. */
  projected: boolean;
}

/** Result of {@link scanText}. */
export interface TextScan {
  hits: TextHit[];
  /** UTF-8 byte length of the text (lone surrogates count as U+FFFD, 3 bytes). */
  bytes: number;
}

const codePointName = (c: number): string => `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;

// ---------------------------------------------------------------------------
// Characters and UTF-8 length.

// Runs of anything but tab, LF, CR and printable ASCII: controls, DEL and all non-ASCII.
const NOT_PLAIN = /[^\t\n\r\x20-\x7E]+/g;
// C0 except tab, LF and CR (CR is a line ending that normalization turns into LF),
// DEL, C1, the bidi embeddings/overrides/isolates, and surrogates (checked for pairing).
// eslint-disable-next-line no-control-regex -- finding control characters is the point of this class
const FORBIDDEN_CHARS = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F\u202A-\u202E\u2066-\u2069\uD800-\uDFFF]/g;

function charHit(text: string, at: number, hits: TextHit[]): number {
  const c = text.charCodeAt(at);
  if (c >= 0xd800 && c <= 0xdfff) {
    const next = text.charCodeAt(at + 1);
    if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) return 2;
    hits.push({ code: 'lone_surrogate', index: at, length: 1, args: [codePointName(c)] });
  } else if (c === 0) {
    hits.push({ code: 'binary_payload', index: at, length: 1, args: ['NUL character (U+0000)'] });
  } else if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) {
    hits.push({ code: 'bidi_control', index: at, length: 1, args: [codePointName(c)] });
  } else if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
    hits.push({ code: 'control_character', index: at, length: 1, args: [codePointName(c)] });
  }
  return 1;
}

/**
 * Reports forbidden characters and returns the UTF-8 length. Mostly-ASCII
 * text (the common case) is measured from the runs the regex stops at; text
 * dense in non-ASCII switches to the native encoder and a plain class scan,
 * so neither kind of text pays per character in JavaScript.
 */
function measureCharacters(text: string, hits: TextHit[]): number {
  const ceiling = hits.length + 4 * MAX_HITS_PER_STRING;
  let extra = 0;
  // Past about one non-ASCII run per kilobyte, the native encoder plus a class
  // scan (two cheap passes) beats stopping at every run, so switch early.
  let stops = (text.length >> 10) + 32;
  NOT_PLAIN.lastIndex = 0;
  for (let m = NOT_PLAIN.exec(text); m !== null; m = NOT_PLAIN.exec(text)) {
    const end = m.index + m[0].length;
    for (let i = m.index; i < end; ) {
      const c = text.charCodeAt(i);
      if (c >= 0x800) extra += 2;
      else if (c >= 0x80) extra += 1;
      const forbidden = c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || (c >= 0xd800 && c <= 0xdfff);
      // A surrogate pair is two units and four bytes: +2 for the pair, counted on its first unit.
      i += forbidden && hits.length < ceiling ? charHit(text, i, hits) : c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
    }
    if (--stops === 0) {
      FORBIDDEN_CHARS.lastIndex = end;
      for (let f = FORBIDDEN_CHARS.exec(text); f !== null && hits.length < ceiling; f = FORBIDDEN_CHARS.exec(text)) {
        FORBIDDEN_CHARS.lastIndex = f.index + charHit(text, f.index, hits);
      }
      return utf8Bytes(text);
    }
  }
  return text.length + extra;
}

// ---------------------------------------------------------------------------
// Token runs: credentials, base64 blobs, encoded executables.

/** Characters of token-shaped secrets and base64: [A-Za-z0-9_\-+/=.] */
const TOKEN_CHAR = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.') TOKEN_CHAR[c.charCodeAt(0)] = 1;

/**
 * Runs shorter than this are never looked at: every token-shaped credential
 * but the 20-character AWS key ID is at least this long, and that one has its
 * own literal search (`AWS_KEY_ID`), which irregexp runs as a skip search.
 */
const RUN_MIN = 32;
const AWS_KEY_ID = /(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}(?![0-9A-Za-z])/g;

const CREDENTIAL_RUN = new RegExp(`(?<![A-Za-z0-9])(?:${CREDENTIAL_PATTERNS.map((p) => `(${p.source})`).join('|')})`, 'g');
const MAGIC_RUN = new RegExp(
  `(?<![A-Za-z0-9+/])(?:${EXECUTABLE_MAGIC.map((m) => `(${m.prefix.replace(/[/+]/g, '\\$&')})`).join('|')})[A-Za-z0-9+/]{12,}`,
  'g',
);
const BEARER_BEFORE = /(?:\bbearer|\bauthorization:\s*basic)\s+$/i;
const BASE64_LINE = /(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{40,}/;
const BASE64_BLOCK = /[A-Za-z0-9+/]{40,}={0,2}(?:\r?\n[A-Za-z0-9+/]{4,}={0,2})*/y;

function isToken(c: number): boolean {
  return c < 128 && TOKEN_CHAR[c] === 1;
}

const AWS_LABEL = CREDENTIAL_PATTERNS.find((p) => p.kind === 'aws_access_key')?.label ?? 'an AWS access key ID';

function isAlnum(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function scanAwsKeys(text: string, hits: TextHit[]): void {
  AWS_KEY_ID.lastIndex = 0;
  for (let m = AWS_KEY_ID.exec(text); m !== null; m = AWS_KEY_ID.exec(text)) {
    // AWS documents AKIAIOSFODNN7EXAMPLE as its sample key ID.
    if (!isAlnum(text.charCodeAt(m.index - 1)) && !m[0].endsWith('EXAMPLE')) {
      hits.push({ code: 'credential_detected', index: m.index, length: m[0].length, args: [AWS_LABEL] });
    }
  }
}

function scanTokenRuns(text: string, hits: TextHit[]): void {
  const n = text.length;
  const state = { blockEnd: -1 };
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
function classifyRun(text: string, start: number, end: number, hits: TextHit[], state: { blockEnd: number }): number {
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

// ---------------------------------------------------------------------------
// Anchored patterns: assignments, URLs, tags, shebangs, PEM blocks.

// Checked at one ':' or '=' (sticky): a secret name or URL scheme ends right before it.
const ASSIGNMENT_NAME = new RegExp(
  `(?<=(?:(?<![A-Za-z0-9])(?:[A-Za-z0-9]+[_.-])*(?:${SECRET_NAMES})|(?<![\\w-])(?:javascript|vbscript|data))["'\\]]?[ \\t]*)[:=]`,
  'iy',
);
const NAME_BEFORE = new RegExp(`(?:(?<![A-Za-z0-9])(?:[A-Za-z0-9]+[_.-])*(?:${SECRET_NAMES})|(?<![\\w-])(?:javascript|vbscript|data))["'\\]]?[ \\t]*$`, 'i');
const ASSIGNED_VALUE = /[ \t]*(?:(["'`])([^"'`\n]{1,200})\1|([^\s"'`,;)}\]]{1,200}))/y;
const DATA_URI_TYPE = /[ \t]*([a-z]+)\/([\w.+-]+)(?:;[\w.+-]+(?:=[\w.+-]+)?)*[;,]/iy;
const URL_SCHEME_TARGET = /[^\s"'`)]/y;

/** Last letters of the names in SECRET_NAMES and of the schemes: a cheap first filter. */
const NAME_END = new Uint8Array(128);
for (const c of 'dDeEtTyYnNaA') NAME_END[c.charCodeAt(0)] = 1;
/** Their last two letters (lowercase, as `first << 8 | second`): a second cheap filter before the look-behind regex. */
const NAME_END_PAIRS = new Set([...SECRET_NAMES.split('|'), 'javascript', 'vbscript', 'data'].map((name) => (name.charCodeAt(name.length - 2) << 8) | name.charCodeAt(name.length - 1)));

function looksLikeSecret(value: string, quoted: boolean): boolean {
  const v = value.replace(/[.,;:]+$/, '');
  if (v.length < 6 || PLACEHOLDER_VALUE.test(v)) return false;
  if (quoted) return !/\s/.test(v);
  if (/^(?:\.{0,2}\/|[a-z][a-z0-9+.-]*:\/\/)/i.test(v)) return false;
  return v.length >= 8 && /[0-9]/.test(v) && /[A-Za-z]/.test(v);
}

function checkAssignment(text: string, at: number, hits: TextHit[]): void {
  // Skip back over spaces and one closing quote or bracket to the last letter of the name.
  let j = at - 1;
  while (j >= 0 && (text.charCodeAt(j) === 0x20 || text.charCodeAt(j) === 0x09)) j--;
  const q = text.charCodeAt(j);
  if (q === 0x22 || q === 0x27 || q === 0x5d) j--;
  const last = text.charCodeAt(j);
  if (!(last < 128 && NAME_END[last] === 1) || !NAME_END_PAIRS.has(((text.charCodeAt(j - 1) | 0x20) << 8) | (last | 0x20))) return;
  ASSIGNMENT_NAME.lastIndex = at;
  if (!ASSIGNMENT_NAME.test(text)) return;
  const name = NAME_BEFORE.exec(text.slice(Math.max(0, at - 80), at));
  if (name === null) return;
  const nameStart = at - name[0].length;
  const keyword = name[0].replace(/["'\]\s]+$/, '').toLowerCase();
  if (keyword.endsWith('javascript') || keyword.endsWith('vbscript')) {
    URL_SCHEME_TARGET.lastIndex = at + 1;
    if (text[at] === ':' && URL_SCHEME_TARGET.test(text)) {
      hits.push({ code: 'executable_content', index: nameStart, length: at + 1 - nameStart, args: [`a ${keyword}: URL`] });
    }
    return;
  }
  if (keyword === 'data') {
    DATA_URI_TYPE.lastIndex = at + 1;
    const type = text[at] === ':' ? DATA_URI_TYPE.exec(text) : null;
    if (type !== null && type[1]!.toLowerCase() !== 'text') {
      hits.push({ code: 'executable_content', index: nameStart, length: DATA_URI_TYPE.lastIndex - nameStart, args: [`a data: URI of type ${type[1]!.toLowerCase()}/${type[2]!.toLowerCase()}`] });
    }
    return;
  }
  ASSIGNED_VALUE.lastIndex = at + 1;
  const value = ASSIGNED_VALUE.exec(text);
  if (value === null) return;
  const valueEnd = ASSIGNED_VALUE.lastIndex;
  // A token already recognised inside the value (an API key, say) names the kind better.
  if (hits.some((h) => h.code === 'credential_detected' && h.index < valueEnd && h.index + h.length > at)) return;
  if (looksLikeSecret(value[2] ?? value[3] ?? '', value[2] !== undefined)) {
    hits.push({ code: 'credential_detected', index: nameStart, length: valueEnd - nameStart, args: ['a password or secret assigned a literal value'] });
  }
}

function scanAssignments(text: string, hits: TextHit[]): void {
  for (let at = text.indexOf(':'); at !== -1; at = text.indexOf(':', at + 1)) checkAssignment(text, at, hits);
  for (let at = text.indexOf('='); at !== -1; at = text.indexOf('=', at + 1)) checkAssignment(text, at, hits);
  PRIVATE_KEY_PATTERN.lastIndex = 0;
  for (let m = PRIVATE_KEY_PATTERN.exec(text); m !== null; m = PRIVATE_KEY_PATTERN.exec(text)) {
    hits.push({ code: 'credential_detected', index: m.index, length: m[0].length, args: ['a PEM private key block'] });
  }
}

const PRIVATE_KEY_AT = new RegExp(PRIVATE_KEY_PATTERN.source, 'y');

/**
 * `scanAssignments`, with the PEM blocks found from the rare uppercase
 * "BEGIN " rather than by a pass of the pattern over the whole text. Trying
 * each occurrence in order, from where the previous block ended, finds what
 * the global search finds.
 */
function scanAssignmentsFast(text: string, hits: TextHit[]): void {
  for (let at = text.indexOf(':'); at !== -1; at = text.indexOf(':', at + 1)) checkAssignment(text, at, hits);
  for (let at = text.indexOf('='); at !== -1; at = text.indexOf('=', at + 1)) checkAssignment(text, at, hits);
  let resume = 0;
  for (let at = text.indexOf('BEGIN '); at !== -1; at = text.indexOf('BEGIN ', at + 1)) {
    const start = at - 5;
    if (start < resume || !text.startsWith('-----', start)) continue;
    PRIVATE_KEY_AT.lastIndex = start;
    const m = PRIVATE_KEY_AT.exec(text);
    if (m === null) continue;
    hits.push({ code: 'credential_detected', index: start, length: m[0].length, args: ['a PEM private key block'] });
    resume = start + m[0].length;
  }
}

const RESERVED_TAG = new RegExp(`<\\/?\\s*(?:${RESERVED_TAGS.join('|')})(?![\\w-])\\s*\\/?>?`, 'iy');
const SCRIPT_TAG = /<\s*script\b/iy;
const SHEBANG = /#![ \t]*\/[\w./-]+/y;

function scanMarkup(text: string, projected: boolean, hits: TextHit[]): void {
  for (let at = text.indexOf('<'); at !== -1; at = text.indexOf('<', at + 1)) {
    SCRIPT_TAG.lastIndex = at;
    if (SCRIPT_TAG.test(text)) {
      hits.push({ code: 'executable_content', index: at, length: SCRIPT_TAG.lastIndex - at, args: ['a <script> tag'] });
      continue;
    }
    if (!projected) continue;
    RESERVED_TAG.lastIndex = at;
    const tag = RESERVED_TAG.exec(text);
    if (tag !== null) hits.push({ code: 'reserved_tag', index: at, length: tag[0].length, args: [tag[0]] });
  }
  for (let at = text.indexOf('#!'); at !== -1; at = text.indexOf('#!', at + 2)) {
    // Only at the start of a line (after optional indentation).
    let lineStart = at;
    while (lineStart > 0 && (text[lineStart - 1] === ' ' || text[lineStart - 1] === '\t')) lineStart--;
    if (lineStart > 0 && text[lineStart - 1] !== '\n' && text[lineStart - 1] !== '\r') continue;
    SHEBANG.lastIndex = at;
    if (SHEBANG.test(text)) hits.push({ code: 'executable_content', index: at, length: SHEBANG.lastIndex - at, args: ['a shebang line'] });
  }
}

// ---------------------------------------------------------------------------
// Authority bypass: find a lead, then match the full pattern there.

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

function scanAuthority(text: string, hits: TextHit[]): void {
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
function scanAuthorityNear(text: string, anchors: number[], hits: TextHit[]): void {
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

// ---------------------------------------------------------------------------
// Token runs found by the sweep: the same checks as `scanAwsKeys` and `scanTokenRuns`.

/** The characters [+-z]: every token character, and a range four bytes can be tested against at once. */
function isTokenish(c: number): boolean {
  return c >= 0x2b && c <= 0x7a;
}

const AWS_KEY_AT = new RegExp(AWS_KEY_ID.source, 'y');

/**
 * `scanAwsKeys`, trying the pattern only where an uppercase A is followed by
 * the second letter of a key prefix. Matches of the global search cannot
 * overlap (each ends before a character that cannot be in another), so trying
 * every such position finds the same ones.
 */
function scanAwsKeysFast(text: string, hits: TextHit[]): void {
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
 * over the UTF-8 bytes the sweep left in the scratch buffer, where each byte
 * is one character.
 */
function tokenRunsNear(points: number[], offsets: number[], written: number, runs: number[]): void {
  runs.length = 0;
  const bytes = scratchBytes;
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
function scanTokenRunsIn(text: string, runs: number[], hits: TextHit[]): void {
  const state = { blockEnd: -1 };
  let window = 0;
  for (let r = 0; r < runs.length; r += 2) {
    const start = runs[r]!;
    const end = runs[r + 1]!;
    if (Math.max(start, window) + RUN_MIN <= end) window = classifyRun(text, start, end, hits, state);
  }
}

// ---------------------------------------------------------------------------
// The sweep: one pass over the UTF-8 bytes, one 32-bit word at a time.

/** Lead marks and whitespace as they appear in anchors (`{M}`, `{S}`); other whitespace is found separately. */
const MARK_CHARS = ' \t\n*_(';
const SPACE_CHARS = ' \t\n\u000b\f\r';

/** Four-byte spellings too frequent in English prose to look for when an anchor offers another. */
const COMMON_WORDS = new Set([' for', 'for ', 'with', 'ith ', ' wit', 'tric', 'able', 'have', 'ever', ' the', 'the ', 'and ', ' and', 'tion', 'ment', 'ing ', 'out ']);

/** Rough frequency of a (lowercased) byte in English text: only used to pick which four bytes of an anchor to look for. */
function frequency(byte: number): number {
  const rank = 'etaoinsrhdlcumwfgypbvkjxqz'.indexOf(String.fromCharCode(byte));
  if (byte === 0x20) return 0.17;
  if (rank !== -1) return 0.1 / (1 + rank * 0.35);
  return byte === 0x2a ? 0.02 : 0.005;
}

/** How often text would hold one of these four-byte spellings (a product of byte frequencies, with a penalty for common words). */
function windowScore(positions: number[][]): number {
  const spelled = positions.map((bytes) => String.fromCharCode(bytes.includes(0x20) ? 0x20 : bytes[0]!)).join('');
  const score = positions.reduce((p, bytes) => p * bytes.reduce((sum, b) => sum + frequency(b), 0), 1);
  return COMMON_WORDS.has(spelled) ? score * 100 : score;
}

/** One anchor: for each position, the bytes (ASCII, ORed with 0x20) it accepts, as 128-bit masks. */
interface Anchor {
  length: number;
  masks: Int32Array;
}

function parseAnchor(spec: string): number[][] {
  const positions: number[][] = [];
  for (let i = 0; i < spec.length; i++) {
    let choices: string[];
    if (spec[i] === '{') {
      const close = spec.indexOf('}', i);
      choices = spec.slice(i + 1, close).split('|');
      i = close;
    } else choices = [spec[i]!];
    const chars = choices.map((c) => (c === 'M' ? MARK_CHARS : c === 'S' ? SPACE_CHARS : c)).join('');
    positions.push([...new Set([...chars].map((c) => c.charCodeAt(0) | 0x20))]);
  }
  return positions;
}

/** Position of a word's four-byte spelling in the 131072-bit filter. */
function filterSlot(word: number): number {
  return Math.imul(word, 0x9e3779b1) >>> 15;
}

/** The words of the anchor table, each with its (anchor, offset) pairs at `candidates[first[slot]]`, `counts[slot]` numbers long. */
interface AnchorWords {
  keys: Int32Array;
  first: Int32Array;
  counts: Int32Array;
  candidates: Int32Array;
}

/**
 * The anchor tables: a 131072-bit filter (16 KiB) of the four-byte words to
 * look for, and for each such word the anchors and offsets it may be part of.
 * An anchor of seven or more bytes always contains a word that starts at a
 * multiple of four, at one of offsets 0 to 3 (modulo 4), so for each residue
 * the table holds the word at one offset with that residue: the least likely
 * one in English text, to keep false alarms rare.
 */
function buildAnchors(patterns: readonly AuthorityPattern[]): { anchors: Anchor[]; filter: Int32Array; table: AnchorWords } {
  const specs = [...new Set(patterns.flatMap((p) => p.anchors))];
  const anchors: Anchor[] = [];
  const filter = new Int32Array(4096);
  const words = new Map<number, number[]>();
  const word = new Uint8Array(4);
  const asInt = new Int32Array(word.buffer);
  for (const spec of specs) {
    const positions = parseAnchor(spec);
    if (positions.length < 7) throw new Error(`authority anchor '${spec}' is shorter than 7 characters`);
    const masks = new Int32Array(positions.length * 4);
    positions.forEach((bytes, q) => {
      for (const b of bytes) masks[q * 4 + (b >> 5)]! |= 1 << (b & 31);
    });
    const index = anchors.push({ length: positions.length, masks }) - 1;
    for (let residue = 0; residue < 4; residue++) {
      let best = residue;
      for (let j = residue + 4; j + 4 <= positions.length; j += 4) {
        if (windowScore(positions.slice(j, j + 4)) < windowScore(positions.slice(best, best + 4))) best = j;
      }
      const [a, b, c, d] = positions.slice(best, best + 4) as [number[], number[], number[], number[]];
      for (const w of a) for (const x of b) for (const y of c) for (const z of d) {
        word.set([w, x, y, z]);
        const key = asInt[0]!;
        const slot = filterSlot(key);
        filter[slot >>> 5]! |= 1 << (slot & 31);
        const list = words.get(key);
        if (list === undefined) words.set(key, [index, best]);
        else list.push(index, best);
      }
    }
  }
  // The words, in an open-addressing table (a Map would box most 32-bit keys).
  const size = 1 << (32 - Math.clz32(words.size * 4));
  const keys = new Int32Array(size);
  const first = new Int32Array(size).fill(-1);
  const counts = new Int32Array(size);
  const candidates: number[] = [];
  for (const [key, list] of words) {
    let slot = tableSlot(key, size);
    while (first[slot] !== -1) slot = (slot + 1) & (size - 1);
    keys[slot] = key;
    first[slot] = candidates.length;
    counts[slot] = list.length;
    candidates.push(...list);
  }
  return { anchors, filter, table: { keys, first, counts, candidates: Int32Array.from(candidates) } };
}

/** Home slot of a word in a table of `size` (a power of two) slots. */
function tableSlot(word: number, size: number): number {
  return (Math.imul(word, 0x85ebca6b) >>> 16) & (size - 1);
}

const ANCHORS = buildAnchors(AUTHORITY_PATTERNS);

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Byte offset, within its word, of the byte whose top bit is bit `bit` of the word as read from memory. */
function byteOfBit(bit: number): number {
  return LITTLE_ENDIAN ? bit >> 3 : 3 - (bit >> 3);
}

/**
 * What follows a lead byte 0xE2 and a second byte 0x80 or 0x81 (U+2000 to
 * U+207F, general punctuation), by the third byte: 1 for a bidi control, 2
 * for a space. Indexed by `(second & 1) << 6 | third & 0x3F`.
 */
const AFTER_E2 = new Uint8Array(128);
for (let c = 0x2000; c < 0x2080; c++) {
  const kind = (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) ? 1 : /\s/.test(String.fromCharCode(c)) ? 2 : 0;
  AFTER_E2[c & 0x7f] = kind;
}

/** `AFTER_E2` for the two bytes after a lead byte 0xE2 (0 outside U+2000 to U+207F). */
function afterE2(second: number, third: number): number {
  return (second & 0xfe) === 0x80 ? AFTER_E2[((second & 1) << 6) | (third & 0x3f)]! : 0;
}

/** What the sweep of one string found. */
interface Sweep {
  /** UTF-8 length. */
  bytes: number;
  /** A control, C1, bidi or replacement character (or a lone surrogate) is present: check characters precisely. */
  suspicious: boolean;
  /** UTF-16 indices of anchor occurrences and of whitespace other than ASCII (which anchors do not spell out). */
  anchors: number[];
  /** UTF-16 indices inside stretches of token-like characters that hold four aligned words in a row. */
  stretches: number[];
  /** The byte offsets of `stretches`. */
  stretchBytes: number[];
}

const encoder = new TextEncoder();
let scratch = new ArrayBuffer(4096);
let scratchBytes = new Uint8Array(scratch);
let scratchWords = new Int32Array(scratch);
const found: Sweep = { bytes: 0, suspicious: false, anchors: [], stretches: [], stretchBytes: [] };
const runsFound: number[] = [];

/**
 * Encodes `text` to UTF-8 and walks it a 32-bit word at a time, four words
 * per step. Per word, a few bit operations tell whether any byte is a control
 * or not ASCII and (through the filter) whether the word can be part of an
 * anchor; per group of four words, whether all 16 bytes are token-like (a run
 * of `RUN_MIN` token characters always covers such a group). Only the words
 * that trip one of these get a closer look (`look`). UTF-16 indices are
 * recovered from byte offsets by counting how many more bytes than UTF-16
 * units the words that are not ASCII take. Returns `undefined` for text
 * that is mostly beyond ASCII, which the precise checks handle faster.
 */
function sweep(text: string, projected: boolean): Sweep | undefined {
  // Text that is mostly beyond ASCII (CJK, say) would have a closer look at
  // nearly every word; the whole-string checks are faster there. A sample of
  // 32 characters decides before encoding, the exact surplus after.
  let wide = 0;
  for (let k = 0; k < 32; k++) if (text.charCodeAt(Math.floor(((k + 0.5) * text.length) / 32)) >= 0x80) wide++;
  if (wide > 16) return undefined;
  const capacity = (text.length * 3 + 31) & ~15;
  if (scratchBytes.length < capacity) {
    scratch = new ArrayBuffer(Math.max(capacity, scratchBytes.length * 2));
    scratchBytes = new Uint8Array(scratch);
    scratchWords = new Int32Array(scratch);
  }
  const bytes = scratchBytes;
  const words = scratchWords;
  const written = encoder.encodeInto(text, bytes).written;
  if ((written - text.length) * 2 > text.length) return undefined;
  const count = ((written + 15) >> 4) << 2;
  // Spaces after the end: they are not token-like and trip nothing.
  bytes.fill(0x20, written, count << 2);
  found.bytes = written;
  found.suspicious = false;
  found.anchors.length = 0;
  found.stretches.length = 0;
  found.stretchBytes.length = 0;
  const filter = ANCHORS.filter;
  let extra = 0;
  for (let i = 0; i < count; i += 4) {
    const a = words[i]!;
    const b = words[i + 1]!;
    const c = words[i + 2]!;
    const d = words[i + 3]!;
    // Bit 7 of each byte: the byte is a control other than LF, or >= 0x7F (odd);
    // some byte is < 0x2B or > 0x7A (apart, for all four words).
    const oddA = odd(a);
    const oddB = odd(b);
    const oddC = odd(c);
    const oddD = odd(d);
    const apart =
      (((a - 0x2b2b2b2b) & ~a) | (a + 0x05050505) | a | ((b - 0x2b2b2b2b) & ~b) | (b + 0x05050505) | b | ((c - 0x2b2b2b2b) & ~c) | (c + 0x05050505) | c | ((d - 0x2b2b2b2b) & ~d) | (d + 0x05050505) | d) &
      0x80808080;
    const slotA = filterSlot(a | 0x20202020);
    const hitA = filter[slotA >>> 5]! & (1 << (slotA & 31));
    const slotB = filterSlot(b | 0x20202020);
    const hitB = filter[slotB >>> 5]! & (1 << (slotB & 31));
    const slotC = filterSlot(c | 0x20202020);
    const hitC = filter[slotC >>> 5]! & (1 << (slotC & 31));
    const slotD = filterSlot(d | 0x20202020);
    const hitD = filter[slotD >>> 5]! & (1 << (slotD & 31));
    const hits = hitA | hitB | hitC | hitD;
    if (apart === 0) {
      // All 16 bytes token-like (so ASCII): a stretch that may hold a long run.
      found.stretches.push((i << 2) - extra);
      found.stretchBytes.push(i << 2);
      if (hits === 0) continue;
    } else if ((oddA | oddB | oddC | oddD | hits) === 0) continue;
    if ((oddA | hitA) !== 0) extra = look(bytes, i << 2, a, oddA, hitA, extra, written, projected);
    if ((oddB | hitB) !== 0) extra = look(bytes, (i + 1) << 2, b, oddB, hitB, extra, written, projected);
    if ((oddC | hitC) !== 0) extra = look(bytes, (i + 2) << 2, c, oddC, hitC, extra, written, projected);
    if ((oddD | hitD) !== 0) extra = look(bytes, (i + 3) << 2, d, oddD, hitD, extra, written, projected);
  }
  return found;
}

/**
 * Bit 7 of each byte of `v` that is a control other than line feed (exactly:
 * line feeds are on every line and need no look) or that is >= 0x7F. The
 * control test is `0 < (b ^ 0x0A) < 0x20` on seven bits, so no carry crosses
 * a byte; at 0x7F and up, a carry from 0xFF could only add an alarm, and
 * UTF-8 has no 0xFF.
 */
function odd(v: number): number {
  const y = v ^ 0x0a0a0a0a;
  const y7 = y & 0x7f7f7f7f;
  return (((0x9f9f9f9f - y7) & ~y & (y7 + 0x7f7f7f7f)) | (v + 0x01010101) | v) & 0x80808080;
}

/**
 * The closer look at the word `v` at byte `at`: `flags` and `hit` say what
 * tripped (`odd(v)`, the filter), `extra` is the byte surplus (bytes minus
 * UTF-16 units) before the word; returns the surplus after it.
 */
function look(bytes: Uint8Array, at: number, v: number, flags: number, hit: number, extra: number, written: number, projected: boolean): number {
  const top = v & 0x80808080;
  if ((flags & ~top) !== 0 && !found.suspicious) {
    // A control other than LF, or DEL, in an ASCII byte: suspicious unless tab or CR.
    const low = v & 0x7f7f7f7f;
    const allowed = ~((low ^ 0x09090909) + 0x7f7f7f7f) | ~((low ^ 0x0d0d0d0d) + 0x7f7f7f7f);
    found.suspicious = (flags & ~top & ~allowed) !== 0;
  }
  if (top !== 0) {
    // Not ASCII, so not part of an anchor. Continuation bytes (10xxxxxx) are
    // the UTF-8 bytes beyond one per UTF-16 unit, except in four-byte
    // sequences; characters from lead bytes 0xC2 and 0xE0 up get a look.
    const surplus = extra + (Math.imul((top & ~(v << 1)) >>> 7, 0x01010101) >>> 24);
    const x = v ^ 0xc2c2c2c2;
    const special = (top & (v << 1) & (v << 2)) | (~(((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x) & 0x80808080);
    if (special === 0) return surplus;
    const k = at + byteOfBit(31 - Math.clz32(special & (0 - special)));
    // Most often one general punctuation mark (a dash, a quote): nothing to do.
    if ((special & (special - 1)) === 0 && bytes[k] === 0xe2 && afterE2(bytes[k + 1]!, bytes[k + 2]!) === 0) return surplus;
    return surplus - lookAtCharacters(bytes, at, special, extra, projected);
  }
  if (hit !== 0 && projected) anchorsAt(bytes, at, v, extra, written);
  return extra;
}

/**
 * Characters starting at the bytes of the word at `at` marked in `special`
 * (0xC2, or 0xE0 and up): flags C1 controls, bidi controls and U+FFFD (what a
 * lone surrogate encodes to), records whitespace beyond ASCII, and corrects
 * the count for four-byte sequences.
 */
function lookAtCharacters(bytes: Uint8Array, at: number, special: number, before: number, projected: boolean): number {
  let fours = 0;
  for (let marks = special; marks !== 0; ) {
    const lowest = marks & (0 - marks);
    marks ^= lowest;
    const k = at + byteOfBit(31 - Math.clz32(lowest));
    const first = bytes[k]!;
    const second = bytes[k + 1]!;
    const third = bytes[k + 2]!;
    let kind = 0;
    if (first === 0xe2) kind = afterE2(second, third);
    else if (first === 0xc2) kind = second < 0xa0 ? 1 : second === 0xa0 ? 2 : 0;
    else if (first === 0xef) kind = second === 0xbf && third === 0xbd ? 1 : second === 0xbb && third === 0xbf ? 2 : 0;
    else if (first === 0xe1) kind = second === 0x9a && third === 0x80 ? 2 : 0;
    else if (first === 0xe3) kind = second === 0x80 && third === 0x80 ? 2 : 0;
    // Four bytes make two UTF-16 units: one continuation byte fewer than counted.
    else if (first >= 0xf0) fours++;
    if (kind === 1) found.suspicious = true;
    else if (kind === 2 && projected) {
      let surplus = before;
      for (let q = at; q < k; q++) surplus += (bytes[q]! & 0xc0) === 0x80 ? 1 : bytes[q]! >= 0xf0 ? -1 : 0;
      found.anchors.push(k - surplus);
    }
  }
  return fours;
}

/** Anchors that the word at byte `at` (value `v`) may belong to: each is checked byte by byte. */
function anchorsAt(bytes: Uint8Array, at: number, v: number, extra: number, written: number): void {
  const { keys, first, counts, candidates } = ANCHORS.table;
  const key = v | 0x20202020;
  let slot = tableSlot(key, keys.length);
  while (first[slot] !== -1 && keys[slot] !== key) slot = (slot + 1) & (keys.length - 1);
  const from = first[slot]!;
  if (from === -1) return;
  for (let c = from; c < from + counts[slot]!; c += 2) {
    const anchor = ANCHORS.anchors[candidates[c]!]!;
    const start = at - candidates[c + 1]!;
    if (start < 0 || start + anchor.length > written) continue;
    let q = 0;
    for (; q < anchor.length; q++) {
      const b = bytes[start + q]! | 0x20;
      if (b >= 0x80 || (anchor.masks[q * 4 + (b >> 5)]! & (1 << (b & 31))) === 0) break;
    }
    // The anchor is ASCII, so its UTF-16 index is its byte offset less the surplus before it.
    if (q === anchor.length) found.anchors.push(start - extra);
  }
}

// ---------------------------------------------------------------------------
// Entry points.

/** Sorts hits, drops repeats and overlapping credentials, and caps each code at `MAX_HITS_PER_STRING`. */
function finish(hits: TextHit[], bytes: number): TextScan {
  if (hits.length < 2) return { hits, bytes };
  hits.sort((a, b) => a.index - b.index || a.length - b.length);
  const kept: TextHit[] = [];
  const seen = new Set<string>();
  const counts = new Map<string, number>();
  let lastCredentialEnd = -1;
  for (const hit of hits) {
    const key = `${hit.code}:${hit.index}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (hit.code === 'credential_detected') {
      if (hit.index < lastCredentialEnd) continue;
      lastCredentialEnd = hit.index + hit.length;
    }
    const count = counts.get(hit.code) ?? 0;
    if (count >= MAX_HITS_PER_STRING) continue;
    counts.set(hit.code, count + 1);
    kept.push(hit);
  }
  return { hits: kept, bytes };
}

/**
 * The reference scan: every check over the whole string. Same result as
 * {@link scanText}, which is faster on long text; kept to test it against.
 */
export function scanTextPrecise(text: string, scope: ScanScope): TextScan {
  const hits: TextHit[] = [];
  if (text.length === 0) return { hits, bytes: 0 };
  const bytes = measureCharacters(text, hits);
  scanAwsKeys(text, hits);
  if (text.length >= RUN_MIN) scanTokenRuns(text, hits);
  scanAssignments(text, hits);
  scanMarkup(text, scope.projected, hits);
  if (scope.projected) scanAuthority(text, hits);
  return finish(hits, bytes);
}

/**
 * Scans one string and measures its UTF-8 length. Hits come back sorted by
 * index, at most `MAX_HITS_PER_STRING` of each code; overlapping credential
 * hits (a token that is also an assignment value) are reported once.
 */
export function scanText(text: string, scope: ScanScope): TextScan {
  const hits: TextHit[] = [];
  if (text.length === 0) return { hits, bytes: 0 };
  const seen = sweep(text, scope.projected);
  if (seen === undefined) return scanTextPrecise(text, scope);
  const bytes = seen.suspicious ? measureCharacters(text, hits) : seen.bytes;
  scanAwsKeysFast(text, hits);
  if (text.length >= RUN_MIN) {
    tokenRunsNear(seen.stretches, seen.stretchBytes, seen.bytes, runsFound);
    scanTokenRunsIn(text, runsFound, hits);
  }
  scanAssignmentsFast(text, hits);
  scanMarkup(text, scope.projected, hits);
  if (scope.projected) scanAuthorityNear(text, seen.anchors, hits);
  return finish(hits, bytes);
}

/** Strings shorter than this are scanned every time: remembering them costs about as much. */
const CACHE_MIN_CHARS = 256;

/**
 * Remembers the scans of the strings of recent validations, so that
 * validating a package again after an edit (the editor validates on every
 * keystroke) only scans the strings that changed. Results are keyed by the
 * text itself, so a hit is exactly what `scanText` would return. Bounded: a
 * round (`nextRound`, one validation) keeps what it used, and whatever the
 * previous round did not use is dropped, so at most two packages' strings are
 * held. Not for one-shot validation, which gains nothing from it.
 */
export class ScanCache {
  private current: [Map<string, TextScan>, Map<string, TextScan>] = [new Map(), new Map()];
  private previous: [Map<string, TextScan>, Map<string, TextScan>] = [new Map(), new Map()];

  /** Starts a round: scans not used since the previous round started are forgotten. */
  nextRound(): void {
    this.previous = this.current;
    this.current = [new Map(), new Map()];
  }

  /** Number of scans held. */
  get size(): number {
    return this.current[0].size + this.current[1].size + this.previous[0].size + this.previous[1].size;
  }

  /** {@link scanText}, remembered. The result is frozen: it may be handed out again. */
  scan(text: string, scope: ScanScope): TextScan {
    if (text.length < CACHE_MIN_CHARS) return scanText(text, scope);
    const kind = scope.projected ? 1 : 0;
    let scan = this.current[kind].get(text);
    if (scan === undefined) {
      scan = this.previous[kind].get(text);
      this.previous[kind].delete(text);
    }
    if (scan === undefined) {
      const fresh = scanText(text, scope);
      for (const hit of fresh.hits) Object.freeze(hit.args);
      scan = Object.freeze({ hits: Object.freeze(fresh.hits.map((hit) => Object.freeze(hit))) as TextHit[], bytes: fresh.bytes });
    }
    this.current[kind].set(text, scan);
    return scan;
  }
}
