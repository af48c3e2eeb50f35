/**
 * Opening the Catalog health tab (`catalogHealth:<connection>`): kept apart
 * from the view itself, which is loaded only when a tab of its kind shows.
 */
import { visibleControls } from '../shell/SafeText';
import { isTabOf, useTabsStore } from '../shell/useTabsStore';
import { savedConnection } from '../connections/queries';

/** The tab kind of the Catalog health view. */
export const CATALOG_HEALTH_KIND = 'catalogHealth';

/** What the Catalog health tab measures: a namespace of the connection or a workspace bindings file, and an eval run. */
export interface CatalogHealthParams {
  connection: string;
  namespace?: string;
  bindings?: string;
  run?: string;
}

declare module '../shell/useTabsStore' {
  interface TabParamsByKind {
    catalogHealth: CatalogHealthParams;
  }
}

/** Opens (or focuses) the Catalog health tab of `connection`, measuring `namespace` when given. */
export function openCatalogHealth(connection: string, namespace?: string): string {
  const entry = savedConnection(connection);
  const label = visibleControls(entry?.label ?? connection);
  const id = `${CATALOG_HEALTH_KIND}:${connection}`;
  const existing = useTabsStore.getState().tabs.find((t) => t.id === id);
  const previous: Partial<CatalogHealthParams> = existing && isTabOf(existing, CATALOG_HEALTH_KIND) ? existing.params : {};
  const params: CatalogHealthParams = namespace !== undefined ? { connection, namespace, ...(previous.run !== undefined && { run: previous.run }) } : { ...previous, connection };
  return useTabsStore.getState().open({
    id,
    kind: CATALOG_HEALTH_KIND,
    title: `Catalog health · ${label}`,
    description: `Budgets, shares and a split of a catalog of ${label}`,
    connectionId: connection,
    params,
  });
}
