/**
 * The sweep: one pass over the UTF-8 bytes of a string, one 32-bit word at a
 * time, that tells the fast scan where to run the precise checks (see
 * `index.ts`). The anchor tables are built once from `AUTHORITY_PATTERNS` and
 * only read; the buffers a sweep writes belong to the caller (`SweepState`).
 *
 * Isomorphic: no `node:` imports.
 */
import { AUTHORITY_PATTERNS, type AuthorityPattern } from '../rules';
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

// Built on the first sweep, not at import: a command that never scans text (a listing) does not pay for it.
let ANCHORS: ReturnType<typeof buildAnchors> | undefined;

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
export interface Sweep {
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

/** Encoders keep no state between calls: one serves every sweep. */
const encoder = new TextEncoder();

/**
 * The buffers of the sweep: the UTF-8 bytes of the string being swept (also
 * read as 32-bit words) and what the sweep found in it. One per scanner; the
 * bytes stay valid until that scanner sweeps another string.
 */
export interface SweepState {
  bytes: Uint8Array;
  words: Int32Array;
  found: Sweep;
}

/** Buffers for strings of up to about 1300 characters; a sweep of a longer one grows them. */
export function sweepState(): SweepState {
  const buffer = new ArrayBuffer(4096);
  return {
    bytes: new Uint8Array(buffer),
    words: new Int32Array(buffer),
    found: { bytes: 0, suspicious: false, anchors: [], stretches: [], stretchBytes: [] },
  };
}

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
export function sweep(state: SweepState, text: string, projected: boolean): Sweep | undefined {
  // Text that is mostly beyond ASCII (CJK, say) would have a closer look at
  // nearly every word; the whole-string checks are faster there. A sample of
  // 32 characters decides before encoding, the exact surplus after.
  let wide = 0;
  for (let k = 0; k < 32; k++) if (text.charCodeAt(Math.floor(((k + 0.5) * text.length) / 32)) >= 0x80) wide++;
  if (wide > 16) return undefined;
  const capacity = (text.length * 3 + 31) & ~15;
  if (state.bytes.length < capacity) {
    const buffer = new ArrayBuffer(Math.max(capacity, state.bytes.length * 2));
    state.bytes = new Uint8Array(buffer);
    state.words = new Int32Array(buffer);
  }
  const { bytes, words, found } = state;
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
  const filter = (ANCHORS ??= buildAnchors(AUTHORITY_PATTERNS)).filter;
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
    if ((oddA | hitA) !== 0) extra = look(found, bytes, i << 2, a, oddA, hitA, extra, written, projected);
    if ((oddB | hitB) !== 0) extra = look(found, bytes, (i + 1) << 2, b, oddB, hitB, extra, written, projected);
    if ((oddC | hitC) !== 0) extra = look(found, bytes, (i + 2) << 2, c, oddC, hitC, extra, written, projected);
    if ((oddD | hitD) !== 0) extra = look(found, bytes, (i + 3) << 2, d, oddD, hitD, extra, written, projected);
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
function look(found: Sweep, bytes: Uint8Array, at: number, v: number, flags: number, hit: number, extra: number, written: number, projected: boolean): number {
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
    return surplus - lookAtCharacters(found, bytes, at, special, extra, projected);
  }
  if (hit !== 0 && projected) anchorsAt(found, bytes, at, v, extra, written);
  return extra;
}

/**
 * Characters starting at the bytes of the word at `at` marked in `special`
 * (0xC2, or 0xE0 and up): flags C1 controls, bidi controls and U+FFFD (what a
 * lone surrogate encodes to), records whitespace beyond ASCII, and corrects
 * the count for four-byte sequences.
 */
function lookAtCharacters(found: Sweep, bytes: Uint8Array, at: number, special: number, before: number, projected: boolean): number {
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
function anchorsAt(found: Sweep, bytes: Uint8Array, at: number, v: number, extra: number, written: number): void {
  // Only reached from a sweep, which built the tables.
  const { keys, first, counts, candidates } = ANCHORS!.table;
  const key = v | 0x20202020;
  let slot = tableSlot(key, keys.length);
  while (first[slot] !== -1 && keys[slot] !== key) slot = (slot + 1) & (keys.length - 1);
  const from = first[slot]!;
  if (from === -1) return;
  for (let c = from; c < from + counts[slot]!; c += 2) {
    const anchor = ANCHORS!.anchors[candidates[c]!]!;
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
