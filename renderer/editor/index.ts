/**
 * The package editor module: the `editor` tab view, and the `skill.edit`
 * intent (the catalog's Open, quick open) that opens a skill in it.
 */
import type { SkillId } from '../../core/package/types';
import { savedConnection } from '../connections/queries';
import { visibleControls } from '../shell/SafeText';
import { useTabsStore } from '../shell/useTabsStore';
import { lazyView, type ViewModule } from '../shell/views';
import { editorTabId } from './useEditorStore';

function connectionLabel(name: string): string {
  return visibleControls(savedConnection(name)?.label || name);
}

/** The parameters of an editor tab. */
export interface EditorTabParams {
  connection: string;
  skill: SkillId;
}

declare module '../shell/useTabsStore' {
  interface TabParamsByKind {
    editor: EditorTabParams;
  }
}

/** Opens (or focuses) the editor of `skill` on `connection`. */
export function openEditor(connection: string, skill: SkillId, options: { preview?: boolean } = {}): string {
  return useTabsStore.getState().open({
    id: editorTabId(connection, skill),
    kind: 'editor',
    title: skill.name,
    description: `${skill.namespace}/${skill.name} @ ${connectionLabel(connection)}`,
    connectionId: connection,
    params: { connection, skill: { namespace: skill.namespace, name: skill.name } },
    preview: options.preview === true,
  });
}

export const editorModule: ViewModule = {
  id: 'editor',
  tabViews: [{ kind: 'editor', scope: 'editor', component: lazyView(async () => (await import('./PackageEditor')).PackageEditor), icon: 'json' }],
  intents: {
    'skill.edit': ({ connection, skill, preview }) => {
      openEditor(connection, skill, preview === undefined ? {} : { preview });
    },
  },
};
