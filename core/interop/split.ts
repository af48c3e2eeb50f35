/**
 * Splitting a markdown text into parts that each fit a byte limit, cutting at
 * the highest-level heading boundaries that make the parts fit: first the
 * top-level sections (packed greedily, so parts are as few as the headings
 * allow), then, inside a section that is still too large, its subsections,
 * then paragraph boundaries, lines outside code blocks, any line, and only as
 * a last resort between two characters. Parts are exact consecutive slices:
 * joined, they give the text back.
 *
 * Isomorphic: no `node:` imports.
 */
import { inFence, outline, type Outline } from './outline';

/** A part: `[start, end)` in UTF-16 indices. */
export interface TextPart {
  start: number;
  end: number;
}

/** What boundaries a split had to use, from the kindest to the harshest. */
export type SplitBoundary = 'none' | 'heading' | 'paragraph' | 'line' | 'code_line' | 'character';

/** The parts of a split and the harshest kind of boundary it cut at. */
export interface TextSplit {
  parts: TextPart[];
  boundary: SplitBoundary;
}

const BOUNDARY_RANK: Record<SplitBoundary, number> = { none: 0, heading: 1, paragraph: 2, line: 3, code_line: 4, character: 5 };

/** UTF-8 bytes of `text[0..i)` for every i, so any slice is measured in O(1). */
function utf8Prefix(text: string): Uint32Array {
  const prefix = new Uint32Array(text.length + 1);
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A surrogate pair is 4 bytes, counted on its high half.
      prefix[i + 1] = bytes;
      bytes += 4;
      i++;
    } else bytes += 3;
    prefix[i + 1] = bytes;
  }
  return prefix;
}

/**
 * Splits `text` into parts of at most `maxBytes` UTF-8 bytes each (a single
 * character larger than that cannot happen: `maxBytes` must be at least 4).
 * A text that fits is one part with boundary `none`.
 */
export function splitAtLimit(text: string, maxBytes: number, structure: Outline = outline(text)): TextSplit {
  if (!(maxBytes >= 4)) throw new RangeError('maxBytes must be at least 4');
  const prefix = utf8Prefix(text);
  const bytes = (a: number, b: number) => prefix[b]! - prefix[a]!;
  if (bytes(0, text.length) <= maxBytes) return { parts: [{ start: 0, end: text.length }], boundary: 'none' };

  let harshest: SplitBoundary = 'none';
  const lineStarts = (start: number, end: number, outsideCode: boolean): number[] => {
    const cuts: number[] = [];
    for (let i = text.indexOf('\n', start); i !== -1 && i + 1 < end; i = text.indexOf('\n', i + 1)) {
      if (!outsideCode || !inFence(structure.fences, i + 1)) cuts.push(i + 1);
    }
    return cuts;
  };
  /** Cut points strictly inside (start, end) at `level`: 1..6 headings of at most that depth, 7 paragraphs, 8 lines outside code, 9 any line, 10 characters. */
  const cutsAt = (level: number, start: number, end: number): number[] => {
    if (level <= 6) return structure.headings.filter((h) => h.depth <= level && h.start > start && h.start < end).map((h) => h.start);
    if (level === 7) {
      const cuts: number[] = [];
      for (const blank of structure.blankLines) {
        const after = text.indexOf('\n', blank);
        const cut = after === -1 ? -1 : after + 1;
        if (cut > start && cut < end) cuts.push(cut);
      }
      return cuts;
    }
    if (level === 8) return lineStarts(start, end, true);
    if (level === 9) return lineStarts(start, end, false);
    // Characters: as many whole code points as fit, never half a surrogate pair.
    const cuts: number[] = [];
    let from = start;
    while (bytes(from, end) > maxBytes) {
      let cut = from;
      while (cut < end && bytes(from, cut + 1) <= maxBytes) cut++;
      if ((text.charCodeAt(cut) & 0xfc00) === 0xdc00) cut--;
      cuts.push(cut);
      from = cut;
    }
    return cuts;
  };
  const boundaryOf = (level: number): SplitBoundary => (level <= 6 ? 'heading' : level === 7 ? 'paragraph' : level === 8 ? 'line' : level === 9 ? 'code_line' : 'character');

  const pack = (start: number, end: number, level: number): TextPart[] => {
    if (bytes(start, end) <= maxBytes) return [{ start, end }];
    let cuts: number[] = [];
    let used = level;
    for (; used <= 10; used++) {
      cuts = cutsAt(used, start, end);
      if (cuts.length > 0) break;
    }
    const kind = boundaryOf(used);
    if (BOUNDARY_RANK[kind] > BOUNDARY_RANK[harshest]) harshest = kind;
    const bounds = [start, ...cuts, end];
    const parts: TextPart[] = [];
    let open = start;
    for (let i = 0; i + 1 < bounds.length; i++) {
      const a = bounds[i]!;
      const b = bounds[i + 1]!;
      if (bytes(open, b) <= maxBytes) continue;
      if (open < a) parts.push({ start: open, end: a });
      if (bytes(a, b) > maxBytes) {
        parts.push(...pack(a, b, used + 1));
        open = b;
      } else {
        open = a;
      }
    }
    if (open < end) parts.push({ start: open, end });
    return parts;
  };
  const parts = pack(0, text.length, 1);
  return { parts, boundary: harshest };
}
