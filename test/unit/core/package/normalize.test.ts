import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compareCodePoints, normalizeLabels, normalizePackage, type SkillPackageInput } from '../../../../core/package/normalize';

const text = fc.string({ unit: 'binary', maxLength: 20 });
const withBreaks = fc.array(fc.oneof(text, fc.constantFrom('\r\n', '\r', '\n', ' ', '\t', 'A', 'é')), { maxLength: 8 }).map((parts) => parts.join(''));
const list = fc.array(withBreaks, { maxLength: 4 });

const resource = fc.record(
  {
    name: withBreaks,
    description: withBreaks,
    load_when: withBreaks,
    applies_to: fc.array(fc.oneof(withBreaks, fc.constantFrom('planning', ' synthesis ')), { maxLength: 3 }),
    required_when_selected: fc.boolean(),
    content_type: withBreaks,
    content: withBreaks,
  },
  { requiredKeys: ['name', 'description', 'load_when', 'content_type', 'content'] },
);

const packageInput: fc.Arbitrary<SkillPackageInput> = fc.record(
  {
    display_name: withBreaks,
    description: withBreaks,
    domains: list,
    tags: list,
    planning_instructions: list,
    response_instructions: list,
    tool_hints: list,
    resources: fc.array(resource, { maxLength: 3 }),
    activation_examples: fc.record({ should_activate: list, should_not_activate: list }, { requiredKeys: [] }),
    change_reason: withBreaks,
  },
  { requiredKeys: ['display_name', 'description', 'planning_instructions', 'change_reason'] },
);

describe('normalizePackage', () => {
  it('is idempotent', () => {
    fc.assert(
      fc.property(packageInput, (input) => {
        const once = normalizePackage(input);
        expect(normalizePackage(once)).toEqual(once);
      }),
      { numRuns: 500 },
    );
  });

  it('leaves no CR in any text and no surrounding whitespace on entries', () => {
    fc.assert(
      fc.property(packageInput, (input) => {
        const pkg = normalizePackage(input);
        expect(JSON.stringify(pkg)).not.toContain('\\r');
        for (const entry of [pkg.display_name, pkg.description, pkg.change_reason, ...pkg.planning_instructions, ...pkg.tags]) {
          expect(entry).toBe(entry.trim());
        }
      }),
      { numRuns: 300 },
    );
  });

  it('trims entries, converts line endings, and keeps content whitespace', () => {
    const pkg = normalizePackage({
      display_name: '  Title\r\n',
      description: 'Use when\r\nneeded ',
      planning_instructions: ['  one\rtwo  '],
      resources: [{ name: ' checklist ', description: ' d ', load_when: ' w ', content_type: ' text/plain ', content: '  body\r\n\r\n' }],
      change_reason: ' why ',
    });
    expect(pkg.display_name).toBe('Title');
    expect(pkg.description).toBe('Use when\nneeded');
    expect(pkg.planning_instructions).toEqual(['one\ntwo']);
    expect(pkg.resources[0]).toEqual({
      name: 'checklist',
      description: 'd',
      load_when: 'w',
      applies_to: [],
      required_when_selected: false,
      content_type: 'text/plain',
      content: '  body\n\n',
    });
    expect(pkg.change_reason).toBe('why');
  });

  it('fills omitted optional fields with empty values', () => {
    const pkg = normalizePackage({ display_name: 'a', description: 'b', planning_instructions: ['c'], change_reason: 'd' });
    expect(pkg).toEqual({
      display_name: 'a',
      description: 'b',
      domains: [],
      tags: [],
      planning_instructions: ['c'],
      response_instructions: [],
      tool_hints: [],
      resources: [],
      activation_examples: { should_activate: [], should_not_activate: [] },
      change_reason: 'd',
    });
  });

  it('lowercases, deduplicates and sorts domains and tags but not resource names', () => {
    const pkg = normalizePackage({
      display_name: 'a',
      description: 'b',
      domains: ['Travel', 'travel ', 'Ops'],
      tags: ['b', 'A', 'a'],
      planning_instructions: ['c'],
      resources: [{ name: 'Checklist', description: 'd', load_when: 'w', content_type: 'text/plain', content: 'x' }],
      change_reason: 'd',
    });
    expect(pkg.domains).toEqual(['ops', 'travel']);
    expect(pkg.tags).toEqual(['a', 'b']);
    expect(pkg.resources[0]!.name).toBe('Checklist');
  });

  it('does not modify its input', () => {
    const input: SkillPackageInput = { display_name: ' a ', description: 'b', tags: ['B', 'a'], planning_instructions: [' c '], change_reason: 'd' };
    const copy = structuredClone(input);
    normalizePackage(input);
    expect(input).toEqual(copy);
  });
});

describe('compareCodePoints', () => {
  it('orders by code point, placing astral characters after U+FFFF', () => {
    expect(['\uffff', '\u{10000}', 'a'].sort(compareCodePoints)).toEqual(['a', '\uffff', '\u{10000}']);
  });

  it('agrees with comparing arrays of code points', () => {
    const points = (s: string) => [...s].map((c) => c.codePointAt(0)!);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        const x = points(a);
        const y = points(b);
        let expected = 0;
        for (let i = 0; i < Math.min(x.length, y.length) && expected === 0; i++) expected = x[i]! - y[i]!;
        if (expected === 0) expected = x.length - y.length;
        expect(Math.sign(compareCodePoints(a, b))).toBe(Math.sign(expected));
      }),
    );
  });

  it('makes normalizeLabels order-independent', () => {
    fc.assert(
      fc.property(fc.array(fc.string()), (labels) => {
        expect(normalizeLabels([...labels].reverse())).toEqual(normalizeLabels(labels));
      }),
    );
  });
});
