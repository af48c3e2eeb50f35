import { describe, expect, it } from 'vitest';
import { isDeeplyFrozen } from '../../../core/frozen';

describe('isDeeplyFrozen', () => {
  it('is true only for values frozen all the way down', () => {
    expect(isDeeplyFrozen('text')).toBe(true);
    expect(isDeeplyFrozen(null)).toBe(true);
    expect(isDeeplyFrozen(Object.freeze({ tags: Object.freeze(['a']) }))).toBe(true);
    // A frozen shell around a mutable array can still change.
    expect(isDeeplyFrozen(Object.freeze({ tags: ['a'] }))).toBe(false);
    expect(isDeeplyFrozen(Object.freeze([Object.freeze({ domains: [] })]))).toBe(false);
    expect(isDeeplyFrozen({})).toBe(false);
  });

  it('answers again once the mutable part is frozen, and keeps its yes', () => {
    const tags = ['a'];
    const value = Object.freeze({ tags });
    expect(isDeeplyFrozen(value)).toBe(false);
    Object.freeze(tags);
    expect(isDeeplyFrozen(value)).toBe(true);
    expect(isDeeplyFrozen(value)).toBe(true);
  });
});
