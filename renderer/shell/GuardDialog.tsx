/**
 * The unsaved-changes dialog (see `guard.ts`): lists every dirty tab, offers
 * Save / Don't Save / Cancel, and cannot be dismissed by Escape or a click
 * outside it.
 */
import { useGuardStore } from './guard';
import { Modal } from './Modal';
import { useTabsStore } from './useTabsStore';

export function GuardDialog() {
  const request = useGuardStore((s) => s.request);
  const tabs = useTabsStore((s) => s.tabs);
  if (!request) return null;
  // Show what is still dirty: a partial save clears the tabs it saved.
  const ids = new Set(request.dirty.map((t) => t.id));
  const dirty = tabs.filter((t) => ids.has(t.id) && t.dirty);
  const shown = dirty.length > 0 ? dirty : request.dirty;
  return (
    <Modal title="Unsaved changes" testId="unsaved-dialog">
      <p>{request.reason}</p>
      <p>
        {shown.length === 1 ? 'This tab has' : `These ${shown.length} tabs have`} changes that are not saved:
      </p>
      <ul className="unsaved-list" data-testid="unsaved-list">
        {shown.map((tab) => (
          <li key={tab.id} data-testid={`unsaved-item-${tab.id}`} className="isolate">
            {tab.title}
            {tab.description && <span className="muted"> — {tab.description}</span>}
          </li>
        ))}
      </ul>
      {request.error && (
        <div className="inline-error" role="alert" data-testid="unsaved-error">
          <strong>Not saved.</strong> <span className="isolate">{request.error}</span>
        </div>
      )}
      <div className="actions">
        <button type="button" className="btn left" data-testid="unsaved-dont-save" disabled={request.busy} onClick={() => request.decide('discard')}>
          Don't Save
        </button>
        <button type="button" className="btn" data-testid="unsaved-cancel" disabled={request.busy} onClick={() => request.decide('cancel')}>
          Cancel
        </button>
        <button type="button" className="btn primary" data-testid="unsaved-save" data-autofocus disabled={request.busy} onClick={() => request.decide('save')}>
          {request.busy ? 'Saving…' : shown.length > 1 ? 'Save All' : 'Save'}
        </button>
      </div>
    </Modal>
  );
}
