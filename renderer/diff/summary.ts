/**
 * The semantic summary above a diff: one chip per changed field or resource,
 * built from `core/package`'s diff, each with the JSON Pointer a click jumps
 * to and the side it lives on. Key order and whitespace never show: the diff
 * is semantic, and an identical pair reads "No changes". Pure.
 */
import type { FieldChange, PackageDiff } from '../../core/package/diff';

/** What one chip says and where it goes. */
export interface SummaryChip {
  /** `~` changed, `+` added, `−` removed. */
  sign: '~' | '+' | '−';
  /** `description`, `2 should_activate`, `resource refund-policy`. */
  text: string;
  /** Which side the pointer is into. */
  side: 'before' | 'after';
  pointer: string;
  /** Grouping: fields, instructions, resources, examples. */
  group: 'fields' | 'instructions' | 'resources' | 'examples';
}

/** The headline of a diff. */
export interface DiffHeadline {
  kind: 'no-changes' | 'noop' | 'changes';
  text: string;
}

const INSTRUCTIONS = new Set(['planning_instructions', 'response_instructions', 'tool_hints']);

function groupOf(change: FieldChange): SummaryChip['group'] {
  if (change.resource !== undefined || change.field === 'resources') return 'resources';
  if (change.field.startsWith('activation_examples')) return 'examples';
  if (INSTRUCTIONS.has(change.field)) return 'instructions';
  return 'fields';
}

function shortField(field: string): string {
  return field.replace(/^activation_examples\./, '');
}

/** The headline: "No changes", a same-content no-op, or the count of changed fields. */
export function headline(diff: PackageDiff): DiffHeadline {
  if (diff.identical) return { kind: 'no-changes', text: 'No changes' };
  if (diff.same_content_noop) return { kind: 'noop', text: 'Only the change reason differs: publishing this would be a same-content no-op' };
  const n = diff.summary.counts.fields;
  return { kind: 'changes', text: `${n} field${n === 1 ? '' : 's'} changed` };
}

/** One chip per change, in package order. */
export function summaryChips(diff: PackageDiff): SummaryChip[] {
  const chips: SummaryChip[] = [];
  for (const change of diff.changes) {
    const group = groupOf(change);
    const side = change.kind === 'removed' ? 'before' : 'after';
    if (change.field === 'resources' && change.kind !== 'changed') {
      const value = (change.kind === 'added' ? change.after : change.before) as { name?: string } | undefined;
      chips.push({ sign: change.kind === 'added' ? '+' : '−', text: `resource ${value?.name ?? ''}`.trim(), side, pointer: change.path, group });
      continue;
    }
    if (change.resource !== undefined) {
      chips.push({ sign: '~', text: `resource ${change.resource}: ${change.field}`, side, pointer: change.path, group });
      continue;
    }
    const detail = change.detail;
    if (detail?.type === 'list') {
      const name = shortField(change.field);
      const { added, removed, changed, moved, items } = detail.diff;
      // Jump to the first entry of each kind, not just the list.
      const at = (op: string, side: 'before' | 'after') => {
        const item = items.find((i) => (op === 'changed' ? i.op === 'changed' || i.op === 'moved' : i.op === op));
        const index = side === 'before' ? item?.before_index : item?.after_index;
        return index === undefined ? change.path : `${change.path}/${index}`;
      };
      if (added) chips.push({ sign: '+', text: `${added} ${name}`, side: 'after', pointer: at('added', 'after'), group });
      if (removed) chips.push({ sign: '−', text: `${removed} ${name}`, side: 'before', pointer: at('removed', 'before'), group });
      if (changed || moved) chips.push({ sign: '~', text: `${changed + moved} ${name}`, side: 'after', pointer: at('changed', 'after'), group });
      if (!added && !removed && !changed && !moved) chips.push({ sign: '~', text: name, side, pointer: change.path, group });
      continue;
    }
    if (detail?.type === 'set') {
      const name = shortField(change.field);
      if (detail.diff.added.length) chips.push({ sign: '+', text: `${detail.diff.added.length} ${name}`, side: 'after', pointer: change.path, group });
      if (detail.diff.removed.length) chips.push({ sign: '−', text: `${detail.diff.removed.length} ${name}`, side: 'before', pointer: change.path, group });
      continue;
    }
    if (detail?.type === 'order') {
      chips.push({ sign: '~', text: 'resource order', side: 'after', pointer: change.path, group });
      continue;
    }
    chips.push({ sign: change.kind === 'added' ? '+' : change.kind === 'removed' ? '−' : '~', text: shortField(change.field), side, pointer: change.path, group });
  }
  return chips;
}
