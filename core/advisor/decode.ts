/**
 * Strict decoding of the authoring advisor's answer (the guide keeps the
 * activation selector's malformed-answer policy for authoring: no fence, no
 * text around the object, a correction message and one more attempt).
 *
 * The answer must be exactly one JSON object with the keys `summary` (a
 * string), `suggestions` (an array of `{message, code?, path?}`) and
 * `proposals` (an array of `{title, rationale, patch}`), nothing else and no
 * duplicated key. The patches are not judged here: a proposal whose patch is
 * not a valid JSON Patch is dropped later with its reason, while the rest of
 * the answer stays usable.
 *
 * Isomorphic: no `node:` imports.
 */
import type { AdvisorProposal } from '../admin/types';
import { decodeJsonObject, type Decoded } from '../selector/decode';
import type { AdvisorSuggestion } from '../store/httpWire';

/** Longest answer looked at, in UTF-16 code units (a 1,024-token answer is far shorter). */
export const MAX_ADVISOR_ANSWER_CHARS = 65_536;
/** Longest summary, message, title or rationale kept, in characters. */
export const MAX_ADVICE_TEXT_CHARS = 2_000;

/** A decoded answer, not yet checked against the package. */
export interface DecodedAdvice {
  summary: string;
  suggestions: AdvisorSuggestion[];
  proposals: AdvisorProposal[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Why `value` does not have exactly the `required` keys plus some `optional` ones, if it does not. */
export function onlyKeys(value: Record<string, unknown>, required: readonly string[], optional: readonly string[] = []): string | undefined {
  for (const key of required) if (!Object.hasOwn(value, key)) return `the key "${key}" is missing`;
  for (const key of Object.keys(value)) if (!required.includes(key) && !optional.includes(key)) return `unexpected key "${key}"`;
  return undefined;
}

const clip = (text: string) => (text.length > MAX_ADVICE_TEXT_CHARS ? `${text.slice(0, MAX_ADVICE_TEXT_CHARS)}...` : text);

/** Decodes one answer (see the module comment). */
export function decodeAdvice(text: string): Decoded<DecodedAdvice> {
  const object = decodeJsonObject(text, MAX_ADVISOR_ANSWER_CHARS);
  if (!object.ok) return object;
  const root = object.value;
  const keys = onlyKeys(root, ['summary', 'suggestions', 'proposals']);
  if (keys) return { ok: false, error: keys };
  if (typeof root['summary'] !== 'string') return { ok: false, error: '"summary" must be a string' };
  const suggestions: AdvisorSuggestion[] = [];
  const rawSuggestions = root['suggestions'];
  if (!Array.isArray(rawSuggestions)) return { ok: false, error: '"suggestions" must be an array' };
  for (const [i, s] of rawSuggestions.entries()) {
    if (!isObject(s)) return { ok: false, error: `suggestion ${i} must be an object` };
    const problem = onlyKeys(s, ['message'], ['code', 'path']);
    if (problem) return { ok: false, error: `suggestion ${i}: ${problem}` };
    if (typeof s['message'] !== 'string') return { ok: false, error: `suggestion ${i}: "message" must be a string` };
    for (const key of ['code', 'path'] as const) {
      if (s[key] !== undefined && typeof s[key] !== 'string') return { ok: false, error: `suggestion ${i}: "${key}" must be a string` };
    }
    suggestions.push({
      message: clip(s['message']),
      ...(typeof s['code'] === 'string' && { code: clip(s['code']) }),
      ...(typeof s['path'] === 'string' && { path: clip(s['path']) }),
    });
  }
  const proposals: AdvisorProposal[] = [];
  const rawProposals = root['proposals'];
  if (!Array.isArray(rawProposals)) return { ok: false, error: '"proposals" must be an array' };
  for (const [i, p] of rawProposals.entries()) {
    if (!isObject(p)) return { ok: false, error: `proposal ${i} must be an object` };
    const problem = onlyKeys(p, ['title', 'rationale', 'patch']);
    if (problem) return { ok: false, error: `proposal ${i}: ${problem}` };
    if (typeof p['title'] !== 'string' || typeof p['rationale'] !== 'string') return { ok: false, error: `proposal ${i}: "title" and "rationale" must be strings` };
    proposals.push({ title: clip(p['title']), rationale: clip(p['rationale']), patch: p['patch'] });
  }
  return { ok: true, value: { summary: clip(root['summary']), suggestions, proposals } };
}
