/**
 * Quick open (`Mod+P`) over the skills of the active connection: what its
 * catalog query holds (a catalog tab shares what it has read); when nothing is
 * read yet, opening quick open reads the first pages in the background and
 * the list fills in as they arrive. Choosing a skill asks for `skill.edit`.
 */
import type { InfiniteData } from '@tanstack/react-query';
import { safeColour } from '../connections/env';
import { savedConnection } from '../connections/queries';
import { useConnectionsStore } from '../connections/useConnectionsStore';
import { intentOf } from '../shell/intents';
import { visibleControls } from '../shell/SafeText';
import type { QuickOpenItem, QuickOpenProvider } from '../shell/views';
import { catalogQuery, queryClient, storeKeys, type CatalogPageData } from '../storeData/queries';

/** Pages quick open reads on its own for a connection no catalog tab has read (200 + 2,000 skills). */
const BACKGROUND_PAGES = 2;

function loaded(connection: string): InfiniteData<CatalogPageData, string | null> | undefined {
  return queryClient.getQueryData(storeKeys.catalog(connection));
}

/** The quick-open provider of skills. */
export const skillsQuickOpen: QuickOpenProvider = {
  id: 'skills',
  prepare() {
    const active = useConnectionsStore.getState().activeName;
    if (!active || loaded(active)) return;
    // A failure shows nothing here; the catalog tab says why a connection cannot be read.
    void queryClient.prefetchInfiniteQuery({ ...catalogQuery(active), pages: BACKGROUND_PAGES });
  },
  subscribe: (onChange) =>
    queryClient.getQueryCache().subscribe((event) => {
      if (event.query.queryKey[2] === 'catalog' && event.type === 'updated') onChange();
    }),
  items(_query, registry) {
    const edit = intentOf(registry, 'skill.edit');
    if (typeof edit !== 'function') return [];
    const { activeName } = useConnectionsStore.getState();
    if (!activeName) return [];
    const profile = savedConnection(activeName);
    const connection = activeName;
    const items: QuickOpenItem[] = [];
    for (const page of loaded(connection)?.pages ?? []) {
      for (const e of page.entries) {
        const skill = { namespace: e.entry.namespace, name: e.entry.name };
        items.push({
          id: `${connection}:${e.key}`,
          label: visibleControls(e.key),
          detail: visibleControls(e.entry.display_name.slice(0, 120)),
          keywords: `${e.display} ${e.domains.join(' ')} ${e.tags.join(' ')}`,
          ...(profile?.environment ? { color: safeColour(profile.environment.colour) } : {}),
          open: ({ newTab }) => edit({ connection, skill, preview: !newTab }),
        });
      }
    }
    return items;
  },
};
