/**
 * The workbench opens in Chromium from `skillbench serve` and shows the
 * catalog of the embedded registry (seeded with the example skills).
 *
 * Journey 3, the connections part the browser host serves: the sidebar shows
 * the embedded registry as reachable; testing an unreachable address from the
 * Add Connection dialog fails inside the dialog (or, on a host without
 * `connections.test`, says the host cannot test) and saves nothing.
 *
 * A hostile package renders inert: a registry written by another tool holds a
 * skill whose every text field carries a script tag, an image with an error
 * handler, a `javascript:` link and a right-to-left override. In the catalog,
 * the preview, the history and the read-only revision, none of it runs,
 * becomes markup or a link, or reorders the text around it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playwrightChord } from '../../renderer/shell/keys';
import { addEmptyExample, goToSkill, openEditor, expectErrors } from './authoring';
import { seedHostile } from './fixtures';
import { E2E_TIMEOUT_MS, expectInert, pageErrors, screenshot, screenshotSizes, startApp, VIEWPORTS, type App } from './harness';

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
    await expectErrors(page, 1);
    const icon = page.getByTestId('status-error-icon');
    await icon.waitFor();
    const box = await icon.boundingBox();
    expect(box?.width).toBeGreaterThan(8);
    expect(box?.height).toBeGreaterThan(8);
    // The circle and the cross are drawn, not a font's missing-glyph box.
    await expect(icon.locator('circle').count()).resolves.toBe(1);
    await screenshot(page, 'status-problems-1280x800');
    await screenshot(page.getByTestId('status-bar'), 'status-problems-1280x800-bar');
    expect(pageErrors(page)).toEqual([]);
  });
  it('fits eight open tabs in the strip at 1280x800, shrinking their titles, and keeps the active one in view', { timeout: E2E_TIMEOUT_MS }, async () => {
    const page = await app.page();
    await page.getByTestId('connection-row-default').waitFor();
    const skills = (await app.call<{ items: { namespace: string; name: string }[] }>('catalog.page', { connection: 'default', limit: 100 })).items;
    expect(skills.length).toBeGreaterThanOrEqual(8);
    // Eight skills opened from Go to Skill, each in a tab of its own; the last one is active.
    const ids: string[] = [];
    for (const { namespace, name } of skills.slice(0, 8)) ids.push(await goToSkill(page, { namespace, name }));
    await expect(page.locator('[data-testid^="tab-editor:"][role="tab"]').count()).resolves.toBe(8);
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

  describe('connections in the sidebar and the add dialog', () => {
    it('tests unsaved form values inside the dialog and saves nothing', async () => {
      const page = await app.page();
      await page.locator('[data-testid="connection-row-default"][data-reachability="up"]').waitFor();
      await page.getByTestId('connection-add').click();
      await page.getByTestId('connection-dialog').waitFor();
      await page.getByTestId('connection-field-name').fill('prod-http');
      await page.getByTestId('connection-field-env').selectOption('PROD');
      await expect(page.getByTestId('connection-env-preview').getAttribute('data-colour')).resolves.toBe('#d93f3f');
      await page.getByTestId('connection-field-url').fill('http://127.0.0.1:9/api/v1/skills');
      await page.getByTestId('connection-field-secret').fill('wrong-token');
      await page.getByTestId('connection-test').click();
      const outcome = page.locator('[data-testid="connection-test-result"][data-ok="false"], [data-testid="connection-error"]').first();
      await outcome.waitFor();
      const text = (await outcome.textContent()) ?? '';
      expect(text).not.toContain('wrong-token');
      expect(text.length).toBeGreaterThan(10);
      await screenshot(page, 'connection-dialog-1280x800');
      await page.getByTestId('connection-cancel').click();
      await page.getByTestId('connection-dialog').waitFor({ state: 'detached' });
      const list = await app.call<{ connections: { profile: { name: string } }[] }>('connections.list');
      expect(list.connections.map((c) => c.profile.name)).toEqual(['default']);
      expect(pageErrors(page)).toEqual([]);
    });
  });
});

/** Nothing from the package became live: no flag set, no element, no link, no dialog. */
describe('a hostile package in the workbench', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp({ seed: (store, registry) => seedHostile(store, registry) });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('renders inert in the catalog, the preview, the history and a read-only revision', async () => {
    const page = await app.page();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.getByTestId('connection-row-default').waitFor();
    await page.keyboard.press(playwrightChord('Mod+Shift+E'));
    const row = page.getByTestId('catalog-row-evil/hostile');
    await row.waitFor();
    await row.click();
    await page.getByTestId('catalog-preview-evil/hostile').waitFor();
    // The text is shown as text, the override as a visible code point instead of being applied.
    await expect(page.getByTestId('catalog-preview-description').textContent()).resolves.toContain('<script>window.__pwned=1</script>');
    await expect(page.getByTestId('catalog-preview-description').locator('.control-char').first().textContent()).resolves.toBe('U+202E');
    await expect(row.textContent()).resolves.toContain('U+202E');
    await expectInert(page, dialogs);
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      await screenshot(page, `hostile-catalog-${viewport.width}x${viewport.height}`);
    }
    await page.setViewportSize(VIEWPORTS[0]);

    await page.getByTestId('catalog-history-evil/hostile').click();
    await page.getByTestId('version-row-1').waitFor();
    await expect(page.getByTestId('version-row-1').textContent()).resolves.toContain('javascript:');
    await expectInert(page, dialogs);
    await screenshot(page, 'hostile-versions-1280x800');

    await page.getByTestId('version-open-1').click();
    // The revision either shows the tampered text inertly or the registry's refusal to serve it.
    await page.locator('[data-testid="revision-text"], [data-testid="revision-error"]').first().waitFor();
    await expectInert(page, dialogs);
    await screenshot(page, 'hostile-revision-1280x800');
  });
});
