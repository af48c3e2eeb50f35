import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { diffLists, diffPackages, diffSets, diffWords, jsonPointer, type FieldChange, type TextDiff } from '../../../../core/package/diff';
import { diffSequences, tokenize, MAX_DIFF_EDITS } from '../../../../core/package/wordDiff';
import type { SkillPackage, SkillResource } from '../../../../core/package/types';
import { packageVariantArb, skillPackageArb } from './arbitraries';

const checklist: SkillResource = {
  name: 'weather-risk-checklist',
  description: 'Checklist for weather-sensitive advice.',
  load_when: 'Load when severe weather could change the plan.',
  applies_to: ['planning', 'synthesis'],
  required_when_selected: false,
  content_type: 'text/markdown',
  content: 'Look at the forecast horizon and its confidence.\nMention wind and heat extremes.',
};

function pkg(overrides: Partial<SkillPackage> = {}): SkillPackage {
  return {
    display_name: 'Weather check',
    description: 'Use when a trip may be affected by storms or heat.',
    domains: ['travel'],
    tags: ['forecast', 'weather'],
    planning_instructions: ['Find the coordinates of the destination first.', 'Compare the forecast with the travel dates.'],
    response_instructions: ['Say how certain the forecast is.'],
    tool_hints: ['geocode', 'get_forecast'],
    resources: [structuredClone(checklist)],
    activation_examples: { should_activate: ['Will it rain in Lisbon on Friday?'], should_not_activate: ['Book a taxi to the airport'] },
    change_reason: 'First version',
    ...overrides,
  };
}

function joinOps(d: TextDiff, ops: string[]): string {
  return d.segments
    .filter((s) => ops.includes(s.op))
    .map((s) => s.text)
    .join('');
}

/** Resolves a JSON Pointer in a plain JSON value. */
function resolve(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((v, key) => (v as Record<string, unknown>)[key], doc);
}

/** Length of a longest common subsequence, by dynamic programming (the slow, obvious way). */
function lcsLength<T>(a: readonly T[], b: readonly T[]): number {
  const row = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    let diag = 0;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j]!;
      row[j] = x === b[j - 1] ? diag + 1 : Math.max(row[j]!, row[j - 1]!);
      diag = up;
    }
  }
  return row[b.length]!;
}

const whitespaceyText = fc
  .array(fc.oneof(fc.constantFrom('a', 'b', 'storm', 'wind', ' ', '  ', '\n', '\t', '\r\n', 'é', '🌧', ',', '\u00a0'), fc.string({ maxLength: 4 })), { maxLength: 30 })
  .map((parts) => parts.join(''));

describe('diffWords', () => {
  it('marks the changed words of a sentence and counts them', () => {
    const d = diffWords('Check the wind before you fly.', 'Check the wind and heat before you drive.');
    expect(d.segments).toEqual([
      { op: 'equal', text: 'Check the wind ' },
      { op: 'insert', text: 'and heat ' },
      { op: 'equal', text: 'before you ' },
      { op: 'delete', text: 'fly.' },
      { op: 'insert', text: 'drive.' },
    ]);
    expect(d.inserted_words).toBe(3);
    expect(d.deleted_words).toBe(1);
    expect(d.exact).toBe(true);
  });

  it('reads a rewritten phrase as one delete and one insert, not word by word', () => {
    const d = diffWords('keep calm and carry on', 'keep going or stop now');
    expect(d.segments).toEqual([
      { op: 'equal', text: 'keep ' },
      { op: 'delete', text: 'calm and carry on' },
      { op: 'insert', text: 'going or stop now' },
    ]);
  });

  it('returns no segments for two empty texts and one equal segment for equal texts', () => {
    expect(diffWords('', '').segments).toEqual([]);
    expect(diffWords('same text', 'same text').segments).toEqual([{ op: 'equal', text: 'same text' }]);
  });

  it('property: equal+delete rebuild before, equal+insert rebuild after', () => {
    fc.assert(
      fc.property(whitespaceyText, whitespaceyText, (before, after) => {
        const d = diffWords(before, after);
        expect(joinOps(d, ['equal', 'delete'])).toBe(before);
        expect(joinOps(d, ['equal', 'insert'])).toBe(after);
        expect(d.segments.every((s) => s.text !== '')).toBe(true);
        // Adjacent segments never share an op, and a delete never follows an insert directly.
        d.segments.forEach((s, i) => {
          const next = d.segments[i + 1];
          if (next) {
            expect(next.op).not.toBe(s.op);
            expect(s.op === 'insert' && next.op === 'delete').toBe(false);
          }
        });
      }),
      { numRuns: 500 },
    );
  });

  it('property: the invariants hold when the edit bound forces a whole replace', () => {
    fc.assert(
      fc.property(whitespaceyText, whitespaceyText, fc.integer({ min: 1, max: 6 }), (before, after, bound) => {
        const d = diffWords(before, after, bound);
        expect(joinOps(d, ['equal', 'delete'])).toBe(before);
        expect(joinOps(d, ['equal', 'insert'])).toBe(after);
      }),
      { numRuns: 300 },
    );
  });

  it('property: word counts equal the words inside insert and delete segments', () => {
    fc.assert(
      fc.property(whitespaceyText, whitespaceyText, (before, after) => {
        const d = diffWords(before, after);
        const words = (ops: string[]): number => tokenize(joinOps(d, ops)).filter((t) => /\S/u.test(t)).length;
        // Folding separators only moves whitespace, so counting over the joined text is exact.
        expect(d.inserted_words).toBe(d.segments.filter((s) => s.op === 'insert').reduce((n, s) => n + (s.text.match(/\S+/gu)?.length ?? 0), 0));
        expect(d.deleted_words).toBe(d.segments.filter((s) => s.op === 'delete').reduce((n, s) => n + (s.text.match(/\S+/gu)?.length ?? 0), 0));
        expect(words(['equal', 'delete'])).toBe(tokenize(before).filter((t) => /\S/u.test(t)).length);
      }),
      { numRuns: 300 },
    );
  });

  it('degrades a diff beyond the bound to one delete and one insert between the common prefix and suffix', () => {
    const before = `start ${Array.from({ length: 50 }, (_, i) => `a${i}`).join(' ')} end`;
    const after = `start ${Array.from({ length: 50 }, (_, i) => `b${i}`).join(' ')} end`;
    const d = diffWords(before, after, 10);
    expect(d.exact).toBe(false);
    expect(d.segments.map((s) => s.op)).toEqual(['equal', 'delete', 'insert', 'equal']);
    expect(d.segments[0]!.text).toBe('start ');
    expect(d.segments[3]!.text).toBe(' end');
    // The same texts within the default bound are diffed exactly.
    expect(diffWords(before, after).exact).toBe(true);
  });

  it('diffs two 32 KiB resources exactly for a local edit and degrades for unrelated texts, both quickly', () => {
    let seed = 7;
    const rnd = (): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const vocab = Array.from({ length: 500 }, (_, i) => `w${i.toString(36)}`);
    const text = (): string => {
      let s = '';
      while (s.length < 32 * 1024) s += `${vocab[Math.floor(rnd() * vocab.length)]}${rnd() < 0.1 ? '\n' : ' '}`;
      return s.slice(0, 32 * 1024);
    };
    const a = text();
    const tokens = tokenize(a);
    const wordAt = tokens.flatMap((t, i) => (/\S/u.test(t) ? [i] : []));
    for (let e = 0; e < 100; e++) tokens[wordAt[Math.floor(rnd() * wordAt.length)]!] = `edit${e}`;
    const edited = tokens.join('');
    let t0 = performance.now();
    const local = diffWords(a, edited);
    const localMs = performance.now() - t0;
    expect(local.exact).toBe(true);
    expect(local.deleted_words).toBeLessThanOrEqual(100);
    expect(local.inserted_words).toBeLessThanOrEqual(100);
    expect(local.inserted_words).toBeGreaterThan(90);

    t0 = performance.now();
    const unrelated = diffWords(a, text());
    const unrelatedMs = performance.now() - t0;
    expect(unrelated.exact).toBe(false);
    // Generous ceilings for a shared CI machine; typical runs take well under 100 ms.
    expect(localMs).toBeLessThan(2000);
    expect(unrelatedMs).toBeLessThan(2000);
  });
});

describe('diffSequences', () => {
  it('property: its equal runs form a longest common subsequence', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 40 }), fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 40 }), (a, b) => {
        const { runs, exact } = diffSequences(a, b);
        expect(exact).toBe(true);
        const equal = runs.filter((r) => r.op === 'equal').reduce((n, r) => n + (r.aEnd - r.aStart), 0);
        expect(equal).toBe(lcsLength(a, b));
        for (const r of runs.filter((x) => x.op === 'equal')) expect(a.slice(r.aStart, r.aEnd)).toEqual(b.slice(r.bStart, r.bEnd));
      }),
      { numRuns: 500 },
    );
  });

  it('computes exactly up to its default bound of edits and replaces the middle whole beyond it', () => {
    // Disjoint sequences of n items each are 2n edits apart.
    const n = MAX_DIFF_EDITS / 2;
    const a = Array.from({ length: n + 1 }, (_, i) => i);
    const b = Array.from({ length: n + 1 }, (_, i) => -1 - i);
    expect(diffSequences(a.slice(0, n), b.slice(0, n)).exact).toBe(true);
    const over = diffSequences(a, b);
    expect(over.exact).toBe(false);
    expect(over.runs).toEqual([
      { op: 'delete', aStart: 0, aEnd: n + 1, bStart: 0, bEnd: 0 },
      { op: 'insert', aStart: n + 1, aEnd: n + 1, bStart: 0, bEnd: n + 1 },
    ]);
    // The bound is the default only: a caller may allow more.
    expect(diffSequences(a, b, MAX_DIFF_EDITS + 2).exact).toBe(true);
  });
});

describe('diffLists', () => {
  it('reports an edit in place, an addition and a move', () => {
    const d = diffLists(['Find the coordinates first.', 'Compare the forecast with the dates.', 'Mention the source.'], [
      'Mention the source.',
      'Find the coordinates first.',
      'Compare the hourly forecast with the travel dates.',
      'Flag heat above 35 degrees.',
    ]);
    expect(d.items.map((i) => i.op)).toEqual(['moved', 'equal', 'changed', 'added']);
    expect(d).toMatchObject({ added: 1, removed: 0, changed: 1, moved: 1 });
    expect(d.items[0]).toMatchObject({ before_index: 2, after_index: 0 });
    expect(d.items[2]!.text!.segments.filter((s) => s.op === 'insert').map((s) => s.text)).toEqual(['hourly ', 'travel ']);
  });

  it('keeps unrelated entries at the same place as a removal and an addition', () => {
    const d = diffLists(['Use metric units.'], ['Never book refundable fares blindly.']);
    expect(d.items.map((i) => i.op)).toEqual(['removed', 'added']);
  });

  it('property: every old entry and every new entry is accounted for exactly once', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a b', 'a c', 'x', 'y z', 'y', 'q r s'), { maxLength: 8 }), fc.array(fc.constantFrom('a b', 'a d', 'x', 'y z', 'z', 'q r t'), { maxLength: 8 }), (before, after) => {
        const d = diffLists(before, after);
        const seenBefore = d.items.filter((i) => i.before_index !== undefined).map((i) => i.before_index);
        const seenAfter = d.items.filter((i) => i.after_index !== undefined).map((i) => i.after_index);
        expect([...seenBefore].sort((x, y) => x! - y!)).toEqual(before.map((_, i) => i));
        expect(seenAfter).toEqual(after.map((_, i) => i));
        for (const i of d.items) {
          if (i.before_index !== undefined) expect(i.before).toBe(before[i.before_index]);
          if (i.after_index !== undefined) expect(i.after).toBe(after[i.after_index]);
          if (i.op === 'moved' || i.op === 'equal') expect(i.before).toBe(i.after);
        }
        expect(d.items.filter((i) => i.op === 'added')).toHaveLength(d.added);
        expect(d.items.filter((i) => i.op === 'removed')).toHaveLength(d.removed);
      }),
      { numRuns: 500 },
    );
  });
});

describe('diffPackages', () => {
  it('reports identical packages as identical and a same-content no-op', () => {
    const d = diffPackages(pkg(), pkg());
    expect(d).toMatchObject({ identical: true, same_content_noop: true, changes: [] });
    expect(d.summary.lines).toEqual([]);
    expect(d.summary.counts.fields).toBe(0);
  });

  it('treats a change of change_reason alone as a same-content no-op', () => {
    const d = diffPackages(pkg(), pkg({ change_reason: 'Retry publication' }));
    expect(d.identical).toBe(false);
    expect(d.same_content_noop).toBe(true);
    expect(d.changes.map((c) => c.path)).toEqual(['/change_reason']);
  });

  it('lists field changes in package field order with JSON Pointer paths and word diffs', () => {
    const before = pkg();
    const after = pkg({
      description: 'Use when a trip may be affected by storms, snow or heat.',
      domains: ['outdoor', 'travel'],
      tags: ['weather'],
      planning_instructions: ['Find the coordinates of the destination first.', 'Compare the hourly forecast with the travel dates.', 'Check official advisories.'],
      tool_hints: [],
      activation_examples: { should_activate: ['Will it rain in Lisbon on Friday?', 'Is it safe to hike Etna in August?'], should_not_activate: ['Book a taxi to the airport'] },
      change_reason: 'Cover snow',
    });
    const d = diffPackages(before, after);
    expect(d.identical).toBe(false);
    expect(d.same_content_noop).toBe(false);
    expect(d.changes.map((c) => [c.path, c.kind])).toEqual([
      ['/description', 'changed'],
      ['/domains', 'changed'],
      ['/tags', 'changed'],
      ['/planning_instructions', 'changed'],
      ['/tool_hints', 'removed'],
      ['/activation_examples/should_activate', 'changed'],
      ['/change_reason', 'changed'],
    ]);
    const description = d.changes[0]!;
    expect(description.detail?.type).toBe('text');
    expect(d.changes[1]!.detail).toEqual({ type: 'set', diff: { added: ['outdoor'], removed: [] } });
    expect(d.changes[2]!.detail).toEqual({ type: 'set', diff: { added: [], removed: ['forecast'] } });
    expect(d.summary.lines).toEqual([
      'description: changed (+2 \u22121 words)',
      'domains: added outdoor',
      'tags: removed forecast',
      'planning_instructions: 1 changed, 1 added',
      'tool_hints: 2 removed',
      'activation_examples.should_activate: 1 added',
      'change_reason: changed (+2 \u22122 words)',
    ]);
    expect(d.summary.counts).toMatchObject({ fields: 7, items_added: 2, items_changed: 1, values_added: 1, values_removed: 1 });
  });

  it('calls a list that was empty "added"', () => {
    const d = diffPackages(pkg({ response_instructions: [] }), pkg());
    expect(d.changes[0]).toMatchObject({ path: '/response_instructions', kind: 'added', after: ['Say how certain the forecast is.'] });
  });

  it('matches resources by name: added, removed, changed with a content word diff, and reordered', () => {
    const extra = (name: string): SkillResource => ({ ...structuredClone(checklist), name, content: `Notes for ${name}.` });
    const before = pkg({ resources: [structuredClone(checklist), extra('packing-list'), extra('old-notes')] });
    const changed: SkillResource = {
      ...structuredClone(checklist),
      load_when: 'Load when storms, snow or heat could change the plan.',
      applies_to: ['planning'],
      content: 'Look at the forecast horizon, the model run and its stated confidence.\nMention wind, snow and heat extremes, and any official advisory.',
    };
    const after = pkg({ resources: [extra('packing-list'), changed, extra('avalanche-basics')] });
    const d = diffPackages(before, after);
    expect(d.resources.added).toEqual([{ name: 'avalanche-basics', index: 2 }]);
    expect(d.resources.removed).toEqual([{ name: 'old-notes', index: 2 }]);
    expect(d.resources.unchanged).toEqual(['packing-list']);
    expect(d.resources.changed).toHaveLength(1);
    const rc = d.resources.changed[0]!;
    expect(rc).toMatchObject({ name: 'weather-risk-checklist', before_index: 0, after_index: 1 });
    expect(rc.changes.map((c) => c.field)).toEqual(['load_when', 'applies_to', 'content']);
    expect(rc.changes.map((c) => c.path)).toEqual(['/resources/1/load_when', '/resources/1/applies_to', '/resources/1/content']);
    expect(rc.changes[1]!.detail).toEqual({ type: 'set', diff: { added: [], removed: ['synthesis'] } });
    expect(rc.content).toEqual({ inserted_words: 12, deleted_words: 3, exact: true });
    expect(d.resources.reordered).toEqual({ before: ['weather-risk-checklist', 'packing-list'], after: ['packing-list', 'weather-risk-checklist'], moved: ['weather-risk-checklist'] });
    expect(d.summary.lines).toEqual([
      'resource avalanche-basics: added',
      'resource old-notes: removed',
      'resource weather-risk-checklist: load_when, applies_to changed; content changed (+12 \u22123 words)',
      'resources: reordered (1 move)',
    ]);
    expect(d.summary.counts).toMatchObject({ fields: 1, resources_added: 1, resources_removed: 1, resources_changed: 1, resources_reordered: true });
    const removed = d.changes.find((c) => c.kind === 'removed' && c.resource === 'old-notes')!;
    expect(removed.path).toBe('/resources/2');
    expect(resolve(before, removed.path)).toEqual(removed.before);
  });

  it('produces plain data with no references into its inputs', () => {
    const before = pkg();
    const after = pkg({ resources: [{ ...structuredClone(checklist), name: 'second' }] });
    const d = diffPackages(before, after);
    expect(JSON.parse(JSON.stringify(d))).toEqual(d);
    const added = d.changes.find((c) => c.kind === 'added' && c.resource === 'second')!;
    expect(added.after).not.toBe(after.resources[0]);
  });

  it('property: identical and same_content_noop agree with structural equality', () => {
    fc.assert(
      fc.property(skillPackageArb.chain((p) => fc.tuple(fc.constant(p), packageVariantArb(p))), ([a, b]) => {
        const d = diffPackages(a, b);
        expect(d.identical).toBe(JSON.stringify(a) === JSON.stringify(b));
        const content = (p: SkillPackage): string => JSON.stringify({ ...p, change_reason: '' });
        expect(d.same_content_noop).toBe(content(a) === content(b));
        expect(diffPackages(a, a).identical).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('property: every change path resolves to its value (removed in before, others in after)', () => {
    fc.assert(
      fc.property(skillPackageArb.chain((p) => fc.tuple(fc.constant(p), packageVariantArb(p))), ([a, b]) => {
        const d = diffPackages(a, b);
        const check = (c: FieldChange): void => {
          if (c.detail?.type === 'order') {
            expect(resolve(b, c.path)).toBeInstanceOf(Array);
            return;
          }
          if (c.kind === 'removed') expect(resolve(a, c.path)).toEqual(c.before);
          else expect(resolve(b, c.path)).toEqual(c.after);
          if (c.kind !== 'added') expect(c.before).toBeDefined();
        };
        d.changes.forEach(check);
        // Field order: top-level fields never repeat and appear in package order.
        const top = d.changes.filter((c) => c.resource === undefined && c.field !== 'resources').map((c) => c.path);
        expect(new Set(top).size).toBe(top.length);
        const order = ['/display_name', '/description', '/domains', '/tags', '/planning_instructions', '/response_instructions', '/tool_hints', '/activation_examples/should_activate', '/activation_examples/should_not_activate', '/change_reason'];
        expect([...top].sort((x, y) => order.indexOf(x) - order.indexOf(y))).toEqual(top);
      }),
      { numRuns: 300 },
    );
  });

  it('property: set diffs agree with the sets', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd')), fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd')), (x, y) => {
        const d = diffSets(x, y);
        expect(new Set([...x.filter((v) => !d.removed.includes(v)), ...d.added])).toEqual(new Set(y));
      }),
    );
  });
});

describe('jsonPointer', () => {
  it('escapes ~ and / per RFC 6901', () => {
    expect(jsonPointer('resources', 0, 'a/b~c')).toBe('/resources/0/a~1b~0c');
  });
});
