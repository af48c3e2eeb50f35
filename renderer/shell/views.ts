/**
 * The view registry. Each area of the workbench (catalog, versions, the package
 * editor, evaluations, reviews...) exports one {@link ViewModule}, and
 * `App.tsx` lists the modules; the shell renders whatever they contribute. To
 * add a view, write its module and add one line to `App.tsx`.
 */
import { createContext, lazy, useContext, type ComponentType, type RefObject } from 'react';
import type { IntentHandlers } from './intents';
import { SCOPE_LABELS } from '../keymap';
import type { Scope } from './keymap';
import type { Tab } from './useTabsStore';

/** Props every tab view receives. */
export interface TabViewProps {
  tab: Tab;
  /** Whether it is the visible tab (inactive tabs stay mounted but hidden). */
  active: boolean;
}

/**
 * A tab view loaded when a tab of its kind is first shown: its module, and what
 * only it imports (Monaco, for the editor and the diff), becomes a chunk of
 * its own, so the workbench's first paint does not download it. The tab panel
 * shows a loading line meanwhile (see `Tabs.tsx`). Keep the view's module
 * imported from here only: a static import elsewhere puts it back in the
 * first chunk.
 */
export function lazyView(load: () => Promise<ComponentType<TabViewProps>>): ComponentType<TabViewProps> {
  return lazy(async () => ({ default: await load() }));
}

/** A kind of tab. */
export interface TabView {
  kind: string;
  /** The keymap scope of its root element, declared by a keymap contribution (see `renderer/keymap.ts`). */
  scope: Scope;
  component: ComponentType<TabViewProps>;
  /** The icon before the title: a codicon name (see `icons.tsx`) or a short text glyph. */
  icon?: string;
}

/** An entry of the activity bar: a sidebar panel or an action. */
export interface Activity {
  id: string;
  title: string;
  /** A codicon name (see `icons.tsx`) or a short text glyph. */
  icon: string;
  /** Lower comes first. */
  order: number;
  /** The sidebar panel it shows; without one, `run` is called instead. */
  panel?: ComponentType;
  run?: () => void;
  /** The command whose shortcut the tooltip shows. */
  command?: string;
}

/** A section a module adds below an activity's sidebar panel (the workspace below the connections). */
export interface SidebarSection {
  /** The activity whose panel it follows. */
  activity: string;
  /** Lower comes first. */
  order: number;
  component: ComponentType;
}

/** One result of quick open (`Mod+P`). */
export interface QuickOpenItem {
  id: string;
  label: string;
  /** Dimmed text after the label (namespace, connection). */
  detail?: string;
  /** Text searched besides the label. */
  keywords?: string;
  /** Environment colour of its connection. */
  color?: string;
  open(options: { newTab: boolean }): void;
}

/** A source of quick-open items; called when quick open opens, as the query changes and when the provider says its items changed. */
export interface QuickOpenProvider {
  id: string;
  /** The items for `query`; `registry` lets an item ask for an intent. */
  items(query: string, registry: ViewRegistry): QuickOpenItem[];
  /** Called when quick open opens (start loading what is not loaded yet). */
  prepare?(): void;
  /** Calls `onChange` when the items may have changed; returns the unsubscribe function. */
  subscribe?(onChange: () => void): () => void;
}

/** What one area contributes to the shell. */
export interface ViewModule {
  id: string;
  tabViews?: TabView[];
  activities?: Activity[];
  sidebarSections?: SidebarSection[];
  quickOpen?: QuickOpenProvider[];
  /**
   * Components mounted once inside the shell, for global command handlers
   * (`useCommands(useShellRoot(), ...)`) and background subscriptions. They render nothing visible.
   */
  extensions?: ComponentType[];
  /** Items shown at the right of the status bar (an evaluation's progress...). */
  statusItems?: ComponentType[];
  /** Intents this module carries out (see `intents.ts`). */
  intents?: IntentHandlers;
}

/** The registered modules, in `App.tsx` order. */
export interface ViewRegistry {
  modules: readonly ViewModule[];
  tabView(kind: string): TabView | undefined;
  activities: Activity[];
  sidebarSections: SidebarSection[];
  quickOpen: QuickOpenProvider[];
  extensions: ComponentType[];
}

/** Builds the registry; a kind or activity id registered twice, or a tab view in a scope no keymap declares, is a programming error. */
export function createRegistry(modules: readonly ViewModule[]): ViewRegistry {
  const kinds = new Map<string, TabView>();
  const activities: Activity[] = [];
  for (const module of modules) {
    for (const view of module.tabViews ?? []) {
      if (kinds.has(view.kind)) throw new Error(`Tab kind '${view.kind}' is registered twice`);
      if (!Object.hasOwn(SCOPE_LABELS, view.scope)) throw new Error(`Tab kind '${view.kind}' is in the scope '${view.scope}', which no keymap contribution declares`);
      kinds.set(view.kind, view);
    }
    for (const activity of module.activities ?? []) {
      if (activities.some((a) => a.id === activity.id)) throw new Error(`Activity '${activity.id}' is registered twice`);
      activities.push(activity);
    }
  }
  return {
    modules,
    tabView: (kind) => kinds.get(kind),
    activities: activities.sort((a, b) => a.order - b.order),
    sidebarSections: modules.flatMap((m) => m.sidebarSections ?? []).sort((a, b) => a.order - b.order),
    quickOpen: modules.flatMap((m) => m.quickOpen ?? []),
    extensions: modules.flatMap((m) => m.extensions ?? []),
  };
}

export const RegistryContext = createContext<ViewRegistry>(createRegistry([]));

/** The registry the shell was built with. */
export function useRegistry(): ViewRegistry {
  return useContext(RegistryContext);
}

export const ShellRootContext = createContext<RefObject<HTMLElement | null>>({ current: null });

/** The shell's root element, the scope element of `global` commands. */
export function useShellRoot(): RefObject<HTMLElement | null> {
  return useContext(ShellRootContext);
}
