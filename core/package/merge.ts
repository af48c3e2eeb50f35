/**
 * Three-way merge of packages at field and resource granularity, for the case
 * where an author's draft meets a newer published revision (a 412 on publish).
 *
 * Isomorphic: no `node:` imports.
 */
import { RESOURCE_CONTENT_FIELDS, type SkillPackage, type SkillResource } from './types';
import { jsonPointer } from './diff';

/** A value that can appear on one side of a conflict; `null` when the side does not have it. */
export type MergeValue = string | boolean | string[] | SkillResource | null;

/**
 * A field (or resource) changed differently on both sides. `path` is a JSON
 * Pointer into `merged`, or into `theirs` for a resource the merge dropped
 * because the author had removed it. `field` follows the diff's naming
 * (`description`, `activation_examples.should_activate`, or `content` with
 * `resource` set); a whole-resource conflict has `field: 'resources'`.
 */
export interface MergeConflict {
  path: string;
  field: string;
  /** Name of the resource the conflict belongs to, when it belongs to one. */
  resource?: string;
  base: MergeValue;
  theirs: MergeValue;
  mine: MergeValue;
}

/** Result of {@link mergePackages}. `clean` is true when `conflicts` is empty. */
export interface MergeResult {
  merged: SkillPackage;
  conflicts: MergeConflict[];
  clean: boolean;
}

type Comparable = string | boolean | string[];

function same(a: Comparable, b: Comparable): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => v === b[i]);
  return a === b;
}

function copy<T extends Comparable>(v: T): T {
  return (Array.isArray(v) ? [...v] : v) as T;
}

/**
 * Three-way merge of one value: a change on one side wins, identical changes
 * agree; different changes on both sides keep `mine` and report a conflict.
 * `base` is undefined when the value did not exist in the base (added on both sides).
 */
function mergeValue<T extends Comparable>(base: T | undefined, theirs: T, mine: T, conflict: (base: T | undefined) => void): T {
  if (same(theirs, mine)) return copy(mine);
  if (base !== undefined && same(base, mine)) return copy(theirs);
  if (base !== undefined && same(base, theirs)) return copy(mine);
  conflict(base);
  return copy(mine);
}

/**
 * Merges a set-valued field: additions and removals of both sides all apply,
 * so it never conflicts. The result is sorted and free of duplicates, as in a
 * normalized package.
 */
function mergeSet(base: readonly string[], theirs: readonly string[], mine: readonly string[]): string[] {
  const b = new Set(base);
  const t = new Set(theirs);
  const m = new Set(mine);
  const out = new Set<string>();
  for (const v of b) if (t.has(v) && m.has(v)) out.add(v);
  for (const v of t) if (!b.has(v)) out.add(v);
  for (const v of m) if (!b.has(v)) out.add(v);
  return [...out].sort();
}

function sameResource(a: SkillResource, b: SkillResource): boolean {
  return a.name === b.name && RESOURCE_CONTENT_FIELDS.every((f) => same(a[f], b[f]));
}

function cloneResource(r: SkillResource): SkillResource {
  return { ...r, applies_to: [...r.applies_to] };
}

interface Pending {
  field: string;
  resource?: string;
  /** Resolves the path once the merged resource order is known. */
  path: () => string;
  base: MergeValue;
  theirs: MergeValue;
  mine: MergeValue;
}

/**
 * Field-by-field merge of a resource present on both sides (`base` absent when
 * both sides added it independently).
 */
function mergeResource(base: SkillResource | undefined, theirs: SkillResource, mine: SkillResource, pathOf: (field: string) => () => string, pending: Pending[]): SkillResource {
  const out = cloneResource(mine);
  const set = <K extends (typeof RESOURCE_CONTENT_FIELDS)[number]>(field: K): void => {
    out[field] = mergeValue<SkillResource[K]>(base?.[field], theirs[field], mine[field], (b) => {
      pending.push({
        field,
        resource: mine.name,
        path: pathOf(field),
        base: b === undefined ? null : copy(b),
        theirs: copy(theirs[field]),
        mine: copy(mine[field]),
      });
    });
  };
  for (const f of RESOURCE_CONTENT_FIELDS) set(f);
  return out;
}

/**
 * Names of the merged resources in order: mine's order, then resources only
 * theirs added, in theirs' order. When mine left the resource list exactly as
 * in base (same names, same order), theirs' order is kept instead, so a
 * reordering published by someone else is not undone by a draft that never
 * touched it; a resource theirs removed but mine kept (a conflict) then goes
 * right after the resource it followed in mine.
 */
function resourceOrder(base: readonly SkillResource[], theirs: readonly SkillResource[], mine: readonly SkillResource[], kept: ReadonlySet<string>): string[] {
  const names = (rs: readonly SkillResource[]): string[] => rs.map((r) => r.name).filter((n) => kept.has(n));
  const mineNames = names(mine);
  const theirsNames = names(theirs);
  if (!same(base.map((r) => r.name), mine.map((r) => r.name))) {
    return [...mineNames, ...theirsNames.filter((n) => !mineNames.includes(n))];
  }
  const out = [...theirsNames];
  mineNames.forEach((n, i) => {
    if (out.includes(n)) return;
    const after = i === 0 ? -1 : out.indexOf(mineNames[i - 1]!);
    out.splice(after + 1, 0, n);
  });
  return out;
}

function mergeResources(base: readonly SkillResource[], theirs: readonly SkillResource[], mine: readonly SkillResource[], conflicts: Pending[]): SkillResource[] {
  const pending: Pending[] = [];
  const byName = (rs: readonly SkillResource[]): Map<string, SkillResource> => new Map(rs.map((r) => [r.name, r] as const));
  const b = byName(base);
  const t = byName(theirs);
  const m = byName(mine);
  const merged = new Map<string, SkillResource>();
  // Paths depend on the final order, so they are resolved after ordering.
  let indexOf = new Map<string, number>();
  const mergedPath = (name: string, field?: string) => (): string =>
    field === undefined ? jsonPointer('resources', indexOf.get(name) ?? -1) : jsonPointer('resources', indexOf.get(name) ?? -1, field);
  const theirsPath = (name: string) => (): string => jsonPointer('resources', theirs.findIndex((r) => r.name === name));

  const all = new Set([...b.keys(), ...t.keys(), ...m.keys()]);
  for (const name of all) {
    const rb = b.get(name);
    const rt = t.get(name);
    const rm = m.get(name);
    if (rt && rm) {
      merged.set(name, mergeResource(rb, rt, rm, (field) => mergedPath(name, field), pending));
    } else if (rm) {
      // Theirs lacks it: either mine added it, or theirs removed it.
      if (!rb) {
        merged.set(name, cloneResource(rm));
      } else if (!sameResource(rb, rm)) {
        pending.push({ field: 'resources', resource: name, path: mergedPath(name), base: cloneResource(rb), theirs: null, mine: cloneResource(rm) });
        merged.set(name, cloneResource(rm));
      }
    } else if (rt) {
      if (!rb) {
        merged.set(name, cloneResource(rt));
      } else if (!sameResource(rb, rt)) {
        // The author removed what theirs changed: keep the author's removal, report it.
        pending.push({ field: 'resources', resource: name, path: theirsPath(name), base: cloneResource(rb), theirs: cloneResource(rt), mine: null });
      }
    }
  }
  const order = resourceOrder(base, theirs, mine, new Set(merged.keys()));
  indexOf = new Map(order.map((n, i) => [n, i] as const));
  // Report in merged order (dropped resources last); the sort is stable, so fields keep their order.
  const rank = (p: Pending): number => indexOf.get(p.resource ?? '') ?? order.length;
  conflicts.push(...pending.sort((x, y) => rank(x) - rank(y)));
  return order.map((n) => merged.get(n)!);
}

/**
 * Three-way merge of `theirs` (e.g. the newer published revision) and `mine`
 * (the author's draft) against their common `base`:
 * - a field changed on one side takes that side; the same change on both is
 *   not a conflict; different changes keep `mine` and report a conflict;
 * - lists other than domains and tags merge as whole values;
 * - domains and tags merge as sets (never a conflict);
 * - resources match by name: one-sided additions and removals apply; a
 *   removal on one side against a change on the other is a conflict (the
 *   merge keeps mine); resources on both sides merge field by field;
 * - `change_reason` always takes mine.
 * Nothing the author wrote is lost: wherever the sides disagree, the merged
 * package holds mine and the conflict holds both.
 */
export function mergePackages(base: SkillPackage, theirs: SkillPackage, mine: SkillPackage): MergeResult {
  const pending: Pending[] = [];
  const value = <T extends Comparable>(field: string, b: T, t: T, m: T): T =>
    mergeValue<T>(b, t, m, () => {
      const path = `/${field.replace('.', '/')}`;
      pending.push({ field, path: () => path, base: copy(b), theirs: copy(t), mine: copy(m) });
    });

  const display_name = value('display_name', base.display_name, theirs.display_name, mine.display_name);
  const description = value('description', base.description, theirs.description, mine.description);
  const domains = mergeSet(base.domains, theirs.domains, mine.domains);
  const tags = mergeSet(base.tags, theirs.tags, mine.tags);
  const planning_instructions = value('planning_instructions', base.planning_instructions, theirs.planning_instructions, mine.planning_instructions);
  const response_instructions = value('response_instructions', base.response_instructions, theirs.response_instructions, mine.response_instructions);
  const tool_hints = value('tool_hints', base.tool_hints, theirs.tool_hints, mine.tool_hints);
  const resources = mergeResources(base.resources, theirs.resources, mine.resources, pending);
  const should_activate = value(
    'activation_examples.should_activate',
    base.activation_examples.should_activate,
    theirs.activation_examples.should_activate,
    mine.activation_examples.should_activate,
  );
  const should_not_activate = value(
    'activation_examples.should_not_activate',
    base.activation_examples.should_not_activate,
    theirs.activation_examples.should_not_activate,
    mine.activation_examples.should_not_activate,
  );

  const merged: SkillPackage = {
    display_name,
    description,
    domains,
    tags,
    planning_instructions,
    response_instructions,
    tool_hints,
    resources,
    activation_examples: { should_activate, should_not_activate },
    change_reason: mine.change_reason,
  };
  const conflicts: MergeConflict[] = pending.map((p) => {
    const c: MergeConflict = { path: p.path(), field: p.field, base: p.base, theirs: p.theirs, mine: p.mine };
    if (p.resource !== undefined) c.resource = p.resource;
    return c;
  });
  return { merged, conflicts, clean: conflicts.length === 0 };
}
