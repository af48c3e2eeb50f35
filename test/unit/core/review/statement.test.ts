/**
 * The canonical review statement: its text is a function of its fields and
 * back (two different statements never share a text, so never a signature),
 * and anything not written by `statementText` is not a statement.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deleteAction, differences, parseStatement, statementText, type Statement } from '../../../../core/review/statement';

const slug = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,10}[a-z0-9])?$/);
const hash = fc.stringMatching(/^[0-9a-f]{64}$/).map((h) => `sha256:${h}`);
const printable = fc.stringMatching(/^[\x21-\x7e](?:[\x20-\x7e]{0,30}[\x21-\x7e])?$/);

const statement: fc.Arbitrary<Statement> = fc.record({
  decision: fc.constantFrom('request' as const, 'approve' as const),
  request: fc.stringMatching(/^[A-Za-z0-9._-]{1,40}$/),
  registry: printable,
  skill: fc.record({ namespace: slug, name: slug }),
  action: fc.oneof(fc.constant('publish'), fc.tuple(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 0, max: 50 })).map(([a, b]) => deleteAction(a, a + b))),
  base: fc.option(fc.record({ version: fc.integer({ min: 1, max: 1_000_000 }), etag: printable }), { nil: null }),
  manifest: hash,
  bytes: hash,
});

describe('review statements', () => {
  it('round-trips every statement through its text', () => {
    fc.assert(
      fc.property(statement, (s) => {
        expect(parseStatement(statementText(s))).toEqual(s);
      }),
    );
  });

  it('gives different statements different texts', () => {
    fc.assert(
      fc.property(statement, statement, (a, b) => {
        const same = JSON.stringify(a) === JSON.stringify(b);
        expect(statementText(a) === statementText(b)).toBe(same);
      }),
    );
  });

  it('reads nothing but the canonical text', () => {
    fc.assert(
      fc.property(statement, fc.integer({ min: 0, max: 400 }), fc.string({ minLength: 1, maxLength: 3 }), (s, at, extra) => {
        const text = statementText(s);
        const i = at % (text.length + 1);
        const edited = text.slice(0, i) + extra + text.slice(i);
        const parsed = parseStatement(edited);
        // An insertion either breaks the statement or makes another one, whose canonical text it then is.
        if (parsed) expect(statementText(parsed)).toBe(edited);
      }),
    );
    expect(parseStatement('approved by bob')).toBeUndefined();
  });

  it('refuses a field that does not fit on one line', () => {
    const s: Statement = { decision: 'approve', request: 'r1', registry: 'http://h/api/v1/skills', skill: { namespace: 'travel', name: 'x' }, action: 'publish', base: null, manifest: `sha256:${'a'.repeat(64)}`, bytes: `sha256:${'b'.repeat(64)}` };
    expect(() => statementText({ ...s, registry: 'http://h\nbytes x' })).toThrow(/registry/);
    expect(() => statementText({ ...s, base: { version: 1, etag: '"a"\n' } })).toThrow(/base/);
    expect(differences(s, { ...s, registry: 'http://other/api/v1/skills', bytes: `sha256:${'c'.repeat(64)}` })).toEqual(['registry', 'bytes']);
  });
});
