/**
 * What each catalog tab remembers: its filter, sort, selection, preview pane
 * and scroll position, by tab id. It survives closing and reopening the tab
 * (the id is derived from the connection) and a reload.
 */
import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';
import type { SortOrder } from './catalogQuery';

/** One catalog tab's remembered state. */
export interface CatalogViewState {
  query: string;
  sort: SortOrder;
  /** `namespace/name` of the selected row. */
  selected?: string;
  preview: boolean;
  scrollTop: number;
}

export const DEFAULT_VIEW: CatalogViewState = { query: '', sort: { column: 'name', direction: 'asc' }, preview: true, scrollTop: 0 };

interface CatalogViewStore {
  byTab: Record<string, CatalogViewState>;
  patch(tabId: string, patch: Partial<CatalogViewState>): void;
}

export const useCatalogViewStore = create<CatalogViewStore>()(
  persist(
    (set, get) => ({
      byTab: {},
      patch(tabId, patch) {
        set({ byTab: { ...get().byTab, [tabId]: { ...DEFAULT_VIEW, ...get().byTab[tabId], ...patch } } });
      },
    }),
    { name: 'skillbench.catalog', version: 1, storage: createJSONStorage(() => localStorage) },
  ),
);

/** The remembered state of a catalog tab. */
export function catalogViewOf(tabId: string): CatalogViewState {
  return { ...DEFAULT_VIEW, ...useCatalogViewStore.getState().byTab[tabId] };
}
