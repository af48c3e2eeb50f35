/**
 * "Request review…": files a publication request for a draft, from the editor
 * or the catalog preview. The user picks the saved connection it publishes to
 * (protected ones first), says what the change is for, and sees whom the
 * request is signed as (the principal of their SSH key) or why it cannot be
 * signed. On success the request's review tab opens.
 */
import { useEffect, useMemo, useState } from 'react';
import { create } from 'zustand';
import type { ReviewSigner } from '../../core/api/contract';
import type { SkillId } from '../../core/package/types';
import { workbenchClient } from '../api/client';
import { useConnections } from '../connections/queries';
import type { ConnectionEntry } from '../connections/useConnectionsStore';
import { Modal } from '../shell/Modal';
import { SafeText } from '../shell/SafeText';
import { focusActiveTab } from '../shell/shellFocus';
import { messageOf } from '../shell/useNotificationsStore';
import { openReview } from './open';

/** What the dialog is asked for: a draft of a skill, and the connection it was opened from. */
export interface ReviewRequestTarget {
  draft: string;
  skill: SkillId;
  connection: string;
}

export const useRequestReviewStore = create<{ target: ReviewRequestTarget | undefined }>(() => ({ target: undefined }));

/** Opens the dialog for `target`. */
export function requestReview(target: ReviewRequestTarget): void {
  useRequestReviewStore.setState({ target });
}

/** Protected connections (and hosts that enforce approvals) first: they are what requests are for. */
export function targetChoices(connections: readonly ConnectionEntry[], from: string): { entry: ConnectionEntry; guarded: boolean }[] {
  const guarded = (c: ConnectionEntry) => c.protected || c.enforces_approvals === true;
  return [...connections]
    .filter((c) => !c.read_only)
    .sort((a, b) => Number(guarded(b)) - Number(guarded(a)) || Number(b.name === from) - Number(a.name === from) || a.name.localeCompare(b.name))
    .map((entry) => ({ entry, guarded: guarded(entry) }));
}

export function RequestReviewDialog() {
  const target = useRequestReviewStore((s) => s.target);
  if (!target) return null;
  return <RequestReviewForm key={`${target.draft}@${target.connection}`} target={target} />;
}

function RequestReviewForm({ target }: { target: ReviewRequestTarget }) {
  const connections = useConnections();
  const choices = useMemo(() => targetChoices(connections, target.connection), [connections, target.connection]);
  const [connection, setConnection] = useState(() => choices[0]?.entry.name ?? target.connection);
  const [note, setNote] = useState('');
  const [signer, setSigner] = useState<ReviewSigner | { problem: string; principal: null } | undefined>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const close = () => {
    useRequestReviewStore.setState({ target: undefined });
    setTimeout(focusActiveTab, 0);
  };

  useEffect(() => {
    let live = true;
    const api = workbenchClient();
    api['reviews.signer']({})
      .then((s) => live && setSigner(s))
      .catch((e: unknown) => live && setSigner({ principal: null, problem: messageOf(e) }));
    return () => {
      live = false;
    };
  }, []);

  const submit = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const created = await workbenchClient()['reviews.create']({ source: { kind: 'draft', draft: target.draft }, connection, note: note.trim() });
      useRequestReviewStore.setState({ target: undefined });
      openReview(created.id, created.connection);
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };

  const skill = `${target.skill.namespace}/${target.skill.name}`;
  const chosen = choices.find((c) => c.entry.name === connection);
  const blocked = busy ? 'Filing the request…' : !signer ? 'Finding your signing key…' : signer.principal === null ? (signer.problem ?? 'Your key cannot sign') : !chosen ? 'Choose the connection it publishes to' : undefined;
  return (
    <Modal title={`Request review of ${skill}`} testId="request-review-dialog" onDismiss={busy ? undefined : close}>
      <div className="form-grid">
        <label htmlFor="review-target">Publish to</label>
        <select id="review-target" className="input" value={connection} onChange={(e) => setConnection(e.target.value)} data-testid="request-review-connection">
          {choices.map(({ entry, guarded }) => (
            <option key={entry.name} value={entry.name}>
              {entry.label}
              {entry.environment ? ` (${entry.environment.label})` : ''}
              {guarded ? (entry.enforces_approvals ? ' · host enforces approvals' : ' · protected') : ''}
            </option>
          ))}
        </select>
        {chosen && !chosen.guarded && <span className="hint">This connection is not protected: a request is optional there, and it still records the approval.</span>}
        <label htmlFor="review-note">What is it for?</label>
        <textarea id="review-note" className="input review-note-input" rows={3} value={note} onChange={(e) => setNote(e.target.value)} placeholder="Why this change should ship" data-testid="request-review-note" data-autofocus />
        <span className="muted">Signed as</span>
        <span data-testid="request-review-signer" data-ok={signer?.principal ? 'true' : 'false'}>
          {!signer ? (
            <span className="muted">…</span>
          ) : signer.principal ? (
            <>
              <SafeText text={signer.principal} className="strong" /> <span className="muted">(your SSH key{'key_source' in signer && signer.key_source ? `, ${signer.key_source}` : ''})</span>
            </>
          ) : (
            <span className="err">
              <SafeText text={signer.problem ?? 'Your key cannot sign'} />
            </span>
          )}
        </span>
      </div>
      <p className="muted">
        The request records the draft exactly as autosaved and signs it with your key; someone else approves it with theirs. Editing the draft afterwards makes the approval stale.
      </p>
      {error && (
        <div className="inline-error" role="alert" data-testid="request-review-error">
          <span className="isolate">{error}</span>
        </div>
      )}
      <div className="actions">
        <button type="button" className="btn" disabled={busy} onClick={close} data-testid="request-review-cancel">
          Cancel
        </button>
        <button type="button" className="btn primary" disabled={blocked !== undefined} title={blocked ?? `File the request for ${skill} to ${connection}`} onClick={() => void submit()} data-testid="request-review-submit">
          {busy ? 'Requesting…' : 'Request review'}
        </button>
      </div>
    </Modal>
  );
}
