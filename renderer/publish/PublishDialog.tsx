/**
 * The publish dialog. Before anything is sent it shows what publishing does:
 * the semantic change summary of the draft against its base revision, the
 * target connection in its environment colour, and the change reason, which is
 * required (prefilled only when the author changed it, so a new version never
 * inherits the previous one's reason unnoticed); a connection labelled as
 * production also asks for its name to be typed. Then progress, and the
 * version, ETag and audit status, or why not (with Retry when the same
 * attempt may be sent again).
 */
import { useEffect, useId, useState } from 'react';
import type { DiffView } from '../../core/api/contract';
import { workbenchClient } from '../api/client';
import { isProductionLabel, textOn } from '../connections/env';
import { useConnection } from '../connections/queries';
import { colourOf } from '../connections/useConnectionsStore';
import { headline, summaryChips } from '../diff/summary';
import { useEditorStore } from '../editor/useEditorStore';
import { Modal } from '../shell/Modal';
import { SafeText } from '../shell/SafeText';
import { focusActiveTab } from '../shell/shellFocus';
import { messageOf } from '../shell/useNotificationsStore';
import { publishDraft, publishWithReason, usePublishStore, type PublishDialogState } from './publish';

/** What the summary step knows of the draft against its base. */
type Summary = { state: 'loading' } | { state: 'failed'; message: string } | { state: 'ready'; diff: DiffView['diff']; baseReason: string | undefined; draftReason: string };

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function PublishDialog() {
  const dialog = usePublishStore((s) => s.dialog);
  if (!dialog) return null;
  const close = () => {
    usePublishStore.setState({ dialog: undefined });
    setTimeout(focusActiveTab, 0);
  };
  return <PublishDialogBody key={`${dialog.tabId}:${dialog.state === 'confirm' ? 'confirm' : 'sent'}`} dialog={dialog} close={close} />;
}

function Target({ connection }: { connection: string }) {
  const entry = useConnection(connection);
  const colour = colourOf(entry);
  return (
    <span className="publish-target" data-testid="publish-target" data-colour={colour}>
      <span className="env-stripe" style={{ background: colour }} aria-hidden="true" />
      <strong>
        <SafeText text={entry?.label ?? connection} />
      </strong>
      {entry?.environment && (
        <span className="env-label" style={{ background: colour, color: textOn(colour) }} data-testid="publish-target-env">
          <SafeText text={entry.environment.label} />
        </span>
      )}
      {entry && entry.label !== entry.name && <span className="muted mono">{entry.name}</span>}
    </span>
  );
}

function PublishDialogBody({ dialog, close }: { dialog: PublishDialogState; close: () => void }) {
  const id = `${dialog.skill.namespace}/${dialog.skill.name}`;
  const entry = useConnection(dialog.connection);
  const title = (
    <>
      Publish <SafeText text={id} /> to <SafeText text={entry?.label ?? dialog.connection} />
    </>
  );
  if (dialog.state === 'confirm') return <ConfirmStep dialog={dialog} title={title} close={close} />;
  return (
    <Modal title={title} onDismiss={dialog.state === 'publishing' ? undefined : close} testId="publish-dialog">
      {dialog.state === 'publishing' && (
        <p data-testid="publish-progress">
          {dialog.retry ? 'Retrying' : 'Publishing'} {dialog.base ? `on v${dialog.base.version} (If-Match ${dialog.base.etag})` : 'as a new skill (If-None-Match *)'}…
        </p>
      )}
      {dialog.state === 'done' && (
        <div data-testid="publish-result" data-outcome={dialog.outcome.outcome} data-version={dialog.outcome.version}>
          <p>
            <strong>
              {dialog.outcome.outcome === 'same_content_noop'
                ? `Nothing new: v${dialog.outcome.version} already has this content.`
                : `${dialog.outcome.outcome === 'created' ? 'Created' : 'Published'} v${dialog.outcome.version}.`}
            </strong>
            {dialog.outcome.replayed && ' (a retry: the registry had already applied it)'}
          </p>
          <table className="publish-facts">
            <tbody>
              <tr>
                <th>Version</th>
                <td data-testid="publish-version">v{dialog.outcome.version}</td>
              </tr>
              <tr>
                <th>ETag</th>
                <td className="mono" data-testid="publish-etag">
                  {dialog.outcome.etag}
                </td>
              </tr>
              <tr>
                <th>Audit</th>
                <td data-testid="publish-audit" className={dialog.outcome.audit_recorded ? undefined : 'warn'}>
                  {dialog.outcome.audit_recorded ? 'recorded' : 'not recorded'}
                </td>
              </tr>
            </tbody>
          </table>
          {dialog.outcome.warnings.length + dialog.outcome.validation.warnings.length > 0 && (
            <ul className="publish-warnings">
              {dialog.outcome.warnings.map((w, i) => (
                <li key={`s${i}`} className="warn">
                  <SafeText text={w.message} />
                </li>
              ))}
              {dialog.outcome.validation.warnings.map((w, i) => (
                <li key={`v${i}`} className="warn">
                  <SafeText text={`${w.path || '(package)'}: ${w.message}`} />
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {dialog.state === 'refused' && (
        <p className="err" data-testid="publish-refused">
          <SafeText text={dialog.message} /> The {dialog.findings.length === 1 ? 'finding is' : `${dialog.findings.length} findings are`} in the problems panel.
        </p>
      )}
      {dialog.state === 'failed' && (
        <p className="err" data-testid="publish-failed">
          <SafeText text={dialog.message} />
          {dialog.retryable && ' Retrying sends the same request again; the registry applies it at most once.'}
        </p>
      )}
      <div className="actions">
        {dialog.state === 'failed' && dialog.retryable && (
          <button type="button" className="btn primary" data-autofocus data-testid="publish-retry" onClick={() => void publishDraft({ tabId: dialog.tabId, connection: dialog.connection, skill: dialog.skill })}>
            Retry
          </button>
        )}
        {dialog.state !== 'publishing' && (
          <button type="button" className="btn" data-autofocus={dialog.state === 'failed' && dialog.retryable ? undefined : true} onClick={close} data-testid="publish-close">
            Close
          </button>
        )}
      </div>
    </Modal>
  );
}

function ConfirmStep({ dialog, title, close }: { dialog: Extract<PublishDialogState, { state: 'confirm' }>; title: React.ReactNode; close: () => void }) {
  const entry = useConnection(dialog.connection);
  const text = useEditorStore((s) => s.docs[dialog.tabId]?.text);
  const [summary, setSummary] = useState<Summary>({ state: 'loading' });
  const [reason, setReason] = useState<string | undefined>();
  const [typed, setTyped] = useState('');
  const ids = useId();
  const production = isProductionLabel(entry?.environment?.label);

  // The summary is of the text as the dialog opened; the dialog is modal, so the draft does not change under it.
  useEffect(() => {
    if (text === undefined) return;
    let live = true;
    const after = { kind: 'text' as const, text, label: 'draft' };
    const before = dialog.base ? { kind: 'stored' as const, connection: dialog.connection, skill: dialog.skill, version: dialog.base.version } : after;
    const api = workbenchClient();
    api['diff.packages']({ before, after })
      .then((result) => {
        if (!live) return;
        const baseReason = dialog.base ? result.before.package.change_reason : undefined;
        const draftReason = result.after.package.change_reason ?? '';
        setSummary({ state: 'ready', diff: result.diff, baseReason, draftReason });
        // Prefilled only when the author wrote a reason for this version.
        setReason((r) => r ?? (draftReason !== baseReason ? draftReason : ''));
      })
      .catch((error: unknown) => live && setSummary({ state: 'failed', message: messageOf(error) }));
    return () => {
      live = false;
    };
  }, []);

  const ready = summary.state === 'ready';
  const trimmed = (reason ?? '').trim();
  const blocked = !ready
    ? summary.state === 'failed'
      ? 'The change summary could not be made'
      : 'Comparing with the base revision…'
    : trimmed === ''
      ? 'Write the change reason: what this version changes and why'
      : production && typed !== dialog.connection
        ? `Type ${dialog.connection} to publish to production`
        : undefined;

  const submit = () => {
    if (blocked) return;
    void publishWithReason({ tabId: dialog.tabId, connection: dialog.connection, skill: dialog.skill }, trimmed);
  };

  const chips = summary.state === 'ready' ? summaryChips(summary.diff).filter((c) => c.text !== 'change_reason') : [];
  const head = summary.state === 'ready' ? headline(summary.diff) : undefined;
  return (
    <Modal title={title} onDismiss={close} testId="publish-dialog" wide>
      <form
        className="publish-confirm"
        data-testid="publish-confirm"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <div className="publish-row">
          <span className="publish-key">To</span>
          <Target connection={dialog.connection} />
        </div>
        <div className="publish-row">
          <span className="publish-key">On</span>
          <span data-testid="publish-base">{dialog.base ? `v${dialog.base.version} (the draft's base; If-Match its ETag)` : 'nothing: a new skill (If-None-Match *)'}</span>
        </div>
        <div className="publish-row">
          <span className="publish-key">Changes</span>
          <div className="publish-summary" data-testid="publish-summary" data-kind={head?.kind ?? summary.state}>
            {summary.state === 'loading' && <span className="muted">Comparing with the base revision…</span>}
            {summary.state === 'failed' && (
              <span className="err">
                <SafeText text={summary.message} />
              </span>
            )}
            {summary.state === 'ready' && !dialog.base && <span>A new skill: every field is new.</span>}
            {summary.state === 'ready' && dialog.base && head && (
              <>
                <strong className={head.kind === 'changes' ? undefined : 'muted'} data-testid="publish-headline">
                  {head.kind === 'changes' ? `${plural(chips.length, 'change')} against v${dialog.base.version}` : head.text}
                </strong>
                {chips.map((chip, i) => (
                  <span key={`${chip.pointer}:${i}`} className={`diff-chip ${chip.sign === '+' ? 'added' : chip.sign === '−' ? 'removed' : 'changed'}`} data-testid="publish-chip" title={`${chip.group}: ${chip.pointer}`}>
                    {chip.sign}
                    <SafeText text={chip.text} />
                  </span>
                ))}
              </>
            )}
          </div>
        </div>
        <label className="publish-row" htmlFor={`${ids}-reason`}>
          <span className="publish-key">Change reason</span>
          <span className="publish-field">
            <input
              id={`${ids}-reason`}
              className="input"
              value={reason ?? ''}
              disabled={!ready}
              required
              maxLength={1024}
              placeholder={summary.state === 'ready' && summary.baseReason ? `What v${(dialog.base?.version ?? 0) + 1} changes (v${dialog.base?.version}: “${summary.baseReason}”)` : 'What this version changes, and why'}
              onChange={(e) => setReason(e.target.value)}
              data-autofocus
              data-testid="publish-reason"
            />
            <span className="muted publish-hint">Recorded with the version and shown in its history.</span>
          </span>
        </label>
        {production && (
          <label className="publish-row publish-prod" htmlFor={`${ids}-confirm`}>
            <span className="publish-key">Confirm</span>
            <span className="publish-field">
              <span>
                <strong className="err">{entry?.environment?.label}</strong> is a production connection. Type <code className="mono">{dialog.connection}</code> to publish to it.
              </span>
              <input id={`${ids}-confirm`} className="input mono" value={typed} autoComplete="off" spellCheck={false} onChange={(e) => setTyped(e.target.value)} data-testid="publish-confirm-name" />
            </span>
          </label>
        )}
        <div className="actions">
          {blocked && (
            <span className="muted publish-blocked" data-testid="publish-blocked">
              {blocked}
            </span>
          )}
          <button type="button" className="btn" onClick={close} data-testid="publish-cancel">
            Cancel
          </button>
          <button type="submit" className={`btn ${production ? 'danger' : 'primary'}`} disabled={blocked !== undefined} title={blocked ?? `Publish to ${entry?.label ?? dialog.connection}`} data-testid="publish-submit">
            Publish{dialog.base ? ` v${dialog.base.version + 1}` : ''}
          </button>
        </div>
      </form>
    </Modal>
  );
}
