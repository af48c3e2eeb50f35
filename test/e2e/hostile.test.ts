/**
 * A hostile package renders inert: a registry written by another tool holds a
 * skill whose every text field carries a script tag, an image with an error
 * handler, a `javascript:` link and a right-to-left override. In the catalog,
 * the preview, the history and the read-only revision, none of it runs,
 * becomes markup or a link, or reorders the text around it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playwrightChord } from '../../renderer/shell/keys';
import { seedHostile } from './fixtures';
import { expectInert, screenshot, startApp, VIEWPORTS, type App } from './harness';

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
