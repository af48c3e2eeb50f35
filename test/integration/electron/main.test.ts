/**
 * The built main process (`dist/electron/main.mjs`, as `npm start` launches
 * it) against a stand-in for the `electron` module (Electron's binary cannot
 * run here; see electronStandIns.ts): what it asks of Electron before and
 * after `ready`, the window it opens, the real service answering over the IPC
 * stand-ins, the menu reaching the page, window state restored and saved, and
 * a clean quit.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MenuItemConstructorOptions } from 'electron';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL } from '../../../core/api/bridge';
import { BrowserWindowStandIn, IpcRendererStandIn, MAIN_PROCESS_WAIT_MS, electronModuleStandIn } from '../../helpers/electronStandIns';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAIN = join(ROOT, 'dist', 'electron', 'main.mjs');

let dir: string;
let env: ReturnType<typeof electronModuleStandIn>;

beforeAll(() => {
  const built = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-electron.mjs')], { cwd: ROOT, encoding: 'utf8' });
  expect(built.status, built.stderr).toBe(0);
});

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbench-electron-'));
  vi.stubEnv('SKILLBENCH_HOME', join(dir, 'home'));
});

afterEach(async () => {
  // Quit the shell the test started (closes the service).
  if (env && env.app.quitCalls === 0) {
    env.app.quit();
    await vi.waitFor(() => expect(env.calls).toContain('quitted'), { timeout: MAIN_PROCESS_WAIT_MS });
  }
  vi.doUnmock('electron');
  vi.resetModules();
  vi.unstubAllEnvs();
  await rm(dir, { recursive: true, force: true });
});

/** Loads the built main process with the stand-in, lets it reach `ready`, and waits for its window. */
async function launch(options: { lock?: boolean } = {}) {
  env = electronModuleStandIn({ userData: join(dir, 'user-data'), ...options });
  vi.doMock('electron', () => env.module);
  await import(/* @vite-ignore */ `${MAIN}?t=${Date.now()}`);
  env.ready();
  if (options.lock !== false) await vi.waitFor(() => expect(BrowserWindowStandIn.all[0]?.loaded).toHaveLength(1), { timeout: MAIN_PROCESS_WAIT_MS });
  return BrowserWindowStandIn.all[0]!;
}

function menuItems(template: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return template.flatMap((i) => [i, ...(Array.isArray(i.submenu) ? menuItems(i.submenu) : [])]);
}

describe('electron/main (built) with a stand-in electron module', () => {
  it('opens one sandboxed, isolated window on the app scheme, after registering the scheme and the sandbox before ready', async () => {
    const window = await launch();
    expect(env.calls.slice(0, 3)).toEqual([
      'registerSchemesAsPrivileged [{"scheme":"app","privileges":{"standard":true,"secure":true,"supportFetchAPI":true}}]',
      'enableSandbox',
      'requestSingleInstanceLock',
    ]);
    expect(BrowserWindowStandIn.all).toHaveLength(1);
    const prefs = window.options.webPreferences!;
    expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, nodeIntegrationInWorker: false, nodeIntegrationInSubFrames: false, webviewTag: false, webSecurity: true });
    expect(prefs.preload).toBe(join(ROOT, 'dist', 'electron', 'preload.cjs'));
    expect(existsSync(prefs.preload!)).toBe(true);
    expect(window.loaded).toEqual(['app://workbench/index.html']);
    expect(window.shown).toBe(true);
    // The scheme serves the renderer folder and nothing outside it.
    const handler = env.protocolHandlers.get('app')!;
    expect((await handler(new Request('app://workbench/..%2fpackage.json'))).status).toBe(404);
    // Every permission is denied.
    let granted: boolean | undefined;
    env.permission.request!({}, 'media', (g: boolean) => (granted = g), {});
    expect(granted).toBe(false);
  });

  it('serves the real WorkbenchApi over IPC to the window, and refuses a frame inside it', async () => {
    const window = await launch();
    const renderer = new IpcRendererStandIn(env.ipcMain, window.webContents);
    const info = (await renderer.invoke(IPC_CALL_CHANNEL, 'app.info', {})) as { ok: boolean; result: { host: string; version: string; methods: string[] } };
    expect(info).toMatchObject({ ok: true, result: { host: 'electron', version: '9.9.9-desktop' } });
    expect(info.result.methods).toContain('evals.plan');
    const workspace = (await renderer.invoke(IPC_CALL_CHANNEL, 'workspace.list', {})) as { ok: boolean; result: { root: string } | null };
    expect(workspace.result?.root).toBe(join(ROOT, 'examples'));
    const page = (await renderer.invoke(IPC_CALL_CHANNEL, 'catalog.page', { connection: 'default', query: 'weather' })) as { ok: boolean; result: { items: { name: string }[] } };
    expect(page.ok).toBe(true);
    expect(page.result.items.map((i) => i.name)).toContain('weather-assessment');
    renderer.frame = { url: 'app://workbench/index.html', parent: window.webContents.mainFrame };
    expect(await renderer.invoke(IPC_CALL_CHANNEL, 'app.info', {})).toMatchObject({ ok: false, error: { code: 'forbidden', status: 403 } });
  });

  it('seals saved connection secrets with safeStorage, and never writes them in the clear', async () => {
    const window = await launch();
    const renderer = new IpcRendererStandIn(env.ipcMain, window.webContents);
    const marker = 'desktop-marker-token-7f3a9c';
    const saved = (await renderer.invoke(IPC_CALL_CHANNEL, 'connections.save', {
      profile: { name: 'viewer', target: { kind: 'http', url: 'http://127.0.0.1:9/api/v1/skills', auth: 'bearer' } },
      secrets: { token: marker },
    })) as { ok: boolean };
    expect(saved.ok).toBe(true);
    const listed = (await renderer.invoke(IPC_CALL_CHANNEL, 'connections.list', {})) as { result: { secret_protection: string } };
    expect(listed.result.secret_protection).toBe('os-keychain');
    const file = JSON.parse(await readFile(join(dir, 'home', 'connections', 'secrets.json'), 'utf8')) as { key: string; sealed: string };
    expect(file.key).toBe('os');
    expect(Buffer.from(file.sealed, 'base64').subarray(0, 9).toString()).toBe('stand-in:');
    for (const name of await readdir(join(dir, 'home'), { recursive: true })) {
      const path = join(dir, 'home', name);
      if ((await stat(path)).isFile()) expect(await readFile(path, 'utf8'), name).not.toContain(marker);
    }
  });

  it('hardens every window it creates: navigation off the app origin is prevented', async () => {
    const window = await launch();
    const contents = Object.assign(window.webContents, { getType: () => 'window', setWindowOpenHandler: vi.fn() });
    env.app.emit('web-contents-created', {}, contents);
    let prevented = false;
    contents.emit('will-navigate', { preventDefault: () => (prevented = true) }, 'https://evil.example/');
    expect(prevented).toBe(true);
    expect(contents.setWindowOpenHandler.mock.calls[0]![0]({ url: 'https://x.example/' })).toEqual({ action: 'deny' });
  });

  it('sends a menu choice to the focused window as menu.selected', async () => {
    const window = await launch();
    const renderer = new IpcRendererStandIn(env.ipcMain, window.webContents);
    const seen: unknown[][] = [];
    renderer.on(IPC_EVENT_CHANNEL, (_e, ...args) => seen.push(args));
    const item = menuItems(env.menu.template!).find((i) => i.id === 'palette.show')!;
    (item.click as unknown as () => void)();
    expect(seen).toEqual([['menu.selected', { command: 'palette.show' }]]);
  });

  it('restores the saved bounds and maximized flag, and saves the new ones when the window closes', async () => {
    const file = join(dir, 'user-data', 'window-state.json');
    await mkdir(join(dir, 'user-data'), { recursive: true });
    await writeFile(file, JSON.stringify({ version: 1, x: 100, y: 120, width: 1000, height: 700, maximized: true }));
    const window = await launch();
    expect(window.options).toMatchObject({ x: 100, y: 120, width: 1000, height: 700 });
    expect(window.maximized).toBe(true);
    window.bounds = { x: 300, y: 200, width: 900, height: 640 };
    window.maximized = false;
    window.close();
    await vi.waitFor(async () => expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ version: 1, x: 300, y: 200, width: 900, height: 640, maximized: false }), { timeout: MAIN_PROCESS_WAIT_MS });
  });

  it('quits cleanly: the quit waits for the service to close, then goes through', async () => {
    await launch();
    env.app.quit();
    expect(env.calls).not.toContain('quitted');
    await vi.waitFor(() => expect(env.calls).toContain('quitted'), { timeout: MAIN_PROCESS_WAIT_MS });
  });

  it('keeps a marker secret out of IPC answers and of every file it writes', async () => {
    const marker = 'sk-proj-MARKERdesktop3Fh7Kw2Qz9';
    vi.stubEnv('OPENAI_API_KEY', marker);
    const window = await launch();
    const renderer = new IpcRendererStandIn(env.ipcMain, window.webContents);
    const answers = [
      await renderer.invoke(IPC_CALL_CHANNEL, 'models.list', {}),
      await renderer.invoke(IPC_CALL_CHANNEL, 'models.check', { spec: `openai-compatible:http://me:${marker}@127.0.0.1:1/v1#m` }),
      await renderer.invoke(IPC_CALL_CHANNEL, 'models.check', { spec: `openai:${marker}` }),
      await renderer.invoke(IPC_CALL_CHANNEL, 'packages.get', { connection: 'default', skill: { namespace: 'travel', name: marker.toLowerCase().replace(/[^a-z0-9]/g, '') } }),
    ];
    for (const answer of answers) expect(JSON.stringify(answer)).not.toContain(marker);
    window.close();
    env.app.quit();
    await vi.waitFor(() => expect(env.calls).toContain('quitted'), { timeout: MAIN_PROCESS_WAIT_MS });
    const files = spawnSync('grep', ['-rl', marker, dir], { encoding: 'utf8' });
    expect(files.stdout).toBe('');
    expect(existsSync(join(dir, 'user-data', 'window-state.json'))).toBe(true);
    expect(existsSync(join(dir, 'home', 'registry'))).toBe(true);
  });

  it('as a second instance, quits without opening a window', async () => {
    await launch({ lock: false });
    expect(env.calls).toContain('quit');
    await new Promise((r) => setTimeout(r, 50));
    expect(BrowserWindowStandIn.all).toHaveLength(0);
  });
});
