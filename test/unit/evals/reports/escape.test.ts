import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { escapeHtml, escapeMarkdown, escapeXmlAttr, escapeXmlText, sanitizeChars, truncate } from '../../../../evals/reports/escape';
import { parseXmlStrict, textOf } from '../../../helpers/xml';
import { HOSTILE_TEXT } from './fixture';
import { splitRow } from './markdownTable';

// Any UTF-16 string, lone surrogates and control characters included.
const anyText = fc.string({ unit: 'binary', maxLength: 80 });
const withHostile = fc.oneof(anyText, fc.constant(HOSTILE_TEXT), fc.tuple(anyText, anyText).map(([a, b]) => `${a}${HOSTILE_TEXT}${b}`));

function decodeHtml(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!);
}

describe('sanitizeChars', () => {
  it('replaces exactly the characters XML 1.0 forbids', () => {
    expect(sanitizeChars('a\u0000b\u0008c\td\ne\rf\u000b\ufffe\uffff')).toBe('a\ufffdb\ufffdc\td\ne\rf\ufffd\ufffd\ufffd');
    expect(sanitizeChars('x\ud800y\udc00z\ud83d\ude00')).toBe('x\ufffdy\ufffdz\ud83d\ude00');
  });

  it('always yields a string that round-trips through UTF-8', () => {
    fc.assert(
      fc.property(anyText, (s) => {
        const clean = sanitizeChars(s);
        expect(new TextDecoder('utf-8', { fatal: true }).decode(new TextEncoder().encode(clean))).toBe(clean);
      }),
    );
  });
});

describe('XML escaping', () => {
  it('text and attributes parse back, strictly, to the sanitized input', () => {
    fc.assert(
      fc.property(withHostile, withHostile, (text, attr) => {
        const doc = `<?xml version="1.0" encoding="UTF-8"?><r a="${escapeXmlAttr(attr)}">${escapeXmlText(text)}</r>`;
        const root = parseXmlStrict(new TextEncoder().encode(doc));
        expect(textOf(root)).toBe(sanitizeChars(text));
        expect(root.attrs.a).toBe(sanitizeChars(attr));
      }),
    );
  });
});

describe('escapeHtml', () => {
  it('leaves no markup character and decodes back to the sanitized input', () => {
    fc.assert(
      fc.property(withHostile, (s) => {
        const out = escapeHtml(s);
        expect(out).not.toMatch(/[<>"']/);
        expect(decodeHtml(out)).toBe(sanitizeChars(s));
      }),
    );
  });
});

describe('escapeMarkdown', () => {
  it('stays one table cell on one line with no raw HTML or code span', () => {
    fc.assert(
      fc.property(withHostile, (s) => {
        const out = escapeMarkdown(s);
        expect(out).not.toMatch(/[\n\r<>]/);
        expect(splitRow(`| ${out} | x |`)).toHaveLength(2);
        // Every backtick is escaped, so none can open a code span.
        expect(out.replace(/\\./g, '')).not.toContain('`');
      }),
    );
  });

  it('keeps the text readable', () => {
    expect(escapeMarkdown('a|b `c` <i> & @team\nnext')).toBe('a\\|b \\`c\\` &lt;i&gt; &amp; @\u2060team next');
  });
});

describe('truncate', () => {
  it('never splits a surrogate pair and never exceeds the limit', () => {
    expect(truncate('😀😀😀', 2)).toBe('😀…');
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 50 }), fc.integer({ min: 1, max: 60 }), (s, max) => {
        const out = truncate(s, max);
        if (Array.from(s).length <= max) expect(out).toBe(s);
        else {
          expect(Array.from(out)).toHaveLength(max);
          expect(s.startsWith(out.slice(0, -1))).toBe(true);
          expect(out.endsWith('…')).toBe(true);
        }
      }),
    );
  });
});
