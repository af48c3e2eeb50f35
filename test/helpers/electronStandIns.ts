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

/** A rectangle as Electron's `screen` gives work areas. */
interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A stand-in for a `BrowserWindow`: its options, bounds and flags, and a `webContents` stand-in. */
export class BrowserWindowStandIn extends EventEmitter {
  static readonly all: BrowserWindowStandIn[] = [];
  static focused: BrowserWindowStandIn | null = null;
  static getFocusedWindow(): BrowserWindowStandIn | null {
    return BrowserWindowStandIn.focused;
  }

  readonly webContents = new WebContentsStandIn('about:blank');
  readonly loaded: string[] = [];
  bounds: Rect;
  maximized = false;
  shown = false;
  private destroyed = false;

  constructor(readonly options: Electron.BrowserWindowConstructorOptions) {
    super();
    this.bounds = { x: options.x ?? 0, y: options.y ?? 0, width: options.width ?? 800, height: options.height ?? 600 };
    BrowserWindowStandIn.all.push(this);
  }

  async loadURL(url: string): Promise<void> {
    this.loaded.push(url);
    this.webContents.mainFrame.url = url;
    this.emit('ready-to-show');
  }
  show(): void {
    this.shown = true;
  }
  maximize(): void {
    this.maximized = true;
  }
  isMaximized(): boolean {
    return this.maximized;
  }
  getNormalBounds(): Rect {
    return { ...this.bounds };
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  isMinimized(): boolean {
    return false;
  }
  restore(): void {}
  focus(): void {
    BrowserWindowStandIn.focused = this;
  }
  /** What Electron does when the user closes the window. */
  close(): void {
    this.emit('close', { preventDefault: () => undefined });
    this.destroyed = true;
    this.webContents.destroy();
    this.emit('closed');
  }
}

/** Options of {@link electronModuleStandIn}. */
export interface ElectronModuleOptions {
  userData: string;
  /** What `requestSingleInstanceLock` answers (default true). */
  lock?: boolean;
  displays?: Rect[];
  /** Whether the stand-in `safeStorage` can encrypt (default true). */
  encryption?: boolean;
}

/**
 * A stand-in for Electron's `safeStorage`: a reversible transform (each byte
 * XORed, behind a marker) so a test can tell its output from plain text and from
 * the AES-GCM file sealer's, with no keychain.
 */
export function safeStorageStandIn(available = true) {
  const flip = (b: Buffer) => Buffer.from(b.map((x) => x ^ 0x5a));
  return {
    isEncryptionAvailable: () => available,
    getSelectedStorageBackend: () => 'gnome_libsecret',
    encryptString: (plain: string) => Buffer.concat([Buffer.from('stand-in:'), flip(Buffer.from(plain, 'utf8'))]),
    decryptString: (sealed: Buffer) => {
      if (!sealed.subarray(0, 9).equals(Buffer.from('stand-in:'))) throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.');
      return flip(sealed.subarray(9)).toString('utf8');
    },
  };
}

/**
 * How long a test waits for the main process to reach a state (its window
 * loaded, its quit done): a bound, not a verdict. On a loaded 2-core runner
 * importing and starting the main process has taken more than 20 s, so the
 * wait ends on the app's own signal, well inside the test's time limit.
 */
export const MAIN_PROCESS_WAIT_MS = 120_000;

/**
 * A stand-in for the `electron` module of the main process, with the parts
 * `electron/main.ts` uses: `app` (an EventEmitter with Electron's event names),
 * `BrowserWindow`, `Menu`, `ipcMain`, `protocol`, `screen` and
 * `session.defaultSession`. It records what main asks of each.
 */
export function electronModuleStandIn(options: ElectronModuleOptions) {
  BrowserWindowStandIn.all.length = 0;
  BrowserWindowStandIn.focused = null;
  const calls: string[] = [];
  let ready: () => void = () => undefined;
  const whenReady = new Promise<void>((resolve) => (ready = resolve));
  const app = Object.assign(new EventEmitter(), {
    name: 'Skillbench',
    isPackaged: false,
    quitCalls: 0,
    exitCode: undefined as number | undefined,
    whenReady: () => whenReady,
    requestSingleInstanceLock: () => {
      calls.push('requestSingleInstanceLock');
      return options.lock ?? true;
    },
    enableSandbox: () => calls.push('enableSandbox'),
    getVersion: () => '9.9.9-desktop',
    getPath: (name: string) => {
      if (name !== 'userData') throw new Error(`unexpected getPath(${name})`);
      return options.userData;
    },
    quit() {
      app.quitCalls += 1;
      calls.push('quit');
      // Electron emits will-quit; a listener may prevent it.
      let prevented = false;
      app.emit('will-quit', { preventDefault: () => (prevented = true) });
      if (!prevented) calls.push('quitted');
    },
    exit(code: number) {
      app.exitCode = code;
    },
  });
  const permission: { request?: (...args: any[]) => void; check?: (...args: any[]) => boolean } = {}; // eslint-disable-line @typescript-eslint/no-explicit-any
  const protocolHandlers = new Map<string, (request: Request) => Promise<Response>>();
  const menu: { template?: Electron.MenuItemConstructorOptions[] } = {};
  const ipcMain = new IpcMainStandIn();
  const displays = options.displays ?? [{ x: 0, y: 0, width: 1920, height: 1050 }];
  const module = {
    app,
    ipcMain,
    BrowserWindow: BrowserWindowStandIn,
    Menu: {
      buildFromTemplate: (template: Electron.MenuItemConstructorOptions[]) => template,
      setApplicationMenu: (template: Electron.MenuItemConstructorOptions[]) => void (menu.template = template),
    },
    protocol: {
      registerSchemesAsPrivileged: (schemes: Electron.CustomScheme[]) => calls.push(`registerSchemesAsPrivileged ${JSON.stringify(schemes)}`),
      handle: (scheme: string, handler: (request: Request) => Promise<Response>) => void protocolHandlers.set(scheme, handler),
    },
    safeStorage: safeStorageStandIn(options.encryption ?? true),
    screen: {
      getPrimaryDisplay: () => ({ workArea: displays[0] }),
      getAllDisplays: () => displays.map((workArea) => ({ workArea })),
    },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (h: typeof permission.request) => void (permission.request = h),
        setPermissionCheckHandler: (h: typeof permission.check) => void (permission.check = h),
        setDevicePermissionHandler: () => undefined,
        webRequest: { onBeforeRequest: () => undefined },
      },
    },
  };
  return { module, app, ipcMain, calls, permission, protocolHandlers, menu, ready: () => ready() };
}
