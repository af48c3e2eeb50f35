/**
 * Connections as the shell shows them: the saved profiles, each one's
 * reachability, and the active connection (the one the catalog and quick open
 * use, shown at the left of the status bar).
 */
import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';
import { NO_ENV_COLOUR, safeColour } from './env';

/** A saved connection as the UI shows it: never a secret in it. */
export interface ConnectionEntry {
  /** Profile name (a slug), the stable id. */
  name: string;
  label: string;
  environment: { label: string; colour: string } | null;
  read_only: boolean;
  protected: boolean;
  /** Its host enforces approvals (registry serve --require-approval): the control behind the protected rail. */
  enforces_approvals?: boolean;
  kind: 'local' | 'redis' | 'http';
  /** Secret-free description of the target (`redis://127.0.0.1:6379 (default)`). */
  description: string;
}

/** Whether a connection answers. */
export interface Reachability {
  status: 'unknown' | 'checking' | 'up' | 'down';
  /** Why it is down, in words a user can act on. */
  message?: string;
  /** When it was last checked (ms since the epoch). */
  at?: number;
}

interface ConnectionsState {
  connections: ConnectionEntry[];
  reachability: Record<string, Reachability>;
  activeName: string | undefined;
  loaded: boolean;
  loadError: string | undefined;
  setConnections(connections: ConnectionEntry[]): void;
  setReachability(name: string, reachability: Reachability): void;
  setActive(name: string): void;
  setLoadError(message: string | undefined): void;
}

export const useConnectionsStore = create<ConnectionsState>()(
  persist(
    (set, get) => ({
      connections: [],
      reachability: {},
      activeName: undefined,
      loaded: false,
      loadError: undefined,
      setConnections(connections) {
        const active = get().activeName;
        set({
          connections,
          loaded: true,
          loadError: undefined,
          activeName: connections.some((c) => c.name === active) ? active : connections[0]?.name,
        });
      },
      setReachability(name, reachability) {
        set({ reachability: { ...get().reachability, [name]: reachability } });
      },
      setActive(name) {
        set({ activeName: name });
      },
      setLoadError(loadError) {
        set({ loadError, loaded: true });
      },
    }),
    { name: 'skillbench.connections', version: 1, storage: createJSONStorage(() => localStorage), partialize: (s) => ({ activeName: s.activeName }) },
  ),
);

/** The connection named `name`, if saved. */
export function useConnection(name: string | undefined): ConnectionEntry | undefined {
  return useConnectionsStore((s) => (name === undefined ? undefined : s.connections.find((c) => c.name === name)));
}

/** The environment colour of a connection (grey without one). */
export function colourOf(connection: ConnectionEntry | undefined): string {
  return connection?.environment ? safeColour(connection.environment.colour) : NO_ENV_COLOUR;
}

/** Whether `name` is known to be unreachable, and why. */
export function offlineReason(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const r = useConnectionsStore.getState().reachability[name];
  return r?.status === 'down' ? (r.message ?? 'The connection is unreachable') : undefined;
}

/**
 * Runs `open` with the active connection; pressed before the saved connections
 * have loaded (the first moments after start), it runs once they have, so the
 * chord is not lost.
 */
export function withActiveConnection(open: (name: string) => void): void {
  const now = useConnectionsStore.getState();
  if (now.loaded) {
    if (now.activeName) open(now.activeName);
    return;
  }
  const stop = useConnectionsStore.subscribe((state) => {
    if (!state.loaded) return;
    stop();
    if (state.activeName) open(state.activeName);
  });
}

/** Enabled while the connections load (the command then waits for them), or when one is active. */
export function activeConnectionEnabled(): true | string {
  const { loaded, activeName } = useConnectionsStore.getState();
  return !loaded || activeName ? true : 'No connection is active';
}
