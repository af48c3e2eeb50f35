/**
 * Sequence and word-level text diff (Myers' O(ND) algorithm, linear space).
 *
 * Isomorphic: no `node:` imports, so the diff view can run in a browser worker.
 */

/**
 * Upper bound on the edit distance (inserted plus deleted tokens) that the word
 * diff computes exactly, after the common prefix and suffix are removed.
 * Beyond it the differing middle is reported as one delete and one insert
 * (`TextDiff.exact === false`). Myers costs O((N+M)·D) time, so this bound caps
 * the worst case for two 32 KiB resources (10,000 to 16,000 tokens each) at
 * tens of milliseconds on one core, even when the texts share nothing.
 */
export const MAX_DIFF_EDITS = 4000;

/** One operation of a sequence alignment. */
export type SequenceOp = 'equal' | 'insert' | 'delete';

/**
 * A run of one operation over half-open index ranges of the two sequences:
 * `equal` covers the same number of items on both sides, `delete` only `a`,
 * `insert` only `b`.
 */
export interface SequenceRun {
  op: SequenceOp;
  aStart: number;
  aEnd: number;
  bStart: number;
  bEnd: number;
}

/** The alignment of two sequences; `exact` is false when the edit bound was hit. */
export interface SequenceDiff {
  runs: SequenceRun[];
  exact: boolean;
}

/** One segment of a word diff. */
export interface TextSegment {
  op: SequenceOp;
  text: string;
}

/**
 * A word-level diff of two texts. Concatenating the `equal` and `delete`
 * segments in order gives the old text; `equal` and `insert` give the new one.
 * Within each changed stretch the delete segment comes before the insert.
 */
export interface TextDiff {
  segments: TextSegment[];
  /** Words (non-whitespace tokens) only in the new text. */
  inserted_words: number;
  /** Words (non-whitespace tokens) only in the old text. */
  deleted_words: number;
  /** False when the texts differed by more than `MAX_DIFF_EDITS` tokens and the middle was replaced whole. */
  exact: boolean;
}

/** Splits text into word tokens and whitespace-run tokens; joining them gives the text back. */
export function tokenize(text: string): string[] {
  return text.match(/\s+|\S+/gu) ?? [];
}

/**
 * Aligns two sequences of comparable keys with Myers' algorithm (a shortest
 * edit script, so the `equal` runs form a longest common subsequence).
 * Adjacent changes are grouped: each maximal changed stretch is one `delete`
 * run followed by one `insert` run (either may be absent).
 */
export function diffSequences<T>(a: readonly T[], b: readonly T[], maxEdits: number = MAX_DIFF_EDITS): SequenceDiff {
  const ids = new Map<T, number>();
  const intern = (items: readonly T[]): Int32Array => {
    const out = new Int32Array(items.length);
    items.forEach((item, i) => {
      let id = ids.get(item);
      if (id === undefined) {
        id = ids.size;
        ids.set(item, id);
      }
      out[i] = id;
    });
    return out;
  };
  const ia = intern(a);
  const ib = intern(b);
  const raw: SequenceRun[] = [];
  let exact = true;
  // The forward and reverse searches each extend one edit per round.
  const roundCap = Math.max(1, Math.ceil(maxEdits / 2));

  const emit = (op: SequenceOp, aStart: number, aEnd: number, bStart: number, bEnd: number): void => {
    if (aEnd === aStart && bEnd === bStart) return;
    raw.push({ op, aStart, aEnd, bStart, bEnd });
  };

  const solve = (aLo: number, aHi: number, bLo: number, bHi: number): void => {
    let prefix = 0;
    while (aLo + prefix < aHi && bLo + prefix < bHi && ia[aLo + prefix] === ib[bLo + prefix]) prefix++;
    emit('equal', aLo, aLo + prefix, bLo, bLo + prefix);
    aLo += prefix;
    bLo += prefix;
    let suffix = 0;
    while (aHi - suffix > aLo && bHi - suffix > bLo && ia[aHi - 1 - suffix] === ib[bHi - 1 - suffix]) suffix++;
    const aMid = aHi - suffix;
    const bMid = bHi - suffix;
    if (aLo === aMid) {
      emit('insert', aLo, aLo, bLo, bMid);
    } else if (bLo === bMid) {
      emit('delete', aLo, aMid, bLo, bLo);
    } else {
      const split = bisect(ia, ib, aLo, aMid, bLo, bMid, roundCap);
      if (typeof split === 'string') {
        if (split === 'capped') exact = false;
        emit('delete', aLo, aMid, bLo, bLo);
        emit('insert', aMid, aMid, bLo, bMid);
      } else {
        solve(aLo, split.x, bLo, split.y);
        solve(split.x, aMid, split.y, bMid);
      }
    }
    emit('equal', aMid, aHi, bMid, bHi);
  };

  solve(0, ia.length, 0, ib.length);
  return { runs: groupRuns(raw), exact };
}

/**
 * Finds the middle snake of the shortest edit path between a[aLo,aHi) and
 * b[bLo,bHi) (both non-empty), searching from both ends at once so memory stays
 * linear. Returns a split point; `disjoint` when the ranges share no item (the
 * paths only meet after every item is edited); `capped` when more than
 * `roundCap` rounds (about 2·roundCap edits) would be needed. Adapted from the
 * bisection in Neil Fraser's diff-match-patch (Apache-2.0).
 */
function bisect(
  a: Int32Array,
  b: Int32Array,
  aLo: number,
  aHi: number,
  bLo: number,
  bHi: number,
  roundCap: number,
): { x: number; y: number } | 'disjoint' | 'capped' {
  const n = aHi - aLo;
  const m = bHi - bLo;
  const maxD = Math.ceil((n + m) / 2);
  const vOffset = maxD;
  const vLength = 2 * maxD;
  // Two spare cells: with n = m = 1 the seed cell lies just past 2·maxD.
  const v1 = new Int32Array(vLength + 2).fill(-1);
  const v2 = new Int32Array(vLength + 2).fill(-1);
  v1[vOffset + 1] = 0;
  v2[vOffset + 1] = 0;
  const delta = n - m;
  // With an odd delta the paths can only meet while extending the forward one.
  const front = delta % 2 !== 0;
  let k1start = 0;
  let k1end = 0;
  let k2start = 0;
  let k2end = 0;
  const rounds = Math.min(maxD, roundCap);
  for (let d = 0; d < rounds; d++) {
    for (let k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
      const k1o = vOffset + k1;
      let x1 = k1 === -d || (k1 !== d && v1[k1o - 1]! < v1[k1o + 1]!) ? v1[k1o + 1]! : v1[k1o - 1]! + 1;
      let y1 = x1 - k1;
      while (x1 < n && y1 < m && a[aLo + x1] === b[bLo + y1]) {
        x1++;
        y1++;
      }
      v1[k1o] = x1;
      if (x1 > n) {
        k1end += 2;
      } else if (y1 > m) {
        k1start += 2;
      } else if (front) {
        const k2o = vOffset + delta - k1;
        if (k2o >= 0 && k2o < vLength && v2[k2o] !== -1) {
          if (x1 >= n - v2[k2o]!) return { x: aLo + x1, y: bLo + y1 };
        }
      }
    }
    for (let k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
      const k2o = vOffset + k2;
      let x2 = k2 === -d || (k2 !== d && v2[k2o - 1]! < v2[k2o + 1]!) ? v2[k2o + 1]! : v2[k2o - 1]! + 1;
      let y2 = x2 - k2;
      while (x2 < n && y2 < m && a[aHi - 1 - x2] === b[bHi - 1 - y2]) {
        x2++;
        y2++;
      }
      v2[k2o] = x2;
      if (x2 > n) {
        k2end += 2;
      } else if (y2 > m) {
        k2start += 2;
      } else if (!front) {
        const k1o = vOffset + delta - k2;
        if (k1o >= 0 && k1o < vLength && v1[k1o] !== -1) {
          const x1 = v1[k1o]!;
          const y1 = vOffset + x1 - k1o;
          if (x1 >= n - x2) return { x: aLo + x1, y: bLo + y1 };
        }
      }
    }
  }
  return rounds < maxD ? 'capped' : 'disjoint';
}

/** Merges adjacent runs so each changed stretch is one delete then one insert. */
function groupRuns(raw: readonly SequenceRun[]): SequenceRun[] {
  const out: SequenceRun[] = [];
  let pending: { aStart: number; aEnd: number; bStart: number; bEnd: number } | undefined;
  const flush = (): void => {
    if (!pending) return;
    const { aStart, aEnd, bStart, bEnd } = pending;
    if (aEnd > aStart) out.push({ op: 'delete', aStart, aEnd, bStart, bEnd: bStart });
    if (bEnd > bStart) out.push({ op: 'insert', aStart: aEnd, aEnd, bStart, bEnd });
    pending = undefined;
  };
  for (const run of raw) {
    if (run.op === 'equal') {
      flush();
      const last = out[out.length - 1];
      if (last && last.op === 'equal' && last.aEnd === run.aStart) {
        last.aEnd = run.aEnd;
        last.bEnd = run.bEnd;
      } else {
        out.push({ ...run });
      }
    } else if (pending) {
      pending.aEnd = Math.max(pending.aEnd, run.aEnd);
      pending.bEnd = Math.max(pending.bEnd, run.bEnd);
    } else {
      pending = { aStart: run.aStart, aEnd: run.aEnd, bStart: run.bStart, bEnd: run.bEnd };
    }
  }
  flush();
  return out;
}

const WHITESPACE_ONLY = /^\s+$/u;
const WORD = /\S+/gu;

function countWords(text: string): number {
  return text.match(WORD)?.length ?? 0;
}

/**
 * Word-level diff of two texts: tokens are runs of non-whitespace and runs of
 * whitespace, aligned with {@link diffSequences}. Exact up to `MAX_DIFF_EDITS`
 * (4,000) inserted plus deleted tokens between the common prefix and suffix,
 * roughly 2,000 changed words since whitespace runs are tokens too; beyond that
 * the middle becomes one delete and one insert and `exact` is false. Whitespace that merely separates two changes is folded into the
 * change, so a rewritten phrase reads as one delete and one insert rather than
 * alternating single words.
 */
export function diffWords(before: string, after: string, maxEdits: number = MAX_DIFF_EDITS): TextDiff {
  if (before === after) {
    return { segments: before === '' ? [] : [{ op: 'equal', text: before }], inserted_words: 0, deleted_words: 0, exact: true };
  }
  const a = tokenize(before);
  const b = tokenize(after);
  const { runs, exact } = diffSequences(a, b, maxEdits);
  const pieces = runs.map((run) => ({ op: run.op, tokens: run.op === 'insert' ? b.slice(run.bStart, run.bEnd) : a.slice(run.aStart, run.aEnd) }));
  slideToWordStart(pieces);
  const raw: TextSegment[] = pieces.filter((p) => p.tokens.length > 0).map((p) => ({ op: p.op, text: p.tokens.join('') }));
  const segments = foldSeparators(raw);
  let inserted = 0;
  let deleted = 0;
  for (const s of segments) {
    if (s.op === 'insert') inserted += countWords(s.text);
    else if (s.op === 'delete') deleted += countWords(s.text);
  }
  return { segments, inserted_words: inserted, deleted_words: deleted, exact };
}

/**
 * A lone insertion or deletion can often sit one token earlier or later with
 * the same result ("the| travel| dates" vs "the |travel |dates"). Slide such
 * edits right so they start with a word rather than with whitespace, which is
 * how a reader marks an inserted word.
 */
function slideToWordStart(pieces: { op: SequenceOp; tokens: string[] }[]): void {
  for (let i = 1; i < pieces.length - 1; i++) {
    const prev = pieces[i - 1]!;
    const edit = pieces[i]!;
    const next = pieces[i + 1]!;
    if (edit.op === 'equal' || prev.op !== 'equal' || next.op !== 'equal') continue;
    // Valid because the edit's first token equals the next equal's first token:
    // both texts concatenate to the same string after the rotation.
    while (edit.tokens.length > 0 && next.tokens.length > 0 && edit.tokens[0] === next.tokens[0] && /^\s/u.test(edit.tokens[0]!)) {
      prev.tokens.push(edit.tokens.shift()!);
      edit.tokens.push(next.tokens.shift()!);
    }
  }
}

/**
 * Turns whitespace-only equal segments between two changes into part of the
 * change, then regroups each changed stretch as one delete and one insert.
 * The invariants (equal+delete = before, equal+insert = after) are preserved
 * because the folded text is added to both sides in its original position.
 */
function foldSeparators(raw: readonly TextSegment[]): TextSegment[] {
  const isChange = (s: TextSegment | undefined): boolean => s !== undefined && s.op !== 'equal';
  const out: TextSegment[] = [];
  let del = '';
  let ins = '';
  let inChange = false;
  const flush = (): void => {
    if (del !== '') out.push({ op: 'delete', text: del });
    if (ins !== '') out.push({ op: 'insert', text: ins });
    del = '';
    ins = '';
    inChange = false;
  };
  raw.forEach((s, i) => {
    if (s.op === 'equal') {
      if (inChange && WHITESPACE_ONLY.test(s.text) && isChange(raw[i + 1])) {
        del += s.text;
        ins += s.text;
        return;
      }
      flush();
      out.push({ op: 'equal', text: s.text });
      return;
    }
    inChange = true;
    if (s.op === 'delete') del += s.text;
    else ins += s.text;
  });
  flush();
  return out;
}
