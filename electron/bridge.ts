/**
 * What the preload exposes, built over `ipcRenderer`: exactly the contract.
 * `invoke` accepts only contract methods and `on` only contract events; the
 * listener receives the payload alone, never the IPC event object (which
 * would hand the page `ipcRenderer` through `event.sender`).
 */
import type { IpcRenderer, IpcRendererEvent } from 'electron';
import { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL, type WorkbenchBridge } from '../core/api/bridge';
import type { Envelope, WorkbenchEvent } from '../core/api/contract';
// The names alone: the preload checks names and never parses parameters, so it does not bundle zod.
import { isWorkbenchEvent, isWorkbenchMethod } from '../core/api/names';

/** The part of `ipcRenderer` the bridge uses, with Electron's signatures (the chaining return value aside). */
export interface IpcRendererPort {
  invoke: IpcRenderer['invoke'];
  on(channel: string, listener: (event: IpcRendererEvent, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: IpcRendererEvent, ...args: unknown[]) => void): unknown;
}

/** Builds the bridge over `ipc`. The object and its functions are frozen. */
export function createBridge(ipc: IpcRendererPort): WorkbenchBridge {
  const listeners = new Map<WorkbenchEvent, Set<(payload: unknown) => void>>();
  let attached = false;
  const onEvent = (_event: IpcRendererEvent, name: unknown, payload: unknown): void => {
    if (!isWorkbenchEvent(name)) return;
    for (const listener of [...(listeners.get(name) ?? [])]) {
      try {
        listener(payload);
      } catch {
        // One failing listener must not starve the others.
      }
    }
  };
  const bridge: WorkbenchBridge = {
    invoke(method, params) {
      if (!isWorkbenchMethod(method)) return Promise.reject(new TypeError(`unknown method '${String(method)}'`));
      return ipc.invoke(IPC_CALL_CHANNEL, method, params) as Promise<Envelope>;
    },
    on(event, listener) {
      if (!isWorkbenchEvent(event)) throw new TypeError(`unknown event '${String(event)}'`);
      if (typeof listener !== 'function') throw new TypeError('a listener is a function');
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      const l = listener as (payload: unknown) => void;
      set.add(l);
      if (!attached) {
        ipc.on(IPC_EVENT_CHANNEL, onEvent);
        attached = true;
      }
      return () => {
        set.delete(l);
        if (set.size === 0) listeners.delete(event);
        if (listeners.size === 0 && attached) {
          ipc.removeListener(IPC_EVENT_CHANNEL, onEvent);
          attached = false;
        }
      };
    },
  };
  return Object.freeze(bridge);
}
