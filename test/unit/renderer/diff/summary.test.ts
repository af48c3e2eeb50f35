import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { diffPackages, validatePackage } from '../../../../core/package/index';
import type { SkillPackage } from '../../../../core/package/types';
import { headline, summaryChips } from '../../../../renderer/diff/summary';

const text = readFileSync(new URL('../../../../examples/skills/packages/devops/incident-response.json', import.meta.url), 'utf8');
const base = validatePackage(text).normalized!;
const copy = (): SkillPackage => structuredClone(base);

describe('diff summary', () => {
  it('reads "No changes" when only key order and whitespace differ', () => {
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(text) as Record<string, unknown>).reverse()));
    const diff = diffPackages(base, validatePackage(reordered).normalized!);
    expect(headline(diff)).toEqual({ kind: 'no-changes', text: 'No changes' });
    expect(summaryChips(diff)).toEqual([]);
  });

  it('calls a change of the change reason alone a same-content no-op', () => {
    const after = copy();
    after.change_reason = 'another reason';
    expect(headline(diffPackages(base, after)).kind).toBe('noop');
  });

  it('counts added examples and points at the first one', () => {
    const after = copy();
    after.activation_examples.should_activate.push('A brand new example request about an outage');
    const chips = summaryChips(diffPackages(base, after));
    const added = chips.find((c) => c.sign === '+' && c.text === '1 should_activate');
    expect(added).toMatchObject({ group: 'examples', side: 'after', pointer: `/activation_examples/should_activate/${after.activation_examples.should_activate.length - 1}` });
  });

  it('groups fields, instructions and resources, and points a removal into the old side', () => {
    const after = copy();
    after.description = `${after.description} Also for drills.`;
    after.planning_instructions = after.planning_instructions.slice(1);
    const removed = after.resources.shift()!;
    const chips = summaryChips(diffPackages(base, after));
    expect(chips.find((c) => c.text === 'description')).toMatchObject({ sign: '~', group: 'fields', pointer: '/description' });
    expect(chips.find((c) => c.group === 'instructions')).toMatchObject({ sign: '−', side: 'before', pointer: '/planning_instructions/0' });
    expect(chips.find((c) => c.group === 'resources')).toMatchObject({ sign: '−', side: 'before', text: `resource ${removed.name}` });
    expect(headline(diffPackages(base, after))).toMatchObject({ kind: 'changes', text: '3 fields changed' });
  });
});
