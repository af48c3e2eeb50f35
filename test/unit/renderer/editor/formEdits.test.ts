import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../../../core/package/types';
import { assignFindings, readFormDocument, setValueEdit, valueAt, type TextEdit } from '../../../../renderer/editor/formEdits';

const example = readFileSync(new URL('../../../../examples/skills/packages/devops/incident-response.json', import.meta.url), 'utf8');

function apply(text: string, edit: TextEdit | undefined): string {
  if (!edit) return text;
  return text.slice(0, edit.start) + edit.text + text.slice(edit.end);
}

function finding(path: string): Finding {
  return { severity: 'error', code: 'x', path, message: `at ${path}` };
}

describe('form edits', () => {
  it('replace only the characters of the changed value', () => {
    const edit = setValueEdit(example, '/description', 'Use when a production incident is declared.');
    expect(edit).toBeDefined();
    const after = apply(example, edit);
    const before = JSON.parse(example) as Record<string, unknown>;
    expect(JSON.parse(after)).toEqual({ ...before, description: 'Use when a production incident is declared.' });
    // Everything outside the description's value is byte for byte the same.
    const start = example.indexOf('"description"');
    expect(after.slice(0, start)).toBe(example.slice(0, start));
    expect(edit!.end - edit!.start).toBeLessThanOrEqual(JSON.stringify((before as { description: string }).description).length);
  });

  it('are nothing when the value is unchanged', () => {
    const before = JSON.parse(example) as { display_name: string };
    expect(setValueEdit(example, '/display_name', before.display_name)).toBeUndefined();
  });

  it('keep strings with quotes, backslashes and markup as JSON strings', () => {
    const hostile = 'a "quoted" \\ <script>alert(1)</script>\n\u202e';
    const after = apply(example, setValueEdit(example, '/display_name', hostile));
    expect((JSON.parse(after) as { display_name: string }).display_name).toBe(hostile);
  });

  it('rewrite a list in the indentation of the text around it', () => {
    const text = '{\n    "tags": ["a"],\n    "x": 1\n}\n';
    const after = apply(text, setValueEdit(text, '/tags', ['a', 'b']));
    expect(after).toBe('{\n    "tags": [\n        "a",\n        "b"\n    ],\n    "x": 1\n}\n');
    const one = apply(after, setValueEdit(after, '/tags/1', 'c'));
    expect(JSON.parse(one)).toEqual({ tags: ['a', 'c'], x: 1 });
  });

  it('append a missing member, creating missing objects on the way', () => {
    const text = '{\n  "description": "d"\n}\n';
    const after = apply(text, setValueEdit(text, '/activation_examples/should_activate', ['q']));
    expect(after).toBe('{\n  "description": "d",\n  "activation_examples": {\n    "should_activate": [\n      "q"\n    ]\n  }\n}\n');
    const empty = '{}';
    expect(JSON.parse(apply(empty, setValueEdit(empty, '/tags', ['t'])))).toEqual({ tags: ['t'] });
    const crlf = '{\r\n  "a": 1\r\n}';
    expect(apply(crlf, setValueEdit(crlf, '/b', 2))).toBe('{\r\n  "a": 1,\r\n  "b": 2\r\n}');
  });

  it('never edit a text that does not parse or a parent that is not an object', () => {
    expect(setValueEdit('{"a": ', '/a', 1)).toBeUndefined();
    expect(setValueEdit('{"a": 5}', '/a/b', 1)).toBeUndefined();
    const broken = readFormDocument('{\n  "a": 1,\n}');
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.line).toBe(3);
    expect(readFormDocument('[1]').ok).toBe(false);
  });

  it('read values at pointers', () => {
    const value = { a: [{ b: 'x' }], 'c/d': 1 };
    expect(valueAt(value, '/a/0/b')).toBe('x');
    expect(valueAt(value, '/c~1d')).toBe(1);
    expect(valueAt(value, '/a/1')).toBeUndefined();
    expect(valueAt(value, '/toString')).toBeUndefined();
  });

  it('place each finding with the deepest field its pointer is in', () => {
    const pointers = ['', '/description', '/resources', '/resources/0', '/resources/0/content', '/activation_examples/should_activate', '/activation_examples/should_activate/1'];
    const placed = assignFindings(
      [finding('/description'), finding('/resources/0/content'), finding('/resources/0/load_when'), finding('/resources/3'), finding('/activation_examples/should_activate/1'), finding(''), finding('/unknown'), finding('/descriptionx')],
      pointers,
    );
    expect(placed.get('/description')?.map((f) => f.path)).toEqual(['/description']);
    expect(placed.get('/resources/0/content')?.map((f) => f.path)).toEqual(['/resources/0/content']);
    expect(placed.get('/resources/0')?.map((f) => f.path)).toEqual(['/resources/0/load_when']);
    expect(placed.get('/resources')?.map((f) => f.path)).toEqual(['/resources/3']);
    expect(placed.get('/activation_examples/should_activate/1')?.map((f) => f.path)).toEqual(['/activation_examples/should_activate/1']);
    expect(placed.get('')?.map((f) => f.path)).toEqual(['', '/unknown', '/descriptionx']);
  });
});
