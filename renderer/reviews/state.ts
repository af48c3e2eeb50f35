/**
 * What the review view decides, as pure functions: the changed fields a
 * reviewer marks as viewed and the progress count, the item-by-item rows of a
 * list field, which verdict buttons the viewer is offered (never Approve on
 * their own request), and whether Publish is enabled (only with an approval
 * whose signature stands), with the reason when it is not.
 */
import type { FieldChange, PackageDiff } from '../../core/package/diff';
import type { ReviewRequest, ReviewStatus } from '../../core/api/contract';

/** One changed field of the request's diff against its base. */
export interface ReviewField {
  /** JSON Pointer of the change (into the request's package; into the base for a removal). */
  pointer: string;
  /** `~` changed, `+` added, `−` removed. */
  sign: '~' | '+' | '−';
  /** `description`, `activation_examples.should_activate`, `resource refund-policy: content`. */
  label: string;
}

function labelOf(change: FieldChange): string {
  if (change.resource !== undefined) return `resource ${change.resource}: ${change.field}`;
  if (change.field === 'resources' && change.kind !== 'changed') {
    const value = (change.kind === 'added' ? change.after : change.before) as { name?: string } | undefined;
    return `resource ${value?.name ?? ''}`.trim();
  }
  return change.field;
}

/** One entry per change of `diff`, in package order; a pointer appears once. */
export function reviewFields(diff: PackageDiff): ReviewField[] {
  const seen = new Set<string>();
  const fields: ReviewField[] = [];
  for (const change of diff.changes) {
    if (seen.has(change.path)) continue;
    seen.add(change.path);
    fields.push({ pointer: change.path, sign: change.kind === 'added' ? '+' : change.kind === 'removed' ? '−' : '~', label: labelOf(change) });
  }
  return fields;
}

/** The viewed progress: marks on pointers that are no longer changed do not count. */
export function viewedProgress(fields: readonly ReviewField[], viewed: readonly string[]): { viewed: number; total: number; text: string; complete: boolean } {
  const marks = new Set(viewed);
  const n = fields.filter((f) => marks.has(f.pointer)).length;
  const total = fields.length;
  return { viewed: n, total, text: `${n}/${total} field${total === 1 ? '' : 's'} viewed`, complete: n === total };
}

/** Toggles the mark of `pointer`. */
export function toggleViewed(viewed: readonly string[], pointer: string): string[] {
  return viewed.includes(pointer) ? viewed.filter((p) => p !== pointer) : [...viewed, pointer];
}

/** An action: hidden, or shown and enabled or disabled with the reason. */
export type ActionState = { shown: false } | { shown: true; enabled: true } | { shown: true; enabled: false; reason: string };

/** The actions the viewer is offered on a request. */
export interface ReviewActions {
  approve: ActionState;
  requestChanges: ActionState;
  reject: ActionState;
  comment: ActionState;
  publish: ActionState;
}

const CLOSED: readonly ReviewStatus[] = ['rejected', 'published'];

const on: ActionState = { shown: true, enabled: true };
const off = (reason: string): ActionState => ({ shown: true, enabled: false, reason });

/** The facts the actions depend on. */
export type ActionFacts = Pick<ReviewRequest, 'status' | 'stale' | 'viewer_is_author' | 'validation' | 'approvals' | 'verified_approval'> & Partial<Pick<ReviewRequest, 'action' | 'unverifiable'>>;

/** Whether the request's package validates. */
export function isValid(request: Pick<ReviewRequest, 'validation'>): boolean {
  return request.validation.valid;
}

/** A current (not stale) approval exists, and its signature stands. */
export function isApproved(request: Pick<ReviewRequest, 'status' | 'approvals' | 'verified_approval'>): boolean {
  return request.status === 'approved' && request.verified_approval && request.approvals.some((a) => !a.stale && a.verified);
}

/** Which actions the viewer sees and can use. The author never sees Approve, Request changes or Reject. */
export function reviewActions(request: ActionFacts): ReviewActions {
  const closed = CLOSED.includes(request.status);
  const closedReason = `The request is ${request.status === 'published' ? 'published' : 'rejected'}`;
  const verdict = (): ActionState => {
    if (request.viewer_is_author) return { shown: false };
    if (closed) return off(closedReason);
    return on;
  };
  let approve = verdict();
  if (approve.shown && approve.enabled) {
    // A stale approval can be renewed: approving again binds the current hash.
    if (!isValid(request)) approve = off('The package does not validate: it cannot be approved');
    else if (request.status === 'approved' && !request.stale) approve = off('Already approved');
  }
  let publish: ActionState;
  if (request.status === 'published') publish = off('Already published');
  else if (request.status === 'rejected') publish = off('The request was rejected');
  else if (request.stale || request.status === 'stale') publish = off('The approval is stale: the draft or the store changed after it. A new approval is needed');
  else if (!isValid(request)) publish = off('The package does not validate');
  else if (request.status === 'approved' && !request.verified_approval)
    publish = off(request.unverifiable ? `The signatures cannot be checked: ${request.unverifiable}` : 'No approval signature stands: none verifies against your allowed signers for this request as it is');
  else if (!isApproved(request)) publish = off(request.status === 'changes_requested' ? 'Changes were requested: it needs an approval' : 'Not approved yet: a reviewer other than the author must approve it');
  else publish = on;
  return {
    approve,
    requestChanges: verdict(),
    reject: verdict(),
    comment: closed ? off(closedReason) : on,
    publish,
  };
}

/** A method the host does not offer (`not_implemented`). */
export function isNotAvailable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'not_implemented';
}

/** How a status reads. */
export function statusLabel(status: ReviewStatus, stale = false): string {
  if (stale && status !== 'published' && status !== 'rejected') return 'Stale';
  switch (status) {
    case 'open':
      return 'Open';
    case 'changes_requested':
      return 'Changes requested';
    case 'approved':
      return 'Approved';
    case 'rejected':
      return 'Rejected';
    case 'published':
      return 'Published';
    case 'stale':
      return 'Stale';
  }
}

/** Comments grouped by pointer, for badges beside each field. */
export function commentsByPointer(comments: ReviewRequest['comments']): Map<string, ReviewRequest['comments']> {
  const map = new Map<string, ReviewRequest['comments']>();
  for (const c of comments) map.set(c.pointer, [...(map.get(c.pointer) ?? []), c]);
  return map;
}

/** One row of a list field, item by item: what happened to that entry. */
export interface ItemRow {
  op: 'equal' | 'added' | 'removed' | 'changed' | 'moved';
  /** The entry as it is in the request (as it was, for a removal). */
  text: string;
  /** The entry before an in-place edit. */
  before?: string;
}

const asStrings = (v: unknown): string[] | undefined => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined);

/**
 * The rows of a list-valued field (instructions, tool hints, activation
 * examples, domains, tags): each entry marked added, removed, edited, moved or
 * unchanged, from the package diff's item-level alignment; every entry is
 * added when there is no base. Undefined for a field that is not a list.
 */
export function itemRows(change: FieldChange | undefined, after?: unknown): ItemRow[] | undefined {
  if (!change) {
    const list = asStrings(after);
    return list?.map((text) => ({ op: 'added' as const, text }));
  }
  const detail = change.detail;
  if (detail?.type === 'list') {
    return detail.diff.items.map((item) => {
      const text = item.after ?? item.before ?? '';
      return item.op === 'changed' ? { op: 'changed' as const, text, before: item.before ?? '' } : { op: item.op, text };
    });
  }
  if (detail?.type === 'set') {
    const added = new Set(detail.diff.added);
    const now = asStrings(change.after) ?? [];
    return [...detail.diff.removed.map((text) => ({ op: 'removed' as const, text })), ...now.map((text) => ({ op: added.has(text) ? ('added' as const) : ('equal' as const), text }))];
  }
  const before = asStrings(change.before);
  const now = asStrings(change.after);
  if (!before && !now) return undefined;
  return [...(before ?? []).map((text) => ({ op: 'removed' as const, text })), ...(now ?? []).map((text) => ({ op: 'added' as const, text }))];
}

/** `+1 −0` for a list field's row: counts of added, removed and edited entries. */
export function itemSummary(rows: readonly ItemRow[]): string {
  const n = (op: ItemRow['op']) => rows.filter((r) => r.op === op).length;
  const parts = [`+${n('added')}`, `−${n('removed')}`];
  if (n('changed') > 0) parts.push(`~${n('changed')}`);
  if (n('moved') > 0) parts.push(`↕${n('moved')}`);
  return `${parts.join(' ')} of ${rows.filter((r) => r.op !== 'removed').length}`;
}
