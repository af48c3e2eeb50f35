/**
 * Quick open (`Mod+P`) over the skills of the loaded catalogs. A catalog tab
 * shares what it has read; when quick open opens and nothing of the active
 * connection is loaded yet, the first pages are read in the background and the
 * list fills in as they arrive. Choosing a skill asks for `skill.edit`.
 */
import { create } from 'zustand';
import { workbenchClient } from '../api/client';
import { safeColour } from '../connections/env';
import { useConnectionsStore } from '../connections/useConnectionsStore';
import { intentOf } from '../shell/intents';
import { visibleControls } from '../shell/SafeText';
import type { QuickOpenItem, QuickOpenProvider } from '../shell/views';
import type { IndexedEntry } from './catalogQuery';
import { indexEntries } from './catalogQuery';

/** How many skills quick open reads on its own for a connection no catalog tab has read. */
const BACKGROUND_LIMIT = 2000;
const PAGE = 500;

interface LoadedCatalogs {
  /** What is loaded of each connection's catalog. */
  byConnection: Record<string, readonly IndexedEntry[]>;
}

const useLoadedCatalogs = create<LoadedCatalogs>(() => ({ byConnection: {} }));
const loading = new Set<string>();

/** Records what a catalog view has read of `connection` (the whole list so far). */
export function noteCatalogEntries(connection: string, entries: readonly IndexedEntry[]): void {
  if (useLoadedCatalogs.getState().byConnection[connection] === entries) return;
  useLoadedCatalogs.setState((s) => ({ byConnection: { ...s.byConnection, [connection]: entries } }));
}

async function loadInBackground(connection: string): Promise<void> {
  if (loading.has(connection) || (useLoadedCatalogs.getState().byConnection[connection]?.length ?? 0) > 0) return;
  loading.add(connection);
  try {
    let cursor: string | null = null;
    let entries: IndexedEntry[] = [];
    do {
      const page = await workbenchClient()['catalog.page']({ connection, cursor, limit: PAGE });
      // A catalog tab that read more in the meantime wins.
      if ((useLoadedCatalogs.getState().byConnection[connection]?.length ?? 0) > entries.length) return;
      entries = entries.concat(indexEntries(page.items));
      noteCatalogEntries(connection, entries);
      cursor = page.cursor;
    } while (cursor !== null && entries.length < BACKGROUND_LIMIT);
  } catch {
    // Quick open then lists what it has; the catalog tab shows why a connection cannot be read.
  } finally {
    loading.delete(connection);
  }
}

/** The quick-open provider of skills. */
export const skillsQuickOpen: QuickOpenProvider = {
  id: 'skills',
  prepare() {
    const active = useConnectionsStore.getState().activeName;
    if (active) void loadInBackground(active);
  },
  subscribe: (onChange) => useLoadedCatalogs.subscribe(onChange),
  items(_query, registry) {
    const edit = intentOf(registry, 'skill.edit');
    if (typeof edit !== 'function') return [];
    const { connections, activeName } = useConnectionsStore.getState();
    const byConnection = useLoadedCatalogs.getState().byConnection;
    // The active connection's skills first.
    const names = Object.keys(byConnection).sort((a, b) => Number(b === activeName) - Number(a === activeName));
    const many = names.filter((n) => (byConnection[n]?.length ?? 0) > 0).length > 1;
    const items: QuickOpenItem[] = [];
    for (const connection of names) {
      const profile = connections.find((c) => c.name === connection);
      const label = visibleControls(profile?.label || connection);
      for (const e of byConnection[connection] ?? []) {
        const skill = { namespace: e.entry.namespace, name: e.entry.name };
        items.push({
          id: `${connection}:${e.key}`,
          label: visibleControls(e.key),
          detail: visibleControls(e.entry.display_name.slice(0, 120)) + (many ? ` · ${label}` : ''),
          keywords: `${e.display} ${e.domains.join(' ')} ${e.tags.join(' ')}`,
          ...(profile?.environment ? { color: safeColour(profile.environment.colour) } : {}),
          open: ({ newTab }) => edit({ connection, skill, preview: !newTab }),
        });
      }
    }
    return items;
  },
};
