/**
 * The diff module: the `diff` tab view, the `skill.diff` intent, and the
 * editor's "Diff" actions (against the published revision, a retained
 * version, or the same skill on another connection).
 */
import { workbenchClient } from '../api/client';
import { provideEditorActions, type DiffTarget, type EditorRef } from '../editor/actions';
import { useEditorStore } from '../editor/useEditorStore';
import { loadedConnections, savedConnection } from '../connections/queries';
import type { PackageSourceRef } from './intents';
import { useTabsStore } from '../shell/useTabsStore';
import { lazyView, type ViewModule } from '../shell/views';
import { pick, PickerHost } from './Picker';
import { sideSkill, sideTitle, type DiffSide } from './sides';
import { visibleControls } from '../shell/SafeText';

function sideKey(side: DiffSide): string {
  switch (side.kind) {
    case 'editor':
      return `tab=${side.tabId}`;
    case 'stored':
      return `${side.connection}:${side.skill.namespace}/${side.skill.name}@${side.version}`;
    case 'draft':
      return `draft=${side.draft}`;
    case 'file':
      return `file=${side.path}`;
  }
}

function connectionLabel(name: string): string {
  return visibleControls(savedConnection(name)?.label || name);
}

/** The parameters of a diff tab. */
export interface DiffTabParams {
  before: DiffSide;
  after: DiffSide;
}

declare module '../shell/useTabsStore' {
  interface TabParamsByKind {
    diff: DiffTabParams;
  }
}

/** Opens (or refocuses) the diff of two sides; the title names the skill and the connections by their labels. */
export function openDiff(before: DiffSide, after: DiffSide, connectionId?: string, skillName?: string): string {
  const skill = skillName ?? sideSkill(before)?.name ?? sideSkill(after)?.name;
  const sides = `${sideTitle(before, connectionLabel)} ↔ ${sideTitle(after, connectionLabel)}`;
  return useTabsStore.getState().open({
    id: `diff:${sideKey(before)}|${sideKey(after)}`,
    kind: 'diff',
    title: skill ? `${skill}: ${sides}` : sides,
    description: `${skill ? `${skill}: ` : ''}changes ${sideTitle(before, connectionLabel)} → ${sideTitle(after, connectionLabel)}`,
    ...(connectionId ? { connectionId } : {}),
    params: { before, after },
  });
}

function fromIntent(ref: PackageSourceRef): DiffSide {
  return ref;
}

function diffEditor(editor: EditorRef, target: DiffTarget): void {
  const doc = useEditorStore.getState().docs[editor.tabId];
  const mine: DiffSide = { kind: 'editor', tabId: editor.tabId, label: 'draft' };
  const before: DiffSide =
    target.kind === 'published'
      ? { kind: 'stored', connection: editor.connection, skill: editor.skill, version: 'published' }
      : target.kind === 'version'
        ? { kind: 'stored', connection: editor.connection, skill: editor.skill, version: target.version }
        : { kind: 'stored', connection: target.connection, skill: editor.skill, version: 'published' };
  void doc;
  openDiff(before, mine, editor.connection);
}

provideEditorActions({
  diff: diffEditor,
  pickVersion: (editor) =>
    pick({
      title: `Diff the draft of ${editor.skill.namespace}/${editor.skill.name} against…`,
      load: async () => {
        const page = await workbenchClient()['versions.list']({ connection: editor.connection, skill: editor.skill, limit: 100 });
        return page.versions.map((v) => ({
          id: String(v.version),
          label: `v${v.version}${v.version === page.published ? ' (published)' : ''}`,
          detail: v.status === 'deleted' ? 'deleted' : v.created_at,
          ...(v.status === 'deleted' ? { disabled: 'A deleted version has no content' } : {}),
        }));
      },
      onPick: (option) => diffEditor(editor, { kind: 'version', version: Number(option.id) }),
    }),
  pickConnection: (editor) =>
    pick({
      title: `Diff the draft against ${editor.skill.namespace}/${editor.skill.name} on…`,
      load: async () => {
        const connections = await loadedConnections();
        return connections.map((c) => ({ id: c.name, label: c.label || c.name, detail: c.name === editor.connection ? '(this connection)' : c.name }));
      },
      onPick: (option) => diffEditor(editor, { kind: 'connection', connection: option.id }),
    }),
});

export const diffModule: ViewModule = {
  id: 'diff',
  tabViews: [{ kind: 'diff', scope: 'diff', component: lazyView(async () => (await import('./DiffView')).DiffView), icon: 'diff' }],
  extensions: [PickerHost],
  intents: {
    'skill.diff': ({ before, after }) => {
      openDiff(fromIntent(before), fromIntent(after));
    },
  },
};
