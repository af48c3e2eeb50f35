import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mergePackages, validatePackage } from '../../../../core/package/index';
import type { SkillPackage } from '../../../../core/package/types';
import { applyResolutions, canKeepBoth, conflictsWithoutBase, fieldRows, isTextConflict, unresolved, type Resolution } from '../../../../renderer/publish/merge';

const text = readFileSync(new URL('../../../../examples/skills/packages/devops/incident-response.json', import.meta.url), 'utf8');
const base = validatePackage(text).normalized!;
const copy = (): SkillPackage => structuredClone(base);

describe('merge after a 412', () => {
  // Theirs (published meanwhile) adds an example and edits the display name; mine adds another example and edits the description.
  const theirs = copy();
  theirs.display_name = 'Incident Response (on call)';
  theirs.activation_examples.should_activate.push('Theirs: the checkout page returns 500 errors');
  const mine = copy();
  mine.description = `${mine.description} Also for game days.`;
  mine.activation_examples.should_activate.push('Mine: login is down for everyone in Europe');
  const merge = mergePackages(base, theirs, mine);

  it('auto-merges one-sided changes and leaves the one real conflict', () => {
    const rows = Object.fromEntries(fieldRows(base, theirs, mine, merge.conflicts, merge.merged).map((r) => [r.field, r.state]));
    expect(rows['display_name']).toBe('theirs');
    expect(rows['description']).toBe('mine');
    expect(rows['tags']).toBe('unchanged');
    expect(rows['activation_examples.should_activate']).toBe('conflict');
    expect(merge.conflicts).toHaveLength(1);
    expect(canKeepBoth(merge.conflicts[0]!)).toBe(true);
    expect(isTextConflict(merge.conflicts[0]!)).toBe(false);
  });

  it('says the change reason comes from mine when only theirs changed it, as the merged result does', () => {
    const theirsReason = copy();
    theirsReason.change_reason = 'Theirs: a new reason';
    const merged = mergePackages(base, theirsReason, copy());
    expect(merged.merged.change_reason).toBe(base.change_reason);
    const row = fieldRows(base, theirsReason, copy(), merged.conflicts, merged.merged).find((r) => r.field === 'change_reason');
    expect(row?.state).toBe('mine');
  });

  it('keeps both sets of examples with Both, and the result validates', () => {
    const resolutions = new Map<number, Resolution>();
    expect(unresolved(merge.conflicts, resolutions)).toBe(1);
    resolutions.set(0, { pick: 'both' });
    expect(unresolved(merge.conflicts, resolutions)).toBe(0);
    const result = applyResolutions(merge.merged, merge.conflicts, resolutions);
    expect(result.activation_examples.should_activate).toEqual([...theirs.activation_examples.should_activate, 'Mine: login is down for everyone in Europe']);
    expect(result.display_name).toBe(theirs.display_name);
    expect(result.description).toBe(mine.description);
    expect(validatePackage(JSON.stringify(result)).valid).toBe(true);
    // The merge's own package is untouched.
    expect(merge.merged.activation_examples.should_activate).toEqual(mine.activation_examples.should_activate);
  });

  it('resolves a text conflict with an edited text', () => {
    const t = copy();
    t.description = 'Use when an outage is reported (theirs).';
    const m = copy();
    m.description = 'Use when an outage is reported (mine).';
    const conflictMerge = mergePackages(base, t, m);
    expect(isTextConflict(conflictMerge.conflicts[0]!)).toBe(true);
    const result = applyResolutions(conflictMerge.merged, conflictMerge.conflicts, new Map([[0, { pick: 'edit', text: 'Use when an outage is reported.' }]]));
    expect(result.description).toBe('Use when an outage is reported.');
    expect(applyResolutions(conflictMerge.merged, conflictMerge.conflicts, new Map([[0, { pick: 'theirs' }]])).description).toBe(t.description);
  });

  it('brings back a resource mine removed when theirs changed it and Theirs is picked', () => {
    const t = copy();
    t.resources[0]!.content = `${t.resources[0]!.content}\nOne more line.`;
    const m = copy();
    const [gone] = m.resources.splice(0, 1);
    const conflictMerge = mergePackages(base, t, m);
    expect(conflictMerge.conflicts.map((c) => c.resource)).toEqual([gone!.name]);
    const result = applyResolutions(conflictMerge.merged, conflictMerge.conflicts, new Map([[0, { pick: 'theirs' }]]));
    expect(result.resources.map((r) => r.name)).toContain(gone!.name);
    expect(applyResolutions(conflictMerge.merged, conflictMerge.conflicts, new Map([[0, { pick: 'mine' }]])).resources.map((r) => r.name)).not.toContain(gone!.name);
  });

  it('without a base, calls every disagreeing field a conflict', () => {
    expect(conflictsWithoutBase(theirs, mine).map((c) => c.field)).toEqual(['display_name', 'description', 'activation_examples.should_activate']);
  });
});
