import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseBindings } from '../../../../core/selector/bindings';
import { formatBindings } from '../../../../core/catalog/bindingsFile';
import { proposeSplit, type SkillAffinity } from '../../../../core/catalog/split';
import { DEFAULT_SELECTOR_LIMITS, type SelectorLimits } from '../../../../core/selector/limits';
import { activationEntry, renderCatalog } from '../../../../core/selector/render';
import type { PinnedCandidate, SkillBinding } from '../../../../core/selector/types';
import { candidate } from './candidate';

const bindingOf = (c: PinnedCandidate): SkillBinding => ({ namespace: c.namespace, name: c.name, version: 'published', activation: c.activation, required: false });

/** What the runtime checks of one agent catalog, recomputed from the part's bindings alone. */
function fitsAsTheRuntimeSees(bindings: readonly SkillBinding[], candidates: readonly PinnedCandidate[], limits: SelectorLimits): boolean {
  const ids = new Set(bindings.map((b) => `${b.namespace}/${b.name}`));
  const auto = candidates.filter((c) => ids.has(c.id) && c.activation === 'auto').sort((a, b) => (a.id < b.id ? -1 : 1));
  return bindings.length <= limits.maxBindings && auto.length <= limits.maxAutoCandidates && renderCatalog(auto.map(activationEntry)).tokens <= limits.catalogTokenBudget;
}

const arbitraryCatalog = fc
  .record({
    lengths: fc.array(fc.integer({ min: 10, max: 700 }), { minLength: 1, maxLength: 30 }),
    always: fc.integer({ min: 0, max: 2 }),
    maxAuto: fc.integer({ min: 2, max: 16 }),
    budget: fc.integer({ min: 900, max: 3000 }),
    weights: fc.array(fc.tuple(fc.nat(29), fc.nat(29), fc.integer({ min: 0, max: 20 })), { maxLength: 60 }),
  })
  .map(({ lengths, always, maxAuto, budget, weights }) => {
    const candidates = lengths.map((n, i) => candidate(`skill-${i}`, `Use when ${'w'.repeat(n)}`, i < always ? 'always' : 'auto'));
    const affinity: SkillAffinity[] = weights.filter(([a, b]) => a < lengths.length && b < lengths.length).map(([a, b, weight]) => ({ a: `docs/skill-${a}`, b: `docs/skill-${b}`, weight }));
    const limits: SelectorLimits = { ...DEFAULT_SELECTOR_LIMITS, maxAutoCandidates: maxAuto, catalogTokenBudget: budget };
    return { candidates, affinity, limits };
  });

describe('proposeSplit', () => {
  it('every part fits the runtime limits and every skill is in exactly one part (or named as unplaceable)', () => {
    fc.assert(
      fc.property(arbitraryCatalog, ({ candidates, affinity, limits }) => {
        const bindings = candidates.map(bindingOf);
        const proposal = proposeSplit({ bindings, candidates, affinity, limits });
        for (const part of proposal.parts) expect(fitsAsTheRuntimeSees(part.bindings, candidates, limits)).toBe(true);
        const auto = candidates.filter((c) => c.activation === 'auto').map((c) => c.id);
        const placed = proposal.parts.flatMap((p) => p.skills);
        const unplaced = proposal.unplaced.map((u) => u.skill);
        expect([...placed, ...unplaced].sort()).toEqual([...auto].sort());
        expect(new Set(placed).size).toBe(placed.length);
        // A skill is left out only when it cannot fit even alone.
        for (const id of unplaced) {
          const alone = [...bindings.filter((b) => b.activation !== 'auto'), bindings.find((b) => `${b.namespace}/${b.name}` === id)!];
          expect(fitsAsTheRuntimeSees(alone, candidates, limits)).toBe(false);
        }
        // Bindings that are not auto go into every part.
        const shared = bindings.filter((b) => b.activation !== 'auto');
        for (const part of proposal.parts) for (const s of shared) expect(part.bindings).toContainEqual(s);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps the most confused pair together and says which pairs it had to separate', () => {
    // Sixteen skills of about 170 tokens: neither 16 nor 2 000 tokens fit one catalog.
    const candidates = Array.from({ length: 17 }, (_, i) => candidate(`skill-${String(i).padStart(2, '0')}`, `Use when ${'word '.repeat(110)}`));
    const bindings = candidates.map(bindingOf);
    const first = candidates[0]!.id;
    const last = candidates[16]!.id;
    const affinity = [
      { a: first, b: last, weight: 50 },
      { a: candidates[1]!.id, b: candidates[15]!.id, weight: 10 },
    ];
    const proposal = proposeSplit({ bindings, candidates, affinity });
    expect(proposal.needed).toBe(true);
    expect(proposal.parts.length).toBeGreaterThanOrEqual(2);
    expect(proposal.kept.map((p) => [p.a, p.b])).toContainEqual([first, last]);
    expect(proposal.parts.find((p) => p.skills.includes(first))!.skills).toContain(last);
    for (const p of proposal.parts) expect(p.catalog_tokens).toBeLessThanOrEqual(DEFAULT_SELECTOR_LIMITS.catalogTokenBudget);
    // Balanced: no part has more than one group's worth more skills than another.
    const sizes = proposal.parts.map((p) => p.skills.length);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(2);
  });

  it('proposes the catalog itself when it fits', () => {
    const candidates = [candidate('a', 'Use when a.'), candidate('b', 'Use when b.')];
    const proposal = proposeSplit({ bindings: candidates.map(bindingOf), candidates });
    expect(proposal.needed).toBe(false);
    expect(proposal.parts.map((p) => p.skills)).toEqual([['docs/a', 'docs/b']]);
  });
});

describe('formatBindings', () => {
  it('writes a list parseBindings reads back unchanged', () => {
    const slug = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/).filter((s) => !s.includes('--'));
    const binding = fc.record({
      namespace: slug,
      name: slug,
      version: fc.oneof(fc.constant<'published'>('published'), fc.integer({ min: 1, max: 1_000_000 })),
      activation: fc.constantFrom<SkillBinding['activation'][]>('always', 'auto', 'explicit'),
      required: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.uniqueArray(binding, { selector: (b) => `${b.namespace}/${b.name}`, maxLength: 20 }), (bindings) => {
        const parsed = parseBindings(formatBindings(bindings));
        expect(parsed).toEqual({ ok: true, bindings });
      }),
    );
  });
});
