/**
 * Versioned selector prompt templates: the wording sent to a model, with
 * `{{placeholder}}` slots filled in one pass (an inserted value is never
 * scanned again, so request text containing `{{catalog}}` stays literal text).
 *
 * A template changes the wording only. The output contract, strict decoding,
 * identity revalidation, temperature and output ceiling are fixed by the
 * selector, as in the runtime (guide 9.4, 9.5).
 *
 * Isomorphic: no `node:` imports.
 */
import { parseJsonDocument } from '../../package/parse';
import type { SelectorKind } from '../types';

/** A selector prompt template. */
export interface PromptTemplate {
  /** Stable identifier, recorded in every trace (e.g. `truvag3.activation`). */
  id: string;
  /** Version of the wording, recorded in every trace. */
  version: string;
  kind: SelectorKind;
  /** System message. */
  system: string;
  /** User message. */
  user: string;
  /** Extra user message sent after a malformed answer on the second attempt. */
  correction: string;
}

/** Placeholders a template may use, by kind. Values are already encoded when inserted. */
export const TEMPLATE_PLACEHOLDERS: Readonly<Record<SelectorKind, readonly string[]>> = Object.freeze({
  activation: ['request', 'context', 'catalog', 'boundary', 'output_format', 'guidance', 'error'],
  resource: ['request', 'context', 'catalog', 'boundary', 'output_format', 'guidance', 'error', 'prior_selections', 'active_skills'],
});

/** Placeholders whose absence makes a template unusable (the model could not decide without them). */
const REQUIRED_IN_USER = ['request', 'catalog'];

const SLOT = /\{\{([a-z_]+)\}\}/g;

/** A template text split at its slots: `literals` has one more entry than `slots`. */
interface SplitText {
  literals: string[];
  slots: string[];
  /** The JSON-encoded literals (no quotes), made on first use. */
  encoded?: string[];
}

/** Split texts by template text: a run fills the same few templates for every call. */
const splitTexts = new Map<string, SplitText>();
const MAX_SPLIT_TEXTS = 256;

function splitText(text: string): SplitText {
  let split = splitTexts.get(text);
  if (split) return split;
  split = { literals: [], slots: [] };
  let at = 0;
  for (const m of text.matchAll(SLOT)) {
    split.literals.push(text.slice(at, m.index));
    split.slots.push(m[1]!);
    at = m.index + m[0].length;
  }
  split.literals.push(text.slice(at));
  // Templates are few; a caller filling many distinct texts must not grow the map without end.
  if (splitTexts.size >= MAX_SPLIT_TEXTS) splitTexts.clear();
  splitTexts.set(text, split);
  return split;
}

const slotValue = (values: Readonly<Record<string, string>>, name: string): string => (Object.hasOwn(values, name) ? values[name]! : `{{${name}}}`);

/** Fills `{{name}}` slots in one pass; unknown slots are left as they are (templates are checked on load). */
export function fillTemplate(text: string, values: Readonly<Record<string, string>>): string {
  const { literals, slots } = splitText(text);
  let out = literals[0]!;
  for (let i = 0; i < slots.length; i++) out += slotValue(values, slots[i]!) + literals[i + 1]!;
  return out;
}

/** JSON encodings (no quotes) of long slot values, which repeat call after call (a variant's catalog). */
const encodedValues = new Map<string, string>();
const ENCODED_VALUE_MIN_CHARS = 256;
const MAX_ENCODED_VALUES = 64;

/** `JSON.stringify(text)` without its quotes. */
function encode(text: string): string {
  if (text.length < ENCODED_VALUE_MIN_CHARS) return JSON.stringify(text).slice(1, -1);
  let known = encodedValues.get(text);
  if (known === undefined) {
    known = JSON.stringify(text).slice(1, -1);
    if (encodedValues.size >= MAX_ENCODED_VALUES) encodedValues.clear();
    encodedValues.set(text, known);
  }
  return known;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/**
 * {@link fillTemplate}, with the JSON string of the result (`JSON.stringify(text)`)
 * assembled from encoded pieces: the literals encoded once per template text,
 * long values once per value. JSON encodes each UTF-16 unit on its own except a
 * surrogate pair, so the pieces join to the exact text unless a pair is split
 * across two of them: then `json` is undefined.
 */
export function fillTemplateJson(text: string, values: Readonly<Record<string, string>>): { text: string; json: string | undefined } {
  const split = splitText(text);
  const encoded = (split.encoded ??= split.literals.map(encode));
  let out = split.literals[0]!;
  let json = encoded[0]!;
  let exact = true;
  // The last unit of `out`, kept as pieces go in: reading it from `out` itself would flatten the
  // growing concatenation on every piece (a copy of the prompt so far per slot).
  let last = out.length > 0 ? out.charCodeAt(out.length - 1) : -1;
  // Pieces alternate: the value of slot i, then literal i + 1.
  for (let p = 0; p < 2 * split.slots.length; p++) {
    const i = p >> 1;
    const piece = p % 2 === 0 ? slotValue(values, split.slots[i]!) : split.literals[i + 1]!;
    if (piece.length === 0) continue;
    if (last !== -1 && (isHighSurrogate(last) || isLowSurrogate(piece.charCodeAt(0)))) exact = false;
    last = piece.charCodeAt(piece.length - 1);
    out += piece;
    json += p % 2 === 0 ? encode(piece) : encoded[i + 1]!;
  }
  return { text: out, json: exact ? `"${json}"` : undefined };
}

/** One problem in a user-supplied template; line/column point into the file when known. */
export interface TemplateIssue {
  path: string;
  message: string;
  line?: number;
  column?: number;
}

/** Result of {@link parseTemplate}. */
export type TemplateResult = { ok: true; template: PromptTemplate } | { ok: false; issues: TemplateIssue[] };

const FIELDS = ['id', 'version', 'kind', 'system', 'user', 'correction'] as const;

function checkTemplate(t: Record<string, string>, issue: (path: string, message: string) => void): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$/.test(t['id'] ?? '')) issue('/id', 'id must be 1-128 characters: letters, digits, ".", "_", "/", "-"');
  if (!/^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/.test(t['version'] ?? '')) issue('/version', 'version must be 1-64 characters: letters, digits, ".", "_", "+", "-"');
  const kind = t['kind'];
  if (kind !== 'activation' && kind !== 'resource') {
    issue('/kind', `kind must be "activation" or "resource", got ${JSON.stringify(kind)}`);
    return;
  }
  const allowed = TEMPLATE_PLACEHOLDERS[kind];
  for (const field of ['system', 'user', 'correction'] as const) {
    const text = t[field] ?? '';
    if (text.trim() === '') issue(`/${field}`, `${field} must not be empty`);
    for (const m of text.matchAll(SLOT)) {
      if (!allowed.includes(m[1]!)) issue(`/${field}`, `unknown placeholder {{${m[1]}}} (allowed for ${kind}: ${allowed.join(', ')})`);
    }
  }
  for (const name of REQUIRED_IN_USER) {
    if (!(t['user'] ?? '').includes(`{{${name}}}`)) issue('/user', `user must contain {{${name}}}`);
  }
}

/**
 * Parses a user-supplied template. Two forms are accepted:
 *
 * - JSON: `{"id", "version", "kind", "system", "user", "correction"}`, all strings;
 * - text: header lines `id: ...`, `version: ...`, `kind: ...`, then sections
 *   introduced by a line `=== system`, `=== user` and `=== correction`.
 *
 * The form is chosen by the first non-blank character (`{` means JSON).
 */
export function parseTemplate(text: string): TemplateResult {
  const issues: TemplateIssue[] = [];
  const fields: Record<string, string> = {};
  if (text.trimStart().startsWith('{')) {
    const parsed = parseJsonDocument(text);
    if (!parsed.ok) {
      return { ok: false, issues: parsed.findings.map((f) => ({ path: f.path, message: `invalid JSON: ${f.message}`, ...(f.line !== undefined && { line: f.line, column: f.column ?? 1 }) })) };
    }
    const issue = (path: string, message: string) => {
      const at = parsed.locate(path);
      issues.push(at ? { path, message, line: at.line, column: at.column } : { path, message });
    };
    const value = parsed.value;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      issue('', 'a template must be a JSON object');
      return { ok: false, issues };
    }
    const obj = value as Record<string, unknown>;
    for (const key of Object.keys(obj)) {
      if (!(FIELDS as readonly string[]).includes(key)) issue(`/${key}`, `unknown field '${key}' (allowed: ${FIELDS.join(', ')})`);
    }
    for (const key of FIELDS) {
      const v = Object.hasOwn(obj, key) ? obj[key] : undefined;
      if (typeof v !== 'string') issue(v === undefined ? '' : `/${key}`, v === undefined ? `missing field '${key}'` : `${key} must be a string`);
      else fields[key] = v;
    }
    if (issues.length === 0) checkTemplate(fields, issue);
  } else {
    const lines = text.replace(/\r\n?/g, '\n').split('\n');
    const lineOf: Record<string, number> = {};
    const issue = (path: string, message: string) => {
      const key = path.slice(1);
      issues.push(lineOf[key] !== undefined ? { path, message, line: lineOf[key], column: 1 } : { path, message });
    };
    let section: string | undefined;
    const body: Record<string, string[]> = {};
    lines.forEach((line, index) => {
      const header = /^===\s*([a-z]+)\s*$/.exec(line);
      if (header) {
        const name = header[1]!;
        if (!['system', 'user', 'correction'].includes(name)) {
          issues.push({ path: '', line: index + 1, column: 1, message: `unknown section '${name}' (system, user, correction)` });
          section = undefined;
          return;
        }
        if (body[name]) issues.push({ path: `/${name}`, line: index + 1, column: 1, message: `duplicate section '${name}'` });
        section = name;
        body[name] = [];
        lineOf[name] = index + 1;
        return;
      }
      if (section !== undefined) {
        body[section]!.push(line);
        return;
      }
      if (line.trim() === '' || line.trimStart().startsWith('#')) return;
      const kv = /^([a-z]+)\s*:\s*(.*?)\s*$/.exec(line);
      if (!kv || !['id', 'version', 'kind'].includes(kv[1]!)) {
        issues.push({ path: '', line: index + 1, column: 1, message: 'expected a header line (id:, version:, kind:) or a section line (=== system)' });
        return;
      }
      if (fields[kv[1]!] !== undefined) issues.push({ path: `/${kv[1]}`, line: index + 1, column: 1, message: `duplicate header '${kv[1]}'` });
      fields[kv[1]!] = kv[2]!;
      lineOf[kv[1]!] = index + 1;
    });
    for (const [name, content] of Object.entries(body)) fields[name] = content.join('\n').trim();
    for (const key of FIELDS) if (fields[key] === undefined) issues.push({ path: '', message: `missing ${['system', 'user', 'correction'].includes(key) ? `section '=== ${key}'` : `header '${key}:'`}` });
    if (issues.length === 0) checkTemplate(fields, issue);
  }
  if (issues.length > 0) return { ok: false, issues };
  return {
    ok: true,
    template: {
      id: fields['id']!,
      version: fields['version']!,
      kind: fields['kind'] as SelectorKind,
      system: fields['system']!,
      user: fields['user']!,
      correction: fields['correction']!,
    },
  };
}
