import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyJsonPatch, cloneJson, jsonEqual, parseJsonPatch } from '../../../../core/package/jsonPatch';
import { parseJsonDocument, parsePointer } from '../../../../core/package/parse';

function applied(doc: unknown, patch: unknown): unknown {
  const result = applyJsonPatch(doc, patch);
  if (!result.ok) throw new Error(`unexpected failure: ${JSON.stringify(result.error)}`);
  return result.value;
}

function failure(doc: unknown, patch: unknown) {
  const result = applyJsonPatch(doc, patch);
  if (result.ok) throw new Error(`unexpected success: ${JSON.stringify(result.value)}`);
  return result.error;
}

// RFC 6902 Appendix A, example by example.
describe('applyJsonPatch: the examples of RFC 6902 appendix A', () => {
  it('A.1 adds an object member', () => {
    expect(applied({ foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }])).toEqual({ baz: 'qux', foo: 'bar' });
  });

  it('A.2 adds an array element', () => {
    expect(applied({ foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }])).toEqual({ foo: ['bar', 'qux', 'baz'] });
  });

  it('A.3 removes an object member', () => {
    expect(applied({ baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }])).toEqual({ foo: 'bar' });
  });

  it('A.4 removes an array element', () => {
    expect(applied({ foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }])).toEqual({ foo: ['bar', 'baz'] });
  });

  it('A.5 replaces a value', () => {
    expect(applied({ baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }])).toEqual({ baz: 'boo', foo: 'bar' });
  });

  it('A.6 moves a value', () => {
    const doc = { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } };
    expect(applied(doc, [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }])).toEqual({ foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } });
  });

  it('A.7 moves an array element', () => {
    expect(applied({ foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }])).toEqual({ foo: ['all', 'cows', 'eat', 'grass'] });
  });

  it('A.8 tests a value: success', () => {
    const doc = { baz: 'qux', foo: ['a', 2, 'c'] };
    expect(applied(doc, [{ op: 'test', path: '/baz', value: 'qux' }, { op: 'test', path: '/foo/1', value: 2 }])).toEqual(doc);
  });

  it('A.9 tests a value: error', () => {
    expect(failure({ baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }])).toMatchObject({ index: 0, message: expect.stringContaining('test failed') });
  });

  it('A.10 adds a nested member object', () => {
    expect(applied({ foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }])).toEqual({ foo: 'bar', child: { grandchild: {} } });
  });

  it('A.11 ignores unrecognized elements', () => {
    expect(applied({ foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }])).toEqual({ foo: 'bar', baz: 'qux' });
  });

  it('A.12 refuses to add to a nonexistent target', () => {
    expect(failure({ foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }])).toMatchObject({ index: 0, message: expect.stringContaining('"/baz" does not exist') });
  });

  it('A.13 rejects a patch document with a duplicated member (at the JSON level)', () => {
    const text = '[{ "op": "add", "path": "/baz", "value": "qux", "op": "remove" }]';
    const parsed = parseJsonDocument(text);
    expect(parsed.ok).toBe(false);
  });

  it('A.14 decodes ~01 as ~1, not /', () => {
    const doc = { '/': 9, '~1': 10 };
    expect(applied(doc, [{ op: 'test', path: '/~01', value: 10 }])).toEqual(doc);
  });

  it('A.15 compares strings and numbers as different', () => {
    expect(failure({ '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: '10' }]).index).toBe(0);
  });

  it('A.16 adds an array value at the end', () => {
    expect(applied({ foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }])).toEqual({ foo: ['bar', ['abc', 'def']] });
  });
});

describe('applyJsonPatch: the rest of RFC 6902 and 6901', () => {
  it('replaces and adds at the root', () => {
    expect(applied({ a: 1 }, [{ op: 'replace', path: '', value: [1] }])).toEqual([1]);
    expect(applied({ a: 1 }, [{ op: 'add', path: '', value: 'x' }])).toBe('x');
    expect(failure({ a: 1 }, [{ op: 'remove', path: '' }]).message).toContain('root');
  });

  it('refuses array indexes out of range, with leading zeros, or "-" where an element must exist', () => {
    expect(failure({ a: [1] }, [{ op: 'add', path: '/a/2', value: 0 }]).message).toContain('out of range');
    expect(applied({ a: [1] }, [{ op: 'add', path: '/a/1', value: 0 }])).toEqual({ a: [1, 0] });
    expect(failure({ a: [1, 2] }, [{ op: 'remove', path: '/a/01' }]).message).toContain('not an array index');
    expect(failure({ a: [1] }, [{ op: 'remove', path: '/a/-' }]).message).toContain('not an array index');
    expect(failure({ a: [1] }, [{ op: 'replace', path: '/a/1', value: 0 }]).message).toContain('out of range');
  });

  it('refuses to remove or replace a member that does not exist', () => {
    expect(failure({ a: 1 }, [{ op: 'remove', path: '/b' }]).message).toContain('"/b" does not exist');
    expect(failure({ a: 1 }, [{ op: 'replace', path: '/b', value: 2 }]).message).toContain('"/b" does not exist');
  });

  it('copies deeply, so later operations do not change the source', () => {
    expect(applied({ a: { b: 1 } }, [{ op: 'copy', from: '/a', path: '/c' }, { op: 'replace', path: '/c/b', value: 2 }])).toEqual({ a: { b: 1 }, c: { b: 2 } });
  });

  it('refuses to move a value into one of its own children', () => {
    expect(failure({ a: { b: {} } }, [{ op: 'move', from: '/a', path: '/a/b/c' }]).message).toContain('proper prefix');
    expect(applied({ a: 1 }, [{ op: 'move', from: '/a', path: '/a' }])).toEqual({ a: 1 });
  });

  it('is all or nothing, and names the failing operation', () => {
    const doc = { a: 1 };
    const error = failure(doc, [{ op: 'add', path: '/b', value: 2 }, { op: 'remove', path: '/zz' }]);
    expect(error.index).toBe(1);
    expect(doc).toEqual({ a: 1 });
  });

  it('compares objects by members and arrays by order in test', () => {
    expect(applied({ a: { x: 1, y: [1, 2] } }, [{ op: 'test', path: '/a', value: { y: [1, 2], x: 1 } }])).toBeTruthy();
    expect(failure({ a: [1, 2] }, [{ op: 'test', path: '/a', value: [2, 1] }]).index).toBe(0);
    expect(failure({ a: null }, [{ op: 'test', path: '/a', value: {} }]).index).toBe(0);
  });

  it('adds "__proto__" as a plain member, never touching a prototype', () => {
    const out = applied({}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }]) as Record<string, unknown>;
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });

  it('checks the document shape and the members each operation needs', () => {
    expect(parseJsonPatch({ op: 'add' })).toMatchObject({ ok: false, error: { message: expect.stringContaining('array') } });
    expect(parseJsonPatch([{ op: 'frob', path: '/a' }])).toMatchObject({ ok: false, error: { index: 0 } });
    expect(parseJsonPatch([{ op: 'add', path: '/a' }])).toMatchObject({ ok: false, error: { message: '"add" needs a "value"' } });
    expect(parseJsonPatch([{ op: 'move', path: '/a' }])).toMatchObject({ ok: false, error: { message: '"move" needs a string "from"' } });
    expect(parseJsonPatch([{ op: 'remove', path: 'a' }])).toMatchObject({ ok: false, error: { message: expect.stringContaining('not a JSON Pointer') } });
    expect(parseJsonPatch([{ op: 'remove', path: '/a~2' }])).toMatchObject({ ok: false });
    expect(parseJsonPatch([{ op: 'add', path: '/a', value: null, extra: 1 }])).toEqual({ ok: true, patch: [{ op: 'add', path: '/a', value: null }] });
  });

  it('parses pointers as RFC 6901 says', () => {
    expect(parsePointer('/a~1b/~0c/')).toEqual(['a/b', '~c', '']);
    expect(parsePointer('/~')).toBeUndefined();
    expect(parsePointer('/a~x')).toBeUndefined();
  });
});

describe('applyJsonPatch: properties', () => {
  it('never modifies its input and never throws, whatever the patch', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.anything(), (doc, patch) => {
        const before = JSON.stringify(doc);
        applyJsonPatch(doc, patch);
        expect(JSON.stringify(doc)).toBe(before);
      }),
      { numRuns: 300 },
    );
  });

  it('adding a new member then removing it gives the document back', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.string(), fc.jsonValue(), (doc, key, value) => {
        fc.pre(!Object.hasOwn(doc, key));
        const path = `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        const result = applied(doc, [{ op: 'add', path, value }, { op: 'test', path, value }, { op: 'remove', path }]);
        expect(jsonEqual(result, doc)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('clones to an equal, independent value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copy = cloneJson(value);
        expect(jsonEqual(copy, value)).toBe(true);
        expect(copy).toEqual(value);
      }),
      { numRuns: 200 },
    );
  });
});
