import { describe, expect, it } from 'vitest';
import { checkLimits, DEFAULT_AUTHORING_LIMITS, resolveLimits } from '../../../../core/package/limits';
import { WorkbenchError } from '../../../../core/errors';

describe('authoring limits', () => {
  it('default to the guide sizing table and Registry Viewer defaults', () => {
    expect(DEFAULT_AUTHORING_LIMITS).toEqual({
      maxNameChars: 64,
      maxDescriptionChars: 1024,
      warnDescriptionChars: 320,
      maxManifestTokens: 5000,
      maxManifestBytes: 24 * 1024,
      warnManifestTokens: 2500,
      maxResourceTokens: 8000,
      maxResourceBytes: 32 * 1024,
      warnResourceTokens: 4000,
      maxResources: 32,
      warnResources: 12,
      maxPackageBytes: 1024 * 1024,
      warnPackageBytes: 256 * 1024,
      warnCombinedTokens: 3000,
      maxChangeReasonBytes: 1024,
    });
    expect(Object.isFrozen(DEFAULT_AUTHORING_LIMITS)).toBe(true);
  });

  it('merge a partial override over the defaults', () => {
    const limits = resolveLimits({ maxResources: 8, warnResources: undefined });
    expect(limits.maxResources).toBe(8);
    expect(limits.warnResources).toBe(12);
    expect(resolveLimits()).toEqual(DEFAULT_AUTHORING_LIMITS);
    expect(resolveLimits()).not.toBe(DEFAULT_AUTHORING_LIMITS);
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '10'])('reject %s', (value) => {
    expect(() => resolveLimits({ maxResources: value as number })).toThrow(WorkbenchError);
    const check = checkLimits({ maxResources: value as number });
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.problems[0]!.limit).toBe('maxResources');
  });

  it('reject unknown limit names and report every problem', () => {
    const check = checkLimits({ maxResource: 3, maxNameChars: 0 } as never);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.problems.map((p) => p.limit)).toEqual(['maxResource', 'maxNameChars']);
    try {
      resolveLimits({ maxResource: 3 } as never);
    } catch (error) {
      expect((error as WorkbenchError).code).toBe('invalid_request');
      expect((error as WorkbenchError).message).toContain("'maxResource'");
    }
  });
});
