import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SELECTOR_LIMITS, effectiveTotalBudget, resolveSelectorLimits } from '../../../../core/selector/limits';

describe('resolveSelectorLimits', () => {
  it('fills the guide 9.10 defaults', () => {
    const result = resolveSelectorLimits({});
    expect(result).toEqual({ ok: true, limits: DEFAULT_SELECTOR_LIMITS });
    expect(DEFAULT_SELECTOR_LIMITS).toMatchObject({
      maxBindings: 32,
      maxAutoCandidates: 16,
      catalogTokenBudget: 2000,
      maxResourceCandidates: 32,
      resourceCatalogTokenBudget: 2000,
      maxActiveSkills: 6,
      totalTokenBudget: 8192,
      mainTokenBudget: 6144,
      resourceTokenBudget: 4096,
      maxResourcesPerPhase: 2,
      maxResourcesPerExecution: 8,
      resolutionMaxTokens: 512,
      synthesisTokenBudget: 6000,
      effectiveInputTokenBudget: 0,
    });
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
