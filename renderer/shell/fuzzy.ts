/**
 * Fuzzy matching for the palette and quick open: the query's characters in
 * order, case-insensitive, scored so contiguous runs, word starts and early
 * matches rank first. Returns the matched positions for highlighting.
 */

/** A match: higher score is better; `positions` index into the text. */
export interface FuzzyMatch {
  score: number;
  positions: number[];
}

const WORD_START = /[\s/._:@-]/;

/** Matches `query` against `text`; undefined when some query character is missing. */
export function fuzzyMatch(query: string, text: string): FuzzyMatch | undefined {
  const q = query.trim().toLowerCase();
  if (q === '') return { score: 0, positions: [] };
  const t = text.toLowerCase();
  // A plain substring beats any scattered match; prefer it when present.
  const direct = t.indexOf(q);
  if (direct >= 0) {
    const atWord = direct === 0 || WORD_START.test(t[direct - 1]!);
    return { score: 1000 - direct + (atWord ? 200 : 0) - t.length / 100, positions: Array.from({ length: q.length }, (_, i) => direct + i) };
  }
  const positions: number[] = [];
  let score = 0;
  let from = 0;
  for (const ch of q) {
    if (ch === ' ') continue;
    const at = t.indexOf(ch, from);
    if (at < 0) return undefined;
    const prev = positions[positions.length - 1];
    if (prev !== undefined && at === prev + 1) score += 8;
    if (at === 0 || WORD_START.test(t[at - 1]!)) score += 6;
    score -= Math.min(at - from, 10);
    positions.push(at);
    from = at + 1;
  }
  return { score: score - t.length / 100, positions };
}

/** Splits `text` into plain and matched runs for rendering with <mark>. */
export function highlightRuns(text: string, positions: readonly number[]): { text: string; hit: boolean }[] {
  if (positions.length === 0) return [{ text, hit: false }];
  const hits = new Set(positions);
  const runs: { text: string; hit: boolean }[] = [];
  for (let i = 0; i < text.length; i++) {
    const hit = hits.has(i);
    const last = runs[runs.length - 1];
    if (last && last.hit === hit) last.text += text[i];
    else runs.push({ text: text[i]!, hit });
  }
  return runs;
}
