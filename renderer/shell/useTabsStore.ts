/**
 * Open tabs. A tab is one view instance (a catalog of a connection, a package
 * editor, a version history...) identified by a stable `id` its opener derives
 * from what it shows, so opening the same thing twice focuses the existing tab.
 * Tabs opened for a glance are `preview` tabs (VS Code's italic tab): the next
 * glance replaces them until they are kept, edited or opened explicitly.
 *
 * The open set survives a reload (localStorage); dirty flags do not, because
 * an editor re-derives them from its autosaved draft when it mounts again.
 */
import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';

/**
 * The parameters of each tab kind. The feature that opens a kind declares its
 * parameters beside its opener, by declaration merging:
 * `declare module '../shell/useTabsStore' { interface TabParamsByKind { editor: EditorTabParams } }`,
 * so an opener passes the right shape and a view reads it through
 * {@link paramsOf} without a cast.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by the features, see above
export interface TabParamsByKind {}

/** A kind of tab some feature declared. */
export type TabKind = keyof TabParamsByKind & string;

/** One open tab; `Tab<'editor'>` when its kind is known. */
export interface Tab<K extends TabKind = TabKind> {
  id: string;
  /** The registered tab view that renders it (see `views.ts`). */
  kind: K;
  title: string;
  /** Longer text for the tooltip (e.g. `billing/refund @ prod-redis`). */
  description?: string;
  /** The connection it belongs to; its environment colour underlines the tab. */
  connectionId?: string;
  /** View-specific parameters (plain JSON), typed per kind by {@link TabParamsByKind}. */
  params: TabParamsByKind[K];
  dirty: boolean;
  preview: boolean;
}

/** What an opener passes to {@link TabsState.open}. */
export interface TabSpec<K extends TabKind = TabKind> {
  id: string;
  kind: K;
  title: string;
  description?: string;
  connectionId?: string;
  params: TabParamsByKind[K];
  /** Open as a preview tab (replaced by the next preview). */
  preview?: boolean;
  /** Open without activating (default: activate). */
  background?: boolean;
}

/** The tabs store. */
export interface TabsState {
  tabs: Tab[];
  activeId: string | undefined;
  /** Opens (or focuses) a tab and returns its id. */
  open<K extends TabKind>(spec: TabSpec<K>): string;
  activate(id: string): void;
  /** Removes tabs without asking; callers go through the guard (`guard.ts`) for dirty ones. */
  remove(ids: string[]): void;
  setDirty(id: string, dirty: boolean): void;
  update(id: string, patch: Partial<Pick<Tab, 'title' | 'description' | 'connectionId'>>): void;
  /** Replaces the parameters of tab `id`, if it is of `kind`. */
  setParams<K extends TabKind>(id: string, kind: K, params: TabParamsByKind[K]): void;
  /** Turns a preview tab into a kept one. */
  keep(id: string): void;
  /** Activates the tab `offset` places away, wrapping around. */
  cycle(offset: number): void;
}

/**
 * `tabs` with tab `id` replaced by `edit(tab)`, or undefined when that changes
 * nothing: the editor marks its tab dirty on every keystroke, and an unchanged
 * store must not re-render the tab strip or rewrite the persisted tabs.
 */
function changed(tabs: Tab[], id: string, edit: (tab: Tab) => Tab): Tab[] | undefined {
  const index = tabs.findIndex((t) => t.id === id);
  const tab = tabs[index];
  if (!tab) return undefined;
  const next = edit(tab);
  if (next === tab) return undefined;
  return tabs.with(index, next);
}

export const useTabsStore = create<TabsState>()(
  persist(
    (set, get) => ({
      tabs: [],
      activeId: undefined,
      open(spec) {
        const { tabs } = get();
        const existing = tabs.find((t) => t.id === spec.id);
        if (existing) {
          set({
            tabs: tabs.map((t) =>
              t.id === spec.id
                ? { ...t, title: spec.title, description: spec.description ?? t.description, params: spec.params, preview: t.preview && spec.preview === true }
                : t,
            ),
            ...(spec.background ? {} : { activeId: spec.id }),
          });
          return spec.id;
        }
        const tab: Tab = {
          id: spec.id,
          kind: spec.kind,
          title: spec.title,
          ...(spec.description !== undefined ? { description: spec.description } : {}),
          ...(spec.connectionId !== undefined ? { connectionId: spec.connectionId } : {}),
          params: spec.params,
          dirty: false,
          preview: spec.preview === true,
        };
        // A new preview replaces the old preview in place, unless that one holds edits.
        const replaced = spec.preview ? tabs.findIndex((t) => t.preview && !t.dirty) : -1;
        const next = [...tabs];
        if (replaced >= 0) next.splice(replaced, 1, tab);
        else {
          const after = next.findIndex((t) => t.id === get().activeId);
          next.splice(after >= 0 ? after + 1 : next.length, 0, tab);
        }
        set({ tabs: next, ...(spec.background ? {} : { activeId: tab.id }) });
        return tab.id;
      },
      activate(id) {
        if (get().tabs.some((t) => t.id === id)) set({ activeId: id });
      },
      remove(ids) {
        const { tabs, activeId } = get();
        const gone = new Set(ids);
        const next = tabs.filter((t) => !gone.has(t.id));
        let active = activeId;
        if (active !== undefined && gone.has(active)) {
          // Focus the neighbour the closed tab sat next to, as editors do.
          const index = tabs.findIndex((t) => t.id === active);
          const right = tabs.slice(index + 1).find((t) => !gone.has(t.id));
          const left = tabs.slice(0, index).reverse().find((t) => !gone.has(t.id));
          active = (right ?? left)?.id;
        }
        set({ tabs: next, activeId: active });
      },
      setDirty(id, dirty) {
        const tabs = changed(get().tabs, id, (t) => (t.dirty === dirty ? t : { ...t, dirty, preview: dirty ? false : t.preview }));
        if (tabs) set({ tabs });
      },
      update(id, patch) {
        const tabs = changed(get().tabs, id, (t) => (Object.entries(patch).every(([key, value]) => t[key as keyof typeof patch] === value) ? t : { ...t, ...patch }));
        if (tabs) set({ tabs });
      },
      setParams(id, kind, params) {
        const tabs = changed(get().tabs, id, (t) => (t.kind === kind && t.params !== params ? { ...t, params } : t));
        if (tabs) set({ tabs });
      },
      keep(id) {
        const tabs = changed(get().tabs, id, (t) => (t.preview ? { ...t, preview: false } : t));
        if (tabs) set({ tabs });
      },
      cycle(offset) {
        const { tabs, activeId } = get();
        if (tabs.length === 0) return;
        const index = Math.max(0, tabs.findIndex((t) => t.id === activeId));
        const next = tabs[(index + offset + tabs.length * Math.abs(offset)) % tabs.length];
        if (next) set({ activeId: next.id });
      },
    }),
    {
      name: 'skillbench.tabs',
      version: 1,
      storage: createJSONStorage(() => localStorage),
      partialize: (state) => ({ tabs: state.tabs.map((t) => ({ ...t, dirty: false })), activeId: state.activeId }),
    },
  ),
);

/** The active tab, if any. */
export function useActiveTab(): Tab | undefined {
  return useTabsStore((s) => s.tabs.find((t) => t.id === s.activeId));
}

/** Whether `tab` is of `kind`, narrowing its parameters to that kind's. */
export function isTabOf<K extends TabKind>(tab: Tab, kind: K): tab is Tab<K> {
  return tab.kind === kind;
}

/** The parameters of `tab`, a tab of `kind`; throws for a tab of another kind (a view registered for the wrong kind). */
export function paramsOf<K extends TabKind>(tab: Tab, kind: K): TabParamsByKind[K] {
  if (!isTabOf(tab, kind)) throw new Error(`Tab '${tab.id}' is a '${tab.kind}' tab, not a '${kind}' tab`);
  return tab.params;
}
