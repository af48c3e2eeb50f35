/**
 * Fast scanning of package text for forbidden characters, credentials,
 * binary and executable payloads, authority-bypass instructions and reserved
 * framework tags, using the tables of `rules.ts`. Counting UTF-8 bytes rides
 * along with the character check, so each string is measured once.
 *
 * A package can hold 1 MiB of text and the editor validates on every
 * keystroke, so every category costs at most about one native pass:
 * - irregexp skips quickly over positions whose first character cannot match,
 *   so regexes start with something rare in prose (a non-ASCII or control
 *   character, a space before a known word, `-----BEGIN`); single characters
 *   (`:`, `=`, `<`, `#!`) are found with `indexOf` and checked in place;
 * - token-shaped secrets and base64 blobs are long runs of token characters.
 *   A window of K characters is checked from its end backwards: the first
 *   non-token character found lets the window jump past it, so prose is
 *   crossed a word at a time and only real runs are measured.
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
  if (!(last < 128 && NAME_END[last] === 1)) return;
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

function authorityAt(text: string, m: RegExpExecArray, hits: TextHit[]): void {
  const which = m.findIndex((group, i) => i > 0 && group !== undefined) - 1;
  const lead = m[which + 1];
  const pattern = AUTHORITY_PATTERNS[which];
  const full = FULL[which];
  if (pattern === undefined || full === undefined || lead === undefined) return;
  const at = m.index + m[0].length - lead.length;
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
  if (first !== null) authorityAt(text, first, hits);
  LEAD_AFTER_MARK.lastIndex = 0;
  for (let m = LEAD_AFTER_MARK.exec(text); m !== null; m = LEAD_AFTER_MARK.exec(text)) authorityAt(text, m, hits);
}

/**
 * Scans one string and measures its UTF-8 length. Hits come back sorted by
 * index, at most `MAX_HITS_PER_STRING` of each code; overlapping credential
 * hits (a token that is also an assignment value) are reported once.
 */
export function scanText(text: string, scope: ScanScope): TextScan {
  const hits: TextHit[] = [];
  if (text.length === 0) return { hits, bytes: 0 };
  const bytes = measureCharacters(text, hits);
  scanAwsKeys(text, hits);
  if (text.length >= RUN_MIN) scanTokenRuns(text, hits);
  scanAssignments(text, hits);
  scanMarkup(text, scope.projected, hits);
  if (scope.projected) scanAuthority(text, hits);
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
