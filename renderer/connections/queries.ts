/**
 * The saved connections as the page's query cache holds them: one query
 * (`connections.list`), read by components through {@link useConnections} and
 * {@link useConnection} and elsewhere through {@link savedConnections}, and
 * read again ({@link refreshConnections}) after a save, a removal or a
 * `connections.changed` event. Only what the user chose and what the probes
 * see live in the connections store: the active connection and each one's
 * reachability.
 */
import { hashKey, queryOptions, useQuery } from '@tanstack/react-query';
import { workbenchClient, type ConnectionState, type ConnectionView } from '../api/client';
import { queryClient } from '../storeData/queries';
import { useConnectionsStore, type ConnectionEntry, type Reachability } from './useConnectionsStore';

/** Query key of the saved connections (not store data: no event of a store reaches it). */
export const connectionKeys = {
  list: ['connections'] as const,
};

/** A profile as the views show it. */
export function entryOf(view: ConnectionView): ConnectionEntry {
  const { profile, state } = view;
  const target = profile.target;
  const description =
    state.description ??
    (target.kind === 'local' ? `local registry in ${target.dir}` : target.kind === 'http' ? target.url : `${target.topology} ${target.hosts.map((h) => `${h.host}:${h.port}`).join(',')} (${target.deployment})`);
  return {
    name: profile.name,
    label: profile.label || profile.name,
    environment: profile.environment,
    read_only: profile.read_only,
    protected: profile.protected,
    ...(profile.enforces_approvals === true && { enforces_approvals: true }),
    kind: target.kind,
    description,
  };
}

/** Whether a live state means the connection answers. */
export function reachabilityOf(state: ConnectionState): Reachability {
  const at = Date.parse(state.since) || Date.now();
  switch (state.status) {
    case 'open':
      return { status: 'up', at };
    case 'opening':
      return { status: 'checking', at };
    case 'offline':
    case 'error':
      return { status: 'down', message: state.error?.message ?? (state.status === 'offline' ? 'the store stopped answering' : 'the store could not be opened'), at };
    default:
      return { status: 'unknown', at };
  }
}

/**
 * The saved profiles. A fresh answer also carries each one's live state, which
 * seeds its reachability, and settles the active connection: the one chosen
 * while it is still saved, else the first saved one. Both happen before the
 * list lands in the cache, so whoever waits for the list sees them settled.
 */
export function connectionsQuery() {
  return queryOptions({
    queryKey: connectionKeys.list,
    queryFn: async (): Promise<ConnectionEntry[]> => {
      const { connections } = await workbenchClient()['connections.list']({});
      const entries = connections.map(entryOf);
      const store = useConnectionsStore.getState();
      for (const view of connections) store.setReachability(view.profile.name, reachabilityOf(view.state));
      const active = store.activeName;
      const next = entries.some((c) => c.name === active) ? active : entries[0]?.name;
      if (next !== active) useConnectionsStore.setState({ activeName: next });
      return entries;
    },
    // The page reads the list for as long as it lives; only a change (an event, a save) reads it again.
    gcTime: Number.POSITIVE_INFINITY,
  });
}

/** Reads the saved profiles and their states again (the first call reads them for the first time). */
export async function refreshConnections(): Promise<void> {
  if (queryClient.getQueryState(connectionKeys.list) === undefined) await queryClient.prefetchQuery(connectionsQuery());
  // A read under way may predate the change that asked for this one: it is replaced, not joined.
  else await queryClient.invalidateQueries({ queryKey: connectionKeys.list, exact: true, refetchType: 'all' });
}

/**
 * Follows `connections.changed`: a live state lands in that connection's
 * reachability; a saved, renamed or removed profile reads the list again.
 * Returns the unsubscribe function.
 */
export function followConnectionEvents(): () => void {
  return workbenchClient().on('connections.changed', (event) => {
    if (event.kind === 'state' && event.name && event.state) useConnectionsStore.getState().setReachability(event.name, reachabilityOf(event.state));
    else void refreshConnections();
  });
}

const NONE: ConnectionEntry[] = [];
const LIST_HASH = hashKey(connectionKeys.list);

/** The saved connections (empty until they have loaded), outside React. */
export function savedConnections(): ConnectionEntry[] {
  return queryClient.getQueryData(connectionKeys.list) ?? NONE;
}

/** The saved connection named `name`, outside React. */
export function savedConnection(name: string | undefined): ConnectionEntry | undefined {
  return name === undefined ? undefined : savedConnections().find((c) => c.name === name);
}

/** The saved connections, read first if they have not been yet. */
export function loadedConnections(): Promise<ConnectionEntry[]> {
  return queryClient.ensureQueryData(connectionsQuery());
}

/** Whether the first read of the saved connections has ended (with the list or an error). */
export function connectionsLoaded(): boolean {
  const state = queryClient.getQueryState(connectionKeys.list);
  return state !== undefined && state.status !== 'pending';
}

/** The connections query as a component follows it: its list, whether it is loading, and why it failed. */
export function useConnectionsQuery() {
  return useQuery(connectionsQuery());
}

/** The saved connections (empty until they have loaded). */
export function useConnections(): ConnectionEntry[] {
  return useConnectionsQuery().data ?? NONE;
}

/** The connection named `name`, if saved. */
export function useConnection(name: string | undefined): ConnectionEntry | undefined {
  return useQuery({ ...connectionsQuery(), select: (list) => (name === undefined ? undefined : list.find((c) => c.name === name)) }).data;
}

/**
 * Runs `open` with the active connection; pressed before the saved connections
 * have loaded (the first moments after start), it runs once they have, so the
 * chord is not lost.
 */
export function withActiveConnection(open: (name: string) => void): void {
  if (connectionsLoaded()) {
    const name = useConnectionsStore.getState().activeName;
    if (name) open(name);
    return;
  }
  const stop = queryClient.getQueryCache().subscribe((event) => {
    if (event.query.queryHash !== LIST_HASH || !connectionsLoaded()) return;
    stop();
    const name = useConnectionsStore.getState().activeName;
    if (name) open(name);
  });
}

/** Enabled while the connections load (the command then waits for them), or when one is active. */
export function activeConnectionEnabled(): true | string {
  return !connectionsLoaded() || useConnectionsStore.getState().activeName ? true : 'No connection is active';
}
