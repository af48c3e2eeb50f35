/**
 * Semantic diff of two normalized packages, as plain data a review view can
 * render directly: field changes in package order, item-level list alignment,
 * word-level text diffs, set differences and resource matching by name.
 *
 * Isomorphic: no `node:` imports.
 */
import { joinPointer } from './parse';
import { EXAMPLE_KINDS, RESOURCE_CONTENT_FIELDS, type SkillPackage, type SkillResource } from './types';
import { type TextDiff, diffSequences, diffWords } from './wordDiff';

export type { TextDiff, TextSegment } from './wordDiff';
export { MAX_DIFF_EDITS, diffWords } from './wordDiff';

/**
 * How a field changed. Optional fields of the wire format are present but empty
 * in a normalized package, so going from empty to non-empty is `added` and back
 * is `removed`; a required field is always `changed`.
 */
export type ChangeKind = 'added' | 'removed' | 'changed';

/** A value a field change can carry. */
export type FieldValue = string | boolean | string[] | SkillResource;

/** Added and removed members of a set-valued field (domains, tags, applies_to), sorted. */
export interface SetDiff {
  added: string[];
  removed: string[];
}

/** What happened to one entry of a string list. */
export type ListItemOp = 'equal' | 'added' | 'removed' | 'changed' | 'moved';

/**
 * One entry of an aligned string list. `before_index`/`after_index` are
 * positions in the old and new lists. A `moved` entry has the same text at a new
 * position (it appears once, at its new position); a `changed` entry was edited
 * in place and carries a word diff.
 */
export interface ListItem {
  op: ListItemOp;
  before_index?: number;
  after_index?: number;
  before?: string;
  after?: string;
  text?: TextDiff;
}

/** Item-level diff of a string list, in display order (new order, removals where they were). */
export interface ListDiff {
  items: ListItem[];
  added: number;
  removed: number;
  changed: number;
  moved: number;
}

/** Order of the resources both packages share, when it changed. */
export interface OrderDiff {
  before: string[];
  after: string[];
  /** Names that left the longest common order (what a reader would call "moved"). */
  moved: string[];
}

/** Extra detail of a change, discriminated by `type` so a view can switch on it. */
export type ChangeDetail =
  | { type: 'text'; diff: TextDiff }
  | { type: 'list'; diff: ListDiff }
  | { type: 'set'; diff: SetDiff }
  | { type: 'order'; diff: OrderDiff };

/**
 * One change. `path` is a JSON Pointer (RFC 6901) into the new package, except
 * for `removed` changes, whose path points into the old one. `field` names the
 * field relative to its owner (`description`, `activation_examples.should_activate`,
 * or `content` with `resource` set for a field of a resource).
 */
export interface FieldChange {
  path: string;
  kind: ChangeKind;
  field: string;
  /** Name of the resource this change belongs to, when it belongs to one. */
  resource?: string;
  before?: FieldValue;
  after?: FieldValue;
  detail?: ChangeDetail;
}

/** A resource present in only one of the two packages. */
export interface ResourceRef {
  name: string;
  index: number;
}

/** A resource present in both packages whose fields differ. */
export interface ResourceChange {
  name: string;
  before_index: number;
  after_index: number;
  /** Field changes in resource field order. */
  changes: FieldChange[];
  /** Word counts of the content diff, when the content changed. */
  content?: { inserted_words: number; deleted_words: number; exact: boolean };
}

/** Resources matched by name. */
export interface ResourcesDiff {
  added: ResourceRef[];
  removed: ResourceRef[];
  changed: ResourceChange[];
  /** Names in both packages with identical fields. */
  unchanged: string[];
  /** Present when the shared resources appear in a different order. */
  reordered?: OrderDiff;
}

/** Counts per category, for badges and totals. */
export interface DiffCounts {
  /** Package fields with at least one change (resources count once). */
  fields: number;
  items_added: number;
  items_removed: number;
  items_changed: number;
  items_moved: number;
  values_added: number;
  values_removed: number;
  resources_added: number;
  resources_removed: number;
  resources_changed: number;
  resources_reordered: boolean;
}

/** Counts and one short human-readable line per changed field or resource. */
export interface DiffSummary {
  counts: DiffCounts;
  lines: string[];
}

/** The semantic diff of two packages. */
export interface PackageDiff {
  /** The packages are equal field by field (order-sensitive lists). */
  identical: boolean;
  /**
   * Publishing `after` over `before` would be a same-content no-op: nothing but
   * `change_reason` differs (also true when `identical`).
   */
  same_content_noop: boolean;
  /** Every change, in package field order; resource entries sit at the resources position. */
  changes: FieldChange[];
  resources: ResourcesDiff;
  summary: DiffSummary;
}

/** String-list fields diffed item by item, in package field order. */
const LIST_FIELDS = ['planning_instructions', 'response_instructions', 'tool_hints'] as const;

/** Resource fields compared one by one, in resource field order (name is the match key). */
type ResourceField = (typeof RESOURCE_CONTENT_FIELDS)[number];

/**
 * Below this share of common words, two entries at the same place are shown as
 * a removal and an addition instead of an edit: a word diff of unrelated
 * sentences is noise to a reviewer.
 */
const CHANGED_IN_PLACE_SIMILARITY = 0.3;

/** A JSON Pointer (RFC 6901) from the document root through `segments`. */
export function jsonPointer(...segments: (string | number)[]): string {
  return joinPointer('', ...segments);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function sameValue(a: FieldValue, b: FieldValue): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return sameList(a, b);
  return a === b;
}

function isEmpty(v: FieldValue): boolean {
  return v === '' || (Array.isArray(v) && v.length === 0);
}

function kindOf(before: FieldValue, after: FieldValue, optional: boolean): ChangeKind {
  if (optional && isEmpty(before)) return 'added';
  if (optional && isEmpty(after)) return 'removed';
  return 'changed';
}

/** Set difference of two string lists, each side sorted. */
export function diffSets(before: readonly string[], after: readonly string[]): SetDiff {
  const b = new Set(before);
  const a = new Set(after);
  return {
    added: [...a].filter((v) => !b.has(v)).sort(),
    removed: [...b].filter((v) => !a.has(v)).sort(),
  };
}

function similarity(diff: TextDiff, before: string, after: string): number {
  const words = (before.match(/\S+/gu)?.length ?? 0) + (after.match(/\S+/gu)?.length ?? 0);
  if (words === 0) return 1;
  const common = words - diff.inserted_words - diff.deleted_words;
  return common / words;
}

/** Above this many candidate pairs in one stretch, only same-position entries are compared. */
const MAX_PAIR_CANDIDATES = 400;

/**
 * Pairs removed and added entries of one changed stretch as in-place edits,
 * keeping their relative order: each removed entry takes the most similar
 * later added entry, if similar enough.
 */
function pairEdits(
  before: readonly string[],
  after: readonly string[],
  removed: readonly number[],
  added: readonly number[],
): { i: number; j: number; text: TextDiff }[] {
  const pairs: { i: number; j: number; text: TextDiff }[] = [];
  const positional = removed.length * added.length > MAX_PAIR_CANDIDATES;
  let next = 0;
  removed.forEach((i, p) => {
    let best: { q: number; score: number; text: TextDiff } | undefined;
    const from = positional ? p : next;
    const to = positional ? Math.min(p + 1, added.length) : added.length;
    for (let q = from; q < to; q++) {
      const j = added[q]!;
      const text = diffWords(before[i]!, after[j]!);
      const score = similarity(text, before[i]!, after[j]!);
      if (score >= CHANGED_IN_PLACE_SIMILARITY && (!best || score > best.score)) best = { q, score, text };
    }
    if (best) {
      pairs.push({ i, j: added[best.q]!, text: best.text });
      next = best.q + 1;
    }
  });
  return pairs;
}

/**
 * Item-level diff of two string lists: a longest-common-subsequence alignment
 * keeps equal entries in place; an entry removed at one place and added with
 * the same text elsewhere is `moved`; within one changed stretch, remaining
 * removals are paired, in order, with the most similar addition as `changed`
 * when they share at least 30% of their words; the rest stay `removed` and `added`.
 */
export function diffLists(before: readonly string[], after: readonly string[]): ListDiff {
  const { runs } = diffSequences(before, after, Number.POSITIVE_INFINITY);
  interface Stretch {
    removed: number[];
    added: number[];
  }
  const stretches: Stretch[] = [];
  const order: ({ kind: 'equal'; a: number; b: number } | { kind: 'stretch'; stretch: Stretch })[] = [];
  for (let i = 0; i < runs.length; i++) {
    const run = runs[i]!;
    if (run.op === 'equal') {
      for (let k = 0; k < run.aEnd - run.aStart; k++) order.push({ kind: 'equal', a: run.aStart + k, b: run.bStart + k });
      continue;
    }
    const next = runs[i + 1];
    const stretch: Stretch = { removed: [], added: [] };
    if (run.op === 'delete') {
      for (let k = run.aStart; k < run.aEnd; k++) stretch.removed.push(k);
      if (next && next.op === 'insert') {
        for (let k = next.bStart; k < next.bEnd; k++) stretch.added.push(k);
        i++;
      }
    } else {
      for (let k = run.bStart; k < run.bEnd; k++) stretch.added.push(k);
    }
    stretches.push(stretch);
    order.push({ kind: 'stretch', stretch });
  }

  // Moves: the same text removed in one place and added in another.
  const movedFrom = new Map<number, number>();
  const movedSources = new Set<number>();
  const addedByText = new Map<string, number[]>();
  for (const s of stretches) for (const j of s.added) {
    const text = after[j]!;
    const list = addedByText.get(text) ?? [];
    list.push(j);
    addedByText.set(text, list);
  }
  for (const s of stretches) for (const i of s.removed) {
    const candidates = addedByText.get(before[i]!);
    const j = candidates?.shift();
    if (j !== undefined) {
      movedFrom.set(j, i);
      movedSources.add(i);
    }
  }

  const items: ListItem[] = [];
  const counts = { added: 0, removed: 0, changed: 0, moved: 0 };
  for (const entry of order) {
    if (entry.kind === 'equal') {
      items.push({ op: 'equal', before_index: entry.a, after_index: entry.b, before: before[entry.a]!, after: after[entry.b]! });
      continue;
    }
    const removed = entry.stretch.removed.filter((i) => !movedSources.has(i));
    const added = entry.stretch.added.filter((j) => !movedFrom.has(j));
    const pairedWith = new Map<number, { i: number; text: TextDiff }>();
    const pairedSources = new Set<number>();
    for (const pair of pairEdits(before, after, removed, added)) {
      pairedWith.set(pair.j, { i: pair.i, text: pair.text });
      pairedSources.add(pair.i);
    }
    for (const i of removed) {
      if (pairedSources.has(i)) continue;
      items.push({ op: 'removed', before_index: i, before: before[i]! });
      counts.removed++;
    }
    for (const j of entry.stretch.added) {
      const from = movedFrom.get(j);
      const pair = pairedWith.get(j);
      if (from !== undefined) {
        items.push({ op: 'moved', before_index: from, after_index: j, before: before[from]!, after: after[j]! });
        counts.moved++;
      } else if (pair) {
        items.push({ op: 'changed', before_index: pair.i, after_index: j, before: before[pair.i]!, after: after[j]!, text: pair.text });
        counts.changed++;
      } else {
        items.push({ op: 'added', after_index: j, after: after[j]! });
        counts.added++;
      }
    }
  }
  return { items, ...counts };
}

function textChange(path: string, field: string, before: string, after: string, optional: boolean, resource?: string): FieldChange {
  const change: FieldChange = { path, kind: kindOf(before, after, optional), field, before, after, detail: { type: 'text', diff: diffWords(before, after) } };
  if (resource !== undefined) change.resource = resource;
  return change;
}

function listChange(path: string, field: string, before: string[], after: string[]): FieldChange {
  return { path, kind: kindOf(before, after, true), field, before: [...before], after: [...after], detail: { type: 'list', diff: diffLists(before, after) } };
}

function setChange(path: string, field: string, before: string[], after: string[], optional: boolean, resource?: string): FieldChange {
  const change: FieldChange = { path, kind: kindOf(before, after, optional), field, before: [...before], after: [...after], detail: { type: 'set', diff: diffSets(before, after) } };
  if (resource !== undefined) change.resource = resource;
  return change;
}

function resourceFieldChange(index: number, name: string, field: ResourceField, before: SkillResource, after: SkillResource): FieldChange | undefined {
  const b = before[field];
  const a = after[field];
  if (sameValue(b, a)) return undefined;
  const path = jsonPointer('resources', index, field);
  if (field === 'applies_to') return setChange(path, field, before.applies_to, after.applies_to, false, name);
  if (typeof b === 'string' && typeof a === 'string' && field !== 'content_type') return textChange(path, field, b, a, false, name);
  return { path, kind: 'changed', field, resource: name, before: b, after: a };
}

function diffResources(before: readonly SkillResource[], after: readonly SkillResource[]): { diff: ResourcesDiff; changes: FieldChange[] } {
  const beforeIndex = new Map(before.map((r, i) => [r.name, i] as const));
  const afterIndex = new Map(after.map((r, i) => [r.name, i] as const));
  const diff: ResourcesDiff = { added: [], removed: [], changed: [], unchanged: [] };
  const changes: FieldChange[] = [];

  after.forEach((res, j) => {
    const i = beforeIndex.get(res.name);
    if (i === undefined) {
      diff.added.push({ name: res.name, index: j });
      changes.push({ path: jsonPointer('resources', j), kind: 'added', field: 'resources', resource: res.name, after: structuredClone(res) });
      return;
    }
    const old = before[i]!;
    const fieldChanges = RESOURCE_CONTENT_FIELDS.map((f) => resourceFieldChange(j, res.name, f, old, res)).filter((c): c is FieldChange => c !== undefined);
    if (fieldChanges.length === 0) {
      diff.unchanged.push(res.name);
      return;
    }
    const change: ResourceChange = { name: res.name, before_index: i, after_index: j, changes: fieldChanges };
    const content = fieldChanges.find((c) => c.field === 'content');
    if (content?.detail?.type === 'text') {
      const d = content.detail.diff;
      change.content = { inserted_words: d.inserted_words, deleted_words: d.deleted_words, exact: d.exact };
    }
    diff.changed.push(change);
    changes.push(...fieldChanges);
  });
  before.forEach((res, i) => {
    if (afterIndex.has(res.name)) return;
    diff.removed.push({ name: res.name, index: i });
    changes.push({ path: jsonPointer('resources', i), kind: 'removed', field: 'resources', resource: res.name, before: structuredClone(res) });
  });

  const sharedBefore = before.map((r) => r.name).filter((n) => afterIndex.has(n));
  const sharedAfter = after.map((r) => r.name).filter((n) => beforeIndex.has(n));
  if (!sameList(sharedBefore, sharedAfter)) {
    const { runs } = diffSequences(sharedBefore, sharedAfter, Number.POSITIVE_INFINITY);
    const moved = runs.filter((r) => r.op === 'insert').flatMap((r) => sharedAfter.slice(r.bStart, r.bEnd));
    const order: OrderDiff = { before: sharedBefore, after: sharedAfter, moved };
    diff.reordered = order;
    changes.push({ path: '/resources', kind: 'changed', field: 'resources', before: before.map((r) => r.name), after: after.map((r) => r.name), detail: { type: 'order', diff: order } });
  }
  return { diff, changes };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function wordCounts(d: { inserted_words: number; deleted_words: number }): string {
  return `(+${d.inserted_words} \u2212${d.deleted_words} words)`;
}

function resourceLines(resources: ResourcesDiff): string[] {
  const lines: string[] = [];
  for (const r of resources.added) lines.push(`resource ${r.name}: added`);
  for (const r of resources.removed) lines.push(`resource ${r.name}: removed`);
  for (const r of resources.changed) {
    const others = r.changes.filter((c) => c.field !== 'content').map((c) => c.field);
    const parts: string[] = [];
    if (others.length) parts.push(`${others.join(', ')} changed`);
    if (r.content) parts.push(`content changed ${wordCounts(r.content)}`);
    lines.push(`resource ${r.name}: ${parts.join('; ')}`);
  }
  if (resources.reordered) lines.push(`resources: reordered (${plural(resources.reordered.moved.length, 'move')})`);
  return lines;
}

function summarize(changes: readonly FieldChange[], resources: ResourcesDiff): DiffSummary {
  const counts: DiffCounts = {
    fields: 0,
    items_added: 0,
    items_removed: 0,
    items_changed: 0,
    items_moved: 0,
    values_added: 0,
    values_removed: 0,
    resources_added: resources.added.length,
    resources_removed: resources.removed.length,
    resources_changed: resources.changed.length,
    resources_reordered: resources.reordered !== undefined,
  };
  const lines: string[] = [];
  let resourcesSeen = false;
  for (const c of changes) {
    if (c.field === 'resources' || c.resource !== undefined) {
      // Resource changes are contiguous in `changes`: summarize them once, in place.
      if (!resourcesSeen) {
        counts.fields++;
        lines.push(...resourceLines(resources));
      }
      resourcesSeen = true;
      continue;
    }
    counts.fields++;
    const detail = c.detail;
    if (detail?.type === 'list') {
      const d = detail.diff;
      counts.items_added += d.added;
      counts.items_removed += d.removed;
      counts.items_changed += d.changed;
      counts.items_moved += d.moved;
      const parts = [
        d.changed ? `${d.changed} changed` : '',
        d.added ? `${d.added} added` : '',
        d.removed ? `${d.removed} removed` : '',
        d.moved ? `${d.moved} moved` : '',
      ].filter(Boolean);
      lines.push(`${c.field}: ${parts.join(', ')}`);
    } else if (detail?.type === 'set') {
      const d = detail.diff;
      counts.values_added += d.added.length;
      counts.values_removed += d.removed.length;
      const parts = [d.added.length ? `added ${d.added.join(', ')}` : '', d.removed.length ? `removed ${d.removed.join(', ')}` : ''].filter(Boolean);
      lines.push(`${c.field}: ${parts.length ? parts.join('; ') : 'reordered'}`);
    } else if (detail?.type === 'text') {
      lines.push(`${c.field}: ${c.kind} ${wordCounts(detail.diff)}`);
    } else {
      lines.push(`${c.field}: ${c.kind}`);
    }
  }
  return { counts, lines };
}

/**
 * Semantic diff of two normalized packages (`before` is typically the published
 * revision, `after` the author's draft). Pure and deterministic; the result is
 * plain JSON-serializable data with no references into the inputs.
 */
export function diffPackages(before: SkillPackage, after: SkillPackage): PackageDiff {
  const changes: FieldChange[] = [];
  if (before.display_name !== after.display_name) changes.push(textChange('/display_name', 'display_name', before.display_name, after.display_name, false));
  if (before.description !== after.description) changes.push(textChange('/description', 'description', before.description, after.description, false));
  for (const field of ['domains', 'tags'] as const) {
    if (!sameList(before[field], after[field])) changes.push(setChange(jsonPointer(field), field, before[field], after[field], true));
  }
  for (const field of LIST_FIELDS) {
    if (sameList(before[field], after[field])) continue;
    const change = listChange(jsonPointer(field), field, before[field], after[field]);
    // planning_instructions is required, so emptying it is still a change, not a removal of the field.
    if (field === 'planning_instructions') change.kind = kindOf(before[field], after[field], false);
    changes.push(change);
  }
  const res = diffResources(before.resources, after.resources);
  changes.push(...res.changes);
  for (const field of EXAMPLE_KINDS) {
    const b = before.activation_examples[field];
    const a = after.activation_examples[field];
    if (!sameList(b, a)) changes.push(listChange(jsonPointer('activation_examples', field), `activation_examples.${field}`, b, a));
  }
  const reasonChanged = before.change_reason !== after.change_reason;
  if (reasonChanged) changes.push(textChange('/change_reason', 'change_reason', before.change_reason, after.change_reason, false));

  return {
    identical: changes.length === 0,
    same_content_noop: changes.length === (reasonChanged ? 1 : 0),
    changes,
    resources: res.diff,
    summary: summarize(changes, res.diff),
  };
}
