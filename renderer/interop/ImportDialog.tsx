/**
 * "Import SKILL.md…": a folder (the desktop's own picker, or a path typed in a
 * browser), a namespace, then the conversion report of every skill found —
 * before anything is written — and only then the import into the workspace.
 */
import { useState } from 'react';
import type { SkillImportReport } from '../../core/interop/types';
import { inDesktopShell, workbenchClient } from '../api/client';
import { Modal } from '../shell/Modal';
import { messageOf, useNotificationsStore } from '../shell/useNotificationsStore';
import { Failures, SkillReport } from './Report';
import { closeInterop } from './useInteropStore';

const SLUG = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

type Step = { kind: 'edit' } | { kind: 'busy'; what: 'preview' | 'import' | 'pick' } | { kind: 'preview'; report: SkillImportReport } | { kind: 'done'; report: SkillImportReport };

/** The last folder and namespace, kept for the next import of the session. */
const remembered = { path: '', namespace: 'imported' };

export function ImportDialog() {
  const [path, setPath] = useState(remembered.path);
  const [namespace, setNamespace] = useState(remembered.namespace);
  const [overwrite, setOverwrite] = useState(false);
  const [step, setStep] = useState<Step>({ kind: 'edit' });
  const [error, setError] = useState<string>();
  const desktop = inDesktopShell();
  const namespaceProblem = namespace !== '' && !SLUG.test(namespace) ? 'Lowercase letters, digits and inner hyphens' : undefined;
  const busy = step.kind === 'busy';

  const edit = (apply: () => void) => {
    apply();
    setError(undefined);
    if (step.kind !== 'busy') setStep({ kind: 'edit' });
  };

  const run = async (dryRun: boolean, folder = path) => {
    if (folder.trim() === '' || namespace === '' || namespaceProblem) return;
    remembered.path = folder;
    remembered.namespace = namespace;
    setError(undefined);
    setStep({ kind: 'busy', what: dryRun ? 'preview' : 'import' });
    try {
      const report = await workbenchClient()['interop.import']({ paths: [folder.trim()], namespace, overwrite, dry_run: dryRun });
      if (!dryRun && !report.dry_run) {
        const written = report.imported.filter((s) => s.written).length;
        useNotificationsStore.getState().push('info', `Imported ${written} skill${written === 1 ? '' : 's'} into skills/packages/${namespace}/`);
      }
      setStep({ kind: dryRun || report.dry_run ? 'preview' : 'done', report });
    } catch (e) {
      setError(messageOf(e));
      setStep({ kind: 'edit' });
    }
  };

  const pick = async () => {
    setStep({ kind: 'busy', what: 'pick' });
    try {
      const { path: chosen } = await workbenchClient()['host.pickFolder']({ title: 'Choose a folder with a SKILL.md' });
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
  const blocked = report?.imported.filter((s) => s.status === 'exists') ?? [];
  const toWrite = report?.imported.filter((s) => s.status !== 'unchanged' && s.status !== 'exists').length ?? 0;
  const canImport = step.kind === 'preview' && report !== undefined && report.imported.length > 0 && blocked.length === 0 && !report.failed.some((f) => f.code === 'conflict');

  return (
    <Modal title="Import SKILL.md" testId="interop-import-dialog" onDismiss={busy ? undefined : closeInterop} wide className="dialog wide interop-dialog">
      <p className="muted">
        Agent Skills folders become V1 packages of the workspace. Nothing is written until you have seen what the conversion changes.
      </p>
      <div className="form-grid">
        <label htmlFor="interop-path">Folder</label>
        <span className="row-gap">
          <input
            id="interop-path"
            className="input mono"
            value={path}
            onChange={(e) => edit(() => setPath(e.target.value))}
            onKeyDown={(e) => {
              if (e.key === 'Enter') void run(true);
            }}
            placeholder="skills/pdf (relative to the workspace) or an absolute path"
            data-autofocus={desktop ? undefined : true}
            data-testid="interop-path"
          />
          {desktop && (
            <button type="button" className="btn" disabled={busy} onClick={() => void pick()} data-testid="interop-pick" data-autofocus>
              Choose folder…
            </button>
          )}
        </span>
        <span />
        <span className="hint">A folder holding a SKILL.md, or a folder of such folders (each becomes one package).</span>
        <label htmlFor="interop-namespace">Namespace</label>
        <input
          id="interop-namespace"
          className="input mono"
          value={namespace}
          aria-invalid={namespaceProblem !== undefined}
          onChange={(e) => edit(() => setNamespace(e.target.value))}
          data-testid="interop-namespace"
        />
        {namespaceProblem && (
          <>
            <span />
            <span className="hint err">{namespaceProblem}</span>
          </>
        )}
        <span />
        <label className="checkbox-row">
          <input type="checkbox" checked={overwrite} onChange={(e) => edit(() => setOverwrite(e.target.checked))} data-testid="interop-overwrite" /> Replace package files that already exist with other content
        </label>
      </div>
      {error && (
        <div className="inline-error" role="alert" data-testid="interop-error">
          <span className="isolate">{error}</span>
        </div>
      )}
      {report && (
        <div className="interop-report" data-testid="interop-report" data-dry-run={report.dry_run} aria-live="polite">
          <p className="interop-summary" data-testid="interop-summary">
            {step.kind === 'done'
              ? `Imported ${report.imported.filter((s) => s.written).length} of ${report.imported.length} skill${report.imported.length === 1 ? '' : 's'} into skills/packages/${report.namespace}/.`
              : `${report.imported.length} skill${report.imported.length === 1 ? '' : 's'} found; ${report.imported.filter((s) => s.valid).length} valid after conversion.`}
            {blocked.length > 0 && ` ${blocked.length} package file${blocked.length === 1 ? '' : 's'} already exist${blocked.length === 1 ? 's' : ''} with other content: tick "Replace" to overwrite, or choose another namespace.`}
          </p>
          <Failures failed={report.failed} />
          {report.imported.map((s) => (
            <SkillReport key={s.skill} skill={s} dryRun={report.dry_run} />
          ))}
        </div>
      )}
      <div className="actions">
        <button type="button" className="btn" disabled={busy} onClick={closeInterop} data-testid="interop-cancel">
          {step.kind === 'done' ? 'Close' : 'Cancel'}
        </button>
        {step.kind !== 'done' && (
          <button
            type="button"
            className={`btn ${canImport ? '' : 'primary'}`}
            disabled={busy || path.trim() === '' || namespace === '' || namespaceProblem !== undefined}
            onClick={() => void run(true)}
            data-testid="interop-preview"
          >
            {step.kind === 'busy' && step.what === 'preview' ? 'Converting…' : report ? 'Preview again' : 'Preview'}
          </button>
        )}
        {step.kind !== 'done' && (
          <button type="button" className="btn primary" disabled={!canImport || busy} title={canImport ? undefined : 'Preview first'} onClick={() => void run(false)} data-testid="interop-import" data-autofocus={canImport ? true : undefined}>
            {step.kind === 'busy' && step.what === 'import' ? 'Importing…' : `Import ${toWrite} skill${toWrite === 1 ? '' : 's'}`}
          </button>
        )}
      </div>
    </Modal>
  );
}
