/**
 * The version history area: the `versions` tab (`skill.history`), the read-only
 * `revision` tab (`skill.view`), and the global command that opens the history
 * of the skill in the active tab.
 */
import type { SkillId } from '../../core/package/types';
import { useCommands } from '../shell/commands';
import { savedConnection } from '../connections/queries';
import { visibleControls } from '../shell/SafeText';
import { isTabOf, useTabsStore } from '../shell/useTabsStore';
import { useShellRoot, type ViewModule } from '../shell/views';
import { RevisionView } from './RevisionView';
import { VersionsView } from './VersionsView';
import './versions.css';

function connectionLabel(name: string): string {
  return visibleControls(savedConnection(name)?.label || name);
}

/** The parameters of a version history tab. */
export interface VersionsTabParams {
  connection: string;
  skill: SkillId;
}

/** The parameters of a revision tab: one retained version, or the published one. */
export interface RevisionTabParams extends VersionsTabParams {
  version: number | 'published';
}

declare module '../shell/useTabsStore' {
  interface TabParamsByKind {
    versions: VersionsTabParams;
    revision: RevisionTabParams;
  }
}

/** Opens (or focuses) the history of `skill` on `connection`. */
export function openHistory(connection: string, skill: SkillId): string {
  const key = `${skill.namespace}/${skill.name}`;
  return useTabsStore.getState().open({
    id: `versions:${connection}:${key}`,
    kind: 'versions',
    title: `History · ${skill.name}`,
    description: `${key} @ ${connectionLabel(connection)}`,
    connectionId: connection,
    params: { connection, skill: { namespace: skill.namespace, name: skill.name } },
  });
}

/** Opens one retained revision read-only. */
export function openRevision(connection: string, skill: SkillId, version: number | 'published', preview = true): string {
  const key = `${skill.namespace}/${skill.name}`;
  const label = version === 'published' ? 'published' : `v${version}`;
  return useTabsStore.getState().open({
    id: `revision:${connection}:${key}@${version}`,
    kind: 'revision',
    title: `${skill.name} ${label}`,
    description: `${key} ${label} @ ${connectionLabel(connection)} (read-only)`,
    connectionId: connection,
    params: { connection, skill: { namespace: skill.namespace, name: skill.name }, version },
    preview,
  });
}

function skillOfTab(): { connection: string; skill: SkillId } | undefined {
  const { tabs, activeId } = useTabsStore.getState();
  const tab = tabs.find((t) => t.id === activeId);
  // The tabs that show one skill: its editor, its history and one of its revisions.
  if (!tab || !(isTabOf(tab, 'editor') || isTabOf(tab, 'versions') || isTabOf(tab, 'revision'))) return undefined;
  const { skill } = tab.params;
  const connection = tab.params.connection || tab.connectionId;
  return typeof skill.namespace === 'string' && connection ? { connection, skill } : undefined;
}

function VersionsCommands() {
  const root = useShellRoot();
  useCommands(root, {
    'view.versions': {
      enabled: () => (skillOfTab() ? true : 'The active tab shows no skill'),
      run: () => {
        const target = skillOfTab();
        if (target) openHistory(target.connection, target.skill);
      },
    },
  });
  return null;
}

export const versionsModule: ViewModule = {
  id: 'versions',
  tabViews: [
    { kind: 'versions', scope: 'versions', component: VersionsView, icon: 'history' },
    { kind: 'revision', scope: 'global', component: RevisionView, icon: 'file' },
  ],
  intents: {
    'skill.history': ({ connection, skill }) => {
      openHistory(connection, skill);
    },
    'skill.view': ({ connection, skill, version, preview }) => {
      openRevision(connection, skill, version, preview !== false);
    },
  },
  extensions: [VersionsCommands],
};
