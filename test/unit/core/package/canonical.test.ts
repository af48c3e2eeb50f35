import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson } from '../../../../core/package/canonical';
import { WorkbenchError } from '../../../../core/errors';

/** The same JSON value with every object's keys in a shuffled order. */
function shuffled(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((item, i) => shuffled(item, seed + i));
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    const order = entries.map((_, i) => i).sort((a, b) => ((a * 7919 + seed) % 13) - ((b * 7919 + seed) % 13));
    const out: Record<string, unknown> = {};
    for (const i of order) {
      const [key, item] = entries[i]!;
      Object.defineProperty(out, key, { value: shuffled(item, seed + i), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

describe('canonicalJson', () => {
  it('sorts keys and drops insignificant whitespace', () => {
    expect(canonicalJson({ b: [1, { d: true, c: null }], a: 'x' })).toBe('{"a":"x","b":[1,{"c":null,"d":true}]}');
  });

  it('sorts keys by code point, not UTF-16 unit', () => {
    expect(canonicalJson({ '\u{10000}': 1, '\uffff': 2, z: 3 })).toBe('{"z":3,"\uffff":2,"\u{10000}":1}');
  });

  it('writes strings and numbers as JSON.stringify does', () => {
    expect(canonicalJson({ s: 'a"\\\n\u0001\ud800é', n: [1e21, 0.1, -0, 5e-7] })).toBe(`{"n":${JSON.stringify([1e21, 0.1, -0, 5e-7])},"s":${JSON.stringify('a"\\\n\u0001\ud800é')}}`);
  });

  it('leaves out undefined properties', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  });

  it('does not depend on key order, and parses back to the same value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (value, seed) => {
        const text = canonicalJson(value);
        expect(canonicalJson(shuffled(value, seed))).toBe(text);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        expect(text).toBe(canonicalJson(JSON.parse(text)));
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    ['NaN', Number.NaN],
    ['a function', () => 1],
    ['a bigint', 1n],
    ['a Date', new Date(0)],
    ['undefined in an array', [undefined]],
  ])('rejects %s', (_, value) => {
    expect(() => canonicalJson({ v: value })).toThrow(WorkbenchError);
  });

  it('rejects cycles but accepts shared references', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/circular/);
  });
});
