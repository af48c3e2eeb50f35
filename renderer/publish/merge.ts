/**
 * The merge after a 412: a field table of base / theirs / mine, the
 * resolutions a person picks for the conflicts `merge.packages` reports, and
 * the package they produce. One-sided changes are already merged by
 * `core/package`; only conflicts need a choice. Pure.
 */
import { cloneJson, jsonEqual } from '../../core/package/jsonPatch';
import type { MergeConflict, MergeValue } from '../../core/package/merge';
import { EXAMPLE_KINDS, PACKAGE_FIELDS, type SkillPackage } from '../../core/package/types';

/** How a conflict is resolved. */
export type Resolution = { pick: 'theirs' } | { pick: 'mine' } | { pick: 'both' } | { pick: 'edit'; text: string };

/** A row of the field table. */
export interface FieldRow {
  field: string;
  /** `unchanged`, changed the same way on both sides, auto-merged from one side, or in conflict. */
  state: 'unchanged' | 'same' | 'theirs' | 'mine' | 'merged' | 'conflict';
  conflicts: MergeConflict[];
}

/** Top-level fields in package order (examples split in two). */
export const MERGE_FIELDS = PACKAGE_FIELDS.flatMap((field) => (field === 'activation_examples' ? EXAMPLE_KINDS.map((kind) => `activation_examples.${kind}` as const) : [field]));

function valueAt(pkg: SkillPackage | null, field: string): unknown {
  if (!pkg) return undefined;
  if (field.startsWith('activation_examples.')) return pkg.activation_examples[field.slice('activation_examples.'.length) as 'should_activate'];
  return (pkg as unknown as Record<string, unknown>)[field];
}

function topField(conflict: MergeConflict): string {
  if (conflict.resource !== undefined || conflict.path.startsWith('/resources')) return 'resources';
  return conflict.field;
}

/**
 * The field table of a merge. A field's state says where the value the merge
 * produced (`merged`) comes from, so a row never claims theirs while the result
 * carries mine (`change_reason` always takes mine).
 */
export function fieldRows(base: SkillPackage | null, theirs: SkillPackage, mine: SkillPackage, conflicts: readonly MergeConflict[], merged: SkillPackage = mine): FieldRow[] {
  return MERGE_FIELDS.map((field) => {
    const own = conflicts.filter((c) => topField(c) === field);
    if (own.length > 0) return { field, state: 'conflict', conflicts: own };
    const b = valueAt(base, field);
    const t = valueAt(theirs, field);
    const m = valueAt(mine, field);
    const r = valueAt(merged, field);
    let state: FieldRow['state'];
    if (jsonEqual(t, m)) state = base && jsonEqual(b, t) ? 'unchanged' : 'same';
    else if (jsonEqual(r, m)) state = 'mine';
    else if (jsonEqual(r, t)) state = 'theirs';
    else state = 'merged';
    return { field, state, conflicts: [] };
  });
}

/** Whether `both` makes sense: both sides are string lists. */
export function canKeepBoth(conflict: MergeConflict): boolean {
  return Array.isArray(conflict.theirs) && Array.isArray(conflict.mine);
}

/** Whether a three-way text edit applies: a conflicting text field. */
export function isTextConflict(conflict: MergeConflict): boolean {
  return typeof conflict.mine === 'string' || typeof conflict.theirs === 'string';
}

/** Theirs, then what mine adds that theirs does not have, in mine's order. */
function both(theirs: string[], mine: string[]): string[] {
  const seen = new Set(theirs);
  return [...theirs, ...mine.filter((x) => !seen.has(x))];
}

/** The value a resolution gives a conflict. */
export function resolvedValue(conflict: MergeConflict, resolution: Resolution): MergeValue {
  switch (resolution.pick) {
    case 'theirs':
      return conflict.theirs;
    case 'mine':
      return conflict.mine;
    case 'both':
      return both((conflict.theirs as string[] | null) ?? [], (conflict.mine as string[] | null) ?? []);
    case 'edit':
      return resolution.text;
  }
}

function setAt(target: unknown, path: string, value: MergeValue): void {
  const segments = path.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const last = segments.pop();
  if (last === undefined) throw new Error(`cannot resolve the whole package at '${path}'`);
  let node = target as Record<string, unknown> | unknown[];
  for (const segment of segments) {
    node = (Array.isArray(node) ? node[Number(segment)] : node[segment]) as Record<string, unknown> | unknown[];
    if (node === undefined || node === null) throw new Error(`nothing at '${path}' in the merged package`);
  }
  if (Array.isArray(node)) {
    const index = Number(last);
    if (value === null) node.splice(index, 1);
    else node[index] = value;
  } else if (value === null) {
    delete node[last];
  } else {
    node[last] = value;
  }
}

/**
 * The merged package with every resolution applied (the merge holds mine where
 * the sides disagree). Whole-resource conflicts (removed on one side, changed
 * on the other) apply by resource name.
 */
export function applyResolutions(merged: SkillPackage, conflicts: readonly MergeConflict[], resolutions: ReadonlyMap<number, Resolution>): SkillPackage {
  const out = cloneJson(merged);
  const wholeResources: { name: string; value: MergeValue }[] = [];
  conflicts.forEach((conflict, i) => {
    const resolution = resolutions.get(i);
    if (!resolution) return;
    const value = resolvedValue(conflict, resolution);
    // A resource one side removed and the other changed: matched by name, since the paths of the sides differ.
    if (conflict.field === 'resources' && conflict.resource !== undefined) wholeResources.push({ name: conflict.resource, value });
    else setAt(out, conflict.path, value);
  });
  for (const { name, value } of wholeResources) {
    const index = out.resources.findIndex((r) => r.name === name);
    if (value === null) {
      if (index >= 0) out.resources.splice(index, 1);
    } else if (index >= 0) {
      out.resources[index] = cloneJson(value as SkillPackage['resources'][number]);
    } else {
      out.resources.push(cloneJson(value as SkillPackage['resources'][number]));
    }
  }
  return out;
}

/** Conflicts without a resolution. */
export function unresolved(conflicts: readonly MergeConflict[], resolutions: ReadonlyMap<number, Resolution>): number {
  return conflicts.filter((_, i) => !resolutions.has(i)).length;
}

/** A package as the editor shows it. */
export function packageText(pkg: SkillPackage): string {
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

/**
 * Conflicts when the base is not known (a create raced another create, or the
 * base is no longer retained): every top-level field the sides disagree on.
 */
export function conflictsWithoutBase(theirs: SkillPackage, mine: SkillPackage): MergeConflict[] {
  const out: MergeConflict[] = [];
  for (const field of MERGE_FIELDS) {
    if (field === 'change_reason') continue;
    const t = valueAt(theirs, field) as MergeValue;
    const m = valueAt(mine, field) as MergeValue;
    if (!jsonEqual(t, m)) out.push({ path: `/${field.replace('.', '/')}`, field, base: null, theirs: cloneJson(t), mine: cloneJson(m) });
  }
  return out;
}
