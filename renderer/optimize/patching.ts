/**
 * Applying a proposed JSON Patch to the editor's text, and the before/after
 * preview of the fields a patch changes. Pure: the panels call these, and the
 * editor's document changes only when the author clicks "Apply to draft".
 */
import { applyJsonPatch, type JsonPatchOperation } from '../../core/package/jsonPatch';
import { parsePointer } from '../../core/package/parse';

/** The outcome of applying a patch to a package text. */
export type PatchedText = { ok: true; text: string } | { ok: false; message: string };

/** Applies `patch` to the package JSON in `text`; the result is pretty-printed the way the editor shows packages. */
export function applyPatchToText(text: string, patch: readonly JsonPatchOperation[]): PatchedText {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `the draft is not valid JSON (${(error as Error).message}): fix it first, then apply` };
  }
  const patched = applyJsonPatch(doc, patch);
  if (!patched.ok) {
    const at = patched.error.index !== undefined ? `operation ${patched.error.index + 1}` : 'the patch';
    return { ok: false, message: `${at} does not apply to the draft as it is now (${patched.error.message}); the draft changed since: run it again` };
  }
  return { ok: true, text: `${JSON.stringify(patched.value, null, 2)}\n` };
}

/** One changed field: its pointer and its value before and after, as JSON text (absent when it did not exist). */
export interface FieldPreview {
  pointer: string;
  before?: string;
  after?: string;
}

function valueAt(doc: unknown, pointer: string): { found: boolean; value?: unknown } {
  const segments = parsePointer(pointer);
  if (!segments) return { found: false };
  let node: unknown = doc;
  for (const s of segments) {
    if (Array.isArray(node)) {
      const i = /^(0|[1-9][0-9]*)$/.test(s) ? Number(s) : -1;
      if (i < 0 || i >= node.length) return { found: false };
      node = node[i];
    } else if (node !== null && typeof node === 'object' && Object.prototype.hasOwnProperty.call(node, s)) {
      node = (node as Record<string, unknown>)[s];
    } else return { found: false };
  }
  return { found: true, value: node };
}

/**
 * The fields a patch touches (a list item as its whole list), each with its
 * value in `before` and `after`: what a reviewer needs to judge the change.
 */
export function previewPatch(before: unknown, after: unknown, patch: readonly JsonPatchOperation[]): FieldPreview[] {
  const pointers: string[] = [];
  for (const op of patch) {
    if (op.op === 'test') continue;
    for (const path of op.op === 'move' ? [op.from, op.path] : [op.path]) {
      const segments = parsePointer(path) ?? [];
      // An item of a list reads best as the whole list before and after.
      const last = segments.at(-1);
      const shown = last !== undefined && /^(0|[1-9][0-9]*|-)$/.test(last) ? segments.slice(0, -1) : segments;
      const pointer = shown.map((s) => `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
      if (!pointers.includes(pointer)) pointers.push(pointer);
    }
  }
  return pointers.map((pointer) => {
    const b = valueAt(before, pointer);
    const a = valueAt(after, pointer);
    return {
      pointer: pointer || '/',
      ...(b.found && { before: JSON.stringify(b.value, null, 2) }),
      ...(a.found && { after: JSON.stringify(a.value, null, 2) }),
    };
  });
}
