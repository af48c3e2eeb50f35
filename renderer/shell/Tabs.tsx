/**
 * The tab strip and the tab host. Each tab is underlined in its connection's
 * environment colour. Inactive tabs stay mounted (hidden) so an editor keeps its
 * undo stack and a catalog its scroll position.
 */
import { Component, createContext, Suspense, useContext, useEffect, useRef, type ReactNode, type RefObject } from 'react';
import { useConnections } from '../connections/queries';
import { colourOf } from '../connections/useConnectionsStore';
import { closeTabs } from './guard';
import { Glyph } from './icons';
import { useTabsStore, type Tab } from './useTabsStore';
import { useRegistry } from './views';

const TabScopeContext = createContext<RefObject<HTMLDivElement | null>>({ current: null });

/** The scope element of the tab the calling view renders in, for `useCommands`. */
export function useTabScope(): RefObject<HTMLDivElement | null> {
  return useContext(TabScopeContext);
}

/** Closes one tab through the unsaved-changes guard. */
export function closeTab(tab: Tab): Promise<boolean> {
  return closeTabs([tab.id], `Closing ${tab.title}.`);
}

export function TabStrip() {
  const tabs = useTabsStore((s) => s.tabs);
  const activeId = useTabsStore((s) => s.activeId);
  const activate = useTabsStore((s) => s.activate);
  const keep = useTabsStore((s) => s.keep);
  const connections = useConnections();
  const { tabView } = useRegistry();
  const strip = useRef<HTMLDivElement>(null);
  // The active tab is scrolled into view when the strip holds more than it shows.
  useEffect(() => {
    if (!activeId) return;
    strip.current?.querySelector(`[data-testid="tab-${CSS.escape(activeId)}"]`)?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [activeId, tabs.length]);
  if (tabs.length === 0) return <div className="tab-strip" role="tablist" aria-label="Open tabs" data-testid="tab-strip" />;
  return (
    <div ref={strip} className="tab-strip" role="tablist" aria-label="Open tabs" data-testid="tab-strip">
      {tabs.map((tab) => {
        const connection = connections.find((c) => c.name === tab.connectionId);
        const colour = tab.connectionId ? colourOf(connection) : undefined;
        const selected = tab.id === activeId;
        return (
          <div
            key={tab.id}
            role="tab"
            aria-selected={selected}
            aria-controls={`panel-${tab.id}`}
            tabIndex={selected ? 0 : -1}
            className={`tab${tab.preview ? ' preview' : ''}`}
            title={[tab.description ?? tab.title, tab.preview ? '(preview: double-click to keep)' : ''].filter(Boolean).join(' ')}
            data-testid={`tab-${tab.id}`}
            data-connection={tab.connectionId}
            data-dirty={tab.dirty}
            onClick={() => activate(tab.id)}
            onDoubleClick={() => keep(tab.id)}
            onAuxClick={(e) => {
              if (e.button === 1) void closeTab(tab);
            }}
          >
            {tabView(tab.kind)?.icon && (
              <span className="tab-icon">
                <Glyph glyph={tabView(tab.kind)!.icon!} size={14} />
              </span>
            )}
            <span className="tab-title isolate">{tab.title}</span>
            {tab.dirty ? (
              <span className="dirty-dot" aria-label="unsaved changes" data-testid={`tab-dirty-${tab.id}`} />
            ) : null}
            <span
              role="button"
              tabIndex={-1}
              className="close"
              aria-label={`Close ${tab.title}`}
              data-testid={`tab-close-${tab.id}`}
              onClick={(e) => {
                e.stopPropagation();
                void closeTab(tab);
              }}
            >
              ×
            </span>
            {colour && <span className="underline" style={{ background: colour }} data-testid={`tab-underline-${tab.id}`} data-colour={colour} />}
          </div>
        );
      })}
    </div>
  );
}

/**
 * A view's code arrives on first open (see `lazyView`); when that download
 * fails (the server stopped, a build replaced under a running page) the tab
 * says so instead of the whole workbench going blank. Other tabs keep working.
 */
class ViewLoadBoundary extends Component<{ kind: string; children: ReactNode }, { error?: string }> {
  override state: { error?: string } = {};

  static getDerivedStateFromError(error: unknown): { error: string } {
    return { error: error instanceof Error ? error.message : String(error) };
  }

  override render() {
    if (this.state.error === undefined) return this.props.children;
    return (
      <div className="empty-state" role="alert" data-testid="tab-load-error">
        <strong>This tab could not be shown</strong>
        <span>
          Its view ({this.props.kind}) failed: {this.state.error}. Reload the window (F5) to try again; your drafts are saved.
        </span>
      </div>
    );
  }
}

/**
 * Mounts with the view, once its code has arrived: focus moved into the tab
 * while it was loading rests on the panel itself, so it goes on to the
 * view's `data-autofocus` element as it would have for a view already loaded.
 */
function FocusOnArrival({ panel }: { panel: RefObject<HTMLDivElement | null> }) {
  useEffect(() => {
    const root = panel.current;
    if (root && document.activeElement === root) root.querySelector<HTMLElement>('[data-autofocus]')?.focus();
  }, [panel]);
  return null;
}

function TabPanel({ tab, active }: { tab: Tab; active: boolean }) {
  const { tabView } = useRegistry();
  const ref = useRef<HTMLDivElement>(null);
  const view = tabView(tab.kind);
  const View = view?.component;
  return (
    <div
      ref={ref}
      id={`panel-${tab.id}`}
      role="tabpanel"
      className="tab-panel"
      hidden={!active}
      tabIndex={-1}
      data-scope={view?.scope ?? 'global'}
      data-testid={`panel-${tab.id}`}
    >
      <TabScopeContext.Provider value={ref}>
        {View ? (
          <ViewLoadBoundary kind={tab.kind}>
            <Suspense
              fallback={
                <div className="empty-state" role="status" data-testid="tab-loading">
                  <span>Loading…</span>
                </div>
              }
            >
              <View tab={tab} active={active} />
              <FocusOnArrival panel={ref} />
            </Suspense>
          </ViewLoadBoundary>
        ) : (
          <div className="empty-state">
            <strong>This tab cannot be shown</strong>
            <span>Its view ({tab.kind}) is not part of this build. Close it with the × above.</span>
          </div>
        )}
      </TabScopeContext.Provider>
    </div>
  );
}

export function TabHost({ empty }: { empty: React.ReactNode }) {
  const tabs = useTabsStore((s) => s.tabs);
  const activeId = useTabsStore((s) => s.activeId);
  return (
    <div className="tab-host">
      {tabs.length === 0 && empty}
      {tabs.map((tab) => (
        <TabPanel key={tab.id} tab={tab} active={tab.id === activeId} />
      ))}
    </div>
  );
}
