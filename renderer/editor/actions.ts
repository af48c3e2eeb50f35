/**
 * What the editor's toolbar and commands start outside the editor: diffs of
 * the draft, publishing it, the authoring panels (improve, analyze), and
 * exporting it as an Agent Skills folder. The diff and publish modules install their
 * implementations here, so the editor never imports them and runs without them.
 */
import type { SkillId } from '../../core/package/types';
import { useNotificationsStore } from '../shell/useNotificationsStore';

/** The editor a request comes from. */
export interface EditorRef {
  tabId: string;
  connection: string;
  skill: SkillId;
}

/** What the draft is compared with. */
export type DiffTarget = { kind: 'published' } | { kind: 'version'; version: number } | { kind: 'connection'; connection: string };

/** The implementations other modules provide. */
export interface EditorActionImpls {
  diff?: (editor: EditorRef, target: DiffTarget) => void;
  pickVersion?: (editor: EditorRef) => void;
  pickConnection?: (editor: EditorRef) => void;
  publish?: (editor: EditorRef) => void;
  improve?: (editor: EditorRef) => void;
  analyze?: (editor: EditorRef) => void;
  exportSkillMd?: (editor: EditorRef) => void;
}

const impls: EditorActionImpls = {};

/** Installs implementations (the diff and publish modules call this once). */
export function provideEditorActions(provided: EditorActionImpls): void {
  Object.assign(impls, provided);
}

function missing(what: string): void {
  useNotificationsStore.getState().push('info', `${what} is not part of this build`);
}

/** The actions of one editor. */
export function editorActions(editor: EditorRef) {
  return {
    diff: (target: DiffTarget) => (impls.diff ? impls.diff(editor, target) : missing('The diff view')),
    pickVersion: () => (impls.pickVersion ? impls.pickVersion(editor) : missing('The diff view')),
    pickConnection: () => (impls.pickConnection ? impls.pickConnection(editor) : missing('The diff view')),
    publish: () => (impls.publish ? impls.publish(editor) : missing('Publishing')),
    improve: () => (impls.improve ? impls.improve(editor) : missing('The description optimizer')),
    analyze: () => (impls.analyze ? impls.analyze(editor) : missing('The authoring advisor')),
    exportSkillMd: () => (impls.exportSkillMd ? impls.exportSkillMd(editor) : missing('Export as SKILL.md')),
  };
}
