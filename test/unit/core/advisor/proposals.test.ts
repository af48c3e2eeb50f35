import { describe, expect, it } from 'vitest';
import { checkProposals, MAX_PROPOSALS } from '../../../../core/advisor/proposals';
import { validatePackage } from '../../../../core/package/validate';
import type { SkillPackage } from '../../../../core/package/types';

const ID = { namespace: 'travel', name: 'weather' };

function pkg(overrides: Record<string, unknown> = {}): SkillPackage {
  const check = validatePackage(
    {
      display_name: 'Weather',
      description: 'Forecasts for trips.',
      domains: ['travel'],
      tags: ['weather'],
      planning_instructions: ['Geocode the place before asking for a forecast.'],
      resources: [
        {
          name: 'checklist',
          description: 'Signals that make weather a risk for a trip.',
          load_when: 'Load when the forecast shows storms or extreme heat.',
          applies_to: ['planning'],
          required_when_selected: false,
          content_type: 'text/markdown',
          content: 'Secret body: storms, heat.',
        },
      ],
      activation_examples: { should_activate: ['Will it storm in Oslo?'], should_not_activate: ['Book a hotel'] },
      change_reason: 'Initial',
      ...overrides,
    },
    { id: ID },
  );
  if (!check.normalized || !check.valid) throw new Error(JSON.stringify(check.errors));
  return check.normalized;
}

const proposal = (patch: unknown, title = 'Edit') => ({ title, rationale: 'Because.', patch });

describe('checkProposals', () => {
  it('keeps a proposal that applies and validates, with its changes and the warnings it resolves', () => {
    const base = pkg();
    const before = validatePackage(base, { id: ID });
    expect(before.warnings.map((w) => w.code)).toContain('description_missing_activation_language');
    const out = checkProposals(base, [proposal([{ op: 'replace', path: '/description', value: 'Use when a trip request asks about forecasts, storms or heat at a destination.' }])], { id: ID });
    expect(out.dropped).toEqual([]);
    expect(out.proposals).toHaveLength(1);
    const kept = out.proposals[0]!;
    expect(kept.id).toBe('p1');
    expect(kept.changes.join('\n')).toContain('description');
    expect(kept.warnings_resolved.map((w) => w.code)).toContain('description_missing_activation_language');
    expect(kept.warnings_added).toEqual([]);
    expect(kept.metrics.manifest_tokens).toBeGreaterThan(0);
  });

  it('drops each kind of bad proposal with its reason, and never changes the package', () => {
    const base = pkg();
    const snapshot = JSON.stringify(base);
    const out = checkProposals(
      base,
      [
        proposal({ op: 'replace' }),
        proposal([{ op: 'replace', path: '/nowhere/deep', value: 1 }]),
        proposal([{ op: 'replace', path: '/planning_instructions', value: [] }]),
        proposal([{ op: 'replace', path: '/resources/0/content', value: 'A new body written blind.' }]),
        proposal([{ op: 'replace', path: '/change_reason', value: 'Advisor edit' }]),
        proposal([{ op: 'test', path: '/description', value: 'Forecasts for trips.' }]),
        proposal([]),
        proposal([{ op: 'replace', path: '/resources/0', value: { ...base.resources[0], content: 'Other body.' } }]),
      ],
      { id: ID },
    );
    expect(out.proposals).toEqual([]);
    expect(out.dropped.map((d) => [d.id, d.reason])).toEqual([
      ['p1', 'patch_invalid'],
      ['p2', 'patch_failed'],
      ['p3', 'validation_failed'],
      ['p4', 'withheld_content'],
      ['p5', 'withheld_content'],
      ['p6', 'no_change'],
      ['p7', 'no_change'],
      ['p8', 'withheld_content'],
    ]);
    expect(checkProposals(base, [proposal([{ op: 'add', path: '/surprise', value: 1 }])], { id: ID }).dropped[0]).toMatchObject({ reason: 'validation_failed', findings: [{ code: 'unknown_field' }] });
    expect(out.dropped[2]!.findings?.map((f) => f.path)).toContain('/planning_instructions');
    expect(out.dropped[1]!.message).toContain('does not exist');
    expect(JSON.stringify(base)).toBe(snapshot);
  });

  it('allows removing a resource the advisor saw in the index, and adding a new one', () => {
    const base = pkg();
    const out = checkProposals(
      base,
      [
        proposal([{ op: 'remove', path: '/resources/0' }]),
        proposal([{ op: 'add', path: '/resources/-', value: { name: 'packing', description: 'Packing advice keyed to conditions.', load_when: 'Load when the request asks what to pack.', applies_to: ['synthesis'], required_when_selected: false, content_type: 'text/plain', content: 'Rain: jacket.' } }]),
      ],
      { id: ID },
    );
    expect(out.proposals.map((p) => p.id)).toEqual(['p1', 'p2']);
  });

  it('checks at most MAX_PROPOSALS and drops the rest as too many', () => {
    const many = Array.from({ length: MAX_PROPOSALS + 2 }, (_, i) => proposal([{ op: 'replace', path: '/display_name', value: `Weather ${i}` }]));
    const out = checkProposals(pkg(), many, { id: ID });
    expect(out.proposals).toHaveLength(MAX_PROPOSALS);
    expect(out.dropped.map((d) => d.reason)).toEqual(['too_many', 'too_many']);
  });

  it('validates under the host limits', () => {
    const out = checkProposals(pkg(), [proposal([{ op: 'replace', path: '/description', value: 'Use when a trip request asks about the weather at the destination.' }])], { id: ID, limits: { maxDescriptionChars: 40 } });
    expect(out.dropped[0]).toMatchObject({ reason: 'validation_failed' });
  });
});
