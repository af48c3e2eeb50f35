import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SELECTOR_LIMITS, effectiveTotalBudget, resolveSelectorLimits, type SelectorLimits } from '../../../../core/selector/limits';

describe('resolveSelectorLimits', () => {
  it('fills every unset limit with its default, and keeps every limit that is set', () => {
    expect(resolveSelectorLimits({})).toEqual({ ok: true, limits: DEFAULT_SELECTOR_LIMITS });
    // Each limit alone, moved one step inward (the rules allow it with every other at its default).
    const keys = Object.keys(DEFAULT_SELECTOR_LIMITS) as (keyof SelectorLimits)[];
    for (const key of keys) {
      const value = DEFAULT_SELECTOR_LIMITS[key] > 1 ? DEFAULT_SELECTOR_LIMITS[key] - 1 : DEFAULT_SELECTOR_LIMITS[key] + 1;
      const result = resolveSelectorLimits({ [key]: value });
      expect(result, key).toEqual({ ok: true, limits: { ...DEFAULT_SELECTOR_LIMITS, [key]: value } });
    }
  });

  // The defaults of guide 9.10 as the rules meet them: each one is the largest (or
  // smallest) value another limit may take while that one keeps its default.
  it.each([
    ['main ≤ total (8192)', { mainTokenBudget: 8192 }, { mainTokenBudget: 8193 }, 'mainTokenBudget,totalTokenBudget'],
    ['resource ≤ total (8192)', { resourceTokenBudget: 8192 }, { resourceTokenBudget: 8193 }, 'resourceTokenBudget,totalTokenBudget'],
    ['synthesis ≤ total (8192)', { synthesisTokenBudget: 8192 }, { synthesisTokenBudget: 8193 }, 'synthesisTokenBudget,totalTokenBudget'],
    ['total ≥ main (6144)', { totalTokenBudget: 6144 }, { totalTokenBudget: 6143 }, 'mainTokenBudget,totalTokenBudget'],
    ['total ≥ synthesis (6000)', { totalTokenBudget: 6000, mainTokenBudget: 6000 }, { totalTokenBudget: 5999, mainTokenBudget: 5999 }, 'synthesisTokenBudget,totalTokenBudget'],
    ['total ≥ resource (4096)', { totalTokenBudget: 4096, mainTokenBudget: 4096, synthesisTokenBudget: 4096 }, { totalTokenBudget: 4095, mainTokenBudget: 4095, synthesisTokenBudget: 4095 }, 'resourceTokenBudget,totalTokenBudget'],
    ['per phase ≤ per execution (8)', { maxResourcesPerPhase: 8 }, { maxResourcesPerPhase: 9 }, 'maxResourcesPerPhase,maxResourcesPerExecution'],
    ['per execution ≥ per phase (2)', { maxResourcesPerExecution: 2 }, { maxResourcesPerExecution: 1 }, 'maxResourcesPerPhase,maxResourcesPerExecution'],
    ['auto candidates ≤ bindings (32)', { maxAutoCandidates: 32 }, { maxAutoCandidates: 33 }, 'maxAutoCandidates,maxBindings'],
    ['active skills ≤ bindings (32)', { maxActiveSkills: 32 }, { maxActiveSkills: 33 }, 'maxActiveSkills,maxBindings'],
    ['bindings ≥ auto candidates (16)', { maxBindings: 16 }, { maxBindings: 15 }, 'maxAutoCandidates,maxBindings'],
    ['bindings ≥ active skills (6)', { maxBindings: 6, maxAutoCandidates: 6 }, { maxBindings: 5, maxAutoCandidates: 5 }, 'maxActiveSkills,maxBindings'],
  ])('holds the default at the edge: %s', (_rule, atEdge, beyond, path) => {
    expect(resolveSelectorLimits(atEdge).ok).toBe(true);
    const result = resolveSelectorLimits(beyond);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((i) => i.path)).toEqual([path]);
  });

  it('allows zero only where it means "off": the effective-input allowance and the registry timeout', () => {
    for (const key of Object.keys(DEFAULT_SELECTOR_LIMITS) as (keyof SelectorLimits)[]) {
      const zero = resolveSelectorLimits({ [key]: 0 });
      expect(zero.ok, key).toBe(key === 'effectiveInputTokenBudget' || key === 'registryReadTimeoutMs');
    }
  });

  it('returns resolved limits frozen, and takes them back as they are: they cannot have become invalid', () => {
    const first = resolveSelectorLimits({ maxActiveSkills: 3 });
    if (!first.ok) throw new Error('expected valid limits');
    expect(Object.isFrozen(first.limits)).toBe(true);
    const again = resolveSelectorLimits(first.limits);
    expect(again.ok && again.limits).toBe(first.limits);
    // A copy is checked like any input.
    expect(resolveSelectorLimits({ ...first.limits, maxActiveSkills: 0 }).ok).toBe(false);
  });

  it('accepts the guide example group of lowered budgets', () => {
    const result = resolveSelectorLimits({ maxActiveSkills: 4, totalTokenBudget: 6144, mainTokenBudget: 4096, resourceTokenBudget: 3072, synthesisTokenBudget: 1536 });
    expect(result.ok).toBe(true);
  });

  it.each([
    [{ mainTokenBudget: 9000 }, 'mainTokenBudget,totalTokenBudget'],
    [{ totalTokenBudget: 4000 }, 'mainTokenBudget,totalTokenBudget'],
    [{ resourceTokenBudget: 8193 }, 'resourceTokenBudget,totalTokenBudget'],
    [{ synthesisTokenBudget: 8193 }, 'synthesisTokenBudget,totalTokenBudget'],
    [{ maxResourcesPerPhase: 9 }, 'maxResourcesPerPhase,maxResourcesPerExecution'],
    [{ maxBindings: 10 }, 'maxAutoCandidates,maxBindings'],
  ])('rejects the cross-field violation %j', (partial, path) => {
    const result = resolveSelectorLimits(partial);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.some((i) => i.path.includes(path))).toBe(true);
  });

  it('requires lowering maxActiveSkills too when maxBindings goes under it', () => {
    const result = resolveSelectorLimits({ maxBindings: 5, maxAutoCandidates: 5 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((i) => i.path)).toEqual(['maxActiveSkills,maxBindings']);
    expect(resolveSelectorLimits({ maxBindings: 5, maxAutoCandidates: 5, maxActiveSkills: 5 }).ok).toBe(true);
  });

  it.each([{ maxBindings: 0 }, { maxActiveSkills: -1 }, { totalTokenBudget: 1.5 }, { mainTokenBudget: '100' }, { effectiveInputTokenBudget: -1 }, { maxbindings: 3 }])(
    'rejects the bad value %j',
    (partial) => {
      expect(resolveSelectorLimits(partial).ok).toBe(false);
    },
  );

  it('allows a zero effective-input allowance and caps the total at a tenth of a positive one', () => {
    const base = resolveSelectorLimits({ effectiveInputTokenBudget: 0 });
    expect(base.ok && effectiveTotalBudget(base.limits)).toBe(8192);
    const capped = resolveSelectorLimits({ effectiveInputTokenBudget: 32_009 });
    expect(capped.ok && effectiveTotalBudget(capped.limits)).toBe(3200);
    const uncapped = resolveSelectorLimits({ effectiveInputTokenBudget: 200_000 });
    expect(uncapped.ok && effectiveTotalBudget(uncapped.limits)).toBe(8192);
  });

  it('effective total is min(total, floor(eff/10)) for any allowance', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), (eff) => {
        const r = resolveSelectorLimits({ effectiveInputTokenBudget: eff });
        expect(r.ok).toBe(true);
        if (r.ok) expect(effectiveTotalBudget(r.limits)).toBe(Math.min(8192, Math.floor(eff / 10)));
      }),
    );
  });
});
