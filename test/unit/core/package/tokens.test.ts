import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { estimateTokens, TOKEN_ESTIMATOR, utf8Bytes } from '../../../../core/package/tokens';

describe('utf8Bytes', () => {
  it('agrees with TextEncoder for any string, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(utf8Bytes(text)).toBe(new TextEncoder().encode(text).length);
      }),
      { numRuns: 1000 },
    );
  });

  it('counts long strings through the native encoder', () => {
    const text = 'é😀a'.repeat(10_000);
    expect(utf8Bytes(text)).toBe(new TextEncoder().encode(text).length);
  });
});

describe('estimateTokens', () => {
  it('is ceil(bytes / 3.5) in exact arithmetic', () => {
    fc.assert(
      fc.property(fc.nat({ max: 10_000_000 }), (bytes) => {
        const tokens = estimateTokens(bytes);
        // tokens is the least integer with 7 * tokens >= 2 * bytes.
        expect(7 * tokens).toBeGreaterThanOrEqual(2 * bytes);
        expect(7 * (tokens - 1)).toBeLessThan(2 * bytes);
      }),
    );
  });

  it('estimates text by its UTF-8 bytes', () => {
    expect(estimateTokens('abcdefg')).toBe(2);
    expect(estimateTokens('é'.repeat(7))).toBe(4);
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens(0)).toBe(0);
  });

  it('names the V1 estimator', () => {
    expect(TOKEN_ESTIMATOR).toEqual({ name: 'truvag3-canonical', version: 'v1' });
  });
});
