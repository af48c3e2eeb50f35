import { describe, expect, it } from 'vitest';
import { deepFreeze, freezeWithJson, isDeeplyFrozen, jsonOf } from '../../../core/frozen';

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

describe('deepFreeze', () => {
  it('freezes a value all the way down, including what a frozen shell holds', () => {
    const tags = ['a'];
    const value = deepFreeze({ list: [{ n: 1 }], inner: Object.freeze({ tags }) });
    expect(isDeeplyFrozen(value)).toBe(true);
    expect(Object.isFrozen(tags)).toBe(true);
    expect(Object.isFrozen(value.list[0])).toBe(true);
    expect(deepFreeze('text')).toBe('text');
  });

  it('ends on a value that holds itself', () => {
    const node: { name: string; self?: unknown; children: unknown[] } = { name: 'root', children: [] };
    node.self = node;
    node.children.push({ parent: node });
    expect(deepFreeze(node)).toBe(node);
    expect(isDeeplyFrozen(node)).toBe(true);
    expect(Object.isFrozen(node.children[0])).toBe(true);
  });
});

describe('freezeWithJson', () => {
  it('freezes what its builder made all the way down, through a frozen shell, and serves the text it was given', () => {
    const tags = ['a'];
    const value = freezeWithJson({ role: 'user', inner: Object.freeze({ tags }) }, '{"role":"user","inner":{"tags":["a"]}}');
    expect(isDeeplyFrozen(value)).toBe(true);
    expect(Object.isFrozen(tags)).toBe(true);
    expect(jsonOf(value)).toBe(JSON.stringify(value));
    // The text given is the one served (spacing shows it was not made again).
    expect(jsonOf(freezeWithJson([1, 2], '[1, 2]'))).toBe('[1, 2]');
  });

  it('keeps the text out of everything that reads the value: JSON, keys, copies and comparisons', () => {
    const value = freezeWithJson([{ role: 'system', content: 'Be brief?' }], '[{"role":"system","content":"Be brief?"}]');
    expect(JSON.stringify(value)).toBe('[{"role":"system","content":"Be brief?"}]');
    expect(Object.keys(value)).toEqual(['0']);
    expect(Reflect.ownKeys({ ...value })).toEqual(['0']);
    expect(structuredClone(value)).toEqual([{ role: 'system', content: 'Be brief?' }]);
    expect(value).toStrictEqual([{ role: 'system', content: 'Be brief?' }]);
    // A copy is not frozen and carries no text: it is serialized as it is.
    const copy = [...value, { role: 'user', content: 'and this?' }];
    expect(jsonOf(copy)).toBe(JSON.stringify(copy));
  });

  it('only freezes a value frozen already, or one given no text, and jsonOf then makes the text itself', () => {
    const frozen = Object.freeze({ n: 1 });
    expect(jsonOf(freezeWithJson(frozen, '{"n": 1}'))).toBe('{"n":1}');
    const plain = freezeWithJson({ list: [1] }, undefined);
    expect(isDeeplyFrozen(plain)).toBe(true);
    expect(jsonOf(plain)).toBe('{"list":[1]}');
  });
});
