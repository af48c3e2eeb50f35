/**
 * The package editor tab: Monaco on the package JSON (schema completion and
 * hovers), the registry's validator in a worker on every edit with markers at
 * the located ranges, the problems panel, and the meters, all fed by one
 * validation result. Drafts autosave through the host when it keeps drafts.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { workbenchClient } from '../api/client';
import { useConnection } from '../connections/queries';
import { offlineReason, useConnectionsStore } from '../connections/useConnectionsStore';
import { useCommands } from '../shell/commands';
import { useIntent } from '../shell/intents';
import { useTabPersistence } from '../shell/guard';
import { SafeText } from '../shell/SafeText';
import { useTabScope } from '../shell/Tabs';
import { messageOf, useNotificationsStore } from '../shell/useNotificationsStore';
import { useStatusStore } from '../shell/useStatusStore';
import { paramsOf, useTabsStore } from '../shell/useTabsStore';
import type { TabViewProps } from '../shell/views';
import { openDocument } from './document';
import { setValueEdit } from './formEdits';
import { FormView } from './FormView';
import { Meters } from './Meters';
import { packageMeters } from './meters';
import { monaco } from './monaco';
import { ProblemsPanel } from './ProblemsPanel';
import { countProblems, positionOf, stepProblem } from './problems';
import { editorActions } from './actions';
import { findingsOf, useEditorStore } from './useEditorStore';
import { useCursorStatus, usePackageSession, useExternalReplace, useLayoutWhenShown, usePublishedBaseline, type RestoreOffer } from './usePackageSession';
import './editor.css';

/** Which view of the one package text the editor shows. */
export type EditorViewMode = 'json' | 'form';

function locateLine(model: monaco.editor.ITextModel, pointer: string): { line: number; column: number } | undefined {
  // The last segment as a key in the text is a good enough anchor for a meter click.
  const key = pointer.split('/').filter(Boolean).pop();
  if (!key || /^\d+$/.test(key)) return undefined;
  const match = model.findNextMatch(`"${key}"`, { lineNumber: 1, column: 1 }, false, true, null, false);
  return match ? { line: match.range.startLineNumber, column: match.range.startColumn } : undefined;
}

/** A saved-at time as people read it, in their locale. */
function formatTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function PackageEditor({ tab, active }: TabViewProps) {
  const params = paramsOf(tab, 'editor');
  const scope = useTabScope();
  const host = useRef<HTMLDivElement>(null);
  const filterRef = useRef<HTMLInputElement>(null);
  const [mode, setMode] = useState<EditorViewMode>('json');
  /** An autosaved draft with unpublished edits, offered back when the skill opened. */
  const [offer, setOffer] = useState<RestoreOffer | undefined>();
  const formRef = useRef<HTMLDivElement>(null);
  const doc = useEditorStore((s) => s.docs[tab.id]);
  const reachability = useConnectionsStore((s) => s.reachability[params.connection]);
  const connectionLabel = useConnection(params.connection)?.label || params.connection;

  const { loaded, editorRef, savedText, autosaver } = usePackageSession(tab.id, params, host, setOffer);
  useExternalReplace(editorRef, doc?.replace);
  usePublishedBaseline(tab.id, doc?.publishedText, savedText);
  useLayoutWhenShown(editorRef, active && mode === 'json');
  useCursorStatus(tab.id, editorRef, loaded.state === 'ready' && mode === 'json');

  const findings = useMemo(() => findingsOf(doc), [doc]);
  const meters = useMemo(() => (doc?.check && doc.limits ? packageMeters(doc.check, doc.limits, params.skill) : []), [doc?.check, doc?.limits, params.skill]);

  // The status bar reads the same result.
  useEffect(() => {
    if (!doc) return;
    const catalog = meters.find((m) => m.id === 'catalog');
    useStatusStore.getState().set(tab.id, {
      problems: countProblems(findings),
      base: doc.base ? { version: doc.base.version, label: `@ ${connectionLabel}` } : { none: 'new skill (not published yet)' },
      mode: mode === 'form' ? 'Form' : 'JSON',
      ...(catalog && catalog.used !== null ? { meter: { used: catalog.used, limit: catalog.limit, unit: 'tok', label: catalog.title } } : {}),
    });
  }, [doc, findings, meters, tab.id, mode, connectionLabel]);

  const reveal = (line: number, column: number) => {
    const editor = editorRef.current;
    if (!editor) return;
    setMode('json');
    editor.setPosition({ lineNumber: line, column });
    editor.revealPositionInCenter({ lineNumber: line, column });
    editor.focus();
  };

  /** The form's field change as one edit of the model: Monaco's undo takes it back, the validator and autosave see it. */
  const setFromForm = (pointer: string, value: unknown) => {
    const editor = editorRef.current;
    const model = editor?.getModel();
    if (!editor || !model) return;
    const edit = setValueEdit(model.getValue(), pointer, value);
    if (!edit) return;
    const range = monaco.Range.fromPositions(model.getPositionAt(edit.start), model.getPositionAt(edit.end));
    editor.pushUndoStop();
    editor.executeEdits('skillbench-form', [{ range, text: edit.text, forceMoveMarkers: true }]);
    editor.pushUndoStop();
  };

  /** Puts the keyboard on the form field of `pointer` (or the nearest one holding it). */
  const focusField = (pointer: string) => {
    const root = formRef.current;
    if (!root) return;
    const fields = [...root.querySelectorAll<HTMLElement>('[data-pointer]')];
    let best: HTMLElement | undefined;
    for (const el of fields) {
      const p = el.dataset['pointer'] ?? '';
      if ((pointer === p || pointer.startsWith(`${p}/`) || p === '') && (!best || p.length > (best.dataset['pointer'] ?? '').length)) best = el;
    }
    const target = best?.matches('input, textarea, select') ? best : best?.querySelector<HTMLElement>('input, textarea, select');
    best?.scrollIntoView({ block: 'center' });
    target?.focus();
  };

  /**
   * Goes back from the offered draft to what the host opens without it (the
   * published revision, or a new package). The draft's text stays in the
   * editor's undo history, so Undo brings it back while the tab is open.
   */
  const discardDraft = async () => {
    const current = useEditorStore.getState().docs[tab.id];
    if (!current?.draftId) return;
    setOffer((o) => o && { ...o, step: 'discarding' });
    try {
      const api = workbenchClient();
      autosaver.current?.cancel();
      await api['drafts.discard']({ id: current.draftId });
      const fresh = await openDocument(api, params.connection, params.skill);
      savedText.current = fresh.text;
      useEditorStore.getState().patch(tab.id, { base: fresh.base, ...(fresh.draftId ? { draftId: fresh.draftId } : {}) });
      useEditorStore.getState().replaceText(tab.id, fresh.text);
      useTabsStore.getState().setDirty(tab.id, false);
      setOffer(undefined);
      useNotificationsStore.getState().push('info', `${params.skill.namespace}/${params.skill.name}: the autosaved draft was discarded; Undo in the JSON view brings its text back while this tab is open.`);
    } catch (error) {
      setOffer((o) => o && { ...o, step: 'ask' });
      useNotificationsStore.getState().push('error', `The draft could not be discarded: ${messageOf(error)}`);
    }
  };

  const toggleMode = () => {
    setMode((m) => (m === 'json' ? 'form' : 'json'));
  };

  // A switch of view moves the keyboard into the view just shown.
  const shownMode = useRef<EditorViewMode>(mode);
  useEffect(() => {
    if (shownMode.current === mode) return;
    shownMode.current = mode;
    if (!active) return;
    if (mode === 'form') formRef.current?.querySelector<HTMLElement>('input, textarea, button')?.focus();
    else editorRef.current?.focus();
  }, [mode, active]);

  const step = (direction: 1 | -1) => {
    const editor = editorRef.current;
    const position = editor?.getPosition();
    const next = stepProblem(findings, { line: position?.lineNumber ?? 1, column: position?.column ?? 1 }, direction);
    if (!next) return;
    if (mode === 'form') {
      // The form has no cursor in the text: step from the problem last stepped to.
      const at = positionOf(next);
      editor?.setPosition({ lineNumber: at.line, column: at.column });
      return focusField(next.path);
    }
    const at = positionOf(next);
    reveal(at.line, at.column);
  };

  const actions = editorActions({ tabId: tab.id, connection: params.connection, skill: params.skill });
  const requestReviewIntent = useIntent('review.request');
  const errors = countProblems(findings).errors;
  const offline = reachability?.status === 'down' ? (offlineReason(params.connection) ?? 'the connection is offline') : undefined;
  const publishBlocked = !doc ? 'The draft is still loading' : errors > 0 ? `Fix ${errors} error${errors === 1 ? '' : 's'} first` : offline ? `Offline: ${offline}` : undefined;
  // A request records the autosaved draft: it needs one, flushed first.
  const requestReviewBlocked =
    typeof requestReviewIntent === 'string'
      ? requestReviewIntent
      : !doc
        ? 'The draft is still loading'
        : !doc.draftId || !autosaver.current
          ? (doc.save.message ?? 'This host keeps no drafts: a review request records an autosaved draft')
          : errors > 0
            ? `Fix ${errors} error${errors === 1 ? '' : 's'} first`
            : undefined;
  const requestReview = async () => {
    await autosaver.current?.flush();
    const draft = useEditorStore.getState().docs[tab.id]?.draftId;
    if (typeof requestReviewIntent === 'function' && draft) requestReviewIntent({ connection: params.connection, skill: params.skill, draft });
  };

  useCommands(scope, {
    'editor.nextProblem': { enabled: () => (findings.length ? true : 'No problems'), run: () => step(1) },
    'editor.previousProblem': { enabled: () => (findings.length ? true : 'No problems'), run: () => step(-1) },
    'editor.showProblems': () => filterRef.current?.focus(),
    'editor.focusText': () => {
      setMode('json');
      editorRef.current?.focus();
    },
    'editor.toggleForm': { enabled: () => (doc ? true : 'The draft is still loading'), run: () => toggleMode() },
    'editor.saveDraft': {
      enabled: () => (autosaver.current ? true : (doc?.save.message ?? 'This host keeps no drafts')),
      run: () => autosaver.current?.flush(),
    },
    'editor.diffPublished': { enabled: () => (doc?.base ? true : 'Nothing is published yet'), run: () => actions.diff({ kind: 'published' }) },
    'editor.diffVersion': { enabled: () => (doc?.base ? true : 'Nothing is published yet'), run: () => actions.pickVersion() },
    'editor.diffConnection': () => actions.pickConnection(),
    'editor.publish': { enabled: () => publishBlocked ?? true, run: () => actions.publish() },
    'editor.improveDescription': { enabled: () => (doc ? true : 'The draft is still loading'), run: () => actions.improve() },
    'editor.analyze': { enabled: () => (doc ? true : 'The draft is still loading'), run: () => actions.analyze() },
    'editor.exportSkillMd': { enabled: () => (doc ? true : 'The draft is still loading'), run: () => actions.exportSkillMd() },
    'editor.requestReview': { enabled: () => requestReviewBlocked ?? true, run: () => void requestReview() },
  });

  useTabPersistence(tab.id, {
    save: async () => {
      if (!autosaver.current) throw new Error(doc?.save.message ?? 'This host keeps no drafts: publish the edits, or close without saving.');
      await autosaver.current.flush();
      return useEditorStore.getState().docs[tab.id]?.save.state !== 'failed';
    },
    discard: () => {
      autosaver.current?.cancel();
      if (doc?.draftId) void workbenchClient()['drafts.discard']({ id: doc.draftId }).catch(() => undefined);
    },
  });

  const saveLabel =
    doc?.save.state === 'saving' ? 'Saving draft…' : doc?.save.state === 'saved' ? 'Draft saved' : doc?.save.state === 'failed' ? `Draft not saved: ${doc.save.message ?? ''}` : doc?.save.state === 'unavailable' ? 'Not autosaved' : '';

  return (
    <div className="editor-view" data-testid={`editor-${params.connection}-${params.skill.namespace}-${params.skill.name}`}>
      <header className="toolbar editor-toolbar">
        <span className="toolbar-title editor-title isolate">
          <strong>
            {params.skill.namespace}/{params.skill.name}
          </strong>{' '}
          <span className="muted">@ <SafeText text={connectionLabel} /></span> ▸ draft{' '}
          <span className="muted" data-testid="editor-base">
            {doc ? (doc.base ? `(based on v${doc.base.version})` : '(new skill)') : ''}
          </span>
        </span>
        <span className={`editor-save ${doc?.save.state === 'failed' ? 'err' : 'muted'}`} title={doc?.save.message} data-testid="editor-save-state">
          {saveLabel}
        </span>
        <span className="spacer" />
        <span className="segmented editor-mode" role="group" aria-label="View" data-testid="editor-view-toggle">
          <button type="button" className={`btn small ${mode === 'json' ? 'selected' : ''}`} aria-pressed={mode === 'json'} onClick={() => setMode('json')} data-testid="editor-view-json">
            JSON
          </button>
          <button type="button" className={`btn small ${mode === 'form' ? 'selected' : ''}`} aria-pressed={mode === 'form'} disabled={!doc} title="Edit the package as a form (the same text as the JSON view)" onClick={() => setMode('form')} data-testid="editor-view-form">
            Form
          </button>
        </span>
        <button type="button" className="btn small" disabled={!doc?.base} title={doc?.base ? 'Diff against the published revision' : 'Nothing is published yet'} onClick={() => actions.diff({ kind: 'published' })} data-testid="editor-diff">
          Diff
        </button>
        <button type="button" className="btn small" disabled={!doc?.base} title="Diff against a retained version" onClick={() => actions.pickVersion()} data-testid="editor-diff-version">
          Diff version…
        </button>
        <button type="button" className="btn small" title="Diff against the same skill on another connection" onClick={() => actions.pickConnection()} data-testid="editor-diff-connection">
          Diff connection…
        </button>
        <button type="button" className="btn small" disabled={!doc} title="Rewrite the description and keep it only on a proven held-out gain" onClick={() => actions.improve()} data-testid="editor-improve">
          Improve description
        </button>
        <button type="button" className="btn small" disabled={!doc} title="Ask the authoring advisor for advice and proposals" onClick={() => actions.analyze()} data-testid="editor-analyze">
          Analyze
        </button>
        <button type="button" className="btn small" disabled={!doc} title="Write this package as an Agent Skills folder (SKILL.md and references/)" onClick={() => actions.exportSkillMd()} data-testid="editor-export-skillmd">
          Export as SKILL.md
        </button>
        <button
          type="button"
          className="btn small"
          disabled={requestReviewBlocked !== undefined}
          title={requestReviewBlocked ?? 'File a signed publication request for this draft; someone else approves it'}
          onClick={() => void requestReview()}
          data-testid="editor-request-review"
        >
          Request review…
        </button>
        <button
          type="button"
          className="btn small primary"
          disabled={publishBlocked !== undefined}
          title={publishBlocked ?? 'Publish the draft'}
          onClick={() => actions.publish()}
          data-testid="editor-publish"
        >
          Publish
        </button>
      </header>
      {loaded.state === 'failed' && (
        <div className="empty-state" data-testid="editor-error">
          <strong>The skill could not be opened</strong>
          <SafeText text={loaded.message} />
        </div>
      )}
      {offer && doc && (
        <div className="editor-banner editor-offer" role="status" data-testid="editor-restore-offer" data-step={offer.step}>
          {offer.step === 'ask' ? (
            <>
              <span>
                Restored your unsaved draft{offer.updatedAt ? ' from ' : ''}
                {offer.updatedAt && (
                  <time dateTime={offer.updatedAt} data-testid="editor-restore-time">
                    {formatTime(offer.updatedAt)}
                  </time>
                )}
                : it differs from {doc.base ? `the published v${doc.base.version}` : 'the new package'}.
              </span>
              <button type="button" className="btn small primary" onClick={() => setOffer(undefined)} data-testid="editor-restore-keep">
                Keep draft
              </button>
              <button type="button" className="btn small" onClick={() => setOffer({ ...offer, step: 'confirm' })} data-testid="editor-restore-discard">
                Discard draft…
              </button>
            </>
          ) : (
            <>
              <span>
                Discard the draft{offer.updatedAt ? ` from ${formatTime(offer.updatedAt)}` : ''} and go back to {doc.base ? `the published v${doc.base.version}` : 'a new package'}? Undo in the JSON view brings it back while this tab is open.
              </span>
              <button type="button" className="btn small danger" disabled={offer.step === 'discarding'} onClick={() => void discardDraft()} data-testid="editor-restore-discard-confirm">
                Discard draft
              </button>
              <button type="button" className="btn small" disabled={offer.step === 'discarding'} onClick={() => setOffer({ ...offer, step: 'ask' })} data-testid="editor-restore-cancel">
                Cancel
              </button>
            </>
          )}
        </div>
      )}
      {offline && (
        <div className="editor-offline" role="status" data-testid="editor-offline">
          <div className="reason">
            <strong>Offline.</strong> <SafeText text={offline} />
          </div>
          <div className="muted">Editing, validation and drafts keep working; Publish waits until the connection answers again.</div>
        </div>
      )}
      {doc?.save.state === 'unavailable' && (
        <div className="editor-banner muted" data-testid="editor-no-drafts">
          {doc.save.message}
        </div>
      )}
      <div className="editor-body" hidden={loaded.state === 'failed'}>
        {mode === 'form' && doc && (
          <div
            className="editor-form-host"
            ref={formRef}
            data-autofocus
            tabIndex={-1}
            onFocus={(e) => {
              if (e.target === e.currentTarget) formRef.current?.querySelector<HTMLElement>('input, textarea, select, button')?.focus();
            }}
          >
            <FormView
              skill={params.skill}
              text={doc.text}
              findings={findings}
              meters={meters}
              onSet={setFromForm}
              onShowJson={(line, column) => {
                if (line !== undefined) reveal(line, column ?? 1);
                else setMode('json');
              }}
              onHistory={(direction) => {
                // The model's own history: the same undo stack the JSON view's Ctrl+Z walks.
                const model = editorRef.current?.getModel();
                if (direction === 'undo') void model?.undo();
                else void model?.redo();
              }}
            />
          </div>
        )}
        <div
          className="editor-monaco"
          hidden={mode === 'form' && doc !== undefined}
          ref={host}
          data-autofocus={mode === 'json' || doc === undefined ? true : undefined}
          tabIndex={-1}
          onFocus={(e) => {
            if (e.target === e.currentTarget) editorRef.current?.focus();
          }}
          data-testid="editor-monaco"
        />
        <aside className="editor-side">
          {loaded.state === 'loading' && <span className="muted">Opening…</span>}
          <Meters
            meters={meters}
            onSelect={(pointer) => {
              if (mode === 'form') return focusField(pointer);
              const model = editorRef.current?.getModel();
              const at = model ? locateLine(model, pointer) : undefined;
              if (at) reveal(at.line, at.column);
            }}
          />
          {doc?.feedbackMs !== undefined && (
            <span className="muted editor-timing" data-testid="editor-feedback-ms">
              Last edit validated in {Math.max(1, Math.round(doc.feedbackMs))} ms
            </span>
          )}
        </aside>
      </div>
      <ProblemsPanel
        ref={filterRef}
        findings={findings}
        {...(doc?.registryFindings?.length ? { source: 'The registry refused the publish' } : {})}
        onSelect={(f) => {
          if (mode === 'form') return focusField(f.path);
          const at = positionOf(f);
          reveal(at.line, at.column);
        }}
      />
    </div>
  );
}
