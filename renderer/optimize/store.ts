/**
 * Which authoring panel is open, and for which editor; and how an accepted
 * change reaches the editor's document: one undoable edit of its text, so the
 * editor validates and autosaves it like any other edit. Nothing is published.
 */
import { create } from 'zustand';
import type { EditorRef } from '../editor/actions';
import { loadedMonaco } from '../editor/loadedMonaco';
import { useEditorStore } from '../editor/useEditorStore';

/** The panel shown, if any. */
export type AuthoringPanel = { kind: 'improve' | 'analyze'; editor: EditorRef } | undefined;

export const useAuthoringStore = create<{ panel: AuthoringPanel }>(() => ({ panel: undefined }));

/** Opens a panel for `editor`. */
export function openPanel(kind: 'improve' | 'analyze', editor: EditorRef): void {
  useAuthoringStore.setState({ panel: { kind, editor } });
}

export function closePanel(): void {
  useAuthoringStore.setState({ panel: undefined });
}

/** The editor's current text (undefined when the tab is closed). */
export function draftText(editor: EditorRef): string | undefined {
  return useEditorStore.getState().docs[editor.tabId]?.text;
}

/**
 * Replaces the editor's text with `text` as one undoable edit (Ctrl+Z takes it
 * back). Returns false when the editor is no longer open.
 */
export function replaceDraftText(editor: EditorRef, text: string): boolean {
  const monaco = loadedMonaco();
  if (!monaco) return false;
  const uri = monaco.Uri.from({ scheme: 'skill', authority: editor.connection, path: `/${editor.skill.namespace}/${editor.skill.name}.json` });
  const model = monaco.editor.getModel(uri);
  if (!model || model.isDisposed()) return false;
  model.pushStackElement();
  model.pushEditOperations([], [{ range: model.getFullModelRange(), text }], () => null);
  model.pushStackElement();
  return true;
}
