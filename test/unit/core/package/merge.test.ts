import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mergePackages, type MergeResult } from '../../../../core/package/merge';
import type { SkillPackage, SkillResource } from '../../../../core/package/types';
import { mergeTripleArb, packageVariantArb, skillPackageArb } from './arbitraries';

function resource(name: string, content = `Notes for ${name}.`): SkillResource {
  return {
    name,
    description: `About ${name}.`,
    load_when: `Load when ${name} matters.`,
    applies_to: [],
    required_when_selected: false,
    content_type: 'text/plain',
    content,
  };
}

function base(): SkillPackage {
  return {
    display_name: 'Currency conversion',
    description: 'Use when a request asks to convert an amount between currencies.',
    domains: ['finance', 'travel'],
    tags: ['currency', 'fx'],
    planning_instructions: ['Get the rate for the requested date.'],
    response_instructions: ['State the rate and its timestamp.'],
    tool_hints: ['get_exchange_rate'],
    resources: [resource('rounding-rules'), resource('card-fees')],
    activation_examples: { should_activate: ['Convert 50 EUR to JPY'], should_not_activate: ['Will it rain in Osaka?'] },
    change_reason: 'Base',
  };
}

function edit(p: SkillPackage, f: (q: SkillPackage) => void): SkillPackage {
  const q = structuredClone(p);
  f(q);
  return q;
}

const FIELDS = ['display_name', 'description', 'planning_instructions', 'response_instructions', 'tool_hints'] as const;
const EXAMPLE_FIELDS = ['should_activate', 'should_not_activate'] as const;
const RESOURCE_FIELDS = ['description', 'load_when', 'applies_to', 'required_when_selected', 'content_type', 'content'] as const;

describe('mergePackages: hand-written cases', () => {
  it('takes a field changed on one side only', () => {
    const b = base();
    const theirs = edit(b, (p) => (p.description = 'Use when a request asks to convert money or compare exchange rates.'));
    const mine = edit(b, (p) => (p.planning_instructions = ['Get the rate for the requested date.', 'Ask for the amount if missing.']));
    const r = mergePackages(b, theirs, mine);
    expect(r.clean).toBe(true);
    expect(r.conflicts).toEqual([]);
    expect(r.merged.description).toBe(theirs.description);
    expect(r.merged.planning_instructions).toEqual(mine.planning_instructions);
  });

  it('accepts the same change on both sides without a conflict', () => {
    const b = base();
    const both = (p: SkillPackage): void => {
      p.tool_hints = ['get_exchange_rate', 'get_historical_rate'];
    };
    const r = mergePackages(b, edit(b, both), edit(b, both));
    expect(r.clean).toBe(true);
    expect(r.merged.tool_hints).toEqual(['get_exchange_rate', 'get_historical_rate']);
  });

  it('reports different changes on both sides as a conflict and keeps mine', () => {
    const b = base();
    const theirs = edit(b, (p) => (p.display_name = 'FX conversion'));
    const mine = edit(b, (p) => (p.display_name = 'Money conversion'));
    const r = mergePackages(b, theirs, mine);
    expect(r.clean).toBe(false);
    expect(r.conflicts).toEqual([{ path: '/display_name', field: 'display_name', base: 'Currency conversion', theirs: 'FX conversion', mine: 'Money conversion' }]);
    expect(r.merged.display_name).toBe('Money conversion');
  });

  it('reports a conflict on one activation example list with a nested path', () => {
    const b = base();
    const theirs = edit(b, (p) => p.activation_examples.should_activate.push('How many dollars is 20 pounds?'));
    const mine = edit(b, (p) => p.activation_examples.should_activate.push('Convert 1000 INR to USD'));
    const r = mergePackages(b, theirs, mine);
    expect(r.conflicts.map((c) => [c.path, c.field])).toEqual([['/activation_examples/should_activate', 'activation_examples.should_activate']]);
  });

  it('merges domains and tags as sets, never conflicting', () => {
    const b = base();
    const theirs = edit(b, (p) => {
      p.domains = ['finance', 'payments', 'travel'];
      p.tags = ['currency'];
    });
    const mine = edit(b, (p) => {
      p.domains = ['finance'];
      p.tags = ['currency', 'exchange', 'fx'];
    });
    const r = mergePackages(b, theirs, mine);
    expect(r.clean).toBe(true);
    expect(r.merged.domains).toEqual(['finance', 'payments']);
    expect(r.merged.tags).toEqual(['currency', 'exchange']);
  });

  it('always takes change_reason from mine', () => {
    const b = base();
    const r = mergePackages(b, edit(b, (p) => (p.change_reason = 'Theirs')), edit(b, (p) => (p.change_reason = 'Mine')));
    expect(r.clean).toBe(true);
    expect(r.merged.change_reason).toBe('Mine');
  });

  it('merges resources by name: additions of both sides, mine first, then theirs', () => {
    const b = base();
    const theirs = edit(b, (p) => p.resources.push(resource('tax-refunds')));
    const mine = edit(b, (p) => {
      p.resources.unshift(resource('cash-tips'));
    });
    const r = mergePackages(b, theirs, mine);
    expect(r.clean).toBe(true);
    expect(r.merged.resources.map((x) => x.name)).toEqual(['cash-tips', 'rounding-rules', 'card-fees', 'tax-refunds']);
  });

  it('merges a resource present on all sides field by field', () => {
    const b = base();
    const theirs = edit(b, (p) => (p.resources[1]!.content = 'Card fees: check the issuer schedule.'));
    const mine = edit(b, (p) => (p.resources[1]!.load_when = 'Load when the user pays by card abroad.'));
    const r = mergePackages(b, theirs, mine);
    expect(r.clean).toBe(true);
    expect(r.merged.resources[1]).toEqual({ ...b.resources[1], content: theirs.resources[1]!.content, load_when: mine.resources[1]!.load_when });
  });

  it('reports a field conflict inside a resource with its path in the merged package', () => {
    const b = base();
    const theirs = edit(b, (p) => (p.resources[1]!.content = 'Theirs.'));
    const mine = edit(b, (p) => {
      p.resources[1]!.content = 'Mine.';
      p.resources.unshift(resource('cash-tips'));
    });
    const r = mergePackages(b, theirs, mine);
    expect(r.conflicts).toEqual([{ path: '/resources/2/content', field: 'content', resource: 'card-fees', base: 'Notes for card-fees.', theirs: 'Theirs.', mine: 'Mine.' }]);
    expect(r.merged.resources[2]!.content).toBe('Mine.');
  });

  it('removes a resource removed on one side and unchanged on the other', () => {
    const b = base();
    const theirs = edit(b, (p) => p.resources.splice(0, 1));
    const r = mergePackages(b, theirs, b);
    expect(r.clean).toBe(true);
    expect(r.merged.resources.map((x) => x.name)).toEqual(['card-fees']);
    const r2 = mergePackages(b, b, theirs);
    expect(r2.merged.resources.map((x) => x.name)).toEqual(['card-fees']);
  });

  it('reports theirs-removed against mine-changed, and keeps mine', () => {
    const b = base();
    const theirs = edit(b, (p) => p.resources.splice(0, 1));
    const mine = edit(b, (p) => (p.resources[0]!.content = 'Round half to even.'));
    const r = mergePackages(b, theirs, mine);
    expect(r.conflicts).toEqual([{ path: '/resources/0', field: 'resources', resource: 'rounding-rules', base: b.resources[0], theirs: null, mine: mine.resources[0] }]);
    expect(r.merged.resources.map((x) => x.content)).toEqual(['Round half to even.', 'Notes for card-fees.']);
  });

  it('reports mine-removed against theirs-changed, keeps the removal and points into theirs', () => {
    const b = base();
    const theirs = edit(b, (p) => (p.resources[1]!.content = 'New fee table.'));
    const mine = edit(b, (p) => p.resources.splice(1, 1));
    const r = mergePackages(b, theirs, mine);
    expect(r.conflicts).toEqual([{ path: '/resources/1', field: 'resources', resource: 'card-fees', base: b.resources[1], theirs: theirs.resources[1], mine: null }]);
    expect(r.merged.resources.map((x) => x.name)).toEqual(['rounding-rules']);
  });

  it('merges a resource added on both sides: equal fields agree, different fields conflict with base null', () => {
    const b = base();
    const theirs = edit(b, (p) => p.resources.push(resource('tax-refunds', 'Theirs.')));
    const mine = edit(b, (p) => p.resources.push(resource('tax-refunds', 'Mine.')));
    const r = mergePackages(b, theirs, mine);
    expect(r.conflicts).toEqual([{ path: '/resources/2/content', field: 'content', resource: 'tax-refunds', base: null, theirs: 'Theirs.', mine: 'Mine.' }]);
    expect(r.merged.resources.map((x) => x.name)).toEqual(['rounding-rules', 'card-fees', 'tax-refunds']);
  });

  it('keeps a reordering published by theirs when mine did not touch the resource list', () => {
    const b = base();
    const theirs = edit(b, (p) => p.resources.reverse());
    const mine = edit(b, (p) => (p.description = 'Use when a request mentions exchange rates.'));
    expect(mergePackages(b, theirs, mine).merged.resources.map((x) => x.name)).toEqual(['card-fees', 'rounding-rules']);
  });

  it('does not modify its inputs or share structure with them', () => {
    const b = base();
    const theirs = edit(b, (p) => p.resources.push(resource('tax-refunds')));
    const mine = edit(b, (p) => (p.tags = ['currency']));
    const snapshot = structuredClone([b, theirs, mine]);
    const r = mergePackages(b, theirs, mine);
    r.merged.resources[0]!.applies_to.push('planning');
    r.merged.planning_instructions.push('x');
    r.merged.resources[2]!.content = 'changed';
    expect([b, theirs, mine]).toEqual(snapshot);
  });
});

/** Checks that every change of `side` against `base` survives in `r.merged`, except where a conflict was reported. */
function assertSideKept(r: MergeResult, base: SkillPackage, side: SkillPackage): void {
  const conflicted = new Set(r.conflicts.map((c) => `${c.resource ?? ''}|${c.field}`));
  const m = r.merged;
  for (const f of FIELDS) {
    if (conflicted.has(`|${f}`)) expect(m[f]).toEqual(r.conflicts.find((c) => c.field === f)!.mine);
    else if (JSON.stringify(side[f]) !== JSON.stringify(base[f])) expect(m[f]).toEqual(side[f]);
  }
  for (const f of EXAMPLE_FIELDS) {
    const name = `activation_examples.${f}`;
    if (conflicted.has(`|${name}`)) continue;
    if (JSON.stringify(side.activation_examples[f]) !== JSON.stringify(base.activation_examples[f])) expect(m.activation_examples[f]).toEqual(side.activation_examples[f]);
  }
  for (const f of ['domains', 'tags'] as const) {
    for (const v of side[f]) if (!base[f].includes(v)) expect(m[f]).toContain(v);
    for (const v of base[f]) if (!side[f].includes(v)) expect(m[f]).not.toContain(v);
  }
  const merged = new Map(m.resources.map((x) => [x.name, x] as const));
  const baseRes = new Map(base.resources.map((x) => [x.name, x] as const));
  const sideRes = new Map(side.resources.map((x) => [x.name, x] as const));
  for (const [name, rb] of baseRes) {
    const rs = sideRes.get(name);
    if (conflicted.has(`${name}|resources`)) continue;
    if (!rs) {
      expect(merged.has(name)).toBe(false);
      continue;
    }
    for (const f of RESOURCE_FIELDS) {
      if (conflicted.has(`${name}|${f}`)) continue;
      if (JSON.stringify(rs[f]) !== JSON.stringify(rb[f])) expect(merged.get(name)?.[f]).toEqual(rs[f]);
    }
  }
  for (const [name, rs] of sideRes) {
    if (baseRes.has(name)) continue;
    expect(merged.has(name)).toBe(true);
    for (const f of RESOURCE_FIELDS) if (!conflicted.has(`${name}|${f}`)) expect(merged.get(name)![f]).toEqual(rs[f]);
  }
}

describe('mergePackages: properties', () => {
  it('merge(base, x, base) = x', () => {
    fc.assert(
      fc.property(skillPackageArb.chain((b) => fc.tuple(fc.constant(b), packageVariantArb(b))), ([b, x]) => {
        const r = mergePackages(b, x, b);
        expect(r.clean).toBe(true);
        // change_reason always comes from mine, so compare the rest.
        expect({ ...r.merged, change_reason: x.change_reason }).toEqual(x);
      }),
      { numRuns: 300 },
    );
  });

  it('merge(base, base, x) = x', () => {
    fc.assert(
      fc.property(skillPackageArb.chain((b) => fc.tuple(fc.constant(b), packageVariantArb(b))), ([b, x]) => {
        const r = mergePackages(b, b, x);
        expect(r.clean).toBe(true);
        expect(r.merged).toEqual(x);
      }),
      { numRuns: 300 },
    );
  });

  it('merge(base, x, x) = x', () => {
    fc.assert(
      fc.property(skillPackageArb.chain((b) => fc.tuple(fc.constant(b), packageVariantArb(b))), ([b, x]) => {
        const r = mergePackages(b, x, x);
        expect(r.clean).toBe(true);
        expect(r.merged).toEqual(x);
      }),
      { numRuns: 300 },
    );
  });

  it('never loses a change of either side outside the reported conflicts; conflicts keep mine', () => {
    let clean = 0;
    let conflicting = 0;
    fc.assert(
      fc.property(mergeTripleArb, ([b, theirs, mine]) => {
        const r = mergePackages(b, theirs, mine);
        expect(r.clean).toBe(r.conflicts.length === 0);
        if (r.clean) clean++;
        else conflicting++;
        assertSideKept(r, b, theirs);
        assertSideKept(r, b, mine);
        expect(r.merged.change_reason).toBe(mine.change_reason);
        const names = r.merged.resources.map((x) => x.name);
        expect(new Set(names).size).toBe(names.length);
        // Whenever mine changed the resource list, merged keeps mine's order, then theirs' additions.
        if (JSON.stringify(mine.resources.map((x) => x.name)) !== JSON.stringify(b.resources.map((x) => x.name))) {
          const fromMine = mine.resources.map((x) => x.name).filter((n) => names.includes(n));
          expect(names.slice(0, fromMine.length)).toEqual(fromMine);
        }
        for (const c of r.conflicts) {
          expect(c.path.startsWith('/')).toBe(true);
          if (c.field === 'resources') continue;
          if (c.resource !== undefined) expect(r.merged.resources.find((x) => x.name === c.resource)?.[c.field as (typeof RESOURCE_FIELDS)[number]]).toEqual(c.mine);
        }
      }),
      { numRuns: 500 },
    );
    // The generator must exercise both outcomes, or the property proves little.
    expect(clean).toBeGreaterThan(25);
    expect(conflicting).toBeGreaterThan(25);
  });

  it('a conflict-free merge is symmetric in content apart from change_reason and resource order', () => {
    fc.assert(
      fc.property(mergeTripleArb, ([b, theirs, mine]) => {
        const r1 = mergePackages(b, theirs, mine);
        const r2 = mergePackages(b, mine, theirs);
        expect(r1.clean).toBe(r2.clean);
        if (!r1.clean) return;
        const norm = (p: SkillPackage): unknown => ({ ...p, change_reason: '', resources: [...p.resources].sort((x, y) => (x.name < y.name ? -1 : 1)) });
        expect(norm(r1.merged)).toEqual(norm(r2.merged));
      }),
      { numRuns: 300 },
    );
  });
});
