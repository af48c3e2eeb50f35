/**
 * The connections area: loads the saved profiles (into the query cache) and
 * their live states (into the connections store), follows `connections.changed`,
 * draws the sidebar list
 * (environment stripe, label, reachability dot, protected marker) and owns the
 * global connection commands (switch, add, edit, test, refresh).
 */
import { useEffect } from 'react';
import { create } from 'zustand';
import { workbenchClient } from '../api/client';
import { useCommands } from '../shell/commands';
import { ContextMenu, useContextMenu, type MenuItem } from '../shell/ContextMenu';
import { Icon } from '../shell/icons';
import { useIntent } from '../shell/intents';
import { Modal } from '../shell/Modal';
import { closeTabs } from '../shell/guard';
import { pick } from '../shell/usePaletteStore';
import { messageOf, useNotificationsStore } from '../shell/useNotificationsStore';
import { useTabsStore } from '../shell/useTabsStore';
import { useShellRoot, type ViewModule } from '../shell/views';
import { SafeText, visibleControls } from '../shell/SafeText';
import { ConnectionDialog, useConnectionDialog } from './ConnectionDialog';
import { textOn } from './env';
import { colourOf, useConnectionsStore, type ConnectionEntry, type Reachability } from './useConnectionsStore';
import { activeConnectionEnabled, followConnectionEvents, reachabilityOf, refreshConnections, savedConnection, savedConnections, useConnection, useConnectionsQuery, withActiveConnection } from './queries';
import { rereadUnanswered, watchedConnection } from '../storeData/queries';
import './connections.css';

/**
 * Opens (or re-checks) a connection's store; its state lands in the store
 * through the answer and the event. `recheck` asks an open store one small
 * read, quietly (no "checking" in between): a store that stopped answering
 * turns offline, one that answers again turns reachable.
 */
export async function checkConnection(name: string, options: { recheck?: boolean } = {}): Promise<void> {
  const store = useConnectionsStore.getState();
  if (!options.recheck) store.setReachability(name, { status: 'checking', at: Date.now() });
  try {
    // While a view shows the connection's data, the recheck also looks for other writers' changes to it.
    const view = await workbenchClient()['connections.open']({ name, ...(options.recheck && { check: true, ...(watchedConnection(name) && { watch: true }) }) });
    const reachability = reachabilityOf(view.state);
    store.setReachability(name, reachability);
    // The connection answers: views whose read it did not answer read again.
    if (reachability.status === 'up') await rereadUnanswered(name);
  } catch (error) {
    store.setReachability(name, { status: 'down', message: messageOf(error), at: Date.now() });
  }
}

/** How often the connections in use (the active one and those of open tabs) are asked whether they still answer. */
export const RECHECK_MS = 5_000;

/** The connections the open views depend on: the active one and every tab's. */
export function connectionsInUse(): string[] {
  const names = new Set<string>();
  const active = useConnectionsStore.getState().activeName;
  if (active !== undefined) names.add(active);
  for (const tab of useTabsStore.getState().tabs) if (tab.connectionId !== undefined) names.add(tab.connectionId);
  const saved = new Set(savedConnections().map((c) => c.name));
  return [...names].filter((n) => saved.has(n));
}

/**
 * Makes `name` the active connection. The tabs of the previous one close
 * through the unsaved-changes guard; cancelling it keeps everything as it was.
 */
export async function switchConnection(name: string): Promise<boolean> {
  const { activeName } = useConnectionsStore.getState();
  if (name === activeName) return true;
  const previous = savedConnection(activeName);
  const next = savedConnection(name);
  const ids = useTabsStore
    .getState()
    .tabs.filter((t) => activeName !== undefined && t.connectionId === activeName)
    .map((t) => t.id);
  // The previous connection's tabs close, as the guard's question says; clean ones close without asking.
  if (ids.length > 0 && !(await closeTabs(ids, `Switching to ${visibleControls(next?.label ?? name)} closes the tabs of ${visibleControls(previous?.label ?? activeName ?? '')}.`))) return false;
  useConnectionsStore.getState().setActive(name);
  void checkConnection(name);
  return true;
}

function dotClass(r: Reachability | undefined): string {
  return r?.status === 'up' ? 'up' : r?.status === 'down' ? 'down' : 'unknown';
}

function dotTitle(r: Reachability | undefined): string {
  if (!r || r.status === 'unknown') return 'Not checked yet';
  if (r.status === 'checking') return 'Checking…';
  return r.status === 'up' ? 'Reachable' : `Unreachable: ${r.message ?? ''}`;
}

/** One connection row of the sidebar. */
export function ConnectionRow({
  connection,
  active,
  onSelect,
  menuProps,
}: {
  connection: ConnectionEntry;
  active: boolean;
  onSelect: () => void;
  menuProps?: { onContextMenu: (e: React.MouseEvent<HTMLElement>) => void; onKeyDown: (e: React.KeyboardEvent<HTMLElement>) => void };
}) {
  const reachability = useConnectionsStore((s) => s.reachability[connection.name]);
  const colour = colourOf(connection);
  return (
    <div
      role="option"
      aria-selected={active}
      tabIndex={active ? 0 : -1}
      className={`connection-row${active ? ' active' : ''}`}
      data-testid={`connection-row-${connection.name}`}
      data-reachability={reachability?.status ?? 'unknown'}
      title={`${connection.description}\nClick to open its catalog; right-click or Shift+F10 for more.`}
      onClick={onSelect}
      onContextMenu={menuProps?.onContextMenu}
      onKeyDown={(e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          onSelect();
          return;
        }
        if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
          e.preventDefault();
          const rows = [...(e.currentTarget.parentElement?.querySelectorAll<HTMLElement>('[role="option"]') ?? [])];
          rows[rows.indexOf(e.currentTarget) + (e.key === 'ArrowDown' ? 1 : -1)]?.focus();
          return;
        }
        menuProps?.onKeyDown(e);
      }}
    >
      <span className="env-stripe" style={{ background: colour }} data-testid={`connection-stripe-${connection.name}`} data-colour={colour} />
      <span className="connection-label ellipsis">
        <SafeText text={connection.label} />
      </span>
      {connection.environment && (
        <span className="env-label" style={{ background: colour, color: textOn(colour) }} data-testid={`connection-env-${connection.name}`}>
          <SafeText text={connection.environment.label} />
        </span>
      )}
      {connection.protected && !connection.enforces_approvals && (
        <span className="badge neutral" title="Protected: this client sends publishes and deletes only from approved reviews (a rail: the host's own checks are the control)" data-testid={`connection-protected-${connection.name}`}>
          protected
        </span>
      )}
      {connection.enforces_approvals && (
        <span
          className="badge neutral"
          title="Approvals enforced by the host: it takes a publish or delete only with a signed approval, whoever sends it (a control where the host alone holds the write credential); this client also sends writes only from approved reviews"
          data-testid={`connection-enforces-${connection.name}`}
        >
          enforced
        </span>
      )}
      {connection.read_only && (
        <span className="badge neutral" title="Read-only: nothing can be published or deleted through it">
          read-only
        </span>
      )}
      <span className={`dot ${dotClass(reachability)}`} title={dotTitle(reachability)} data-testid={`connection-dot-${connection.name}`} aria-label={dotTitle(reachability)} role="img" />
    </div>
  );
}

/** Tests a saved connection, says the outcome, and checks it again so its dot shows what the test found. */
export async function testConnection(name: string): Promise<void> {
  const notices = useNotificationsStore.getState();
  const label = visibleControls(savedConnection(name)?.label ?? name);
  try {
    const result = await workbenchClient()['connections.test']({ name });
    notices.push(result.ok ? 'info' : 'error', `${label}: ${result.message}`);
  } catch (error) {
    notices.push('error', `${label}: ${messageOf(error)}`);
  }
  await checkConnection(name);
}

/** Saves the profile of `name` (no secrets) as a JSON file, as `connections.export` writes it. */
async function exportConnection(name: string): Promise<void> {
  try {
    const document = await workbenchClient()['connections.export']({ names: [name] });
    const blob = new Blob([`${JSON.stringify(document, null, 2)}\n`], { type: 'application/json' });
    const url = URL.createObjectURL(blob);
    const link = window.document.createElement('a');
    link.href = url;
    link.download = `${name}.skillbench-connection.json`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    useNotificationsStore.getState().push('info', `Exported ${name} (without its secrets) as ${link.download}.`);
  } catch (error) {
    useNotificationsStore.getState().push('error', `The connection could not be exported: ${messageOf(error)}`);
  }
}

/** The confirmation before a connection is removed. */
const useRemoveStore = create<{ name: string | undefined; busy: boolean; error: string | undefined }>(() => ({ name: undefined, busy: false, error: undefined }));

function RemoveDialog() {
  const { name, busy, error } = useRemoveStore();
  const entry = useConnection(name);
  if (name === undefined) return null;
  const label = entry?.label ?? name;
  const cancel = () => useRemoveStore.setState({ name: undefined, busy: false, error: undefined });
  const remove = async () => {
    useRemoveStore.setState({ busy: true, error: undefined });
    try {
      const ids = useTabsStore.getState().tabs.filter((t) => t.connectionId === name).map((t) => t.id);
      if (ids.length > 0 && !(await closeTabs(ids, `Removing ${visibleControls(label)} closes its tabs.`))) return cancel();
      await workbenchClient()['connections.remove']({ name });
      await refreshConnections();
      cancel();
    } catch (e) {
      useRemoveStore.setState({ busy: false, error: messageOf(e) });
    }
  };
  return (
    <Modal title={<>Remove <SafeText text={label} />?</>} testId="connection-remove-dialog" onDismiss={busy ? undefined : cancel}>
      <p>
        The profile and its saved secrets are removed from this machine, and its tabs close. Nothing in the store itself changes.
      </p>
      {error && (
        <div className="inline-error" role="alert" data-testid="connection-remove-error">
          <span className="isolate">{error}</span>
        </div>
      )}
      <div className="actions">
        <button type="button" className="btn" onClick={cancel} data-autofocus disabled={busy}>
          Cancel
        </button>
        <button type="button" className="btn danger" onClick={() => void remove()} disabled={busy} data-testid="connection-remove-confirm">
          {busy ? 'Removing…' : 'Remove'}
        </button>
      </div>
    </Modal>
  );
}

function ConnectionsPanel() {
  const { data: connections = [], isPending, error } = useConnectionsQuery();
  const activeName = useConnectionsStore((s) => s.activeName);
  const openDialog = useConnectionDialog((s) => s.open);
  const openCatalog = useIntent('catalog.open');
  const { menu, close, triggerProps } = useContextMenu('Connection');
  // Clicking a connection makes it active and opens its catalog, as RedisInsight opens a database.
  const browse = async (name: string) => {
    if (!(await switchConnection(name))) return;
    if (typeof openCatalog === 'function') openCatalog({ connection: name });
  };
  const itemsOf = (c: ConnectionEntry) => (): MenuItem[] => [
    { id: 'open-catalog', label: 'Open catalog', run: () => void browse(c.name), ...(typeof openCatalog === 'string' && { disabled: openCatalog }) },
    { id: 'test', label: 'Test', run: () => void testConnection(c.name) },
    { id: 'edit', label: 'Edit…', run: () => openDialog(c.name) },
    { id: 'clone', label: 'Clone…', run: () => openDialog(c.name, { clone: true }) },
    { id: 'export', label: 'Export…', run: () => void exportConnection(c.name) },
    { id: 'remove', label: 'Remove…', danger: true, run: () => useRemoveStore.setState({ name: c.name, busy: false, error: undefined }) },
  ];
  return (
    <div className="sidebar-section" data-testid="connections-panel">
      <div className="section-header">
        <span className="title">Connections</span>
        <button type="button" className="icon-btn" title="Add connection" aria-label="Add connection" data-testid="connection-add" onClick={() => openDialog(undefined)}>
          <Icon name="add" />
        </button>
        <button type="button" className="icon-btn" title="Refresh connection states" aria-label="Refresh connection states" data-testid="connection-refresh" onClick={() => void refreshConnections().then(() => (activeName ? checkConnection(activeName) : undefined))}>
          <Icon name="refresh" />
        </button>
      </div>
      {error && (
        <div className="inline-error" role="alert" data-testid="connections-error">
          <span className="isolate">{messageOf(error)}</span>
        </div>
      )}
      {isPending && <div className="muted connection-hint">Loading connections…</div>}
      <div role="listbox" aria-label="Connections" data-testid="connections-list">
        {connections.map((c) => (
          <ConnectionRow key={c.name} connection={c} active={c.name === activeName} onSelect={() => void browse(c.name)} menuProps={triggerProps(itemsOf(c))} />
        ))}
      </div>
      <ContextMenu menu={menu} onClose={close} />
    </div>
  );
}

/** Loads the connections, follows their events and answers the global connection commands. */
function ConnectionsExtension() {
  const root = useShellRoot();
  const openDialog = useConnectionDialog((s) => s.open);

  useEffect(() => {
    let disposed = false;
    void refreshConnections().then(() => {
      const name = useConnectionsStore.getState().activeName;
      if (!disposed && name) void checkConnection(name);
    });
    const off = followConnectionEvents();
    return () => {
      disposed = true;
      off();
    };
  }, []);

  // Connections in use are rechecked while the window is visible, one round at a time, and at once when it comes back.
  useEffect(() => {
    let running = false;
    const round = async () => {
      if (running || document.visibilityState === 'hidden') return;
      running = true;
      try {
        await Promise.all(connectionsInUse().map((name) => checkConnection(name, { recheck: true })));
      } finally {
        running = false;
      }
    };
    const timer = setInterval(() => void round(), RECHECK_MS);
    const now = () => void round();
    window.addEventListener('online', now);
    window.addEventListener('focus', now);
    document.addEventListener('visibilitychange', now);
    return () => {
      clearInterval(timer);
      window.removeEventListener('online', now);
      window.removeEventListener('focus', now);
      document.removeEventListener('visibilitychange', now);
    };
  }, []);

  const active = () => useConnectionsStore.getState().activeName;

  useCommands(root, {
    'connection.switch': async () => {
      const { activeName, reachability } = useConnectionsStore.getState();
      const choice = await pick(
        'Switch connection',
        'Connection name',
        savedConnections().map((c) => ({
          id: c.name,
          label: visibleControls(c.label),
          detail: [c.environment ? visibleControls(c.environment.label) : '', reachability[c.name]?.status === 'down' ? 'offline' : '', c.description].filter(Boolean).join(' · '),
          color: colourOf(c),
          current: c.name === activeName,
        })),
      );
      if (choice) await switchConnection(choice.id);
    },
    'connection.add': () => openDialog(undefined),
    'connection.editActive': { enabled: activeConnectionEnabled, run: () => withActiveConnection(openDialog) },
    'connection.testActive': { enabled: activeConnectionEnabled, run: () => withActiveConnection((name) => void testConnection(name)) },
    'connection.refresh': async () => {
      await refreshConnections();
      const name = active();
      if (name) await checkConnection(name);
    },
  });
  return (
    <>
      <ConnectionDialog />
      <RemoveDialog />
    </>
  );
}

export const connectionsModule: ViewModule = {
  id: 'connections',
  activities: [{ id: 'connections', title: 'Connections', icon: 'database', order: 0, panel: ConnectionsPanel, command: 'connection.switch' }],
  extensions: [ConnectionsExtension],
};
