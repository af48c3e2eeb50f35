/**
 * The guarded deletion of one version or a range: the registry's preview states
 * the consequence (what becomes a tombstone, what is protected or missing),
 * a reason is asked for the audit trail, and the person types the exact
 * `namespace/name@vN` (or `@vA-vB`) before Delete. Whatever the registry
 * answers (a 409 for a protected version, a 412 when the skill changed since the
 * preview) is shown here, in the dialog, not in a passing notice.
 */
import { useEffect, useState } from 'react';
import type { SkillId } from '../../core/package/types';
import { WorkbenchApiError, workbenchClient, type DeletePreview } from '../api/client';
import { Modal } from '../shell/Modal';
import { messageOf, useNotificationsStore } from '../shell/useNotificationsStore';

/** Props of {@link DeleteDialog}. */
export interface DeleteDialogProps {
  connection: string;
  skill: SkillId;
  initial: { from: number; to: number };
  /** `changed` is true when something was deleted. */
  onClose(changed: boolean): void;
}

function statusText(error: unknown): string {
  if (error instanceof WorkbenchApiError) {
    const status = error.code === 'conflict' ? '409 Conflict' : error.code === 'precondition_failed' ? '412 Precondition failed' : error.code;
    const after = error.code === 'precondition_failed' ? ' The preview has been read again; check it and confirm once more.' : '';
    return `${status}: ${error.message}.${after}`;
  }
  return messageOf(error);
}

export function DeleteDialog({ connection, skill, initial, onClose }: DeleteDialogProps) {
  const [from, setFrom] = useState(String(initial.from));
  const [to, setTo] = useState(String(initial.to));
  const [preview, setPreview] = useState<DeletePreview | undefined>();
  const [previewError, setPreviewError] = useState<string | undefined>();
  const [reason, setReason] = useState('');
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [serverError, setServerError] = useState<string | undefined>();
  const [generation, setGeneration] = useState(0);

  const range = { from: Number(from), to: Number(to) };
  const validRange = Number.isInteger(range.from) && Number.isInteger(range.to) && range.from >= 1 && range.to >= range.from;

  useEffect(() => {
    if (!validRange) {
      setPreview(undefined);
      setPreviewError('Give a range from ≥ 1 up to a version not below it.');
      return;
    }
    let live = true;
    // A preview of another range must never be confirmed: drop it at once.
    setPreview(undefined);
    setPreviewError(undefined);
    const client = workbenchClient();
    client['delete.preview']({ connection, skill, from: range.from, to: range.to })
      .then((p) => live && setPreview(p))
      .catch((error: unknown) => {
        if (!live) return;
        setPreview(undefined);
        setPreviewError(messageOf(error));
      });
    return () => {
      live = false;
    };
  }, [connection, skill.namespace, skill.name, range.from, range.to, validRange, generation]);

  const confirmation = preview?.confirmation;
  const ready = preview !== undefined && preview.deletable.length > 0 && typed === confirmation && reason.trim().length > 0 && !busy;
  const why =
    !preview ? 'Waiting for the preview' : preview.deletable.length === 0 ? 'Nothing in this range can become a tombstone' : reason.trim() === '' ? 'Give a reason for the audit trail' : typed !== confirmation ? `Type ${confirmation} to confirm` : undefined;

  const submit = async () => {
    if (!preview || !ready) return;
    setBusy(true);
    setServerError(undefined);
    try {
      const result = await workbenchClient()['delete.versions']({
        connection,
        skill,
        from: range.from,
        to: range.to,
        if_match: preview.etag,
        reason: reason.trim(),
        confirmation: typed,
      });
      useNotificationsStore
        .getState()
        .push('info', result.deleted.length > 0 ? `Deleted ${result.deleted.map((v) => `v${v}`).join(', ')} of ${skill.namespace}/${skill.name}` : 'Nothing was deleted: already tombstones');
      onClose(true);
    } catch (error) {
      setServerError(statusText(error));
      if (error instanceof WorkbenchApiError && error.code === 'precondition_failed') setGeneration((g) => g + 1);
    } finally {
      setBusy(false);
    }
  };

  const single = range.from === range.to;
  return (
    <Modal title={single ? `Delete v${range.from || '?'}` : `Delete v${range.from}–v${range.to}`} testId="delete-dialog" onDismiss={() => !busy && onClose(false)}>
      <div className="form-grid">
        <label htmlFor="delete-from">From version</label>
        <input id="delete-from" className="input" inputMode="numeric" value={from} onChange={(e) => setFrom(e.target.value.trim())} data-testid="delete-from" />
        <label htmlFor="delete-to">To version</label>
        <input id="delete-to" className="input" inputMode="numeric" value={to} onChange={(e) => setTo(e.target.value.trim())} data-testid="delete-to" />
      </div>
      <div className="delete-consequence" data-testid="delete-consequence" role="status">
        {previewError ? (
          <span className="error-text isolate">{previewError}</span>
        ) : !preview ? (
          <span className="muted">Reading what this would delete…</span>
        ) : (
          <>
            <p className="isolate">{preview.consequence}</p>
            {!preview.allowed && preview.reason && (
              <p className="warn-text isolate" data-testid="delete-refusal">
                The registry will refuse this: {preview.reason}.
              </p>
            )}
          </>
        )}
      </div>
      <label className="field-label" htmlFor="delete-reason">
        Reason (kept in the audit trail)
      </label>
      <input id="delete-reason" className="input" value={reason} onChange={(e) => setReason(e.target.value)} placeholder="e.g. leaked secret in an example" data-testid="delete-reason" data-autofocus />
      <label className="field-label" htmlFor="delete-confirm">
        Type <code className="mono" data-testid="delete-expected">{confirmation ?? '…'}</code> to confirm
      </label>
      <input
        id="delete-confirm"
        className="input mono"
        value={typed}
        autoComplete="off"
        spellCheck={false}
        onChange={(e) => setTyped(e.target.value)}
        aria-invalid={typed !== '' && confirmation !== undefined && !confirmation.startsWith(typed)}
        data-testid="delete-confirm"
      />
      {serverError && (
        <div className="inline-error" role="alert" data-testid="delete-error">
          <span>
            <strong>Not deleted.</strong> <span className="isolate">{serverError}</span>
          </span>
        </div>
      )}
      <div className="actions">
        <button type="button" className="btn" disabled={busy} onClick={() => onClose(false)} data-testid="delete-cancel">
          Cancel
        </button>
        <button type="button" className="btn danger" disabled={!ready} title={why} onClick={() => void submit()} data-testid="delete-submit">
          {busy ? 'Deleting…' : single ? 'Delete version' : 'Delete versions'}
        </button>
      </div>
    </Modal>
  );
}
