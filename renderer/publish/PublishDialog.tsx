/** The publish dialog: progress, then the version, ETag and audit status, or why not (with Retry when the same attempt may be sent again). */
import { Modal } from '../shell/Modal';
import { SafeText } from '../shell/SafeText';
import { focusActiveTab } from '../shell/shellFocus';
import { publishDraft, usePublishStore } from './publish';

export function PublishDialog() {
  const dialog = usePublishStore((s) => s.dialog);
  if (!dialog) return null;
  const close = () => {
    usePublishStore.setState({ dialog: undefined });
    setTimeout(focusActiveTab, 0);
  };
  const id = `${dialog.skill.namespace}/${dialog.skill.name}`;
  return (
    <Modal title={`Publish ${id} to ${dialog.connection}`} onDismiss={dialog.state === 'publishing' ? undefined : close} testId="publish-dialog">
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
          <SafeText text={dialog.message} /> The {dialog.findings.length} finding{dialog.findings.length === 1 ? ' is' : 's are'} in the problems panel.
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
