import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuzzyMatch, highlightRuns } from '../../../../renderer/shell/fuzzy';

describe('fuzzy match', () => {
  it('ranks a substring at a word start above a scattered match', () => {
    const direct = fuzzyMatch('refund', 'billing/refund')!;
    const scattered = fuzzyMatch('refund', 'r-e-f-u-n-d')!;
    expect(direct.score).toBeGreaterThan(scattered.score);
    expect(direct.positions).toEqual([8, 9, 10, 11, 12, 13]);
  });

  it('needs every query character in order', () => {
    expect(fuzzyMatch('xyz', 'billing/refund')).toBeUndefined();
    expect(fuzzyMatch('cmd pal', 'View: Show All Commands palette')).toBeDefined();
  });

  it('returns in-range, increasing positions that spell the query (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), fc.string({ maxLength: 8 }), (text, query) => {
        const match = fuzzyMatch(query, text);
        if (!match) return;
        const q = query.trim().toLowerCase().replace(/ /g, '');
        expect(match.positions.length).toBe(q.length === 0 ? 0 : match.positions.length);
        for (let i = 1; i < match.positions.length; i++) expect(match.positions[i]!).toBeGreaterThan(match.positions[i - 1]!);
        for (const p of match.positions) expect(p).toBeLessThan(text.length);
        expect(highlightRuns(text, match.positions).map((r) => r.text).join('')).toBe(text);
      }),
    );
  });
});
