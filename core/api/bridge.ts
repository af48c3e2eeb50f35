/**
 * What the Electron preload exposes to the page, and the IPC channels behind
 * it. The page sees one object, `window.skillbench`, with exactly two
 * functions: `invoke` (contract methods only) and `on` (contract events only);
 * never `ipcRenderer`, never an IPC event object.
 *
 * Isomorphic: no `node:` imports.
 */
import type { Envelope, WorkbenchEvent, WorkbenchEvents, WorkbenchMethod } from './contract';

/** The global name of the bridge on `window`. */
export const BRIDGE_KEY = 'skillbench';

/** IPC channel of calls (renderer → main, `ipcRenderer.invoke`). */
export const IPC_CALL_CHANNEL = 'workbench:call';

/** IPC channel of events (main → renderer, `webContents.send`). */
export const IPC_EVENT_CHANNEL = 'workbench:event';

/** The object the preload exposes as `window.skillbench`. */
export interface WorkbenchBridge {
  /** Calls a contract method; resolves with its envelope. Unknown methods reject without reaching main. */
  invoke(method: WorkbenchMethod, params: unknown): Promise<Envelope>;
  /** Subscribes to a contract event; returns the unsubscribe function. Unknown events throw. */
  on<E extends WorkbenchEvent>(event: E, listener: (payload: WorkbenchEvents[E]) => void): () => void;
}

/** True when `value` looks like the bridge (the page runs inside the desktop shell). */
export function isWorkbenchBridge(value: unknown): value is WorkbenchBridge {
  const b = value as Partial<WorkbenchBridge> | null | undefined;
  return typeof b === 'object' && b !== null && typeof b.invoke === 'function' && typeof b.on === 'function';
}
