/**
 * The open package documents, by editor tab: the current text, the base
 * revision, the latest verdict of the validator, and the findings the registry
 * returned on a refused publish. The diff and publish views read the same
 * entry, so what they compare and send is exactly what the editor shows.
 */
import { create } from 'zustand';
import type { SkillAuthoringLimits, SkillId, Finding } from '../../core/package/types';
import type { PackageCheck } from '../../core/package/validate';
import type { DraftBase } from './document';

/** One open document. */
export interface EditorDocument {
  tabId: string;
  connection: string;
  skill: SkillId;
  text: string;
  base: DraftBase;
  draftId?: string;
  limits?: SkillAuthoringLimits;
  /** The validator's verdict on `text` (absent until the first answer). */
  check?: PackageCheck;
  /** Milliseconds from the edit to the verdict, as last measured. */
  feedbackMs?: number;
  /** Findings of the registry's refusal (422), shown until the next edit. */
  registryFindings?: Finding[];
  save: { state: 'idle' | 'saving' | 'saved' | 'failed' | 'unavailable'; message?: string };
  /** Set after a publish: the text as published, so `dirty` means "differs from the base". */
  publishedText?: string;
  /** A replacement of the whole text from outside the editor (a merge, an advisor proposal), applied as one undoable edit. */
  replace?: { seq: number; text: string };
}

interface EditorState {
  docs: Record<string, EditorDocument>;
  put(doc: EditorDocument): void;
  patch(tabId: string, patch: Partial<EditorDocument>): void;
  drop(tabId: string): void;
  /** Replaces the document's text in its editor (one undoable edit). */
  replaceText(tabId: string, text: string): void;
  /** Records a publication: the new base, and the text that is now published. */
  published(tabId: string, base: { version: number; etag: string }, text: string): void;
}

export const useEditorStore = create<EditorState>((set, get) => ({
  docs: {},
  put(doc) {
    set({ docs: { ...get().docs, [doc.tabId]: doc } });
  },
  patch(tabId, patch) {
    const doc = get().docs[tabId];
    if (doc) set({ docs: { ...get().docs, [tabId]: { ...doc, ...patch } } });
  },
  drop(tabId) {
    const { [tabId]: _gone, ...rest } = get().docs;
    set({ docs: rest });
  },
  replaceText(tabId, text) {
    const doc = get().docs[tabId];
    if (doc) get().patch(tabId, { replace: { seq: (doc.replace?.seq ?? 0) + 1, text } });
  },
  published(tabId, base, text) {
    get().patch(tabId, { base, publishedText: text, registryFindings: undefined });
  },
}));

/** The findings the problems panel lists: the validator's, then the registry's last refusal (until the next edit). */
export function findingsOf(doc: EditorDocument | undefined): Finding[] {
  if (!doc) return [];
  const local = doc.check ? [...doc.check.errors, ...doc.check.warnings] : [];
  return doc.registryFindings && doc.registryFindings.length > 0 ? doc.registryFindings : local;
}

/** The tab id of the editor of `skill` on `connection`. */
export function editorTabId(connection: string, skill: SkillId): string {
  return `editor:${connection}:${skill.namespace}/${skill.name}`;
}
