/**
 * Anchored patterns: assignments, URLs, tags, shebangs, PEM blocks. Each is
 * tried only where a rare character (`:`, `=`, `<`, `#!`) or word (`BEGIN `)
 * anchors it.
 *
 * Isomorphic: no `node:` imports.
 */
import { PLACEHOLDER_VALUE, PRIVATE_KEY_PATTERN, RESERVED_TAGS, SECRET_NAMES } from '../rules';
import type { TextHit } from './types';

// Checked at one ':' or '=' (sticky): a secret name or URL scheme ends right before it.
const ASSIGNMENT_NAME = new RegExp(
  `(?<=(?:(?<![A-Za-z0-9])(?:[A-Za-z0-9]+[_.-])*(?:${SECRET_NAMES})|(?<![\\w-])(?:javascript|vbscript|data))["'\\]]?[ \\t]*)[:=]`,
  'iy',
);
const NAME_BEFORE = new RegExp(`(?:(?<![A-Za-z0-9])(?:[A-Za-z0-9]+[_.-])*(?:${SECRET_NAMES})|(?<![\\w-])(?:javascript|vbscript|data))["'\\]]?[ \\t]*$`, 'i');
const ASSIGNED_VALUE = /[ \t]*(?:(["'`])([^"'`\n]{1,200})\1|([^\s"'`,;)}\]]{1,200}))/y;
const DATA_URI_TYPE = /[ \t]*([a-z]+)\/([\w.+-]+)(?:;[\w.+-]+(?:=[\w.+-]+)?)*[;,]/iy;
const URL_SCHEME_TARGET = /[^\s"'`)]/y;
const PRIVATE_KEY_AT = new RegExp(PRIVATE_KEY_PATTERN.source, 'y');
const RESERVED_TAG = new RegExp(`<\\/?\\s*(?:${RESERVED_TAGS.join('|')})(?![\\w-])\\s*\\/?>?`, 'iy');
const SCRIPT_TAG = /<\s*script\b/iy;
const SHEBANG = /#![ \t]*\/[\w./-]+/y;

/** Last letters of the names in SECRET_NAMES and of the schemes: a cheap first filter. */
const NAME_END = new Uint8Array(128);
for (const c of 'dDeEtTyYnNaA') NAME_END[c.charCodeAt(0)] = 1;
/** Their last two letters (lowercase, as `first << 8 | second`): a second cheap filter before the look-behind regex. */
const NAME_END_PAIRS: ReadonlySet<number> = new Set(
  [...SECRET_NAMES.split('|'), 'javascript', 'vbscript', 'data'].map((name) => (name.charCodeAt(name.length - 2) << 8) | name.charCodeAt(name.length - 1)),
);

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

export function scanAssignments(text: string, hits: TextHit[]): void {
  for (let at = text.indexOf(':'); at !== -1; at = text.indexOf(':', at + 1)) checkAssignment(text, at, hits);
  for (let at = text.indexOf('='); at !== -1; at = text.indexOf('=', at + 1)) checkAssignment(text, at, hits);
  PRIVATE_KEY_PATTERN.lastIndex = 0;
  for (let m = PRIVATE_KEY_PATTERN.exec(text); m !== null; m = PRIVATE_KEY_PATTERN.exec(text)) {
    hits.push({ code: 'credential_detected', index: m.index, length: m[0].length, args: ['a PEM private key block'] });
  }
}

/**
 * `scanAssignments`, with the PEM blocks found from the rare uppercase
 * "BEGIN " rather than by a pass of the pattern over the whole text. Trying
 * each occurrence in order, from where the previous block ended, finds what
 * the global search finds.
 */
export function scanAssignmentsFast(text: string, hits: TextHit[]): void {
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

export function scanMarkup(text: string, projected: boolean, hits: TextHit[]): void {
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
