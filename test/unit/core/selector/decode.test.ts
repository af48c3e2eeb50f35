import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_ANSWER_CHARS, decodeActivation, decodeResources } from '../../../../core/selector/decode';

describe('decodeActivation', () => {
  it('accepts exactly one JSON object, whitespace around it allowed', () => {
    expect(decodeActivation('{"activate":["travel/weather"]}')).toEqual({ ok: true, value: ['travel/weather'] });
    expect(decodeActivation('  \n{ "activate" : [ ] }\n ')).toEqual({ ok: true, value: [] });
  });

  it.each([
    ['prose before', 'Sure! {"activate":[]}'],
    ['prose after', '{"activate":[]} hope this helps'],
    ['a json fence', '```json\n{"activate":[]}\n```'],
    ['an unlabelled fence', '```\n{"activate":[]}\n```'],
    ['two objects', '{"activate":[]}{"activate":[]}'],
    ['an extra key', '{"activate":[],"reason":"x"}'],
    ['a duplicate key', '{"activate":[],"activate":["a/b"]}'],
    ['a __proto__ key', '{"__proto__":{"activate":["a/b"]}}'],
    ['a __proto__ key beside activate', '{"activate":[],"__proto__":[]}'],
    ['a nested array', '{"activate":[["a/b"]]}'],
    ['a nested object', '{"activate":[{"skill":"a/b"}]}'],
    ['a string instead of a list', '{"activate":"a/b"}'],
    ['an array root', '["a/b"]'],
    ['empty', ''],
    ['truncated JSON', '{"activate":["a/b"'],
  ])('rejects %s as malformed', (_label, text) => {
    const result = decodeActivation(text);
    expect(result.ok).toBe(false);
  });

  it('rejects answers above the size ceiling without parsing them', () => {
    const huge = `{"activate":[${'"a/b",'.repeat(MAX_ANSWER_CHARS)}"a/b"]}`;
    const result = decodeActivation(huge);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(/characters long/);
  });

  it('never throws, for any text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.json().map((j) => `{"activate":${j}}`)), (text) => {
        const result = decodeActivation(text);
        if (result.ok) for (const id of result.value) expect(typeof id).toBe('string');
      }),
      { numRuns: 1000 },
    );
  });
});

describe('decodeResources', () => {
  const answer = '{"resources":[{"skill":"a/b","name":"r1"}]}';

  it('accepts a bare object, a ```json fence and an unlabelled fence', () => {
    const expected = { ok: true, value: [{ skill: 'a/b', name: 'r1' }] };
    expect(decodeResources(answer)).toEqual(expected);
    expect(decodeResources(`\`\`\`json\n${answer}\n\`\`\``)).toEqual(expected);
    expect(decodeResources(`  \`\`\`\n${answer}\n\`\`\`  `)).toEqual(expected);
    expect(decodeResources(`\`\`\`json\r\n${answer}\r\n\`\`\``)).toEqual(expected);
  });

  it.each([
    ['another fence label', `\`\`\`js\n${answer}\n\`\`\``],
    ['prose before a fence', `Here:\n\`\`\`json\n${answer}\n\`\`\``],
    ['an unclosed fence', `\`\`\`json\n${answer}`],
    ['two fences', `\`\`\`json\n${answer}\n\`\`\`\n\`\`\`json\n${answer}\n\`\`\``],
    ['an entry with an extra key', '{"resources":[{"skill":"a/b","name":"r","why":"x"}]}'],
    ['an entry missing name', '{"resources":[{"skill":"a/b"}]}'],
    ['a non-string name', '{"resources":[{"skill":"a/b","name":1}]}'],
    ['a string entry', '{"resources":["a/b#r"]}'],
  ])('rejects %s as malformed', (_label, text) => {
    expect(decodeResources(text).ok).toBe(false);
  });

  it('never throws, for any text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.json().map((j) => `\`\`\`json\n{"resources":${j}}\n\`\`\``)), (text) => {
        decodeResources(text);
      }),
      { numRuns: 1000 },
    );
  });
});
