/**
 * Strict decoding of selector answers. Decoding checks only the shape; which
 * identities are acceptable is decided afterwards by revalidation against the
 * pinned candidates, so a well-formed answer naming an unknown skill is
 * "invalid", not "malformed".
 *
 * The rules, precisely:
 *
 * - Activation: after trimming surrounding whitespace the answer must be one
 *   JSON object whose only key is `activate`, holding an array of strings. Any
 *   text before or after the object, a code fence, a duplicated key, another
 *   key, a nested value or a non-string entry is malformed.
 * - Resources (selector v2): the same, with the only key `resources` holding an
 *   array of `{"skill": string, "name": string}` objects (exactly those keys);
 *   the object may additionally be wrapped in one complete outer fence, either
 *   ```json or unlabelled, that spans the whole trimmed answer.
 * - Answers longer than {@link MAX_ANSWER_CHARS} are malformed without being
 *   parsed (a 512-token answer is far shorter).
 *
 * Isomorphic: no `node:` imports.
 */
import { parseJsonDocument } from '../package/parse';
import type { ResourceSelection } from './types';

/** Longest answer the decoders look at, in UTF-16 code units. */
export const MAX_ANSWER_CHARS = 16_384;

/** Result of decoding one answer. */
export type Decoded<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * Decodes an answer that must be exactly one JSON object: no text or fence
 * around it, no duplicated key, at most `maxChars` long (not parsed beyond).
 * Shared by every strict answer format (selectors, authoring advisor).
 */
export function decodeJsonObject(text: string, maxChars: number = MAX_ANSWER_CHARS): Decoded<Record<string, unknown>> {
  if (text.length > maxChars) return { ok: false, error: `the answer is ${text.length} characters long, above the ${maxChars} an answer may have` };
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, error: 'the answer is empty' };
  if (!trimmed.startsWith('{') || !trimmed.endsWith('}')) {
    return { ok: false, error: 'the answer must be exactly one JSON object, with no text or code fence around it' };
  }
  const parsed = parseJsonDocument(trimmed);
  if (!parsed.ok) {
    const f = parsed.findings[0];
    return { ok: false, error: `the answer is not valid JSON${f ? ` (${f.message}${f.line !== undefined ? ` at line ${f.line}, column ${f.column}` : ''})` : ''}` };
  }
  const value = parsed.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, error: 'the answer must be a JSON object' };
  return { ok: true, value: value as Record<string, unknown> };
}

function parseObject(text: string, key: string): Decoded<unknown> {
  const object = decodeJsonObject(text);
  if (!object.ok) return object;
  const keys = Object.keys(object.value);
  if (keys.length !== 1 || keys[0] !== key) return { ok: false, error: `the object must have exactly one key, "${key}"` };
  return { ok: true, value: object.value[key] };
}

/** Decodes an activation answer into the identities it names (not yet revalidated). */
export function decodeActivation(text: string): Decoded<string[]> {
  const inner = parseObject(text, 'activate');
  if (!inner.ok) return inner;
  const list = inner.value;
  if (!Array.isArray(list)) return { ok: false, error: '"activate" must be an array of "namespace/name" strings' };
  if (!list.every((x) => typeof x === 'string')) return { ok: false, error: 'every "activate" entry must be a string' };
  return { ok: true, value: list as string[] };
}

const FENCE = /^```(json|JSON)?[ \t]*\n([\s\S]*)\n[ \t]*```$/;

/** Decodes a resource answer (v2 fence rule) into the selections it names (not yet revalidated). */
export function decodeResources(text: string): Decoded<ResourceSelection[]> {
  if (text.length > MAX_ANSWER_CHARS) return { ok: false, error: `the answer is ${text.length} characters long, far above a selector answer` };
  let body = text.trim().replace(/\r\n?/g, '\n');
  if (body.startsWith('```')) {
    const fence = FENCE.exec(body);
    if (!fence) return { ok: false, error: 'a code fence must be one complete ```json or unlabelled fence around the whole answer' };
    body = fence[2]!;
    if (body.includes('```')) return { ok: false, error: 'only one code fence is allowed' };
  }
  const inner = parseObject(body, 'resources');
  if (!inner.ok) return inner;
  const list = inner.value;
  if (!Array.isArray(list)) return { ok: false, error: '"resources" must be an array of {"skill","name"} objects' };
  const out: ResourceSelection[] = [];
  for (const entry of list) {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return { ok: false, error: 'every "resources" entry must be an object' };
    const keys = Object.keys(entry).sort();
    if (keys.length !== 2 || keys[0] !== 'name' || keys[1] !== 'skill') {
      return { ok: false, error: 'every "resources" entry must have exactly the keys "skill" and "name"' };
    }
    const { skill, name } = entry as Record<string, unknown>;
    if (typeof skill !== 'string' || typeof name !== 'string') return { ok: false, error: '"skill" and "name" must be strings' };
    out.push({ skill, name });
  }
  return { ok: true, value: out };
}
