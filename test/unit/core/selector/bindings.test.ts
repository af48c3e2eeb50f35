import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultBindings, formatBindingIssue, parseBindings } from '../../../../core/selector/bindings';
import type { SkillMetadata } from '../../../../core/store/types';

describe('parseBindings', () => {
  it('parses the guide format, with "N" versions as numbers and required defaulting to false', () => {
    const text = JSON.stringify([
      { namespace: 'travel', name: 'weather-assessment', version: 'published', activation: 'auto', required: false },
      { namespace: 'travel', name: 'action-verification', version: '3', activation: 'always', required: true },
      { namespace: 'finance', name: 'reporting', activation: 'explicit' },
    ]);
    const result = parseBindings(text);
    expect(result).toEqual({
      ok: true,
      bindings: [
        { namespace: 'travel', name: 'weather-assessment', version: 'published', activation: 'auto', required: false },
        { namespace: 'travel', name: 'action-verification', version: 3, activation: 'always', required: true },
        { namespace: 'finance', name: 'reporting', version: 'published', activation: 'explicit', required: false },
      ],
    });
  });

  it('accepts [] as "no skills"', () => {
    expect(parseBindings('[]')).toEqual({ ok: true, bindings: [] });
  });

  it('requires activation (no default) and names the line and column of the binding', () => {
    const text = '[\n  {"namespace": "travel", "name": "weather"}\n]';
    const result = parseBindings(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues).toEqual([expect.objectContaining({ path: '/0', line: 2, column: 3 })]);
    expect(result.issues[0]!.message).toContain("'activation'");
    expect(formatBindingIssue(result.issues[0]!)).toMatch(/^line 2, column 3 \(\/0\): missing required field 'activation'/);
  });

  it('locates a wrong value at the value itself', () => {
    const text = '[{"namespace":"travel","name":"weather","activation":"sometimes"}]';
    const result = parseBindings(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues[0]).toMatchObject({ path: '/0/activation', line: 1, column: text.indexOf('"sometimes"') + 1 });
  });

  it.each([
    ['a numeric version', '[{"namespace":"a","name":"b","version":3,"activation":"auto"}]', '/0/version'],
    ['version zero', '[{"namespace":"a","name":"b","version":"0","activation":"auto"}]', '/0/version'],
    ['a padded version', '[{"namespace":"a","name":"b","version":"03","activation":"auto"}]', '/0/version'],
    ['an unknown field', '[{"namespace":"a","name":"b","activation":"auto","domain":"x"}]', '/0/domain'],
    ['an uppercase name', '[{"namespace":"a","name":"Bee","activation":"auto"}]', '/0/name'],
    ['a 65-character name', `[{"namespace":"a","name":"${'b'.repeat(65)}","activation":"auto"}]`, '/0/name'],
    ['a non-boolean required', '[{"namespace":"a","name":"b","activation":"auto","required":"yes"}]', '/0/required'],
    ['a duplicate field', '[{"namespace":"a","name":"b","name":"c","activation":"auto"}]', '/0/name'],
    ['a duplicate binding', '[{"namespace":"a","name":"b","activation":"auto"},{"namespace":"a","name":"b","activation":"always"}]', '/1'],
    ['an object instead of an array', '{"namespace":"a"}', ''],
  ])('rejects %s at %s', (_label, text, path) => {
    const result = parseBindings(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((i) => i.path)).toContain(path);
    for (const issue of result.issues) expect(issue.line).toBeGreaterThanOrEqual(1);
  });

  it('rejects syntax errors with a position', () => {
    const result = parseBindings('[{"namespace": "a",}]');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues[0]!.message).toMatch(/^invalid JSON/);
    expect(result.issues[0]!.line).toBe(1);
  });

  it('enforces maxBindings (32 by default)', () => {
    const list = Array.from({ length: 33 }, (_, i) => ({ namespace: 'n', name: `s${i}`, activation: 'auto' }));
    expect(parseBindings(JSON.stringify(list)).ok).toBe(false);
    expect(parseBindings(JSON.stringify(list.slice(0, 32))).ok).toBe(true);
    expect(parseBindings(JSON.stringify(list.slice(0, 5)), { maxBindings: 4 }).ok).toBe(false);
  });

  it('never throws and always returns located issues or bindings, for any text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (text) => {
        const result = parseBindings(text);
        if (result.ok) {
          for (const b of result.bindings) expect(['always', 'auto', 'explicit']).toContain(b.activation);
        } else {
          expect(result.issues.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('round-trips any valid binding list', () => {
    const slug = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,10}[a-z0-9])?$/);
    const binding = fc.record({
      namespace: slug,
      name: slug,
      version: fc.oneof(fc.constant('published'), fc.integer({ min: 1, max: 10_000 }).map(String)),
      activation: fc.constantFrom('always', 'auto', 'explicit'),
      required: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.uniqueArray(binding, { maxLength: 32, selector: (b) => `${b.namespace}/${b.name}` }), (list) => {
        const result = parseBindings(JSON.stringify(list));
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        expect(result.bindings).toEqual(list.map((b) => ({ ...b, version: b.version === 'published' ? 'published' : Number(b.version) })));
      }),
    );
  });
});

describe('defaultBindings', () => {
  it('binds every catalog skill as optional auto/published, in identity order', () => {
    const meta = (namespace: string, name: string): SkillMetadata => ({
      namespace,
      name,
      display_name: name,
      description: 'd',
      domains: [],
      tags: [],
      version: 2,
      manifest_hash: `sha256:${'0'.repeat(64)}`,
      updated_at: '2025-01-01T00:00:00.000Z',
    });
    expect(defaultBindings([meta('b', 'x'), meta('a', 'z'), meta('a', 'y')])).toEqual([
      { namespace: 'a', name: 'y', version: 'published', activation: 'auto', required: false },
      { namespace: 'a', name: 'z', version: 'published', activation: 'auto', required: false },
      { namespace: 'b', name: 'x', version: 'published', activation: 'auto', required: false },
    ]);
  });
});
