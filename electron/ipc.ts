/**
 * The Electron IPC transport of the WorkbenchApi, main-process side. Calls
 * arrive on one channel through `ipcMain.handle`; each is answered only when
 * it comes from the top-level frame of a workbench window showing the app's
 * own origin (an iframe, a navigated-away page or a foreign origin gets a 403
 * envelope), and the router parses its parameters before any handler runs.
 * Events go to every attached window with `webContents.send`.
 */
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL } from '../core/api/bridge';
import type { Envelope, WorkbenchEvent, WorkbenchEvents } from '../core/api/contract';
import type { Router } from '../core/api/router';

/** `scheme://host` of a URL, also for custom schemes (whose WHATWG `origin` is "null"). */
export function schemeHost(url: string): string | undefined {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return undefined;
  }
}

/** True when `event` comes from the main frame of its window, showing `appOrigin` (`app://workbench`). */
export function isTrustedSender(event: Pick<IpcMainInvokeEvent, 'senderFrame' | 'sender'>, appOrigin: string): boolean {
  const frame = event.senderFrame;
  if (!frame || frame.parent !== null) return false;
  if (frame !== event.sender.mainFrame) return false;
  return schemeHost(frame.url) === appOrigin;
}

/** Options of {@link serveIpc}. */
export interface IpcOptions {
  ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>;
  router: Router;
  /** The app's own origin, e.g. `app://workbench`. */
  appOrigin: string;
  /** Told about refused senders (for the log; never a payload). */
  onRefused?: (url: string) => void;
}

/** A served IPC transport. */
export interface IpcTransportHost {
  /** Sends events to `contents` until it is destroyed (or detached). */
  attach(contents: Pick<WebContents, 'send' | 'isDestroyed' | 'once'>): () => void;
  /** Removes the handler and stops every event stream. */
  dispose(): void;
}

/** Serves the router over IPC. */
export function serveIpc(options: IpcOptions): IpcTransportHost {
  const { ipcMain, router, appOrigin } = options;
  const targets = new Set<Pick<WebContents, 'send' | 'isDestroyed'>>();
  ipcMain.handle(IPC_CALL_CHANNEL, async (event: IpcMainInvokeEvent, method: unknown, params: unknown): Promise<Envelope> => {
    if (!isTrustedSender(event, appOrigin)) {
      options.onRefused?.(event.senderFrame?.url ?? '(no frame)');
      return { ok: false, error: { code: 'forbidden', status: 403, message: 'this frame may not call the workbench API' } };
    }
    return router.call(method, params, { transport: 'ipc' });
  });
  const unsubscribe = router.subscribe((name, payload) => {
    for (const contents of targets) {
      if (contents.isDestroyed()) targets.delete(contents);
      else contents.send(IPC_EVENT_CHANNEL, name, payload);
    }
  });
  return {
    attach(contents) {
      targets.add(contents);
      const detach = () => {
        targets.delete(contents);
      };
      contents.once('destroyed', detach);
      return detach;
    },
    dispose() {
      ipcMain.removeHandler(IPC_CALL_CHANNEL);
      unsubscribe();
      targets.clear();
    },
  };
}

/** Sends one contract event to one window (the menu's choice goes to the focused window only). */
export function sendEvent<E extends WorkbenchEvent>(contents: Pick<WebContents, 'send' | 'isDestroyed'>, name: E, payload: WorkbenchEvents[E]): void {
  if (!contents.isDestroyed()) contents.send(IPC_EVENT_CHANNEL, name, payload);
}
