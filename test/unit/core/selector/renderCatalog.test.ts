import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../../../../core/package/tokens';
import { renderCatalog, type ActivationCatalogEntry } from '../../../../core/selector/render';
import { safeJson } from '../../../../core/selector/util';

const text = fc.string({ unit: 'grapheme', maxLength: 40 });
const entry = fc.record({ skill: text, display_name: text, description: text, domains: fc.array(text, { maxLength: 3 }), tags: fc.array(text, { maxLength: 3 }) });

/** What rendering is defined as: one escaped JSON line per entry, tokens of the joined text. */
function expected(entries: readonly ActivationCatalogEntry[]) {
  const lines = entries.map((e) => safeJson(e));
  const joined = lines.join('\n');
  return { lines, text: joined, tokens: estimateTokens(joined) };
}

describe('renderCatalog', () => {
  it('renders lines and tokens exactly as defined, whether the lists are frozen and shared between renders or not', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 6 }), fc.boolean(), text, (entries, freeze, changed) => {
        const first = entries.map((e) => (freeze ? { ...e, domains: Object.freeze([...e.domains]) as string[], tags: Object.freeze([...e.tags]) as string[] } : e));
        expect(renderCatalog(first)).toEqual(expected(first));
        // The same frozen lists with another text field: never the earlier line.
        const second = first.map((e) => ({ ...e, description: changed }));
        expect(renderCatalog(second)).toEqual(expected(second));
        expect(renderCatalog(first)).toEqual(expected(first));
      }),
    );
  });

  it('renders a list that is not frozen afresh after it changes', () => {
    const domains = ['travel'];
    const e: ActivationCatalogEntry = { skill: 'a/b', display_name: 'B', description: 'Use when.', domains, tags: [] };
    expect(renderCatalog([e]).text).toContain('"travel"');
    domains[0] = 'finance';
    expect(renderCatalog([e]).text).toContain('"finance"');
  });
});
