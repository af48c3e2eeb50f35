/**
 * The form view's side of the one package text: reading the text into the
 * fields the form shows, turning a field change into the smallest text edit
 * that makes it (so the JSON view, its undo stack, the validator and the
 * meters all see one ordinary edit), and placing each validation finding
 * beside the field its JSON Pointer points into. Pure: no DOM, no Monaco.
 */
import { joinPointer, parseJsonDocument, parsePointer, type ParsedJson } from '../../core/package/parse';
import type { Finding } from '../../core/package/types';

/** A replacement of `[start, end)` (UTF-16 offsets into the text) by `text`. */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/** The text read for the form: a JSON object, or why the form cannot show it. */
export type FormDocument =
  | { ok: true; value: Record<string, unknown>; parsed: ParsedJson }
  | { ok: false; message: string; line?: number; column?: number };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads `text` for the form; a syntax error or a non-object names where the JSON view must fix it. */
export function readFormDocument(text: string): FormDocument {
  const parsed = parseJsonDocument(text);
  if (!parsed.ok) {
    const first = parsed.findings[0];
    return {
      ok: false,
      message: first?.message ?? 'the text is not valid JSON',
      ...(first?.line !== undefined ? { line: first.line } : {}),
      ...(first?.column !== undefined ? { column: first.column } : {}),
    };
  }
  if (!isObject(parsed.value)) return { ok: false, message: 'the package is not a JSON object', line: 1, column: 1 };
  return { ok: true, value: parsed.value, parsed };
}

/** The value at `pointer`, or undefined. */
export function valueAt(value: unknown, pointer: string): unknown {
  const tokens = parsePointer(pointer);
  if (!tokens) return undefined;
  let node: unknown = value;
  for (const token of tokens) {
    if (Array.isArray(node)) node = /^(0|[1-9][0-9]*)$/.test(token) ? node[Number(token)] : undefined;
    else if (isObject(node) && Object.prototype.hasOwnProperty.call(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}

function lineStart(text: string, offset: number): number {
  let at = offset;
  while (at > 0 && text[at - 1] !== '\n' && text[at - 1] !== '\r') at--;
  return at;
}

/** The leading whitespace of the line holding `offset`. */
function indentAt(text: string, offset: number): string {
  const start = lineStart(text, offset);
  return /^[ \t]*/.exec(text.slice(start, offset))?.[0] ?? '';
}

/** The text's indentation step: that of its first indented line, else two spaces. */
function indentUnit(text: string): string {
  const m = /\n([ \t]+)\S/.exec(text);
  return m?.[1] ?? '  ';
}

function eol(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

/** `value` as JSON laid out like the text around it, its first line at `indent`. */
function format(text: string, value: unknown, indent: string): string {
  const unit = indentUnit(text);
  const json = JSON.stringify(value, null, unit.startsWith('\t') ? '\t' : unit.length) ?? 'null';
  return json.replace(/\n/g, `${eol(text)}${indent}`);
}

/** Shrinks a replacement to the part that differs, so markers and the cursor elsewhere stay put. */
function trim(text: string, edit: TextEdit): TextEdit | undefined {
  const old = text.slice(edit.start, edit.end);
  if (old === edit.text) return undefined;
  let head = 0;
  const max = Math.min(old.length, edit.text.length);
  while (head < max && old.charCodeAt(head) === edit.text.charCodeAt(head)) head++;
  let tail = 0;
  while (tail < max - head && old.charCodeAt(old.length - 1 - tail) === edit.text.charCodeAt(edit.text.length - 1 - tail)) tail++;
  return { start: edit.start + head, end: edit.end - tail, text: edit.text.slice(head, edit.text.length - tail) };
}

/**
 * The edit that sets the value at `pointer` to `value` in `text`, leaving
 * every other character as it is: the value's own text is replaced when it
 * exists; a missing member is appended to its object (missing objects on the
 * way are created). Undefined when nothing changes or the pointer cannot be
 * reached (the text does not parse, or a parent is not an object).
 */
export function setValueEdit(text: string, pointer: string, value: unknown): TextEdit | undefined {
  const doc = readFormDocument(text);
  if (!doc.ok) return undefined;
  return editIn(text, doc.parsed, pointer, value);
}

function editIn(text: string, parsed: ParsedJson, pointer: string, value: unknown): TextEdit | undefined {
  const span = parsed.span(pointer);
  if (span) return trim(text, { start: span.start, end: span.end, text: format(text, value, indentAt(text, span.start)) });
  const tokens = parsePointer(pointer);
  if (!tokens || tokens.length === 0) return undefined;
  const key = tokens[tokens.length - 1]!;
  const parentPointer = tokens.slice(0, -1).reduce((p, t) => joinPointer(p, t), '');
  const parent = valueAt(parsed.value, parentPointer);
  if (parent === undefined) return editIn(text, parsed, parentPointer, { [key]: value });
  if (!isObject(parent)) return undefined;
  const parentSpan = parsed.span(parentPointer);
  if (!parentSpan) return undefined;
  const keys = Object.keys(parent);
  if (keys.length === 0) return trim(text, { start: parentSpan.start, end: parentSpan.end, text: format(text, { [key]: value }, indentAt(text, parentSpan.start)) });
  // After the member that ends last in the text (JSON.parse moves integer-like keys first).
  let lastEnd = -1;
  let lastKeyStart = parentSpan.start;
  for (const k of keys) {
    const member = parsed.span(joinPointer(parentPointer, k));
    const keySpan = parsed.span(joinPointer(parentPointer, k), 'key');
    if (member && member.end > lastEnd) {
      lastEnd = member.end;
      lastKeyStart = keySpan?.start ?? member.start;
    }
  }
  const indent = indentAt(text, lastKeyStart);
  const inline = lineStart(text, lastKeyStart) <= parentSpan.start;
  const separator = inline ? ', ' : `,${eol(text)}${indent}`;
  return { start: lastEnd, end: lastEnd, text: `${separator}${JSON.stringify(key)}: ${format(text, value, inline ? indentAt(text, parentSpan.start) : indent)}` };
}

/**
 * Places each finding with the field it belongs to: the longest of `pointers`
 * that is the finding's path or a parent of it. Findings under none of them
 * (the whole document, an unknown member) go to `''`.
 */
export function assignFindings(findings: readonly Finding[], pointers: readonly string[]): Map<string, Finding[]> {
  const byField = new Map<string, Finding[]>();
  const sorted = [...new Set(pointers)].sort((a, b) => b.length - a.length);
  for (const finding of findings) {
    const field = sorted.find((p) => p !== '' && (finding.path === p || finding.path.startsWith(`${p}/`))) ?? '';
    const list = byField.get(field);
    if (list) list.push(finding);
    else byField.set(field, [finding]);
  }
  return byField;
}
