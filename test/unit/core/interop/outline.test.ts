/**
 * The fast block outline against `remark-parse` (CommonMark): on generated
 * documents made of headings, paragraphs, setext headings, fenced code, HTML
 * blocks, lists, quotes and indented code, it finds exactly the top-level
 * headings the full parser finds, at the same offsets, and the fenced blocks.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { unified } from 'unified';
import remarkParse from 'remark-parse';
import type { Root } from 'mdast';
import { inFence, outline } from '../../../../core/interop/outline';

const parser = unified().use(remarkParse);
const parse = (text: string) => parser.parse(text) as Root;

const word = fc.constantFrom('alpha', 'beta', 'Gamma', 'delta', 'form', 'PDF', 'fill', 'the', 'when', 'x');
const words = fc.array(word, { minLength: 1, maxLength: 5 }).map((w) => w.join(' '));

const block = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 6 }), words, fc.boolean()).map(([d, w, closed]) => `${'#'.repeat(d)} ${w}${closed ? ' ##' : ''}`),
  fc.array(words, { minLength: 1, maxLength: 3 }).map((lines) => lines.join('\n')),
  fc.tuple(fc.array(words, { minLength: 1, maxLength: 2 }), fc.constantFrom('===', '---', '=', '--  ')).map(([lines, u]) => `${lines.join('\n')}\n${u}`),
  fc.tuple(fc.constantFrom('```', '````', '~~~'), fc.constantFrom('', 'python', 'html'), fc.array(fc.oneof(words, fc.constant('# not a heading'), fc.constant('```'), fc.constant('~~~~'), fc.constant('')), { maxLength: 4 })).map(
    ([f, lang, body]) => `${f}${lang}\n${body.filter((l) => !l.startsWith(f[0]!)).join('\n')}${body.length ? '\n' : ''}${f}`,
  ),
  fc.constant('<!--\n# hidden\n-->'),
  fc.constant('<!-- one line --> after'),
  fc.constant('<pre>\n# pre\n</pre>'),
  fc.constant('<div>\n# in a div\n</div>'),
  fc.tuple(words, words).map(([a, b]) => `- ${a}\n- ${b}`),
  fc.constant('- item\n  # nested heading'),
  fc.constant('1. first\n2. second'),
  // A list starting at 2 is left out: after indented code micromark reads it as paragraph text, unlike the CommonMark spec.
  fc.constant('> # quoted\n> text'),
  fc.constant('    # indented code'),
  fc.constant('***'),
  fc.constant('#hashtag not a heading'),
  fc.tuple(fc.integer({ min: 1, max: 3 }), words).map(([n, w]) => `${' '.repeat(n)}## ${w}`),
  fc.constant('#'),
);
const documentArb = fc.tuple(fc.array(block, { maxLength: 12 }), fc.array(fc.constantFrom('\n', '\n\n', '\r\n'), { minLength: 12, maxLength: 12 })).map(([blocks, gaps]) =>
  blocks.map((b, i) => (i === 0 ? b : gaps[i]! + b)).join(''),
);

function referenceHeadings(text: string): { depth: number; start: number }[] {
  return parse(text)
    .children.filter((n) => n.type === 'heading')
    // The outline gives the start of the heading's line, indentation included.
    .map((n) => ({ depth: (n as { depth: number }).depth, start: text.lastIndexOf('\n', n.position!.start.offset! - 1) + 1 }));
}

describe('outline', () => {
  it('finds the top-level headings remark-parse finds, at the same offsets', () => {
    fc.assert(
      fc.property(documentArb, (text) => {
        const mine = outline(text).headings.map((h) => ({ depth: h.depth, start: h.start }));
        expect(mine).toEqual(referenceHeadings(text));
      }),
      { numRuns: 300 },
    );
  });

  it('finds the fenced code blocks remark-parse finds', () => {
    fc.assert(
      fc.property(documentArb, (text) => {
        const code: { position?: { start: { offset?: number }; end: { offset?: number } } }[] = [];
        // Fenced code at the top level and in list items (a fence inside a quote is not tracked: it never hides a top-level heading).
        const visit = (nodes: Root['children']) => {
          for (const n of nodes) {
            if (n.type === 'code' && /^\s*(`{3,}|~{3,})/.test(text.slice(n.position!.start.offset!))) code.push(n);
            if (n.type === 'list') for (const item of n.children) visit(item.children);
          }
        };
        visit(parse(text).children);
        const fences = outline(text).fences;
        expect(fences.map((f) => f.start)).toEqual(code.map((n) => n.position!.start.offset!));
        for (const n of code) expect(inFence(fences, n.position!.end.offset! - 1)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('gives heading texts and lines, setext headings included', () => {
    const text = '# Title #\n\nIntro\n\nTwo line\nsetext\n---\n\n```\n# code\n```\n\n### Deep ###\n';
    expect(outline(text).headings).toEqual([
      { depth: 1, text: 'Title', start: 0, end: 10, line: 1 },
      { depth: 2, text: 'Two line\nsetext', start: 18, end: 38, line: 5 },
      { depth: 3, text: 'Deep', start: 55, end: 68, line: 13 },
    ]);
    expect(outline(text).fences).toEqual([{ start: 39, end: 54, line: 9 }]);
  });

  it('runs an unclosed fence to the end of the text', () => {
    const text = 'a\n\n```js\n# not\n';
    expect(outline(text)).toMatchObject({ headings: [], fences: [{ start: 3, end: text.length }] });
  });
});
