/**
 * Connections as the shell shows them: each one's reachability and the active
 * connection (the one the catalog and quick open use, shown at the left of the
 * status bar). The saved profiles are read from the query cache (`./queries.ts`).
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

/**
 * What the user chose and what the probes see. The saved list itself is server
 * data and lives in the query cache (`./queries.ts`), never here.
 */
interface ConnectionsState {
  /** Live state of each connection, from the list, the probes and `connections.changed` events. */
  reachability: Record<string, Reachability>;
  /** The active connection (kept across restarts); it follows the list when its connection is removed. */
  activeName: string | undefined;
  setReachability(name: string, reachability: Reachability): void;
  setActive(name: string): void;
}

export const useConnectionsStore = create<ConnectionsState>()(
  persist(
    (set, get) => ({
      reachability: {},
      activeName: undefined,
      setReachability(name, reachability) {
        set({ reachability: { ...get().reachability, [name]: reachability } });
      },
      setActive(name) {
        set({ activeName: name });
      },
    }),
    { name: 'skillbench.connections', version: 1, storage: createJSONStorage(() => localStorage), partialize: (s) => ({ activeName: s.activeName }) },
  ),
);

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
