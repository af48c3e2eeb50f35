/**
 * "Export as SKILL.md": writes the editor's package (its draft when there is
 * one) as an Agent Skills folder `<folder>/<name>/`. The preview lists the
 * files and what SKILL.md cannot carry before anything is written.
 */
import { useState } from 'react';
import type { SkillExportReport } from '../../core/interop/types';
import type { WorkbenchParams } from '../../core/api/contract';
import { inDesktopShell, workbenchClient } from '../api/client';
import type { EditorRef } from '../editor/actions';
import { useEditorStore } from '../editor/useEditorStore';
import { Modal } from '../shell/Modal';
import { messageOf, useNotificationsStore } from '../shell/useNotificationsStore';
import { ConversionList } from './Report';
import { closeInterop } from './useInteropStore';

type Step = { kind: 'edit' } | { kind: 'busy'; what: 'preview' | 'export' | 'pick' } | { kind: 'preview'; report: SkillExportReport } | { kind: 'done'; report: SkillExportReport };

const remembered = { path: 'exported' };

/** What the editor holds: its autosaved draft, or the published revision when it has none yet. */
function sourceOf(editor: EditorRef): WorkbenchParams['interop.export']['source'] {
  const draftId = useEditorStore.getState().docs[editor.tabId]?.draftId;
  return draftId ? { kind: 'draft', draft: draftId } : { kind: 'stored', connection: editor.connection, skill: editor.skill };
}

export function ExportDialog({ editor }: { editor: EditorRef }) {
  const [path, setPath] = useState(remembered.path);
  const [overwrite, setOverwrite] = useState(false);
  const [step, setStep] = useState<Step>({ kind: 'edit' });
  const [error, setError] = useState<string>();
  const desktop = inDesktopShell();
  const busy = step.kind === 'busy';
  const id = `${editor.skill.namespace}/${editor.skill.name}`;

  const run = async (dryRun: boolean, folder = path) => {
    if (folder.trim() === '') return;
    remembered.path = folder;
    setError(undefined);
    setStep({ kind: 'busy', what: dryRun ? 'preview' : 'export' });
    try {
      const report = await workbenchClient()['interop.export']({ source: sourceOf(editor), to: folder.trim(), overwrite, dry_run: dryRun });
      if (!dryRun) useNotificationsStore.getState().push('info', `Exported ${id} to ${report.dir}`);
      setStep({ kind: dryRun ? 'preview' : 'done', report });
    } catch (e) {
      setError(messageOf(e));
      setStep({ kind: 'edit' });
    }
  };

  const pick = async () => {
    setStep({ kind: 'busy', what: 'pick' });
    try {
      const { path: chosen } = await workbenchClient()['host.pickFolder']({ title: `Export ${id} into…` });
      setStep({ kind: 'edit' });
      if (chosen) {
        setPath(chosen);
        void run(true, chosen);
      }
    } catch (e) {
      setError(messageOf(e));
      setStep({ kind: 'edit' });
    }
  };

  const report = step.kind === 'preview' || step.kind === 'done' ? step.report : undefined;
  return (
    <Modal title={`Export ${id} as SKILL.md`} testId="interop-export-dialog" onDismiss={busy ? undefined : closeInterop} wide className="dialog wide interop-dialog">
      <p className="muted">Writes a SKILL.md and one reference file per resource into a folder named after the skill. Importing it back gives the same package, except what is listed below.</p>
      <div className="form-grid">
        <label htmlFor="interop-export-path">Into folder</label>
        <span className="row-gap">
          <input
            id="interop-export-path"
            className="input mono"
            value={path}
            onChange={(e) => {
              setPath(e.target.value);
              setError(undefined);
              if (!busy) setStep({ kind: 'edit' });
            }}
            onKeyDown={(e) => {
              if (e.key === 'Enter') void run(true);
            }}
            data-autofocus={desktop ? undefined : true}
            data-testid="interop-export-path"
          />
          {desktop && (
            <button type="button" className="btn" disabled={busy} onClick={() => void pick()} data-testid="interop-export-pick" data-autofocus>
              Choose folder…
            </button>
          )}
        </span>
        <span />
        <span className="hint">Relative paths start at the workspace. The skill is written to {`<folder>/${editor.skill.name}/`}.</span>
        <span />
        <label className="checkbox-row">
          <input type="checkbox" checked={overwrite} onChange={(e) => setOverwrite(e.target.checked)} data-testid="interop-export-overwrite" /> Replace an existing SKILL.md there
        </label>
      </div>
      {error && (
        <div className="inline-error" role="alert" data-testid="interop-export-error">
          <span className="isolate">{error}</span>
        </div>
      )}
      {report && (
        <div className="interop-report" data-testid="interop-export-report" data-dry-run={report.dry_run}>
          <p className="interop-summary" data-testid="interop-export-summary">
            {step.kind === 'done' ? 'Wrote' : 'Will write'} {report.files.length} file{report.files.length === 1 ? '' : 's'} to <span className="mono isolate">{report.dir}</span>
          </p>
          <ul className="interop-files mono" data-testid="interop-export-files">
            {report.files.map((f) => (
              <li key={f.path}>
                {f.path} <span className="muted">({f.bytes.toLocaleString()} bytes)</span>
              </li>
            ))}
          </ul>
          <ConversionList conversions={report.conversions} testId="interop-export-conversions" />
          {report.kept.length > 0 && <p className="hint">Already in the folder and left in place (a later import reads them too): {report.kept.join(', ')}</p>}
        </div>
      )}
      <div className="actions">
        <button type="button" className="btn" disabled={busy} onClick={closeInterop} data-testid="interop-export-cancel">
          {step.kind === 'done' ? 'Close' : 'Cancel'}
        </button>
        {step.kind !== 'done' && (
          <button type="button" className={`btn ${report ? '' : 'primary'}`} disabled={busy || path.trim() === ''} onClick={() => void run(true)} data-testid="interop-export-preview">
            {step.kind === 'busy' && step.what === 'preview' ? 'Checking…' : report ? 'Preview again' : 'Preview'}
          </button>
        )}
        {step.kind !== 'done' && (
          <button type="button" className="btn primary" disabled={step.kind !== 'preview' || busy} title={step.kind === 'preview' ? undefined : 'Preview first'} onClick={() => void run(false)} data-testid="interop-export-run" data-autofocus={step.kind === 'preview' ? true : undefined}>
            {step.kind === 'busy' && step.what === 'export' ? 'Exporting…' : 'Export'}
          </button>
        )}
      </div>
    </Modal>
  );
}
