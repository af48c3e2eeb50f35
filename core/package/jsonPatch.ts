/**
 * JSON Patch (RFC 6902) over JSON values, with JSON Pointers (RFC 6901).
 *
 * - {@link parseJsonPatch} checks that an untrusted value is a patch document
 *   (an array of operation objects with the members each operation needs);
 *   members an operation does not define are ignored, as the RFC says.
 * - {@link applyJsonPatch} applies a patch to a copy: the input is never
 *   modified, and a patch is all or nothing (the first failing operation ends
 *   it, and the error names its index and why).
 *
 * Object members are written as own data properties, so a patch adding
 * `/__proto__` adds a member of that name and cannot reach a prototype.
 *
 * Isomorphic: no `node:` imports.
 */
import { parsePointer } from './parse';

/** One JSON Patch operation (RFC 6902 section 4). */
export type JsonPatchOperation =
  | { op: 'add' | 'replace' | 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; path: string; from: string };

/** The operation names of RFC 6902. */
export const JSON_PATCH_OPS: readonly JsonPatchOperation['op'][] = ['add', 'remove', 'replace', 'move', 'copy', 'test'];

/** Why a patch could not be parsed or applied. */
export interface JsonPatchError {
  /** Index of the offending operation in the patch; absent when the document itself is not a patch. */
  index?: number;
  message: string;
}

/** Result of {@link parseJsonPatch}. */
export type ParsedJsonPatch = { ok: true; patch: JsonPatchOperation[] } | { ok: false; error: JsonPatchError };

/** Result of {@link applyJsonPatch}: the patched copy, or why the patch failed. */
export type JsonPatchResult = { ok: true; value: unknown } | { ok: false; error: JsonPatchError };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks that `input` is a JSON Patch document and returns its operations with
 * only the members each one defines. An unknown `op`, a missing or non-string
 * `path`/`from`, a pointer that is not RFC 6901 or a missing `value` is an
 * error naming the operation.
 */
export function parseJsonPatch(input: unknown): ParsedJsonPatch {
  if (!Array.isArray(input)) return { ok: false, error: { message: 'a JSON Patch document is an array of operations' } };
  const patch: JsonPatchOperation[] = [];
  for (let index = 0; index < input.length; index++) {
    const raw: unknown = input[index];
    const fail = (message: string): ParsedJsonPatch => ({ ok: false, error: { index, message } });
    if (!isObject(raw)) return fail('an operation is a JSON object');
    const op = raw['op'];
    if (typeof op !== 'string' || !(JSON_PATCH_OPS as readonly string[]).includes(op)) {
      return fail(`"op" must be one of ${JSON_PATCH_OPS.join(', ')}${op === undefined ? '' : `, got ${JSON.stringify(op)}`}`);
    }
    const path = raw['path'];
    if (typeof path !== 'string') return fail('"path" must be a string');
    if (parsePointer(path) === undefined) return fail(`"path" ${JSON.stringify(path)} is not a JSON Pointer`);
    switch (op) {
      case 'add':
      case 'replace':
      case 'test':
        if (!Object.hasOwn(raw, 'value')) return fail(`"${op}" needs a "value"`);
        patch.push({ op, path, value: raw['value'] });
        break;
      case 'remove':
        patch.push({ op, path });
        break;
      case 'move':
      case 'copy': {
        const from = raw['from'];
        if (typeof from !== 'string') return fail(`"${op}" needs a string "from"`);
        if (parsePointer(from) === undefined) return fail(`"from" ${JSON.stringify(from)} is not a JSON Pointer`);
        patch.push({ op, path, from });
        break;
      }
    }
  }
  return { ok: true, patch };
}

/** A deep copy of a JSON value; object members become own data properties. */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v: unknown) => cloneJson(v)) as T;
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) setMember(out, key, cloneJson(value[key]));
    return out as T;
  }
  return value;
}

/** RFC 6902 section 4.6 equality: same type, and numbers by value, arrays by order, objects by members. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

class PatchFailure extends Error {}

/** An array index token: `0` or digits without a leading zero (RFC 6901 section 4). */
const INDEX = /^(?:0|[1-9][0-9]*)$/;

function describe(tokens: readonly string[], upTo: number): string {
  return tokens.length === 0 ? 'the document root' : `"/${tokens.slice(0, upTo).map((t) => t.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}"`;
}

function arrayIndex(array: unknown[], token: string, tokens: readonly string[], at: number, allowEnd: boolean): number {
  if (token === '-' && allowEnd) return array.length;
  if (!INDEX.test(token)) throw new PatchFailure(`${describe(tokens, at + 1)}: "${token}" is not an array index`);
  const index = Number(token);
  if (index > array.length || (!allowEnd && index === array.length)) {
    throw new PatchFailure(`${describe(tokens, at + 1)}: index ${index} is out of range (the array has ${array.length} element${array.length === 1 ? '' : 's'})`);
  }
  return index;
}

/** The value a pointer refers to; throws when it does not exist. */
function resolve(doc: unknown, tokens: readonly string[]): unknown {
  let node = doc;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (Array.isArray(node)) node = node[arrayIndex(node, token, tokens, i, false)];
    else if (isObject(node)) {
      if (!Object.hasOwn(node, token)) throw new PatchFailure(`${describe(tokens, i + 1)} does not exist`);
      node = node[token];
    } else throw new PatchFailure(`${describe(tokens, i + 1)} does not exist: ${describe(tokens, i)} is not an object or array`);
  }
  return node;
}

/** The container holding the pointer's target (which itself need not exist). */
function parentOf(doc: unknown, tokens: readonly string[]): unknown[] | Record<string, unknown> {
  const parent = resolve(doc, tokens.slice(0, -1));
  if (Array.isArray(parent) || isObject(parent)) return parent;
  throw new PatchFailure(`${describe(tokens, tokens.length - 1)} is not an object or array`);
}

function add(doc: unknown, tokens: readonly string[], value: unknown): unknown {
  if (tokens.length === 0) return value;
  const parent = parentOf(doc, tokens);
  const token = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, token, tokens, tokens.length - 1, true), 0, value);
  else setMember(parent, token, value);
  return doc;
}

function remove(doc: unknown, tokens: readonly string[]): unknown {
  if (tokens.length === 0) throw new PatchFailure('the document root cannot be removed');
  const parent = parentOf(doc, tokens);
  const token = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, token, tokens, tokens.length - 1, false), 1);
  else {
    if (!Object.hasOwn(parent, token)) throw new PatchFailure(`${describe(tokens, tokens.length)} does not exist`);
    delete parent[token];
  }
  return doc;
}

function applyOne(doc: unknown, op: JsonPatchOperation): unknown {
  const path = parsePointer(op.path)!;
  switch (op.op) {
    case 'add':
      return add(doc, path, cloneJson(op.value));
    case 'remove':
      return remove(doc, path);
    case 'replace': {
      if (path.length === 0) return cloneJson(op.value);
      const parent = parentOf(doc, path);
      const token = path[path.length - 1]!;
      if (Array.isArray(parent)) parent[arrayIndex(parent, token, path, path.length - 1, false)] = cloneJson(op.value);
      else {
        if (!Object.hasOwn(parent, token)) throw new PatchFailure(`${describe(path, path.length)} does not exist`);
        setMember(parent, token, cloneJson(op.value));
      }
      return doc;
    }
    case 'move': {
      const from = parsePointer(op.from)!;
      if (from.length < path.length && from.every((t, i) => t === path[i])) {
        throw new PatchFailure(`"from" ${JSON.stringify(op.from)} is a proper prefix of "path": a value cannot move into itself`);
      }
      if (op.from === op.path) {
        resolve(doc, from);
        return doc;
      }
      const value = resolve(doc, from);
      return add(remove(doc, from), path, value);
    }
    case 'copy':
      return add(doc, path, cloneJson(resolve(doc, parsePointer(op.from)!)));
    case 'test':
      if (!jsonEqual(resolve(doc, path), op.value)) throw new PatchFailure(`test failed: the value at ${describe(path, path.length)} is not ${JSON.stringify(op.value)}`);
      return doc;
  }
}

/**
 * Applies a JSON Patch to a copy of `doc` (RFC 6902 section 5: operations in
 * order, and the whole patch fails when one does). `patch` may be untrusted:
 * it is checked with {@link parseJsonPatch} first.
 */
export function applyJsonPatch(doc: unknown, patch: unknown): JsonPatchResult {
  const parsed = parseJsonPatch(patch);
  if (!parsed.ok) return parsed;
  let value = cloneJson(doc);
  for (let index = 0; index < parsed.patch.length; index++) {
    try {
      value = applyOne(value, parsed.patch[index]!);
    } catch (error) {
      if (error instanceof PatchFailure) return { ok: false, error: { index, message: error.message } };
      throw error;
    }
  }
  return { ok: true, value };
}
