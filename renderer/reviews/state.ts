/**
 * What the review view decides, as pure functions: the changed fields a
 * reviewer marks as viewed and the progress count, which verdict buttons the
 * viewer is offered (never Approve on their own request), and whether Publish
 * is enabled, with the reason when it is not.
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
export type ActionFacts = Pick<ReviewRequest, 'status' | 'stale' | 'viewer_is_author' | 'validation' | 'approvals'>;

/** Whether the request's package validates. */
export function isValid(request: Pick<ReviewRequest, 'validation'>): boolean {
  return request.validation.valid;
}

/** A current (not stale) approval exists. */
export function isApproved(request: Pick<ReviewRequest, 'status' | 'approvals'>): boolean {
  return request.status === 'approved' && request.approvals.some((a) => !a.stale);
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
