/**
 * A JSON parser that keeps source locations, rejects duplicate object keys and
 * reports syntax errors with line and column; plus a UTF-8 decoder that reports
 * the byte offset of invalid input.
 *
 * Speed matters because the editor validates on every keystroke: valid text is
 * decoded by the native `JSON.parse`, and one structural pass only records
 * where each value and key starts and ends (it jumps over string bodies with
 * `indexOf`). The strict, character-level scanner runs only when `JSON.parse`
 * has already failed, to say exactly where and why. Lines and columns are
 * computed lazily, only for offsets someone asks about.
 *
 * Positions: `line` and `column` are 1-based; columns count UTF-16 code units
 * (as Monaco and VS Code do); line breaks are LF, CRLF and CR. Offsets are
 * 0-based UTF-16 indices into the text; every `end` is exclusive.
 *
 * Isomorphic: no `node:` imports.
 */
import type { Finding } from './types';

/** A source range in line/column form (1-based, end exclusive). */
export interface SourceRange {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

/** A source range as UTF-16 offsets into the text (end exclusive). */
export interface SourceSpan {
  start: number;
  end: number;
}

/** Which part of an object member a location refers to. */
export type LocationPart = 'value' | 'key';

/** Documents nested deeper than this are rejected (`json_nesting_too_deep`); a package needs four levels. */
export const MAX_JSON_DEPTH = 128;

/** A successfully parsed document: its value and where each part of it is in the text. */
export interface ParsedJson {
  ok: true;
  value: unknown;
  /** Line/column range of the value (or member key) at a JSON Pointer; `undefined` when there is none. */
  locate(pointer: string, part?: LocationPart): SourceRange | undefined;
  /** Offset range of the value (or member key) at a JSON Pointer. */
  span(pointer: string, part?: LocationPart): SourceSpan | undefined;
  /**
   * Offset range, in the raw text, of `length` decoded UTF-16 units starting at
   * `index` inside the string value at `pointer` (escapes make the two differ).
   */
  spanInString(pointer: string, index: number, length: number): SourceSpan | undefined;
  /** Line/column form of an offset range. */
  rangeOf(span: SourceSpan): SourceRange;
}

/** Result of {@link parseJsonDocument}. */
export type ParseResult = ParsedJson | { ok: false; findings: Finding[] };

/** Escapes one JSON Pointer reference token (RFC 6901). */
export function escapePointerSegment(segment: string | number): string {
  const text = String(segment);
  return text.includes('~') || text.includes('/') ? text.replace(/~/g, '~0').replace(/\//g, '~1') : text;
}

/** Appends reference tokens to a JSON Pointer. */
export function joinPointer(base: string, ...segments: (string | number)[]): string {
  let pointer = base;
  for (const segment of segments) pointer += `/${escapePointerSegment(segment)}`;
  return pointer;
}

/**
 * Splits a JSON Pointer into unescaped reference tokens; `undefined` when it is
 * not a pointer (RFC 6901: it must start with `/`, and `~` must be followed by
 * `0` or `1`). `~01` is `~1`, not `/`: `~1` is decoded before `~0`.
 */
export function parsePointer(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (pointer[0] !== '/') return undefined;
  const tokens = pointer.slice(1).split('/');
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (!token.includes('~')) continue;
    if (/~(?![01])/.test(token)) return undefined;
    tokens[i] = token.replace(/~1/g, '/').replace(/~0/g, '~');
  }
  return tokens;
}

/** Maps offsets to lines and columns; built once per text, on first use. */
export class LineIndex {
  private readonly starts: number[];

  /**
   * `lineStarts`, when given, must be the offsets where the lines of `text`
   * start (0 first); whoever has already walked every line break (the parser
   * does, for valid JSON) saves a pass over the text.
   */
  constructor(text: string, lineStarts?: readonly number[]) {
    this.starts = lineStarts === undefined ? [0] : lineStarts.slice();
    if (lineStarts !== undefined) return;
    const starts = this.starts;
    if (!text.includes('\r')) {
      let at = text.indexOf('\n');
      while (at !== -1) {
        starts.push(at + 1);
        at = text.indexOf('\n', at + 1);
      }
      return;
    }
    const breaks = /\r\n?|\n/g;
    for (let m = breaks.exec(text); m !== null; m = breaks.exec(text)) starts.push(m.index + m[0].length);
  }

  /** 1-based line and column of an offset. */
  position(offset: number): { line: number; column: number } {
    const starts = this.starts;
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: offset - starts[low]! + 1 };
  }

  /** Line/column form of an offset range. */
  range(span: SourceSpan): SourceRange {
    const start = this.position(span.start);
    const end = this.position(Math.max(span.start, span.end));
    return { line: start.line, column: start.column, endLine: end.line, endColumn: end.column };
  }
}

/** Where one value sits in the text. Objects keep members, arrays items. */
interface Node {
  start: number;
  end: number;
  members?: Map<string, Member>;
  items?: Node[];
  /** A string whose raw text contains escapes, so decoded and raw indices differ. */
  escaped?: boolean;
}

interface Member {
  keyStart: number;
  keyEnd: number;
  value: Node;
}

interface Frame {
  node: Node;
  isObject: boolean;
  /** Current member key (objects) while its value is parsed. */
  key: string;
  keyStart: number;
  keyEnd: number;
  duplicate: boolean;
}

class SyntaxProblem {
  constructor(
    readonly code: 'json_syntax' | 'json_nesting_too_deep',
    readonly message: string,
    readonly start: number,
    readonly end: number,
  ) {}
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function describeChar(text: string, at: number): string {
  const c = text.codePointAt(at);
  if (c === undefined) return 'end of input';
  if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0xfeff || (c >= 0xd800 && c <= 0xdfff)) {
    return `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return `'${String.fromCodePoint(c)}'`;
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const HEX4 = /[0-9a-fA-F]{4}/y;

/**
 * The structural scanner. In lenient mode (text already accepted by
 * `JSON.parse`) it only records positions and member keys; in strict mode it
 * also checks every token and stops at the first syntax error.
 */
class Scanner {
  readonly duplicates: { pointer: string; start: number; end: number; key: string }[] = [];
  /**
   * Where lines start, from the line breaks between tokens. In valid JSON
   * every line break is between tokens (strings cannot hold one), so for a
   * document `JSON.parse` accepted these are all of them.
   */
  readonly lineStarts: number[] = [0];
  private pos = 0;
  private readonly stack: Frame[] = [];

  constructor(
    private readonly text: string,
    private readonly strict: boolean,
  ) {}

  run(): Node {
    const text = this.text;
    // A leading byte order mark is tolerated here; the validator reports it.
    this.pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;
    this.skipWhitespace();
    if (this.pos >= text.length) throw new SyntaxProblem('json_syntax', 'the document is empty; expected a JSON object', this.pos, this.pos);
    let root: Node | undefined;
    const stack = this.stack;
    for (;;) {
      // Parse one value at `pos`; containers push a frame and continue with their first element.
      const node = this.value();
      if (root === undefined) root = node;
      else this.attach(node);
      let closed = node.members !== undefined || node.items !== undefined ? this.open(node) : true;
      // After a complete value: commas, closers, or the end of the document.
      while (closed) {
        this.skipWhitespace();
        const frame = stack[stack.length - 1];
        if (frame === undefined) {
          if (this.pos < text.length) {
            throw new SyntaxProblem('json_syntax', `unexpected ${describeChar(text, this.pos)} after the end of the JSON document`, this.pos, this.pos + 1);
          }
          return root;
        }
        const c = text.charCodeAt(this.pos);
        if (c === 0x2c) {
          this.pos++;
          this.skipWhitespace();
          if (frame.isObject) this.memberKey(frame, true);
          else this.expectValueAfterComma();
          closed = false;
        } else if ((c === 0x7d && frame.isObject) || (c === 0x5d && !frame.isObject)) {
          this.pos++;
          frame.node.end = this.pos;
          stack.pop();
        } else if (this.pos >= text.length) {
          throw new SyntaxProblem('json_syntax', `unexpected end of input: the ${frame.isObject ? "object is missing its closing '}'" : "array is missing its closing ']'"}`, frame.node.start, frame.node.start + 1);
        } else {
          const expected = frame.isObject ? "',' or '}' after a property value" : "',' or ']' after an array element";
          throw new SyntaxProblem('json_syntax', `expected ${expected}, found ${describeChar(text, this.pos)}`, this.pos, this.pos + 1);
        }
      }
    }
  }

  /** Pushes a container frame; returns true when it closed immediately (empty). */
  private open(node: Node): boolean {
    const text = this.text;
    const isObject = node.members !== undefined;
    if (this.stack.length >= MAX_JSON_DEPTH) {
      throw new SyntaxProblem('json_nesting_too_deep', `the document is nested more than ${MAX_JSON_DEPTH} levels deep`, node.start, node.start + 1);
    }
    const frame: Frame = { node, isObject, key: '', keyStart: 0, keyEnd: 0, duplicate: false };
    this.stack.push(frame);
    this.skipWhitespace();
    const c = text.charCodeAt(this.pos);
    if ((isObject && c === 0x7d) || (!isObject && c === 0x5d)) {
      this.pos++;
      node.end = this.pos;
      this.stack.pop();
      return true;
    }
    if (isObject) this.memberKey(frame, false);
    return false;
  }

  private expectValueAfterComma(): void {
    const c = this.text.charCodeAt(this.pos);
    if (c === 0x5d) throw new SyntaxProblem('json_syntax', "trailing comma before ']'", this.pos, this.pos + 1);
  }

  /** Reads `"key" :` and leaves `pos` at the member value. */
  private memberKey(frame: Frame, afterComma: boolean): void {
    const text = this.text;
    const c = text.charCodeAt(this.pos);
    if (c !== QUOTE) {
      if (afterComma && c === 0x7d) throw new SyntaxProblem('json_syntax', "trailing comma before '}'", this.pos, this.pos + 1);
      if (this.pos >= text.length) throw new SyntaxProblem('json_syntax', "unexpected end of input: expected a property name or '}'", this.pos, this.pos);
      const hint = c === 0x27 ? ' (JSON needs double quotes)' : c === 0x2f ? ' (JSON has no comments)' : '';
      throw new SyntaxProblem('json_syntax', `expected a property name in double quotes, found ${describeChar(text, this.pos)}${hint}`, this.pos, this.pos + 1);
    }
    const keyStart = this.pos;
    const key = this.string(true) as string;
    frame.key = key;
    frame.keyStart = keyStart;
    frame.keyEnd = this.pos;
    frame.duplicate = frame.node.members!.has(key);
    if (frame.duplicate) {
      this.duplicates.push({ pointer: this.pointer(), start: keyStart, end: this.pos, key });
    }
    this.skipWhitespace();
    if (text.charCodeAt(this.pos) !== 0x3a) {
      if (this.pos >= text.length) throw new SyntaxProblem('json_syntax', "unexpected end of input: expected ':' after a property name", this.pos, this.pos);
      throw new SyntaxProblem('json_syntax', `expected ':' after the property name, found ${describeChar(text, this.pos)}`, this.pos, this.pos + 1);
    }
    this.pos++;
    this.skipWhitespace();
  }

  private attach(node: Node): void {
    const frame = this.stack[this.stack.length - 1]!;
    if (frame.isObject) {
      if (!frame.duplicate) frame.node.members!.set(frame.key, { keyStart: frame.keyStart, keyEnd: frame.keyEnd, value: node });
    } else frame.node.items!.push(node);
  }

  /** The JSON Pointer of the member or element being parsed. */
  private pointer(): string {
    let pointer = '';
    // Elements are attached before their contents are parsed, so an enclosing array's
    // current element is its last item.
    for (const frame of this.stack) {
      pointer += `/${escapePointerSegment(frame.isObject ? frame.key : frame.node.items!.length - 1)}`;
    }
    return pointer;
  }

  /** Parses one value at `pos`. Containers come back open (no `end` yet). */
  private value(): Node {
    const text = this.text;
    const start = this.pos;
    const c = text.charCodeAt(start);
    if (c === 0x7b) {
      this.pos++;
      return { start, end: -1, members: new Map() };
    }
    if (c === 0x5b) {
      this.pos++;
      return { start, end: -1, items: [] };
    }
    if (c === QUOTE) {
      const escaped = this.string(false) as boolean;
      return escaped ? { start, end: this.pos, escaped } : { start, end: this.pos };
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      this.number();
      return { start, end: this.pos };
    }
    if (c === 0x74 && text.startsWith('true', start)) return this.literal(start, 4);
    if (c === 0x66 && text.startsWith('false', start)) return this.literal(start, 5);
    if (c === 0x6e && text.startsWith('null', start)) return this.literal(start, 4);
    if (start >= text.length) throw new SyntaxProblem('json_syntax', 'unexpected end of input: expected a value', start, start);
    const frame = this.stack[this.stack.length - 1];
    if (frame && !frame.isObject && c === 0x2c) throw new SyntaxProblem('json_syntax', 'missing array element before \',\'', start, start + 1);
    const hint = c === 0x27 ? ' (JSON strings need double quotes)' : c === 0x2f ? ' (JSON has no comments)' : '';
    throw new SyntaxProblem('json_syntax', `unexpected ${describeChar(text, start)}; expected a value${hint}`, start, start + 1);
  }

  private literal(start: number, length: number): Node {
    this.pos = start + length;
    this.checkDelimiter(start);
    return { start, end: this.pos };
  }

  private number(): void {
    const text = this.text;
    const start = this.pos;
    if (!this.strict) {
      let at = start + 1;
      for (; at < text.length; at++) {
        const c = text.charCodeAt(at);
        if (c === 0x2c || c === 0x7d || c === 0x5d || isWhitespace(c)) break;
      }
      this.pos = at;
      return;
    }
    NUMBER.lastIndex = start;
    if (!NUMBER.test(text)) throw new SyntaxProblem('json_syntax', `invalid number starting with ${describeChar(text, start)}`, start, start + 1);
    this.pos = NUMBER.lastIndex;
    this.checkDelimiter(start);
  }

  /** A number or literal must be followed by whitespace, a separator or the end. */
  private checkDelimiter(start: number): void {
    if (!this.strict) return;
    const text = this.text;
    const c = text.charCodeAt(this.pos);
    if (this.pos < text.length && !(c === 0x2c || c === 0x7d || c === 0x5d || isWhitespace(c))) {
      let end = this.pos;
      while (end < text.length && /[\w.+-]/.test(text[end]!)) end++;
      throw new SyntaxProblem('json_syntax', `invalid value '${text.slice(start, Math.min(end, start + 40))}'`, start, Math.max(end, this.pos + 1));
    }
  }

  /**
   * Reads a string token at `pos` (on its opening quote). Returns the decoded
   * text when `decode`, otherwise whether the raw token contains escapes.
   */
  private string(decode: boolean): string | boolean {
    const text = this.text;
    const start = this.pos;
    let close = start + 1;
    for (;;) {
      close = text.indexOf('"', close);
      if (close === -1) {
        if (this.strict) this.checkStringBody(start, text.length);
        throw new SyntaxProblem('json_syntax', 'unterminated string: missing closing \'"\'', start, start + 1);
      }
      let backslashes = 0;
      for (let at = close - 1; text.charCodeAt(at) === BACKSLASH; at--) backslashes++;
      if ((backslashes & 1) === 0) break;
      close++;
    }
    this.pos = close + 1;
    const firstBackslash = text.indexOf('\\', start + 1);
    const escaped = firstBackslash !== -1 && firstBackslash < close;
    if (this.strict) this.checkStringBody(start, close);
    if (!decode) return escaped;
    if (!escaped) return text.slice(start + 1, close);
    return JSON.parse(text.slice(start, close + 1)) as string;
  }

  /** Strict mode: native check of a string token, and a precise walk only when it fails. */
  private checkStringBody(start: number, close: number): void {
    const text = this.text;
    if (close < text.length) {
      try {
        JSON.parse(text.slice(start, close + 1));
        return;
      } catch {
        // Fall through to find exactly what is wrong.
      }
    }
    for (let at = start + 1; at < close; at++) {
      const c = text.charCodeAt(at);
      if (c < 0x20) {
        const what = c === 0x0a || c === 0x0d ? 'line break' : `control character ${describeChar(text, at)}`;
        const hint = c === 0x0a || c === 0x0d ? " (missing closing '\"'? Write line breaks inside strings as \\n)" : ' (escape it as \\u00XX)';
        throw new SyntaxProblem('json_syntax', `${what} inside a string${hint}`, at, at + 1);
      }
      if (c === BACKSLASH) {
        const next = text.charCodeAt(at + 1);
        if (next === 0x75) {
          HEX4.lastIndex = at + 2;
          if (!HEX4.test(text)) throw new SyntaxProblem('json_syntax', 'invalid \\u escape: expected four hexadecimal digits', at, Math.min(at + 6, text.length));
          at += 5;
        } else if (next === 0x22 || next === 0x5c || next === 0x2f || next === 0x62 || next === 0x66 || next === 0x6e || next === 0x72 || next === 0x74) {
          at += 1;
        } else {
          throw new SyntaxProblem('json_syntax', `invalid escape sequence '\\${text[at + 1] ?? ''}' in a string`, at, Math.min(at + 2, text.length));
        }
      }
    }
  }

  private skipWhitespace(): void {
    const text = this.text;
    let at = this.pos;
    for (; at < text.length; at++) {
      const c = text.charCodeAt(at);
      if (c === 0x20) continue;
      if (c === 0x0a || (c === 0x0d && text.charCodeAt(at + 1) !== 0x0a)) this.lineStarts.push(at + 1);
      else if (c !== 0x09 && c !== 0x0d) break;
    }
    this.pos = at;
  }
}

class Document implements ParsedJson {
  readonly ok = true as const;
  private lines: LineIndex | undefined;

  constructor(
    readonly value: unknown,
    private readonly text: string,
    private readonly root: Node,
    private readonly lineStarts: readonly number[],
  ) {}

  private find(pointer: string): { node: Node; member?: Member } | undefined {
    const tokens = parsePointer(pointer);
    if (tokens === undefined) return undefined;
    let node = this.root;
    let member: Member | undefined;
    for (const token of tokens) {
      if (node.members) {
        member = node.members.get(token);
        if (member === undefined) return undefined;
        node = member.value;
      } else if (node.items) {
        if (!/^(?:0|[1-9][0-9]*)$/.test(token)) return undefined;
        const item = node.items[Number(token)];
        if (item === undefined) return undefined;
        member = undefined;
        node = item;
      } else return undefined;
    }
    return member ? { node, member } : { node };
  }

  span(pointer: string, part: LocationPart = 'value'): SourceSpan | undefined {
    const found = this.find(pointer);
    if (found === undefined) return undefined;
    if (part === 'key') return found.member ? { start: found.member.keyStart, end: found.member.keyEnd } : undefined;
    return { start: found.node.start, end: found.node.end };
  }

  spanInString(pointer: string, index: number, length: number): SourceSpan | undefined {
    const found = this.find(pointer);
    if (found === undefined || this.text.charCodeAt(found.node.start) !== QUOTE) return undefined;
    const { start, end, escaped } = found.node;
    if (!escaped) {
      const from = Math.min(start + 1 + index, end - 1);
      return { start: from, end: Math.min(from + length, end - 1) };
    }
    // Walk the raw token, counting the UTF-16 units each escape decodes to.
    const text = this.text;
    let raw = start + 1;
    let decoded = 0;
    let from = -1;
    const target = index + length;
    while (raw < end - 1) {
      if (decoded === index && from === -1) from = raw;
      if (decoded >= target) break;
      raw += text.charCodeAt(raw) === BACKSLASH ? (text.charCodeAt(raw + 1) === 0x75 ? 6 : 2) : 1;
      decoded++;
    }
    if (from === -1) from = raw;
    return { start: from, end: Math.max(from, raw) };
  }

  locate(pointer: string, part: LocationPart = 'value'): SourceRange | undefined {
    const span = this.span(pointer, part);
    return span === undefined ? undefined : this.rangeOf(span);
  }

  rangeOf(span: SourceSpan): SourceRange {
    this.lines ??= new LineIndex(this.text, this.lineStarts);
    return this.lines.range(span);
  }
}

function problemFinding(problem: SyntaxProblem, lines: LineIndex): Finding {
  const range = lines.range({ start: problem.start, end: Math.max(problem.end, problem.start) });
  return { severity: 'error', code: problem.code, path: '', message: problem.message, ...range };
}

/**
 * Parses JSON text, keeping where every value and key is. Rejects duplicate
 * keys (`duplicate_field`, located at the second occurrence, one finding each)
 * and reports the first syntax error (`json_syntax`) or excessive nesting
 * (`json_nesting_too_deep`) with its line and column. Never throws.
 * A leading byte order mark is skipped (offsets still count it).
 */
export function parseJsonDocument(text: string): ParseResult {
  let value: unknown;
  let valid = true;
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    valid = false;
  }
  const scanner = new Scanner(text, !valid);
  let root: Node;
  try {
    root = scanner.run();
  } catch (error) {
    const lines = new LineIndex(text);
    if (error instanceof SyntaxProblem) return { ok: false, findings: [problemFinding(error, lines)] };
    return { ok: false, findings: [{ severity: 'error', code: 'json_syntax', path: '', message: 'the text is not valid JSON', line: 1, column: 1, endLine: 1, endColumn: 1 }] };
  }
  if (!valid) {
    // The strict scan found nothing that JSON.parse rejected: report without a position rather than guess.
    return { ok: false, findings: [{ severity: 'error', code: 'json_syntax', path: '', message: 'the text is not valid JSON', line: 1, column: 1, endLine: 1, endColumn: 1 }] };
  }
  if (scanner.duplicates.length > 0) {
    const lines = new LineIndex(text);
    return {
      ok: false,
      findings: scanner.duplicates.map((d) => ({
        severity: 'error' as const,
        code: 'duplicate_field',
        path: d.pointer,
        message: `duplicate field '${d.key}': each field may appear only once in an object`,
        ...lines.range(d),
      })),
    };
  }
  return new Document(value, text, root, scanner.lineStarts);
}

/** Result of {@link decodeUtf8}. */
export type DecodeResult = { ok: true; text: string } | { ok: false; findings: Finding[] };

const MAX_UTF8_FINDINGS = 20;

/** Byte offsets and reasons of invalid UTF-8 sequences (WHATWG maximal-subpart rule). */
function invalidUtf8(bytes: Uint8Array): { offset: number; length: number; reason: string }[] {
  const problems: { offset: number; length: number; reason: string }[] = [];
  let i = 0;
  const n = bytes.length;
  while (i < n && problems.length < MAX_UTF8_FINDINGS) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lower = 0x80;
    let upper = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lower = 0xa0;
      if (b === 0xed) upper = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lower = 0x90;
      if (b === 0xf4) upper = 0x8f;
    } else {
      const reason =
        b >= 0x80 && b <= 0xbf
          ? `unexpected continuation byte 0x${b.toString(16)}`
          : b === 0xc0 || b === 0xc1
            ? `byte 0x${b.toString(16)} can only start an overlong encoding`
            : `byte 0x${b.toString(16)} never appears in UTF-8`;
      problems.push({ offset: i, length: 1, reason });
      i++;
      continue;
    }
    let j = 1;
    for (; j <= need; j++) {
      const c = bytes[i + j];
      if (c === undefined || c < lower || c > upper) break;
      lower = 0x80;
      upper = 0xbf;
    }
    if (j <= need) {
      const cut = i + j >= n;
      problems.push({
        offset: i,
        length: j,
        reason: cut
          ? `the text ends inside a ${need + 1}-byte sequence`
          : `byte 0x${b.toString(16)} starts a ${need + 1}-byte sequence that is cut short or invalid`,
      });
      i += j;
    } else i += need + 1;
  }
  return problems;
}

/**
 * Decodes UTF-8 bytes strictly. A byte order mark is kept in the text so the
 * validator can report it. Invalid input yields one `invalid_utf8` finding per
 * bad sequence (at most 20), each with its byte offset, line and column.
 */
export function decodeUtf8(bytes: Uint8Array): DecodeResult {
  try {
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes) };
  } catch {
    const lenient = new TextDecoder('utf-8', { ignoreBOM: true });
    const findings = invalidUtf8(bytes).map((problem): Finding => {
      let line = 1;
      let lineStart = 0;
      for (let at = bytes.indexOf(0x0a); at !== -1 && at < problem.offset; at = bytes.indexOf(0x0a, at + 1)) {
        line++;
        lineStart = at + 1;
      }
      const column = lenient.decode(bytes.subarray(lineStart, problem.offset)).length + 1;
      return {
        severity: 'error',
        code: 'invalid_utf8',
        path: '',
        message: `invalid UTF-8 at byte offset ${problem.offset}: ${problem.reason}`,
        line,
        column,
        endLine: line,
        endColumn: column + 1,
      };
    });
    return { ok: false, findings };
  }
}
