import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CatalogWatch } from '../../../../core/api/catalogWatch';
import type { SkillMetadata } from '../../../../core/store/types';

function entry(name: string, version: number, hash = `sha256:${name}${version}`): SkillMetadata {
  return { namespace: 'ns', name, display_name: name, description: '', domains: [], tags: [], version, manifest_hash: hash, updated_at: '2025-01-01T00:00:00Z' };
}

describe('CatalogWatch', () => {
  it('takes the first look as the baseline, then reports new, replaced and removed skills', () => {
    const watch = new CatalogWatch();
    expect(watch.compare('c', [entry('a', 1), entry('b', 1)])).toEqual({ kind: 'baseline' });
    expect(watch.compare('c', [entry('a', 1), entry('b', 1)])).toEqual({ kind: 'changes', changes: [] });
    const next = watch.compare('c', [entry('a', 2), entry('c', 1)]);
    expect(next).toEqual({
      kind: 'changes',
      changes: [{ skill: { namespace: 'ns', name: 'a' }, version: 2 }, { skill: { namespace: 'ns', name: 'c' }, version: 1 }, { skill: { namespace: 'ns', name: 'b' } }],
    });
  });

  it('does not report a publication this session noted', () => {
    const watch = new CatalogWatch();
    watch.compare('c', [entry('a', 1)]);
    watch.note('c', { namespace: 'ns', name: 'a' }, 2, 'sha256:a2');
    expect(watch.compare('c', [entry('a', 2)])).toEqual({ kind: 'changes', changes: [] });
  });

  it('takes a view\'s whole read as the baseline only when nothing was seen yet', () => {
    const watch = new CatalogWatch();
    watch.look('c', [entry('a', 1)]);
    expect(watch.compare('c', [entry('a', 1), entry('b', 1)])).toEqual({ kind: 'changes', changes: [{ skill: { namespace: 'ns', name: 'b' }, version: 1 }] });
    // A later read changes nothing: the rechecks own the baseline from then on.
    watch.look('c', [entry('a', 1), entry('b', 1), entry('c', 1)]);
    expect(watch.compare('c', [entry('a', 1), entry('b', 1), entry('c', 1)])).toEqual({ kind: 'changes', changes: [{ skill: { namespace: 'ns', name: 'c' }, version: 1 }] });
  });

  it('keeps its own publication over a read that started before it landed, and never reports it', () => {
    const watch = new CatalogWatch();
    watch.compare('c', [entry('a', 1)]);
    const ticket = watch.ticket();
    // The read lists v1 while the publication of v2 lands.
    watch.note('c', { namespace: 'ns', name: 'a' }, 2, 'sha256:a2');
    expect(watch.compare('c', [entry('a', 1)], ticket)).toEqual({ kind: 'changes', changes: [] });
    expect(watch.compare('c', [entry('a', 2)])).toEqual({ kind: 'changes', changes: [] });
    // Once a read has shown it, a later change is another writer's again.
    expect(watch.compare('c', [entry('a', 3)])).toEqual({ kind: 'changes', changes: [{ skill: { namespace: 'ns', name: 'a' }, version: 3 }] });
  });

  it('does not call its own publication during the first look another writer\'s', () => {
    const watch = new CatalogWatch();
    const ticket = watch.ticket();
    watch.note('c', { namespace: 'ns', name: 'new' }, 1, 'sha256:new1');
    expect(watch.compare('c', [entry('a', 1)], ticket)).toEqual({ kind: 'baseline' });
    expect(watch.compare('c', [entry('a', 1), entry('new', 1)])).toEqual({ kind: 'changes', changes: [] });
  });

  it('keeps connections apart and starts over after forget', () => {
    const watch = new CatalogWatch();
    watch.compare('x', [entry('a', 1)]);
    expect(watch.compare('y', [entry('a', 5)])).toEqual({ kind: 'baseline' });
    watch.forget('x');
    expect(watch.compare('x', [entry('a', 9)])).toEqual({ kind: 'baseline' });
  });

  it('reports exactly the skills whose published revision differs (property)', () => {
    const catalog = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), fc.integer({ min: 1, max: 3 }));
    fc.assert(
      fc.property(catalog, catalog, (before, after) => {
        const watch = new CatalogWatch();
        watch.compare('c', Object.entries(before).map(([n, v]) => entry(n, v)));
        const result = watch.compare('c', Object.entries(after).map(([n, v]) => entry(n, v)));
        const reported = result.kind === 'changes' ? result.changes.map((c) => c.skill.name).sort() : [];
        const expected = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((n) => before[n] !== after[n]).sort();
        expect(reported).toEqual(expected);
      }),
    );
  });
});
