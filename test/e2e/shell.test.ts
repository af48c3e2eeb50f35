/**
 * The workbench opens in Chromium from `skillbench serve` and shows the
 * catalog of the embedded registry (seeded with the example skills).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playwrightChord } from '../../renderer/shell/keys';
import { addEmptyExample, openEditor, statusErrors } from './authoring';
import { E2E_TIMEOUT_MS, pageErrors, screenshot, startApp, VIEWPORTS, type App } from './harness';

describe('the workbench in Chromium', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('opens the shell from the address skillbench serve prints, and drops the token from the address bar', async () => {
    const page = await app.page();
    expect(new URL(page.url()).searchParams.has('token')).toBe(false);
    await expect(page.getByTestId('status-bar').isVisible()).resolves.toBe(true);
    await page.getByTestId('connection-row-default').waitFor();
    await expect(page.getByTestId('status-connection').textContent()).resolves.toContain('Local registry');
    expect(pageErrors(page)).toEqual([]);
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
});
