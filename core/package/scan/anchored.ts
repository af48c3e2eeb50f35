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
const ASSIGNMENT_NAME = `(?<=(?:(?<![A-Za-z0-9])(?:[A-Za-z0-9]+[_.-])*(?:${SECRET_NAMES})|(?<![\\w-])(?:javascript|vbscript|data))["'\\]]?[ \\t]*)[:=]`;
const NAME_BEFORE = new RegExp(`(?:(?<![A-Za-z0-9])(?:[A-Za-z0-9]+[_.-])*(?:${SECRET_NAMES})|(?<![\\w-])(?:javascript|vbscript|data))["'\\]]?[ \\t]*$`, 'i');
const RESERVED_TAG = `<\\/?\\s*(?:${RESERVED_TAGS.join('|')})(?![\\w-])\\s*\\/?>?`;

/** The regexes of this section, which keep a search position: each scanner has its own. */
export interface AnchoredPatterns {
  assignmentName: RegExp;
  assignedValue: RegExp;
  dataUriType: RegExp;
  urlSchemeTarget: RegExp;
  privateKey: RegExp;
  privateKeyAt: RegExp;
  reservedTag: RegExp;
  scriptTag: RegExp;
  shebang: RegExp;
}

export function anchoredPatterns(): AnchoredPatterns {
  return {
    assignmentName: new RegExp(ASSIGNMENT_NAME, 'iy'),
    assignedValue: /[ \t]*(?:(["'`])([^"'`\n]{1,200})\1|([^\s"'`,;)}\]]{1,200}))/y,
    dataUriType: /[ \t]*([a-z]+)\/([\w.+-]+)(?:;[\w.+-]+(?:=[\w.+-]+)?)*[;,]/iy,
    urlSchemeTarget: /[^\s"'`)]/y,
    privateKey: new RegExp(PRIVATE_KEY_PATTERN.source, 'g'),
    privateKeyAt: new RegExp(PRIVATE_KEY_PATTERN.source, 'y'),
    reservedTag: new RegExp(RESERVED_TAG, 'iy'),
    scriptTag: /<\s*script\b/iy,
    shebang: /#![ \t]*\/[\w./-]+/y,
  };
}

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

function checkAssignment(text: string, at: number, hits: TextHit[], patterns: AnchoredPatterns): void {
  // Skip back over spaces and one closing quote or bracket to the last letter of the name.
  let j = at - 1;
  while (j >= 0 && (text.charCodeAt(j) === 0x20 || text.charCodeAt(j) === 0x09)) j--;
  const q = text.charCodeAt(j);
  if (q === 0x22 || q === 0x27 || q === 0x5d) j--;
  const last = text.charCodeAt(j);
  if (!(last < 128 && NAME_END[last] === 1) || !NAME_END_PAIRS.has(((text.charCodeAt(j - 1) | 0x20) << 8) | (last | 0x20))) return;
  const { assignmentName, urlSchemeTarget, dataUriType, assignedValue } = patterns;
  assignmentName.lastIndex = at;
  if (!assignmentName.test(text)) return;
  const name = NAME_BEFORE.exec(text.slice(Math.max(0, at - 80), at));
  if (name === null) return;
  const nameStart = at - name[0].length;
  const keyword = name[0].replace(/["'\]\s]+$/, '').toLowerCase();
  if (keyword.endsWith('javascript') || keyword.endsWith('vbscript')) {
    urlSchemeTarget.lastIndex = at + 1;
    if (text[at] === ':' && urlSchemeTarget.test(text)) {
      hits.push({ code: 'executable_content', index: nameStart, length: at + 1 - nameStart, args: [`a ${keyword}: URL`] });
    }
    return;
  }
  if (keyword === 'data') {
    dataUriType.lastIndex = at + 1;
    const type = text[at] === ':' ? dataUriType.exec(text) : null;
    if (type !== null && type[1]!.toLowerCase() !== 'text') {
      hits.push({ code: 'executable_content', index: nameStart, length: dataUriType.lastIndex - nameStart, args: [`a data: URI of type ${type[1]!.toLowerCase()}/${type[2]!.toLowerCase()}`] });
    }
    return;
  }
  assignedValue.lastIndex = at + 1;
  const value = assignedValue.exec(text);
  if (value === null) return;
  const valueEnd = assignedValue.lastIndex;
  // A token already recognised inside the value (an API key, say) names the kind better.
  if (hits.some((h) => h.code === 'credential_detected' && h.index < valueEnd && h.index + h.length > at)) return;
  if (looksLikeSecret(value[2] ?? value[3] ?? '', value[2] !== undefined)) {
    hits.push({ code: 'credential_detected', index: nameStart, length: valueEnd - nameStart, args: ['a password or secret assigned a literal value'] });
  }
}

export function scanAssignments(text: string, hits: TextHit[], patterns: AnchoredPatterns): void {
  for (let at = text.indexOf(':'); at !== -1; at = text.indexOf(':', at + 1)) checkAssignment(text, at, hits, patterns);
  for (let at = text.indexOf('='); at !== -1; at = text.indexOf('=', at + 1)) checkAssignment(text, at, hits, patterns);
  const privateKey = patterns.privateKey;
  privateKey.lastIndex = 0;
  for (let m = privateKey.exec(text); m !== null; m = privateKey.exec(text)) {
    hits.push({ code: 'credential_detected', index: m.index, length: m[0].length, args: ['a PEM private key block'] });
  }
}

/**
 * `scanAssignments`, with the PEM blocks found from the rare uppercase
 * "BEGIN " rather than by a pass of the pattern over the whole text. Trying
 * each occurrence in order, from where the previous block ended, finds what
 * the global search finds.
 */
export function scanAssignmentsFast(text: string, hits: TextHit[], patterns: AnchoredPatterns): void {
  for (let at = text.indexOf(':'); at !== -1; at = text.indexOf(':', at + 1)) checkAssignment(text, at, hits, patterns);
  for (let at = text.indexOf('='); at !== -1; at = text.indexOf('=', at + 1)) checkAssignment(text, at, hits, patterns);
  const privateKeyAt = patterns.privateKeyAt;
  let resume = 0;
  for (let at = text.indexOf('BEGIN '); at !== -1; at = text.indexOf('BEGIN ', at + 1)) {
    const start = at - 5;
    if (start < resume || !text.startsWith('-----', start)) continue;
    privateKeyAt.lastIndex = start;
    const m = privateKeyAt.exec(text);
    if (m === null) continue;
    hits.push({ code: 'credential_detected', index: start, length: m[0].length, args: ['a PEM private key block'] });
    resume = start + m[0].length;
  }
}

export function scanMarkup(text: string, projected: boolean, hits: TextHit[], patterns: AnchoredPatterns): void {
  const { scriptTag, reservedTag, shebang } = patterns;
  for (let at = text.indexOf('<'); at !== -1; at = text.indexOf('<', at + 1)) {
    scriptTag.lastIndex = at;
    if (scriptTag.test(text)) {
      hits.push({ code: 'executable_content', index: at, length: scriptTag.lastIndex - at, args: ['a <script> tag'] });
      continue;
    }
    if (!projected) continue;
    reservedTag.lastIndex = at;
    const tag = reservedTag.exec(text);
    if (tag !== null) hits.push({ code: 'reserved_tag', index: at, length: tag[0].length, args: [tag[0]] });
  }
  for (let at = text.indexOf('#!'); at !== -1; at = text.indexOf('#!', at + 2)) {
    // Only at the start of a line (after optional indentation).
    let lineStart = at;
    while (lineStart > 0 && (text[lineStart - 1] === ' ' || text[lineStart - 1] === '\t')) lineStart--;
    if (lineStart > 0 && text[lineStart - 1] !== '\n' && text[lineStart - 1] !== '\r') continue;
    shebang.lastIndex = at;
    if (shebang.test(text)) hits.push({ code: 'executable_content', index: at, length: shebang.lastIndex - at, args: ['a shebang line'] });
  }
}
