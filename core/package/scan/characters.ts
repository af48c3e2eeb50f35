/**
 * Characters and UTF-8 length: forbidden characters (controls, C1, bidi
 * controls, lone surrogates) and the byte count, in one pass.
 *
 * Isomorphic: no `node:` imports.
 */
import { MAX_HITS_PER_STRING } from '../rules';
import type { Utf8Counter } from '../tokens';
import type { TextHit } from './types';

// Runs of anything but tab, LF, CR and printable ASCII: controls, DEL and all non-ASCII.
const NOT_PLAIN = /[^\t\n\r\x20-\x7E]+/g;
// C0 except tab, LF and CR (CR is a line ending that normalization turns into LF),
// DEL, C1, the bidi embeddings/overrides/isolates, and surrogates (checked for pairing).
// eslint-disable-next-line no-control-regex -- finding control characters is the point of this class
const FORBIDDEN_CHARS = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F\u202A-\u202E\u2066-\u2069\uD800-\uDFFF]/g;

const codePointName = (c: number): string => `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;

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
 * dense in non-ASCII switches to the native encoder (through `counter`) and a
 * plain class scan, so neither kind of text pays per character in JavaScript.
 */
export function measureCharacters(text: string, hits: TextHit[], counter: Utf8Counter): number {
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
      const bad = c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || (c >= 0xd800 && c <= 0xdfff);
      // A surrogate pair is two units and four bytes: +2 for the pair, counted on its first unit.
      i += bad && hits.length < ceiling ? charHit(text, i, hits) : c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
    }
    if (--stops === 0) {
      FORBIDDEN_CHARS.lastIndex = end;
      for (let f = FORBIDDEN_CHARS.exec(text); f !== null && hits.length < ceiling; f = FORBIDDEN_CHARS.exec(text)) {
        FORBIDDEN_CHARS.lastIndex = f.index + charHit(text, f.index, hits);
      }
      return counter.count(text);
    }
  }
  return text.length + extra;
}
