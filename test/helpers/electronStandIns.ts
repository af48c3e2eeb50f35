/**
 * Stand-ins for Electron's `ipcMain`, `ipcRenderer`, `webContents` and frames,
 * with Electron's own method signatures (checked against its types), because
 * Electron's binary cannot run here. They route invocations and events in
 * process the way Electron does: `ipcRenderer.invoke` reaches the handler
 * registered with `ipcMain.handle`, with an event naming the sending frame;
 * `webContents.send` reaches the `ipcRenderer.on` listeners of that window.
 */
import { EventEmitter } from 'node:events';
import type { IpcMain, IpcMainInvokeEvent, IpcRendererEvent, WebContents } from 'electron';
import type { IpcRendererPort } from '../../electron/bridge';

/** A frame as `event.senderFrame` shows it. */
export interface FrameStandIn {
  url: string;
  parent: FrameStandIn | null;
}

type Handler = (event: IpcMainInvokeEvent, ...args: any[]) => Promise<any> | any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A stand-in for `ipcMain` with the same `handle` / `removeHandler` signatures. */
export class IpcMainStandIn implements Pick<IpcMain, 'handle' | 'removeHandler'> {
  readonly handlers = new Map<string, Handler>();

  handle(channel: string, listener: Handler): void {
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, listener);
  }

  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }

  /** What Electron does for `ipcRenderer.invoke` from `frame` of `window`. */
  async invoke(window: WebContentsStandIn, frame: FrameStandIn | null, channel: string, ...args: unknown[]): Promise<unknown> {
    const handler = this.handlers.get(channel);
    if (!handler) throw new Error(`No handler registered for '${channel}'`);
    const event = { senderFrame: frame, sender: window, frameId: 1, processId: 1, type: 'frame' } as unknown as IpcMainInvokeEvent;
    // Electron serializes arguments and results with the structured clone algorithm.
    return structuredClone(await handler(event, ...structuredClone(args)));
  }
}

/** A window's `webContents`: its main frame, and `send` to its renderer. */
export class WebContentsStandIn extends EventEmitter implements Pick<WebContents, 'send' | 'isDestroyed'> {
  readonly mainFrame: FrameStandIn;
  private destroyed = false;
  renderer: IpcRendererStandIn | undefined;

  constructor(url: string) {
    super();
    this.mainFrame = { url, parent: null };
  }

  send(channel: string, ...args: any[]): void { // eslint-disable-line @typescript-eslint/no-explicit-any
    this.renderer?.deliver(channel, structuredClone(args));
  }

  isDestroyed(): boolean {
    return this.destroyed;
  }

  destroy(): void {
    this.destroyed = true;
    this.emit('destroyed');
  }
}

type RendererListener = (event: IpcRendererEvent, ...args: any[]) => void; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A stand-in for a window's `ipcRenderer` with the same `invoke` / `on` / `removeListener` signatures (the port the bridge uses). */
export class IpcRendererStandIn implements IpcRendererPort {
  private readonly listeners = new Map<string, Set<RendererListener>>();
  /** The frame this renderer's calls come from (the main frame unless a test says otherwise). */
  frame: FrameStandIn | null;

  constructor(
    private readonly main: IpcMainStandIn,
    readonly window: WebContentsStandIn,
  ) {
    window.renderer = this;
    this.frame = window.mainFrame;
  }

  invoke(channel: string, ...args: any[]): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
    return this.main.invoke(this.window, this.frame, channel, ...args);
  }

  on(channel: string, listener: RendererListener): void {
    let set = this.listeners.get(channel);
    if (!set) this.listeners.set(channel, (set = new Set()));
    set.add(listener);
  }

  removeListener(channel: string, listener: RendererListener): void {
    this.listeners.get(channel)?.delete(listener);
  }

  /** Listener count of a channel, for leak checks. */
  listenerCount(channel: string): number {
    return this.listeners.get(channel)?.size ?? 0;
  }

  deliver(channel: string, args: unknown[]): void {
    const event = { sender: this, senderId: 0, ports: [] } as unknown as IpcRendererEvent;
    for (const l of [...(this.listeners.get(channel) ?? [])]) l(event, ...args);
  }
}
