import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { filterEntries, fold, indexEntries, parseQuery, sortEntries } from '../../../../renderer/catalog/catalogQuery';
import type { SkillMetadata } from '../../../../core/store/types';

function meta(namespace: string, name: string, extra: Partial<SkillMetadata> = {}): SkillMetadata {
  return {
    namespace,
    name,
    display_name: `${name} skill`,
    description: 'Use when testing.',
    domains: [],
    tags: [],
    version: 1,
    manifest_hash: 'sha256:0',
    updated_at: '2025-01-01T00:00:00.000Z',
    ...extra,
  };
}

const sample = indexEntries([
  meta('billing', 'refund', { display_name: 'Refund orders', domains: ['finance'], tags: ['payments', 'orders'], version: 7, updated_at: '2025-03-01T00:00:00Z' }),
  meta('billing', 'invoice', { display_name: 'Invoices', domains: ['finance'], tags: ['documents'], version: 2 }),
  meta('travel', 'weather', { display_name: 'Weather \u202eassessment', domains: ['travel'], tags: ['forecast'], version: 12 }),
  meta('support', 'returns', { display_name: 'Product returns', domains: ['retail'], tags: ['refund'], version: 1 }),
]);

describe('catalog search', () => {
  it('matches name, namespace, display name, domain and tag', () => {
    expect(filterEntries(sample, 'refund').map((e) => e.key)).toEqual(['billing/refund', 'support/returns']);
    expect(filterEntries(sample, 'billing').map((e) => e.key)).toEqual(['billing/refund', 'billing/invoice']);
    expect(filterEntries(sample, 'invoices').map((e) => e.key)).toEqual(['billing/invoice']);
    expect(filterEntries(sample, 'retail').map((e) => e.key)).toEqual(['support/returns']);
    expect(filterEntries(sample, 'forecast').map((e) => e.key)).toEqual(['travel/weather']);
  });

  it('needs every term, and a prefix restricts a term to its field', () => {
    expect(filterEntries(sample, 'finance documents').map((e) => e.key)).toEqual(['billing/invoice']);
    expect(filterEntries(sample, 'tag:refund').map((e) => e.key)).toEqual(['support/returns']);
    expect(filterEntries(sample, 'name:refund').map((e) => e.key)).toEqual(['billing/refund']);
    expect(filterEntries(sample, 'ns:travel').map((e) => e.key)).toEqual(['travel/weather']);
    expect(filterEntries(sample, 'billing/inv').map((e) => e.key)).toEqual(['billing/invoice']);
    expect(filterEntries(sample, '"product returns"').map((e) => e.key)).toEqual(['support/returns']);
  });

  it('ignores case, compatibility forms and direction controls', () => {
    expect(filterEntries(sample, 'WEATHER ASSESSMENT').map((e) => e.key)).toEqual(['travel/weather']);
    expect(filterEntries(sample, 'display:"weather assessment"').map((e) => e.key)).toEqual(['travel/weather']);
    expect(filterEntries(sample, 'ＲＥＦＵＮＤ').length).toBe(2);
    expect(fold('A\u202eB')).toBe('ab');
  });

  it('searches an unknown prefix as text', () => {
    expect(parseQuery('foo:bar')).toEqual([{ text: 'foo:bar' }]);
    expect(parseQuery('  ')).toEqual([]);
  });

  it('sorts by every column with a total order', () => {
    expect(sortEntries(sample, { column: 'version', direction: 'desc' }).map((e) => e.entry.version)).toEqual([12, 7, 2, 1]);
    expect(sortEntries(sample, { column: 'name', direction: 'asc' }).map((e) => e.key)).toEqual([
      'billing/invoice',
      'billing/refund',
      'support/returns',
      'travel/weather',
    ]);
    expect(sortEntries(sample, { column: 'updated', direction: 'desc' })[0]!.key).toBe('billing/refund');
  });

  it('returns exactly the entries every term matches (property)', () => {
    const word = fc.stringMatching(/^[a-z]{1,6}$/);
    const entry = fc.record({ ns: word, name: word, display: word, domain: word, tag: word });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 30 }), word, (raw, q) => {
        const indexed = indexEntries(raw.map((r, i) => meta(r.ns, `${r.name}${i}`, { display_name: r.display, domains: [r.domain], tags: [r.tag] })));
        const hits = new Set(filterEntries(indexed, q).map((e) => e.key));
        for (const e of indexed) {
          const expected = [e.name, e.namespace, e.display, ...e.domains, ...e.tags].some((f) => f.includes(q));
          expect(hits.has(e.key)).toBe(expected);
        }
      }),
    );
  });
});
