import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  decodeUtf8,
  joinPointer,
  LineIndex,
  MAX_JSON_DEPTH,
  parseJsonDocument,
  parsePointer,
  type ParsedJson,
} from '../../../../core/package/parse';
import { positionOf } from './baseline';

function parsed(text: string): ParsedJson {
  const result = parseJsonDocument(text);
  if (!result.ok) throw new Error(`unexpected failure: ${JSON.stringify(result.findings)}`);
  return result;
}

/** Every JSON Pointer of a value, with the value there. */
function pointers(value: unknown, base = ''): [string, unknown][] {
  const out: [string, unknown][] = [[base, value]];
  if (Array.isArray(value)) value.forEach((item, i) => out.push(...pointers(item, joinPointer(base, i))));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) out.push(...pointers(item, joinPointer(base, key)));
  }
  return out;
}

describe('parseJsonDocument: values', () => {
  it('round-trips arbitrary JSON, compact and pretty', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(parsed(JSON.stringify(value)).value).toEqual(JSON.parse(JSON.stringify(value)));
        expect(parsed(JSON.stringify(value, null, 2)).value).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 300 },
    );
  });

  it('locates every value: the located text parses back to it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(0, 1, 3), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        const doc = parsed(text);
        for (const [pointer, expected] of pointers(JSON.parse(text))) {
          const span = doc.span(pointer)!;
          expect(JSON.parse(text.slice(span.start, span.end))).toEqual(expected);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('locates member keys', () => {
    const text = '{\n  "a": {"b~c/d": [1, {"e": true}]}\n}';
    const doc = parsed(text);
    expect(doc.locate('/a/b~0c~1d', 'key')).toEqual({ line: 2, column: 9, endLine: 2, endColumn: 16 });
    expect(doc.locate('/a/b~0c~1d/1/e')).toEqual({ line: 2, column: 28, endLine: 2, endColumn: 32 });
    expect(doc.locate('/a/b~0c~1d/1', 'key')).toBeUndefined();
    expect(doc.locate('/missing')).toBeUndefined();
    expect(doc.locate('/a/b~0c~1d/01')).toBeUndefined();
    expect(doc.locate('no-slash')).toBeUndefined();
  });

  it('counts CRLF and CR line breaks', () => {
    const doc = parsed('{\r\n"a":\r1,\n"b": 2}');
    expect(doc.locate('/a')).toMatchObject({ line: 3, column: 1 });
    expect(doc.locate('/b')).toMatchObject({ line: 4, column: 6 });
  });

  it('maps ranges inside strings through escapes', () => {
    const text = '{"s": "a\\n\\"b\\u00e9c\\ud83d\\ude00d"}';
    const doc = parsed(text);
    const decoded = (doc.value as { s: string }).s;
    const index = decoded.indexOf('c');
    const span = doc.spanInString('/s', index, 1)!;
    expect(text.slice(span.start, span.end)).toBe('c');
    const emoji = doc.spanInString('/s', decoded.indexOf('\ud83d'), 2)!;
    expect(text.slice(emoji.start, emoji.end)).toBe('\\ud83d\\ude00');
    const plain = parsed('{"s": "plain text"}');
    const p = plain.spanInString('/s', 6, 4)!;
    expect('{"s": "plain text"}'.slice(p.start, p.end)).toBe('text');
  });

  it('accepts a leading byte order mark', () => {
    const doc = parsed('\uFEFF{"a": 1}');
    expect(doc.value).toEqual({ a: 1 });
    expect(doc.locate('/a')).toMatchObject({ line: 1, column: 8 });
  });

  it('keeps "__proto__" as an ordinary key', () => {
    const doc = parsed('{"__proto__": {"x": 1}}');
    expect(Object.keys(doc.value as object)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(doc.value)).toBe(Object.prototype);
  });
});

describe('parseJsonDocument: lines', () => {
  it('places every offset on the line and column a fresh line index gives, whatever the line breaks', () => {
    // The parser records line starts while it skips whitespace between tokens; this checks them
    // against the index that scans the whole text, with LF, CRLF and CR breaks mixed.
    const breakArb = fc.constantFrom('\n', '\r\n', '\r', '\n\n', ' \r\n\t');
    fc.assert(
      fc.property(fc.jsonValue(), fc.array(breakArb, { minLength: 1, maxLength: 6 }), fc.array(fc.nat(), { minLength: 1, maxLength: 20 }), (value, breaks, offsets) => {
        let k = 0;
        const text = JSON.stringify({ v: value }, null, 2).replace(/\n/g, () => breaks[k++ % breaks.length]!);
        const doc = parsed(text);
        const fresh = new LineIndex(text);
        for (const offset of [...offsets, text.length]) {
          const at = offset % (text.length + 1);
          expect(doc.rangeOf({ start: at, end: at })).toEqual(fresh.range({ start: at, end: at }));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('handles a document of half a million lines', () => {
    const text = `[\n${'1,\n'.repeat(500_000)}2\n]`;
    const doc = parsed(text);
    expect(doc.locate('/500000')).toEqual({ line: 500_002, column: 1, endLine: 500_002, endColumn: 2 });
  });
});

describe('parseJsonDocument: errors', () => {
  const cases: [string, string, string, string][] = [
    ['trailing comma in an array', '{"a": [1, 2,]}', ',]', "trailing comma before ']'"],
    ['trailing comma in an object', '{\n  "a": 1,\n}', '}', "trailing comma before '}'"],
    ['missing comma', '{"a": 1 "b": 2}', '"b"', "expected ',' or '}'"],
    ['single quotes', "{'a': 1}", "'a'", 'double quotes'],
    ['comment', '{"a": 1, // note\n"b": 2}', '//', 'comments'],
    ['unterminated string', '{"a": "abc', '"abc', 'unterminated string'],
    ['line break in a string', '{"a": "ab\nc", "b": "d"}', '\n', 'line break inside a string'],
    ['bad escape', '{"a": "x\\qy"}', '\\q', "invalid escape sequence '\\q'"],
    ['bad unicode escape', '{"a": "\\u12G4"}', '\\u12G4', 'four hexadecimal digits'],
    ['leading zero', '{"a": 012}', '012', "invalid value '012'"],
    ['bare word', '{"a": yes}', 'yes', "unexpected 'y'"],
    ['missing colon', '{"a" 1}', '1', "expected ':'"],
    ['content after the document', '{"a": 1} x', 'x', 'after the end'],
    ['unclosed object', '{"a": [1, 2]', '{', "missing its closing '}'"],
    ['empty document', '   ', '   ', 'empty'],
    ['NaN', '{"a": NaN}', 'NaN', "unexpected 'N'"],
  ];
  for (const [name, text, at, message] of cases) {
    it(`reports ${name} where it is`, () => {
      const result = parseJsonDocument(text);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.findings).toHaveLength(1);
      const [finding] = result.findings;
      expect(finding!.code).toBe('json_syntax');
      expect(finding!.message).toContain(message);
      const where = name === 'empty document' ? { line: 1, column: 4 } : name === 'trailing comma in an array' ? positionOf(text, ']') : positionOf(text, at);
      expect({ line: finding!.line, column: finding!.column }).toEqual(where);
    });
  }

  it('reports each duplicate key at its second occurrence with its pointer', () => {
    const text = '{"a": [{"k": 1}, {"k": 2, "k": 3}], "a": 4}';
    const result = parseJsonDocument(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.findings.map((f) => [f.code, f.path, f.column])).toEqual([
      ['duplicate_field', '/a/1/k', positionOf(text, '"k"', 2).column],
      ['duplicate_field', '/a', positionOf(text, '"a"', 1).column],
    ]);
  });

  it('rejects nesting deeper than the limit without overflowing the stack', () => {
    const deep = `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`;
    const result = parseJsonDocument(deep);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.findings[0]!.code).toBe('json_nesting_too_deep');
    expect(parseJsonDocument(`${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`).ok).toBe(true);
    expect(parseJsonDocument('['.repeat(100_000)).ok).toBe(false);
  });

  it('never throws, and agrees with JSON.parse on what is valid', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        const result = parseJsonDocument(text);
        if (valid && !/"([^"\\]|\\.)*"\s*:[\s\S]*"\1"\s*:/.test(text)) expect(result.ok).toBe(true);
        if (!valid) expect(result.ok).toBe(false);
        if (!result.ok) expect(result.findings.every((f) => f.line! >= 1 && f.column! >= 1)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('locates syntax errors in JSON with one character changed', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), fc.nat(), fc.constantFrom('{', '}', '[', ']', ',', ':', '"', 'x'), (value, at, c) => {
        const text = JSON.stringify(value, null, 1);
        const i = at % (text.length + 1);
        const broken = text.slice(0, i) + c + text.slice(i);
        const result = parseJsonDocument(broken);
        if (!result.ok) {
          const lines = broken.split(/\r\n|\r|\n/);
          for (const f of result.findings) {
            expect(f.line).toBeLessThanOrEqual(lines.length);
            expect(f.column).toBeLessThanOrEqual(lines[f.line! - 1]!.length + 1);
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('JSON Pointer helpers', () => {
  it('escape and split round-trip', () => {
    fc.assert(
      fc.property(fc.array(fc.string()), (segments) => {
        expect(parsePointer(joinPointer('', ...segments))).toEqual(segments);
      }),
    );
  });
});

describe('decodeUtf8', () => {
  it('decodes valid UTF-8 and keeps a byte order mark', () => {
    const result = decodeUtf8(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]));
    expect(result).toEqual({ ok: true, text: '\uFEFF{}' });
  });

  it('agrees with TextDecoder on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        let expected: string | undefined;
        try {
          expected = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
        } catch {
          expected = undefined;
        }
        const result = decodeUtf8(bytes);
        if (expected === undefined) {
          expect(result.ok).toBe(false);
          if (!result.ok) expect(result.findings.length).toBeGreaterThan(0);
        } else expect(result).toEqual({ ok: true, text: expected });
      }),
      { numRuns: 1000 },
    );
  });

  it('reports each invalid sequence with its byte offset, line and column', () => {
    const text = new TextEncoder().encode('{\n  "a": "é');
    const bytes = new Uint8Array([...text, 0xc3, 0x22, 0x7d, 0x80]);
    const result = decodeUtf8(bytes);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.findings.map((f) => [f.code, f.line, f.column])).toEqual([
      ['invalid_utf8', 2, 10],
      ['invalid_utf8', 2, 13],
    ]);
    expect(result.findings[0]!.message).toContain(`byte offset ${text.length}`);
    expect(result.findings[1]!.message).toContain('unexpected continuation byte 0x80');
  });

  it('names overlong encodings and encoded surrogates', () => {
    const overlong = decodeUtf8(new Uint8Array([0xc0, 0xaf]));
    expect(!overlong.ok && overlong.findings[0]!.message).toContain('overlong');
    const surrogate = decodeUtf8(new Uint8Array([0xed, 0xa0, 0x80]));
    expect(!surrogate.ok && surrogate.findings[0]!.message).toContain('byte offset 0');
  });
});
