/**
 * The catalog area: the catalog tab of a connection (`catalog:<connection>`)
 * and the global command that opens it for the active connection, and the
 * Catalog health tab (budgets against limits, shares, a split that fits).
 */
import { visibleControls } from '../shell/SafeText';
import { useCommands } from '../shell/commands';
import { useTabsStore } from '../shell/useTabsStore';
import { lazyView, useShellRoot, type ViewModule } from '../shell/views';
import { activeConnectionEnabled, savedConnection, withActiveConnection } from '../connections/queries';
import { CatalogView } from './CatalogView';
import { CATALOG_HEALTH_KIND, openCatalogHealth } from './healthTab';
import { skillsQuickOpen } from './quickOpen';

/** The parameters of a catalog tab. */
export interface CatalogTabParams {
  connection: string;
}

declare module '../shell/useTabsStore' {
  interface TabParamsByKind {
    catalog: CatalogTabParams;
  }
}

/** Opens (or focuses) the catalog tab of `connection`. */
export function openCatalog(connection: string): string {
  const entry = savedConnection(connection);
  const label = visibleControls(entry?.label ?? connection);
  return useTabsStore.getState().open({
    id: `catalog:${connection}`,
    kind: 'catalog',
    title: `Catalog · ${label}`,
    description: `The catalog of ${label}`,
    connectionId: connection,
    params: { connection },
  });
}

function CatalogCommands() {
  const root = useShellRoot();
  useCommands(root, {
    'view.catalog': { enabled: activeConnectionEnabled, run: () => withActiveConnection(openCatalog) },
    'catalog.showHealth': { enabled: activeConnectionEnabled, run: () => withActiveConnection(openCatalogHealth) },
  });
  return null;
}

export const catalogModule: ViewModule = {
  id: 'catalog',
  tabViews: [
    { kind: 'catalog', scope: 'catalog', component: CatalogView, icon: 'library' },
    { kind: CATALOG_HEALTH_KIND, scope: 'catalog', component: lazyView(async () => (await import('./CatalogHealthView')).CatalogHealthView), icon: 'pulse' },
  ],
  activities: [{ id: 'catalog', title: 'Catalog', icon: 'library', order: 10, run: () => withActiveConnection(openCatalog), command: 'view.catalog' }],
  quickOpen: [skillsQuickOpen],
  extensions: [CatalogCommands],
  intents: {
    'catalog.open': ({ connection }) => {
      openCatalog(connection);
    },
  },
};
