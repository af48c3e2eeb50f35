/**
 * The workbench opens in Chromium from `skillbench serve` and shows the
 * catalog of the embedded registry (seeded with the example skills).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playwrightChord } from '../../renderer/shell/keys';
import { addEmptyExample, openEditor, statusErrors } from './authoring';
import { E2E_TIMEOUT_MS, pageErrors, screenshot, screenshotSizes, startApp, VIEWPORTS, type App } from './harness';

describe('the workbench in Chromium', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('signs a browser in once from the address skillbench serve prints, drops the code from the address bar, keeps the session on reload, and logs no console error', async () => {
    const link = app.url;
    const context = await app.browser.newContext({ viewport: { ...VIEWPORTS[0] }, colorScheme: 'dark' });
    const other = await app.browser.newContext({ viewport: { ...VIEWPORTS[0] }, colorScheme: 'light' });
    try {
      const page = await context.newPage();
      const consoleErrors: string[] = [];
      page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
      page.on('pageerror', (e) => consoleErrors.push(e.message));
      // The page's calls and events go over its WebSocket: count the frames it receives.
      let socketFrames = 0;
      page.on('websocket', (ws) => ws.on('framereceived', () => (socketFrames += 1)));
      await page.goto(link);
      await page.getByTestId('shell').waitFor();
      await page.getByTestId('connection-row-default').waitFor();
      expect(new URL(page.url()).href).toBe(`${app.origin}/`);
      await expect(page.getByTestId('status-connection').textContent()).resolves.toContain('Local registry');
      await expect.poll(() => socketFrames).toBeGreaterThan(0);
      expect(consoleErrors).toEqual([]);

      // A reload, and the spent address from the history, go on with the same session.
      await page.reload();
      await page.getByTestId('connection-row-default').waitFor();
      await page.goto(link);
      await page.getByTestId('connection-row-default').waitFor();
      expect(new URL(page.url()).href).toBe(`${app.origin}/`);
      expect(consoleErrors).toEqual([]);

      // In another browser the spent address signs in nothing, and the page says why.
      const stranger = await other.newPage();
      await stranger.goto(link);
      await stranger.getByRole('heading', { name: 'Sign-in link already used' }).waitFor();
      await expect(stranger.getByTestId('shell').count()).resolves.toBe(0);
      await screenshotSizes(stranger, 'sign-in-link-used-light');
      await stranger.emulateMedia({ colorScheme: 'dark' });
      await screenshotSizes(stranger, 'sign-in-link-used-dark');
    } finally {
      await context.close();
      await other.close();
    }
  });

  it('shows the catalog of the embedded registry with the example skills', async () => {
    for (const viewport of VIEWPORTS) {
      const page = await app.page(viewport);
      await page.getByTestId('connection-row-default').waitFor();
      await page.keyboard.press(playwrightChord('Mod+Shift+E'));
      await page.getByTestId('catalog-row-travel/weather-assessment').waitFor();
      await expect(page.getByTestId('catalog-count').getAttribute('data-complete')).resolves.toBe('true');
      await page.getByTestId('catalog-row-travel/weather-assessment').click();
      await page.getByTestId('catalog-preview-travel/weather-assessment').waitFor();
      await expect(page.getByTestId('connection-dot-default').getAttribute('class')).resolves.toContain('up');
      await screenshot(page, `catalog-examples-${viewport.width}x${viewport.height}`);
      expect(pageErrors(page)).toEqual([]);
    }
  });

  it('draws the status bar\'s error glyph without relying on the installed fonts', { timeout: E2E_TIMEOUT_MS }, async () => {
    const page = await app.page();
    await openEditor(page);
    await addEmptyExample(page);
    await expect.poll(() => statusErrors(page)).toBe(1);
    const icon = page.getByTestId('status-error-icon');
    await icon.waitFor();
    const box = await icon.boundingBox();
    expect(box?.width).toBeGreaterThan(8);
    expect(box?.height).toBeGreaterThan(8);
    // The circle and the cross are drawn, not a font's missing-glyph box.
    await expect(icon.locator('circle').count()).resolves.toBe(1);
    await screenshot(page, 'status-problems-1280x800');
    await page.getByTestId('status-bar').screenshot({ path: (await screenshot(page, 'status-problems-1280x800')).replace(/\.png$/, '-bar.png') });
    expect(pageErrors(page)).toEqual([]);
  });
  it('fits eight open tabs in the strip at 1280x800, shrinking their titles, and keeps the active one in view', { timeout: E2E_TIMEOUT_MS }, async () => {
    const page = await app.page();
    await page.getByTestId('connection-row-default').waitFor();
    const skills = (await app.call<{ items: { namespace: string; name: string }[] }>('catalog.page', { connection: 'default', limit: 100 })).items;
    expect(skills.length).toBeGreaterThanOrEqual(8);
    const ids = await page.evaluate((list) => {
      const tabs = list.map((s) => ({ id: `editor:default:${s.namespace}/${s.name}`, kind: 'editor', title: s.name, connectionId: 'default', params: { connection: 'default', skill: s }, dirty: false, preview: false }));
      localStorage.setItem('skillbench.tabs', JSON.stringify({ state: { tabs, activeId: tabs[tabs.length - 1]!.id }, version: 1 }));
      return tabs.map((t) => t.id);
    }, skills.slice(0, 8).map(({ namespace, name }) => ({ namespace, name })));
    await page.reload();
    await page.getByTestId('shell').waitFor();
    await page.getByTestId('editor-monaco').filter({ visible: true }).locator('.monaco-editor').waitFor();
    const strip = (await page.getByTestId('tab-strip').boundingBox())!;
    for (const id of ids) {
      const box = (await page.getByTestId(`tab-${id}`).boundingBox())!;
      // Every tab, its close button included, lies inside the strip: none is cut or scrolled away.
      expect(box.x).toBeGreaterThanOrEqual(strip.x - 0.5);
      expect(box.x + box.width).toBeLessThanOrEqual(strip.x + strip.width + 0.5);
      const close = (await page.getByTestId(`tab-close-${id}`).boundingBox())!;
      expect(close.x + close.width).toBeLessThanOrEqual(box.x + box.width + 0.5);
    }
    await expect(page.getByTestId('tab-strip').evaluate((e) => e.scrollWidth <= e.clientWidth)).resolves.toBe(true);
    await screenshot(page, 'tabs-eight-1280x800');
    expect(pageErrors(page)).toEqual([]);
  });
});
