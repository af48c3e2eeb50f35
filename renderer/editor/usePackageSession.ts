/**
 * The package editor's session, as named hooks: opening the package (schema,
 * text, an autosaved draft offered back), the Monaco model and editor, the
 * validator that answers every edit, autosave, and the effects that keep the
 * editor in step with the rest of the workbench (a replacement from outside,
 * a publication, the tab becoming visible). `PackageEditor.tsx` composes them.
 */
import { useEffect, useRef, useState, type RefObject } from 'react';
import type { SkillAuthoringLimits } from '../../core/package/types';
import { workbenchClient } from '../api/client';
import { messageOf } from '../shell/useNotificationsStore';
import { useStatusStore, type Cursor } from '../shell/useStatusStore';
import { useTabsStore } from '../shell/useTabsStore';
import type { EditorTabParams } from './index';
import { createAutosaver, openDocument } from './document';
import { markersOf } from './markers';
import { monaco, monacoTheme, usePackageSchema } from './monaco';
import { useEditorStore } from './useEditorStore';
import { createDocumentValidator, type DocumentValidator } from './validation';

const AUTOSAVE_DELAY_MS = 800;

/** Whether the package has opened. */
export type Loaded = { state: 'loading' } | { state: 'failed'; message: string } | { state: 'ready' };

/** An autosaved draft with unpublished edits, offered back when the skill opened. */
export interface RestoreOffer {
  updatedAt?: string;
  step: 'ask' | 'confirm' | 'discarding';
}

type Autosaver = ReturnType<typeof createAutosaver>;
type OpenedDocument = Awaited<ReturnType<typeof openDocument>>;

/** What the editor's view and commands use of the session. */
export interface PackageSession {
  loaded: Loaded;
  editorRef: RefObject<monaco.editor.IStandaloneCodeEditor | null>;
  /** The text "unsaved" is measured against: the opened text, then each publication. */
  savedText: RefObject<string>;
  /** Autosave of the draft; absent while loading and when the host keeps no drafts. */
  autosaver: RefObject<Autosaver | null>;
}

/** The editor's model of the package, one per skill and connection. */
function packageModel(params: EditorTabParams, text: string): monaco.editor.ITextModel {
  const uri = monaco.Uri.from({ scheme: 'skill', authority: params.connection, path: `/${params.skill.namespace}/${params.skill.name}.json` });
  const model = monaco.editor.getModel(uri) ?? monaco.editor.createModel(text, 'json', uri);
  model.setValue(text);
  return model;
}

/** Monaco on the package text, with Unicode tricks shown and links off (package text is untrusted). */
function packageEditor(host: HTMLElement, model: monaco.editor.ITextModel, params: EditorTabParams): monaco.editor.IStandaloneCodeEditor {
  return monaco.editor.create(host, {
    model,
    theme: monacoTheme(),
    automaticLayout: true,
    minimap: { enabled: false },
    fontSize: 13,
    tabSize: 2,
    scrollBeyondLastLine: false,
    wordWrap: 'on',
    renderWhitespace: 'selection',
    unicodeHighlight: { ambiguousCharacters: true, invisibleCharacters: true },
    links: false,
    fixedOverflowWidgets: true,
    ariaLabel: `Package JSON of ${params.skill.namespace}/${params.skill.name}`,
  });
}

/** The opened package, as the editor store holds it for the meters, the problems and the commands. */
function putDocument(tabId: string, params: EditorTabParams, schema: { limits: SkillAuthoringLimits }, opened: OpenedDocument): void {
  useEditorStore.getState().put({
    tabId,
    connection: params.connection,
    skill: params.skill,
    text: opened.text,
    base: opened.base,
    limits: schema.limits,
    ...(opened.draftId ? { draftId: opened.draftId } : {}),
    save: opened.autosaveUnavailable ? { state: 'unavailable', message: opened.autosaveUnavailable } : { state: 'idle' },
  });
}

/**
 * The validator of the model: markers on the text, the result in the editor
 * store, and the answered sequence and feedback time on `host` (what the
 * end-to-end tests and the benchmark wait on). `editedAt` tells when the edit
 * being answered was made.
 */
function validatorOf(tabId: string, params: EditorTabParams, schema: { limits: SkillAuthoringLimits }, model: monaco.editor.ITextModel, host: RefObject<HTMLElement | null>, editedAt: () => number): DocumentValidator {
  return createDocumentValidator({
    id: params.skill,
    limits: schema.limits,
    onResult: (response) => {
      const findings = [...response.check.errors, ...response.check.warnings];
      monaco.editor.setModelMarkers(model, 'skillbench', markersOf(findings, { lineCount: model.getLineCount(), lineLength: (n) => model.getLineLength(n) }));
      // The first answer includes starting the worker; only answers to edits measure feedback.
      const feedbackMs = response.seq > 1 ? performance.now() - editedAt() : undefined;
      useEditorStore.getState().patch(tabId, { check: response.check, ...(feedbackMs !== undefined ? { feedbackMs } : {}) });
      host.current?.setAttribute('data-validated-seq', String(response.seq));
      if (feedbackMs !== undefined) host.current?.setAttribute('data-feedback-ms', feedbackMs.toFixed(1));
    },
  });
}

/** Autosave of the draft `draftId` through the host, its state shown in the editor store. */
function autosaverOf(tabId: string, draftId: string): Autosaver {
  const api = workbenchClient();
  return createAutosaver({
    delayMs: AUTOSAVE_DELAY_MS,
    save: async (text) => {
      await api['drafts.save']({ id: draftId, text });
    },
    onState: (state, message) => useEditorStore.getState().patch(tabId, { save: { state, ...(message ? { message } : {}) } }),
  });
}

/**
 * Opens the package of an editor tab into Monaco inside `host` and keeps the
 * session until the tab closes: every edit is validated, autosaved and marks
 * the tab dirty against the saved text. `onRestored` is told when the opened
 * text is an autosaved draft with unpublished edits.
 */
export function usePackageSession(tabId: string, params: EditorTabParams, host: RefObject<HTMLElement | null>, onRestored: (offer: RestoreOffer) => void): PackageSession {
  const editorRef = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const savedText = useRef<string>('');
  const autosaver = useRef<Autosaver | null>(null);
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  const restored = useRef(onRestored);
  restored.current = onRestored;

  useEffect(() => {
    let disposed = false;
    const api = workbenchClient();
    let validator: DocumentValidator | undefined;
    let editor: monaco.editor.IStandaloneCodeEditor | undefined;
    let model: monaco.editor.ITextModel | undefined;
    (async () => {
      const [schema, opened] = await Promise.all([api['packages.schema']({ connection: params.connection }), openDocument(api, params.connection, params.skill)]);
      if (disposed || !host.current) return;
      usePackageSchema(schema.schema);
      savedText.current = opened.text;
      putDocument(tabId, params, schema, opened);
      if (opened.restored) {
        restored.current({ ...(opened.updatedAt ? { updatedAt: opened.updatedAt } : {}), step: 'ask' });
        useTabsStore.getState().setDirty(tabId, true);
      }
      const currentModel = packageModel(params, opened.text);
      model = currentModel;
      editor = packageEditor(host.current, currentModel, params);
      editorRef.current = editor;
      let editedAt = performance.now();
      const currentValidator = validatorOf(tabId, params, schema, currentModel, host, () => editedAt);
      validator = currentValidator;
      if (opened.draftId) autosaver.current = autosaverOf(tabId, opened.draftId);
      currentValidator.validate(opened.text);
      editor.onDidChangeModelContent(() => {
        const text = currentModel.getValue();
        editedAt = performance.now();
        currentValidator.validate(text);
        useEditorStore.getState().patch(tabId, { text, registryFindings: undefined });
        useTabsStore.getState().setDirty(tabId, text !== savedText.current);
        autosaver.current?.edited(text);
      });
      setLoaded({ state: 'ready' });
    })().catch((error: unknown) => {
      if (!disposed) setLoaded({ state: 'failed', message: messageOf(error) });
    });
    return () => {
      disposed = true;
      void autosaver.current?.flush();
      validator?.dispose();
      editor?.dispose();
      model?.dispose();
      editorRef.current = null;
      useEditorStore.getState().drop(tabId);
      useStatusStore.getState().clear(tabId);
    };
    // The tab id names the skill and connection; params never change for one tab.
  }, [tabId]);

  return { loaded, editorRef, savedText, autosaver };
}

/** Where the editor's cursor is and what it selects, for the status bar. */
function cursorOf(editor: monaco.editor.IStandaloneCodeEditor): Cursor | undefined {
  const model = editor.getModel();
  const selections = editor.getSelections();
  const primary = selections?.[0];
  if (!model || !selections || !primary) return undefined;
  const selected = selections.reduce((sum, s) => sum + model.getValueLengthInRange(s), 0);
  return { line: primary.positionLineNumber, column: primary.positionColumn, selected, selections: selections.length };
}

/**
 * Keeps the status bar's cursor item in step with the editor while the text
 * is `shown` (the form view has no text cursor); it is removed otherwise.
 */
export function useCursorStatus(tabId: string, editorRef: RefObject<monaco.editor.IStandaloneCodeEditor | null>, shown: boolean): void {
  useEffect(() => {
    const editor = editorRef.current;
    const status = useStatusStore.getState();
    if (!editor || !shown) {
      status.set(tabId, { cursor: undefined });
      return;
    }
    const show = () => useStatusStore.getState().set(tabId, { cursor: cursorOf(editor) });
    show();
    const subscription = editor.onDidChangeCursorSelection(show);
    return () => subscription.dispose();
  }, [tabId, editorRef, shown]);
}

/** A replacement from outside (a completed merge, an applied proposal) as one undoable edit. */
export function useExternalReplace(editorRef: RefObject<monaco.editor.IStandaloneCodeEditor | null>, replace: { text: string } | undefined): void {
  useEffect(() => {
    const editor = editorRef.current;
    const model = editor?.getModel();
    if (!replace || !editor || !model || model.getValue() === replace.text) return;
    editor.pushUndoStop();
    editor.executeEdits('skillbench', [{ range: model.getFullModelRange(), text: replace.text }]);
    editor.pushUndoStop();
  }, [editorRef, replace]);
}

/** After a publish, the published text is the new baseline of "unsaved". */
export function usePublishedBaseline(tabId: string, publishedText: string | undefined, savedText: RefObject<string>): void {
  useEffect(() => {
    if (publishedText === undefined) return;
    savedText.current = publishedText;
    useTabsStore.getState().setDirty(tabId, useEditorStore.getState().docs[tabId]?.text !== publishedText);
  }, [publishedText, tabId, savedText]);
}

/** Lays the editor out again when it becomes visible (its tab shown, or the JSON view chosen). */
export function useLayoutWhenShown(editorRef: RefObject<monaco.editor.IStandaloneCodeEditor | null>, shown: boolean): void {
  useEffect(() => {
    if (shown) editorRef.current?.layout();
  }, [editorRef, shown]);
}
