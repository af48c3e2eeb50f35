/**
 * Skill bindings in the `TRUVAG3_SKILL_BINDINGS_JSON` format (guide 6.1, 6.3):
 * a JSON array of `{namespace, name, version, activation, required}`.
 *
 * Parsing is strict because a binding list decides eligibility: unknown or
 * duplicate fields, a missing `activation`, a numeric `version`, a malformed
 * identity and a repeated identity are all errors, each with its location.
 * `version` may be omitted (the guide's default, `published`); `required`
 * defaults to false. `[]` is valid and means "no skills".
 *
 * Isomorphic: no `node:` imports.
 */
import { isSlug } from '../package/rules';
import { skillKey } from '../package/types';
import type { SkillMetadata } from '../store/types';
import { escapePointerSegment, parseJsonDocument, type ParsedJson } from '../package/parse';
import { DEFAULT_SELECTOR_LIMITS } from './limits';
import type { ActivationMode, SkillBinding } from './types';

/** Runtime limit of a binding's namespace and of its name (guide 6.1); fixed, not configurable. */
export const MAX_BINDING_SLUG_CHARS = 64;

const FIELDS = ['namespace', 'name', 'version', 'activation', 'required'];
const ACTIVATIONS: readonly ActivationMode[] = ['always', 'auto', 'explicit'];

/** One problem in a binding list. `path` is a JSON Pointer; line/column are present for text input. */
export interface BindingIssue {
  path: string;
  message: string;
  line?: number;
  column?: number;
}

/** Result of {@link parseBindings}. */
export type BindingsResult = { ok: true; bindings: SkillBinding[] } | { ok: false; issues: BindingIssue[] };

/** Options of {@link parseBindings}. */
export interface ParseBindingsOptions {
  /** Largest accepted list (guide 9.10 `maxBindings`, default 32). */
  maxBindings?: number;
}

/** Checks one slug against the runtime binding rule; returns a message or undefined. */
export function checkBindingSlug(value: string, field: string): string | undefined {
  if (value.length === 0) return `${field} must not be empty`;
  if (value.length > MAX_BINDING_SLUG_CHARS) return `${field} is ${value.length} characters; bindings allow at most ${MAX_BINDING_SLUG_CHARS}`;
  if (!isSlug(value)) {
    return `${field} ${JSON.stringify(value)} is not a lowercase slug (letters, digits and inner hyphens)`;
  }
  return undefined;
}

/**
 * Parses a binding list from its JSON text (errors carry line and column) or
 * from an already parsed value (errors carry only the JSON Pointer).
 */
export function parseBindings(input: unknown, options: ParseBindingsOptions = {}): BindingsResult {
  const maxBindings = options.maxBindings ?? DEFAULT_SELECTOR_LIMITS.maxBindings;
  let value = input;
  let document: ParsedJson | undefined;
  if (typeof input === 'string') {
    const parsed = parseJsonDocument(input);
    if (!parsed.ok) {
      return {
        ok: false,
        issues: parsed.findings.map((f) => ({ path: f.path, message: `invalid JSON: ${f.message}`, ...(f.line !== undefined && { line: f.line, column: f.column ?? 1 }) })),
      };
    }
    value = parsed.value;
    document = parsed;
  }
  const issues: BindingIssue[] = [];
  const issue = (path: string, message: string, part: 'value' | 'key' = 'value') => {
    const at = document?.locate(path, part);
    issues.push(at ? { path, message, line: at.line, column: at.column } : { path, message });
  };
  if (!Array.isArray(value)) {
    issue('', 'bindings must be a JSON array of {namespace, name, version, activation, required} objects');
    return { ok: false, issues };
  }
  if (value.length > maxBindings) {
    issue('', `${value.length} bindings exceed the limit of ${maxBindings} (TRUVAG3_SKILL_MAX_BINDINGS)`);
  }
  const bindings: SkillBinding[] = [];
  const seen = new Map<string, number>();
  value.forEach((entry: unknown, index) => {
    const base = `/${index}`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      issue(base, 'a binding must be an object');
      return;
    }
    const obj = entry as Record<string, unknown>;
    let ok = true;
    for (const key of Object.keys(obj)) {
      if (!FIELDS.includes(key)) {
        issue(`${base}/${escapePointerSegment(key)}`, `unknown field '${key}' (allowed: ${FIELDS.join(', ')})`, 'key');
        ok = false;
      }
    }
    const ids: string[] = [];
    for (const field of ['namespace', 'name'] as const) {
      const v = Object.hasOwn(obj, field) ? obj[field] : undefined;
      if (v === undefined) {
        issue(base, `missing required field '${field}'`);
        ok = false;
      } else if (typeof v !== 'string') {
        issue(`${base}/${field}`, `${field} must be a string`);
        ok = false;
      } else {
        const problem = checkBindingSlug(v, field);
        if (problem) {
          issue(`${base}/${field}`, problem);
          ok = false;
        }
        ids.push(v);
      }
    }
    let version: SkillBinding['version'] = 'published';
    const rawVersion = Object.hasOwn(obj, 'version') ? obj['version'] : undefined;
    if (rawVersion !== undefined) {
      if (typeof rawVersion !== 'string') {
        issue(`${base}/version`, `version must be a string: "published" or a positive revision such as "3"`);
        ok = false;
      } else if (rawVersion === 'published') {
        version = 'published';
      } else if (/^[1-9][0-9]{0,14}$/.test(rawVersion)) {
        version = Number(rawVersion);
      } else {
        issue(`${base}/version`, `version ${JSON.stringify(rawVersion)} must be "published" or a positive revision such as "3"`);
        ok = false;
      }
    }
    const activation = Object.hasOwn(obj, 'activation') ? obj['activation'] : undefined;
    if (activation === undefined) {
      issue(base, `missing required field 'activation' (always, auto or explicit; it has no default)`);
      ok = false;
    } else if (typeof activation !== 'string' || !(ACTIVATIONS as string[]).includes(activation)) {
      issue(`${base}/activation`, `activation must be one of always, auto, explicit; got ${JSON.stringify(activation)}`);
      ok = false;
    }
    const required = Object.hasOwn(obj, 'required') ? obj['required'] : undefined;
    if (required !== undefined && typeof required !== 'boolean') {
      issue(`${base}/required`, 'required must be true or false');
      ok = false;
    }
    if (!ok) return;
    const [namespace, name] = ids as [string, string];
    const key = `${namespace}/${name}`;
    const first = seen.get(key);
    if (first !== undefined) {
      issue(base, `duplicate binding ${key} (first bound at /${first})`);
      return;
    }
    seen.set(key, index);
    bindings.push({ namespace, name, version, activation: activation as ActivationMode, required: required === true });
  });
  return issues.length > 0 ? { ok: false, issues } : { ok: true, bindings };
}

/**
 * Checks bindings built in code (already typed) with the same rules as
 * {@link parseBindings}, without re-serializing them; returns the problems
 * (empty when valid). Cheap enough to run on every selection.
 */
export function checkBindings(bindings: readonly SkillBinding[], maxBindings: number = DEFAULT_SELECTOR_LIMITS.maxBindings): BindingIssue[] {
  const issues: BindingIssue[] = [];
  if (bindings.length > maxBindings) issues.push({ path: '', message: `${bindings.length} bindings exceed the limit of ${maxBindings} (TRUVAG3_SKILL_MAX_BINDINGS)` });
  const seen = new Set<string>();
  for (let i = 0; i < bindings.length; i++) {
    const b = bindings[i]!;
    const nsProblem = typeof b.namespace === 'string' ? checkBindingSlug(b.namespace, 'namespace') : 'namespace must be a string';
    if (nsProblem) issues.push({ path: `/${i}/namespace`, message: nsProblem });
    const nameProblem = typeof b.name === 'string' ? checkBindingSlug(b.name, 'name') : 'name must be a string';
    if (nameProblem) issues.push({ path: `/${i}/name`, message: nameProblem });
    if (b.version !== 'published' && !(typeof b.version === 'number' && Number.isSafeInteger(b.version) && b.version >= 1)) {
      issues.push({ path: `/${i}/version`, message: 'version must be "published" or a positive revision' });
    }
    if (!(ACTIVATIONS as readonly unknown[]).includes(b.activation)) issues.push({ path: `/${i}/activation`, message: 'activation must be one of always, auto, explicit' });
    if (typeof b.required !== 'boolean') issues.push({ path: `/${i}/required`, message: 'required must be true or false' });
    const key = `${b.namespace}/${b.name}`;
    if (seen.has(key)) issues.push({ path: `/${i}`, message: `duplicate binding ${key}` });
    seen.add(key);
  }
  return issues;
}

/** One-line human text of a binding issue: `line 3, column 18 (/0/activation): ...`. */
export function formatBindingIssue(issue: BindingIssue): string {
  const where = issue.line !== undefined ? `line ${issue.line}, column ${issue.column} ` : '';
  return `${where}(${issue.path === '' ? 'document' : issue.path}): ${issue.message}`;
}

/**
 * The bindings used when none are given: every catalog skill as an optional
 * auto binding of its published version, in identity order.
 */
export function defaultBindings(catalog: readonly SkillMetadata[]): SkillBinding[] {
  return [...catalog]
    .sort((a, b) => compareIds(skillKey(a), skillKey(b)))
    .map((m) => ({ namespace: m.namespace, name: m.name, version: 'published' as const, activation: 'auto' as const, required: false }));
}

/** Code-unit order of `namespace/name` identities: stable across locales and runtimes. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
