/**
 * The end-to-end harness: the real `skillbench serve` binary, the renderer as
 * `vite build` emits it, and Debian's Chromium driven through playwright-core
 * (never a downloaded browser).
 *
 * ```ts
 * const app = await startApp();              // builds the renderer if stale, serves it on a free port
 * const page = await app.page();             // a fresh browser context, signed in with a fresh one-time link
 * await page.getByTestId('shell').waitFor();
 * await screenshot(page, 'catalog-1280');    // with SKILLBENCH_SCREENSHOTS=1: test/e2e/screenshots/catalog-1280.png
 * await app.close();                         // its contexts, server and temp folder
 * ```
 *
 * The app-data folder is a fresh temp dir per app, so the embedded registry
 * starts empty (the server seeds it with the example skills on first use);
 * `seed` writes skills into it through the store API before the server starts.
 *
 * One Chromium serves every app of a test worker (the e2e project runs its
 * files in a worker without isolation); each page gets a context of its own,
 * so no cookie, storage or tab of one test reaches another.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { openLocalStore } from '../../core/store/local';
import type { SkillStore } from '../../core/store/types';
import { expect, onTestFinished } from 'vitest';
import { startCli } from '../helpers/cli';
import { ensureRendererBuilt as buildRenderer } from '../../scripts/rendererBuild.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Where screenshots go (ignored by Git). */
export const SCREENSHOTS = join(ROOT, 'test', 'e2e', 'screenshots');
/** Screenshots are taken only when asked for: `SKILLBENCH_SCREENSHOTS=1 npx vitest run test/e2e/…`. */
export const SCREENSHOTS_WANTED = process.env['SKILLBENCH_SCREENSHOTS'] === '1';

// Every limit below only catches a state that never comes: each wait is for the
// app's own signal (an element, an attribute, an answer), and a loaded two-core
// machine may run the app ten times slower than an idle one while it still works.
/** A test's limit (the e2e project's testTimeout). */
export const E2E_TIMEOUT_MS = 600_000;
/** Time for the renderer build, the server start and the browser launch together. */
export const E2E_SETUP_TIMEOUT_MS = 600_000;
/** How long one UI expectation waits (playwright's default timeout for actions and locators): half a test. */
export const UI_WAIT_MS = 300_000;
/** How long a load of the app may take. */
export const NAVIGATION_WAIT_MS = 300_000;

/** The two window sizes every view must read well at. */
export const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
] as const;

/** The browser: `SKILLBENCH_CHROMIUM`, else Debian's `/usr/bin/chromium`. */
export function chromiumPath(): string {
  const path = process.env['SKILLBENCH_CHROMIUM'] ?? '/usr/bin/chromium';
  if (!existsSync(path)) throw new Error(`no browser at ${path}: install Chromium (Debian: apt-get install chromium) or set SKILLBENCH_CHROMIUM`);
  return path;
}

/**
 * Builds the renderer (`vite build` → dist/renderer) unless the last build is
 * newer than every input; test files in parallel workers share one build.
 */
export function ensureRendererBuilt(): void {
  buildRenderer({ lockLimitMs: E2E_SETUP_TIMEOUT_MS });
}

const ERRORS = new WeakMap<Page, string[]>();

/**
 * Features playwright-core (1.65.1) switches off in every Chromium it launches
 * (its `chromiumSwitches`). Chromium honours only the last `--disable-features`
 * on its command line, so {@link CHROMIUM_ARGS} repeats them beside ours;
 * test/e2e/harness.test.ts fails when an upgrade adds one this list lacks.
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

/**
 * Browser UI the tests never see. Every window (one per browser context) of
 * this headless Chromium preloads the address bar's suggestion popup, a WebUI
 * page in a renderer process of its own: over the e2e project that renderer
 * burned about 100 CPU-s of the machine's ~650, time the workbench's own
 * pages then waited for.
 */
const UNUSED_BROWSER_UI = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'];

/** Chromium's switches beside playwright-core's own. */
export const CHROMIUM_ARGS: readonly string[] = [
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--font-render-hinting=none',
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...UNUSED_BROWSER_UI].join(',')}`,
];

let sharedBrowser: Promise<Browser> | undefined;

/**
 * The worker's Chromium, launched on first use and shared by every app: a
 * fresh context per page keeps tests apart. It ends with the worker process
 * (Chromium exits when its pipe to the worker closes).
 */
function browser(): Promise<Browser> {
  if (!sharedBrowser) {
    const launched = chromium.launch({ executablePath: chromiumPath(), args: [...CHROMIUM_ARGS] });
    sharedBrowser = launched;
    launched.then(
      (b) => b.on('disconnected', () => {
        if (sharedBrowser === launched) sharedBrowser = undefined;
      }),
      () => {
        if (sharedBrowser === launched) sharedBrowser = undefined;
      },
    );
  }
  return sharedBrowser;
}

/** Closes the shared browser, for a script that must exit when done (the e2e workers end with theirs). */
export async function closeSharedBrowser(): Promise<void> {
  const current = sharedBrowser;
  sharedBrowser = undefined;
  await (await current?.catch(() => undefined))?.close();
}

/** Options of {@link startApp}. */
export interface AppOptions {
  /** Writes into the embedded registry (at `registry`) before the server starts; it then seeds no examples. */
  seed?: (store: SkillStore, registry: string) => Promise<void>;
  /** Extra environment for the server. */
  env?: Record<string, string>;
}

/** A running `skillbench serve` and a browser pointed at it. */
export interface App {
  /** The address the server printed; its one-time sign-in code is left for a test to open once. */
  url: string;
  origin: string;
  /** The launch's bearer token for scripts (`serve --token-env`), for `Authorization: Bearer`. */
  token: string;
  /** The app-data folder (`SKILLBENCH_HOME`). */
  home: string;
  /** The embedded registry's folder. */
  registry: string;
  browser: Browser;
  /** The server's process id. */
  pid: number;
  /** Everything the server wrote to stderr so far. */
  serverLog(): string;
  /**
   * A new browser context (of the shared browser) and page at `viewport` (default 1280×800), signed in through a sign-in link minted for it.
   * `beforeSignIn` sees the page before its first navigation (to watch every request the workbench makes from the start).
   * The page closes when the test that opened it ends; one opened in a hook stays open until {@link App.close}.
   */
  page(viewport?: { width: number; height: number }, options?: { beforeSignIn?: (page: Page) => void | Promise<void> }): Promise<Page>;
  /** Calls a WorkbenchApi method over HTTP with the bearer token, as a script would. */
  call<T = unknown>(method: string, params?: unknown): Promise<T>;
  close(): Promise<void>;
}

/** Starts the server (building the renderer if needed) and launches Chromium. */
export async function startApp(options: AppOptions = {}): Promise<App> {
  ensureRendererBuilt();
  const home = await mkdtemp(join(tmpdir(), 'skillbench-e2e-'));
  const registry = join(home, 'registry');
  if (options.seed) {
    const store = await openLocalStore(registry, { durable: false });
    try {
      await options.seed(store, registry);
    } finally {
      await store.close();
    }
  }
  // The harness's own bearer token for this launch (serve --token-env): the printed sign-in address stays unspent.
  const token = randomBytes(32).toString('base64url');
  const { child, done } = startCli(['serve', '--port', '0', '--token-env', 'SKILLBENCH_E2E_TOKEN'], { cwd: home, env: { SKILLBENCH_HOME: home, USER: 'e2e', SKILLBENCH_E2E_TOKEN: token, ...options.env } });
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += String(c)));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += String(chunk);
      const newline = out.indexOf('\n');
      if (newline >= 0) {
        child.stdout!.off('data', onData);
        resolve(out.slice(0, newline).trim());
      }
    };
    child.stdout!.on('data', onData);
    done.then((run) => reject(new Error(`skillbench serve exited (${run.code}) before printing its address:\n${run.stderr}`)), reject);
  });
  const parsed = new URL(url);
  // A sign-in address signs in once: each browser context gets one minted for it.
  const signInLink = async (): Promise<string> => {
    const res = await fetch(`${parsed.origin}/auth/code`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }, body: '{}' });
    const minted = (await res.json()) as { ok: boolean; result?: { url: string } };
    if (!minted.result) throw new Error(`skillbench serve minted no sign-in link (${res.status})`);
    return minted.result.url;
  };
  const shared = await browser();
  const contexts: BrowserContext[] = [];
  let closed = false;
  return {
    url,
    origin: parsed.origin,
    token,
    home,
    registry,
    browser: shared,
    pid: child.pid!,
    serverLog: () => stderr,
    async page(viewport = VIEWPORTS[0], options = {}) {
      const context = await shared.newContext({ viewport: { ...viewport }, colorScheme: 'dark', reducedMotion: 'reduce' });
      context.setDefaultTimeout(UI_WAIT_MS);
      context.setDefaultNavigationTimeout(NAVIGATION_WAIT_MS);
      contexts.push(context);
      // A page opened inside a test closes with it, so a file's pages (each a workbench
      // with its WebSocket, often with Monaco) do not pile up in memory until the file
      // ends. A page opened in a hook (shared by the file's tests) stays until the app closes.
      try {
        onTestFinished(() => context.close().catch(() => undefined));
      } catch {
        // Not inside a test.
      }
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      ERRORS.set(page, errors);
      await options.beforeSignIn?.(page);
      await page.goto(await signInLink());
      await page.getByTestId('shell').waitFor();
      return page;
    },
    async call<T>(method: string, params: unknown = {}) {
      const res = await fetch(`${parsed.origin}/api/${method}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify(params),
      });
      const envelope = (await res.json()) as { ok: true; result: T } | { ok: false; error: { code: string; message: string } };
      if (!envelope.ok) throw new Error(`${method}: ${envelope.error.code}: ${envelope.error.message}`);
      return envelope.result;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const context of contexts) await context.close().catch(() => undefined);
      child.kill('SIGTERM');
      await done.catch(() => undefined);
      await rm(home, { recursive: true, force: true });
    },
  };
}

/**
 * Waits until `done()`, for as long as the app shows it is still working:
 * `progress()` (a count the app renders, say) must move at least once every
 * {@link UI_WAIT_MS}. A slow machine stretches the work but never fails it; a
 * stall does.
 */
export async function whileProgressing(done: () => Promise<boolean>, progress: () => Promise<unknown>, what: string): Promise<void> {
  let last = await progress();
  let since = Date.now();
  while (!(await done())) {
    const now = await progress();
    if (now !== last) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since > UI_WAIT_MS) {
      throw new Error(`${what} made no progress for ${UI_WAIT_MS / 1000} s (still at ${String(now)})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Checks that hostile text stayed text: no script ran, no element it spelled
 * out exists in the app, no dialog opened (`dialogs`: the messages of those
 * that did) and the page raised no error.
 */
export async function expectInert(page: Page, dialogs: string[]): Promise<void> {
  await expect(page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).resolves.toBeUndefined();
  const root = page.locator('#root');
  await expect(root.locator('script').count()).resolves.toBe(0);
  await expect(root.locator('img').count()).resolves.toBe(0);
  await expect(root.locator('a[href^="javascript:" i]').count()).resolves.toBe(0);
  await expect(root.locator('[onerror]').count()).resolves.toBe(0);
  expect(dialogs).toEqual([]);
  expect(pageErrors(page)).toEqual([]);
}

/** Script errors the page raised so far (an inert hostile package raises none). */
export function pageErrors(page: Page): string[] {
  return ERRORS.get(page) ?? [];
}

/**
 * With `SKILLBENCH_SCREENSHOTS=1`, saves a screenshot of the window (a page)
 * or of one element (a locator) as `test/e2e/screenshots/<name>.png` and
 * returns its path; otherwise does nothing and returns undefined.
 */
export async function screenshot(target: Page | Locator, name: string): Promise<string | undefined> {
  if (!SCREENSHOTS_WANTED) return undefined;
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await target.screenshot({ path, animations: 'disabled' });
  return path;
}

/** Resolves once the page has drawn two more frames: what the last key or resize did is on screen. */
export async function drawn(page: Page): Promise<void> {
  await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
}

/**
 * With `SKILLBENCH_SCREENSHOTS=1`, saves the page at every size of `sizes`
 * (default {@link VIEWPORTS}) as `test/e2e/screenshots/<name>-<width>x<height>.png`,
 * then gives the page its own size back; returns the paths (none without).
 */
export async function screenshotSizes(page: Page, name: string, sizes: readonly { width: number; height: number }[] = VIEWPORTS): Promise<string[]> {
  if (!SCREENSHOTS_WANTED) return [];
  const own = page.viewportSize();
  const paths: string[] = [];
  try {
    for (const size of sizes) {
      await page.setViewportSize({ ...size });
      // The resize is laid out and painted before the capture.
      await drawn(page);
      const path = await screenshot(page, `${name}-${size.width}x${size.height}`);
      if (path) paths.push(path);
    }
  } finally {
    if (own) await page.setViewportSize(own);
  }
  return paths;
}

/**
 * Switches the page to the dark then the light theme (waiting for the app to
 * follow) and, with `SKILLBENCH_SCREENSHOTS=1`, saves it at every size of
 * {@link VIEWPORTS} as `<name>-<theme>-<width>x<height>.png`; then gives the
 * page the dark theme and the first size back.
 */
export async function screenshotThemes(page: Page, name: string): Promise<void> {
  for (const scheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset['theme']), { timeout: UI_WAIT_MS }).toBe(scheme);
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      await screenshot(page, `${name}-${scheme}-${viewport.width}x${viewport.height}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.setViewportSize(VIEWPORTS[0]);
}
