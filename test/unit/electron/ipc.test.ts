/**
 * The Electron IPC transport, main and preload sides, through stand-ins for
 * `ipcMain` / `ipcRenderer` / `webContents` with Electron's signatures (the
 * Electron binary cannot run here): sender-frame checks, the bridge exposing
 * exactly the contract, and the preload exposing nothing else.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BRIDGE_KEY, IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL, type WorkbenchBridge } from '../../../core/api/bridge';
import { EVENT_NAMES, METHOD_NAMES } from '../../../core/api/contract';
import { EventHub } from '../../../core/api/events';
import { Router } from '../../../core/api/router';
import { createBridge } from '../../../electron/bridge';
import { isTrustedSender, sendEvent, serveIpc } from '../../../electron/ipc';
import { IpcMainStandIn, IpcRendererStandIn, WebContentsStandIn, type FrameStandIn } from '../../helpers/electronStandIns';

const APP = 'app://workbench';

function host() {
  const events = new EventHub();
  const calls: string[] = [];
  const router = new Router({
    handlers: {
      'app.info': async () => {
        calls.push('app.info');
        return { version: 't', host: 'electron', methods: ['app.info'], events: [], workspace: null, platform: 'linux' };
      },
    },
    subscribe: (l) => events.subscribe(l),
  });
  const ipcMain = new IpcMainStandIn();
  const served = serveIpc({ ipcMain, router, appOrigin: APP });
  return { events, calls, ipcMain, served };
}

describe('IPC sender-frame checks (ipcMain stand-in)', () => {
  it('answers the main frame of a window showing the app', async () => {
    const { ipcMain, calls, served } = host();
    const window = new WebContentsStandIn(`${APP}/index.html`);
    const envelope = await ipcMain.invoke(window, window.mainFrame, IPC_CALL_CHANNEL, 'app.info', {});
    expect(envelope).toMatchObject({ ok: true, result: { host: 'electron' } });
    expect(calls).toEqual(['app.info']);
    served.dispose();
    expect(ipcMain.handlers.size).toBe(0);
  });

  it.each<[string, (w: WebContentsStandIn) => FrameStandIn | null]>([
    ['an iframe', (w) => ({ url: `${APP}/index.html`, parent: w.mainFrame })],
    ['a frame that navigated away or was destroyed', () => null],
    ['a foreign page in the window', (w) => Object.assign(w.mainFrame, { url: 'https://evil.example/' })],
    ['a file:// page', (w) => Object.assign(w.mainFrame, { url: 'file:///tmp/x.html' })],
    ['a frame that is not the window\'s main frame', () => ({ url: `${APP}/index.html`, parent: null })],
  ])('refuses %s without calling the handler', async (_what, frameOf) => {
    const { ipcMain, calls } = host();
    const window = new WebContentsStandIn(`${APP}/index.html`);
    const envelope = await ipcMain.invoke(window, frameOf(window), IPC_CALL_CHANNEL, 'app.info', {});
    expect(envelope).toMatchObject({ ok: false, error: { code: 'forbidden', status: 403 } });
    expect(calls).toEqual([]);
  });

  it('compares scheme and host of custom schemes', () => {
    const w = new WebContentsStandIn(`${APP}/a/b.html?x=1`);
    expect(isTrustedSender({ senderFrame: w.mainFrame, sender: w } as never, APP)).toBe(true);
    const other = new WebContentsStandIn('app://workbench.evil/index.html');
    expect(isTrustedSender({ senderFrame: other.mainFrame, sender: other } as never, APP)).toBe(false);
  });

  it('sends events to attached windows until they are destroyed', () => {
    const { ipcMain, events, served } = host();
    const window = new WebContentsStandIn(`${APP}/index.html`);
    const renderer = new IpcRendererStandIn(ipcMain, window);
    const seen: unknown[][] = [];
    renderer.on(IPC_EVENT_CHANNEL, (_e, ...args) => seen.push(args));
    served.attach(window as never);
    events.emit('reviews.changed', { id: 'r1', status: 'approved' });
    window.destroy();
    events.emit('reviews.changed', { id: 'r2', status: 'approved' });
    expect(seen).toEqual([['reviews.changed', { id: 'r1', status: 'approved' }]]);
  });
});

describe('the preload bridge', () => {
  it('has exactly invoke and on, frozen', () => {
    const ipcMain = new IpcMainStandIn();
    const bridge = createBridge(new IpcRendererStandIn(ipcMain, new WebContentsStandIn(`${APP}/`)));
    expect(Object.keys(bridge).sort()).toEqual(['invoke', 'on']);
    expect(Object.isFrozen(bridge)).toBe(true);
  });

  it('sends only contract methods and never reaches main with anything else', async () => {
    const ipcMain = new IpcMainStandIn();
    const window = new WebContentsStandIn(`${APP}/`);
    const renderer = new IpcRendererStandIn(ipcMain, window);
    const invoke = vi.spyOn(renderer, 'invoke');
    const bridge = createBridge(renderer);
    for (const name of ['shell.openExternal', 'constructor', '__proto__', 'toString', 'app.info ', '']) {
      await expect(bridge.invoke(name as never, {})).rejects.toThrow(/unknown method/);
    }
    expect(invoke).not.toHaveBeenCalled();
    expect(() => bridge.on('ipc.raw' as never, () => undefined)).toThrow(/unknown event/);
    expect(() => bridge.on('toString' as never, () => undefined)).toThrow(/unknown event/);
  });

  it('hands listeners the payload alone, never the IPC event, and drops its IPC listener when the last one leaves', () => {
    const ipcMain = new IpcMainStandIn();
    const window = new WebContentsStandIn(`${APP}/`);
    const renderer = new IpcRendererStandIn(ipcMain, window);
    const bridge = createBridge(renderer);
    const seen: unknown[][] = [];
    const off = bridge.on('reviews.changed', (...args: unknown[]) => seen.push(args));
    window.send(IPC_EVENT_CHANNEL, 'reviews.changed', { id: 'r', status: 'open' });
    window.send(IPC_EVENT_CHANNEL, 'evals.progressed', { run: 'x' });
    window.send(IPC_EVENT_CHANNEL, 'not.an-event', { x: 1 });
    expect(seen).toEqual([[{ id: 'r', status: 'open' }]]);
    expect(renderer.listenerCount(IPC_EVENT_CHANNEL)).toBe(1);
    off();
    expect(renderer.listenerCount(IPC_EVENT_CHANNEL)).toBe(0);
  });
});

describe('electron/preload.ts', () => {
  afterEach(() => {
    vi.doUnmock('electron');
    vi.resetModules();
  });

  it('exposes the bridge and nothing else in the main world', async () => {
    const exposed: [string, unknown][] = [];
    const ipcRenderer = { invoke: vi.fn(), on: vi.fn(), removeListener: vi.fn(), send: vi.fn(), sendSync: vi.fn() };
    vi.doMock('electron', () => ({ contextBridge: { exposeInMainWorld: (key: string, api: unknown) => exposed.push([key, api]) }, ipcRenderer }));
    await import('../../../electron/preload');
    expect(exposed).toHaveLength(1);
    const [key, api] = exposed[0]!;
    expect(key).toBe(BRIDGE_KEY);
    expect(Object.keys(api as object).sort()).toEqual(['invoke', 'on']);
    expect(Object.values(api as object)).not.toContain(ipcRenderer);
    expect(JSON.stringify(Object.getOwnPropertyNames(api))).not.toMatch(/send|ipc/i);
  });

  it('reaches main with exactly the contract: every method and event of it, nothing outside it', async () => {
    let exposed: WorkbenchBridge | undefined;
    const ipcMain = new IpcMainStandIn();
    const window = new WebContentsStandIn(`${APP}/index.html`);
    const ipcRenderer = new IpcRendererStandIn(ipcMain, window);
    const reached: string[] = [];
    ipcMain.handle(IPC_CALL_CHANNEL, (_event, method: string) => {
      reached.push(method);
      return { ok: true, result: null };
    });
    vi.doMock('electron', () => ({ contextBridge: { exposeInMainWorld: (_key: string, api: WorkbenchBridge) => (exposed = api) }, ipcRenderer }));
    await import('../../../electron/preload');
    const api = exposed!;
    // Every contract method goes through, under its own name.
    for (const method of METHOD_NAMES) await expect(api.invoke(method, {})).resolves.toEqual({ ok: true, result: null });
    expect(reached).toEqual([...METHOD_NAMES]);
    // Names outside the contract, including prototype and IPC-looking ones, never reach main.
    const outside = ['ipc.send', 'shell.openExternal', 'fs.readFile', 'hasOwnProperty', '__proto__', 'APP.INFO', 'app.info.x', 'menu.selected'];
    for (const name of outside) await expect(api.invoke(name as never, {})).rejects.toThrow(/unknown method/);
    expect(reached).toHaveLength(METHOD_NAMES.length);
    // Every contract event can be listened to; nothing else can.
    for (const event of EVENT_NAMES) api.on(event, () => undefined)();
    for (const name of ['workbench:event', 'catalog.page', 'constructor']) expect(() => api.on(name as never, () => undefined)).toThrow(/unknown event/);
  });

  it('delivers the native menu\'s choice to the page as the menu.selected event', async () => {
    let exposed: WorkbenchBridge | undefined;
    const ipcMain = new IpcMainStandIn();
    const window = new WebContentsStandIn(`${APP}/index.html`);
    const ipcRenderer = new IpcRendererStandIn(ipcMain, window);
    vi.doMock('electron', () => ({ contextBridge: { exposeInMainWorld: (_key: string, api: WorkbenchBridge) => (exposed = api) }, ipcRenderer }));
    await import('../../../electron/preload');
    const chosen: string[] = [];
    const off = exposed!.on('menu.selected', ({ command }) => chosen.push(command));
    sendEvent(window, 'menu.selected', { command: 'palette.show' });
    window.destroy();
    sendEvent(window, 'menu.selected', { command: 'tab.close' });
    off();
    expect(chosen).toEqual(['palette.show']);
  });
});
