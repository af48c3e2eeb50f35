import { describe, expect, it } from 'vitest';
import { applyPatchToText, previewPatch } from '../../../../renderer/optimize/patching';

const pkg = { description: 'Old words.', tags: ['a', 'b'], resources: [{ name: 'r', content: 'body' }] };
const text = `${JSON.stringify(pkg, null, 2)}\n`;

describe('applying a proposed patch to the draft text', () => {
  it('applies a test-then-replace patch and pretty-prints the result', () => {
    const r = applyPatchToText(text, [
      { op: 'test', path: '/description', value: 'Old words.' },
      { op: 'replace', path: '/description', value: 'New words.' },
    ]);
    expect(r).toEqual({ ok: true, text: `${JSON.stringify({ ...pkg, description: 'New words.' }, null, 2)}\n` });
  });

  it('refuses, naming the operation, when the draft changed since (the test fails) and leaves nothing half-applied', () => {
    const r = applyPatchToText(text.replace('Old words.', 'Edited.'), [
      { op: 'test', path: '/description', value: 'Old words.' },
      { op: 'replace', path: '/description', value: 'New words.' },
    ]);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(/^operation 1 does not apply/);
  });

  it('refuses a draft that is not JSON', () => {
    const r = applyPatchToText('{ "description": ', [{ op: 'replace', path: '/description', value: 'x' }]);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(/not valid JSON/);
  });
});

describe('previewing the fields a patch changes', () => {
  it('shows a field before and after, a list item as its whole list, and an added field as absent before', () => {
    const after = { ...pkg, description: 'New.', tags: ['a', 'b', 'c'], display_name: 'X' };
    const fields = previewPatch(pkg, after, [
      { op: 'test', path: '/description', value: 'Old words.' },
      { op: 'replace', path: '/description', value: 'New.' },
      { op: 'add', path: '/tags/-', value: 'c' },
      { op: 'add', path: '/display_name', value: 'X' },
    ]);
    expect(fields).toEqual([
      { pointer: '/description', before: '"Old words."', after: '"New."' },
      { pointer: '/tags', before: JSON.stringify(['a', 'b'], null, 2), after: JSON.stringify(['a', 'b', 'c'], null, 2) },
      { pointer: '/display_name', after: '"X"' },
    ]);
  });
});
