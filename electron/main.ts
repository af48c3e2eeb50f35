/**
 * The desktop shell's main process, and its composition root: one
 * WorkbenchApi service with the eval engine's port, and its router (as
 * `skillbench serve` builds them), served
 * to the window over IPC with sender-frame checks; the built renderer loaded
 * from `app://workbench/` with the strict CSP; context isolation, the sandbox
 * and no node integration in every page; navigation, new windows, webviews,
 * permission requests and network loads refused; one instance at a time; the
 * window's bounds and maximized flag restored from the user-data folder; and a
 * native menu whose items run the UI's own commands.
 *
 * Built by `scripts/build-electron.mjs` into `dist/electron/main.mjs` (with
 * `preload.cjs` beside it); `npm start` builds and launches it.
 */
import { BrowserWindow, Menu, app, dialog, ipcMain, protocol, safeStorage, screen, session, type WebContents } from 'electron';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Router } from '../core/api/router';
import { createWorkbenchService, type WorkbenchService } from '../core/api/service';
import { ConnectionManager } from '../core/connections/manager';
import { appDataDir } from '../core/store/connect';
import { createEvalsPort } from '../evals/port';
import { APP_ENTRY, APP_ORIGIN, APP_SCHEME, handleAppRequest } from './appProtocol';
import { hardenContents, hardenSession } from './hardening';
import { sendEvent, serveIpc, type IpcTransportHost } from './ipc';
import { menuTemplate } from './menu';
import { desktopSecretStore } from './secrets';
import { MIN_SIZE, WINDOW_STATE_FILE, fitToDisplays, loadWindowState, saveWindowState, stateOf, type WindowState } from './windowState';

/** `dist/electron`, where this bundle and the preload live. */
const here = dirname(fileURLToPath(import.meta.url));
const RENDERER_DIR = join(here, '..', 'renderer');
const PRELOAD = join(here, 'preload.cjs');
/** The example workspace of a source checkout (`npm start`), opened as `skillbench serve` opens it. */
const EXAMPLES = join(here, '..', '..', 'examples');

/** The service's redactor once it exists (core/redact.ts): every line the shell logs passes it. */
let redact: (text: string) => string = (text) => text;

function log(line: string): void {
  process.stderr.write(`skillbench: ${redact(line)}\n`);
}

/** Where a refused URL pointed, without its path or query (which may carry anything). */
function where(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(malformed address)';
  }
}

// Before `ready`: the app scheme is a standard, secure origin (for 'self', module workers and fetch).
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
app.enableSandbox();

/** The running shell: service, IPC transport, the window and its pending state writes. */
interface Shell {
  service: WorkbenchService;
  ipc: IpcTransportHost;
  stateFile: string;
  window: BrowserWindow | undefined;
  writes: Set<Promise<void>>;
}

function saveState(shell: Shell, state: WindowState): void {
  const write = saveWindowState(shell.stateFile, state).catch((error: unknown) => log(`could not save the window state: ${(error as Error).message}`));
  shell.writes.add(write);
  void write.finally(() => shell.writes.delete(write));
}

async function openWindow(shell: Shell): Promise<BrowserWindow> {
  const displays = [screen.getPrimaryDisplay(), ...screen.getAllDisplays()].map((d) => d.workArea);
  const state = fitToDisplays(await loadWindowState(shell.stateFile), displays);
  const window = new BrowserWindow({
    width: state.width,
    height: state.height,
    ...(state.x !== undefined && state.y !== undefined && { x: state.x, y: state.y }),
    minWidth: MIN_SIZE.width,
    minHeight: MIN_SIZE.height,
    show: false,
    title: 'Skillbench',
    backgroundColor: '#1e1e1e',
    webPreferences: {
      preload: PRELOAD,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: false,
    },
  });
  if (state.maximized) window.maximize();
  window.once('ready-to-show', () => window.show());
  shell.ipc.attach(window.webContents);

  let timer: ReturnType<typeof setTimeout> | undefined;
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(() => !window.isDestroyed() && saveState(shell, stateOf(window)), 400);
  };
  window.on('resize', later);
  window.on('move', later);
  window.on('maximize', later);
  window.on('unmaximize', later);
  window.on('close', () => {
    clearTimeout(timer);
    saveState(shell, stateOf(window));
  });
  window.on('closed', () => {
    if (shell.window === window) shell.window = undefined;
  });

  await window.loadURL(APP_ENTRY);
  return window;
}

function installMenu(shell: Shell): void {
  const template = menuTemplate({
    platform: process.platform,
    appName: app.name,
    developer: !app.isPackaged,
    choose: (command) => {
      const target = BrowserWindow.getFocusedWindow() ?? shell.window;
      if (target) sendEvent(target.webContents, 'menu.selected', { command });
    },
  });
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}

async function start(): Promise<void> {
  await app.whenReady();
  const dataDir = appDataDir(process.env);
  const secrets = await desktopSecretStore(dataDir, process.env, safeStorage, process.platform);
  const connections = new ConnectionManager({ dataDir, env: process.env, secrets });
  const service = createWorkbenchService({ host: 'electron', version: app.getVersion(), env: process.env, dataDir, connections, evals: createEvalsPort() });
  redact = service.redact;
  // The desktop's own folder picker (Import SKILL.md…, Export as SKILL.md); a browser shows a path field instead.
  service.handlers['host.pickFolder'] = async (params) => {
    const parent = BrowserWindow.getFocusedWindow();
    const options = { title: params.title ?? 'Choose a folder', properties: ['openDirectory' as const, 'createDirectory' as const] };
    const chosen = parent ? await dialog.showOpenDialog(parent, options) : await dialog.showOpenDialog(options);
    return { path: chosen.canceled ? null : (chosen.filePaths[0] ?? null) };
  };
  const router = new Router(service, {
    redact: service.redact,
    onInternalError: (method, error) => log(`internal error in ${method}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
  });
  const ipc = serveIpc({ ipcMain, router, appOrigin: APP_ORIGIN, onRefused: (url) => log(`refused an API call from ${where(url)}`) });
  if (!app.isPackaged) {
    try {
      const opened = await service.openWorkspace(EXAMPLES);
      log(`workspace ${opened.root} (${opened.entries.filter((e) => e.skill).length} packages)`);
    } catch (error) {
      log(`could not open the example workspace: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const shell: Shell = { service, ipc, stateFile: join(app.getPath('userData'), WINDOW_STATE_FILE), window: undefined, writes: new Set() };

  hardenSession(session.defaultSession, (what, detail) => log(`refused ${what}: ${what === 'permission' ? detail : where(detail)}`));
  protocol.handle(APP_SCHEME, (request) => handleAppRequest(RENDERER_DIR, request));
  app.on('web-contents-created', (_event, contents: WebContents) => {
    if (contents.getType() !== 'window' && contents.getType() !== 'webview') return;
    hardenContents(contents, APP_ORIGIN, (what, url) => log(`refused ${what} to ${where(url)}`));
  });
  installMenu(shell);

  const show = async () => {
    if (shell.window && !shell.window.isDestroyed()) {
      if (shell.window.isMinimized()) shell.window.restore();
      shell.window.focus();
      return;
    }
    shell.window = await openWindow(shell);
  };
  app.on('second-instance', () => void show());
  app.on('activate', () => void show());
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  let stopping = false;
  app.on('will-quit', (event) => {
    if (stopping) return;
    stopping = true;
    event.preventDefault();
    void (async () => {
      await Promise.allSettled([...shell.writes]);
      ipc.dispose();
      await service.close();
    })().finally(() => app.quit());
  });

  await show();
}

if (!app.requestSingleInstanceLock()) {
  // Another Skillbench is running: it was told (second-instance) and shows its window.
  app.quit();
} else {
  start().catch((error: unknown) => {
    log(`cannot start: ${error instanceof Error ? error.message : String(error)}`);
    app.exit(1);
  });
}
