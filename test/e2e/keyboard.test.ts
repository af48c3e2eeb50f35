/**
 * Keyboard only (journey 10, the shell's part): the palette opens with
 * Mod+Shift+P, lists commands with their shortcuts and runs one; the help sheet
 * (?) lists exactly the keymap table's rows that have keys; the catalog is
 * browsed, previewed and its history opened without the mouse.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYMAP, keysOf } from '../../renderer/shell/keymap';
import { formatChord, playwrightChord } from '../../renderer/shell/keys';
import { seedRefund } from './fixtures';
import { pageErrors, screenshot, startApp, type App } from './harness';

describe('the workbench by keyboard alone', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp({ seed: (store) => seedRefund(store, 3) });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('runs a command from the palette, with its shortcut shown', async () => {
    const page = await app.page();
    await page.getByTestId('connection-row-default').waitFor();
    await page.keyboard.press(playwrightChord('Mod+Shift+P'));
    const item = page.getByTestId('palette-command-view.catalog');
    await item.waitFor();
    await expect(item.textContent()).resolves.toContain(formatChord('Mod+Shift+E', 'other'));
    await screenshot(page, 'palette-1280x800');
    await page.keyboard.type('Open Catalog');
    await page.keyboard.press('Enter');
    await page.getByTestId('catalog-row-billing/refund').waitFor();
    expect(pageErrors(page)).toEqual([]);
  });

  it('shows a help sheet equal to the keymap table', async () => {
    const page = await app.page();
    await page.getByTestId('connection-row-default').waitFor();
    await page.keyboard.press('?');
    await page.getByTestId('help-sheet').waitFor();
    const shown = await page.locator('[data-testid^="help-row-"]').evaluateAll((rows) =>
      rows.map((r) => ({ command: r.getAttribute('data-command'), chords: [...r.querySelectorAll('kbd')].map((k) => k.getAttribute('data-chord')) })),
    );
    const table = KEYMAP.filter((e) => keysOf(e, 'other').length > 0).map((e) => ({ command: e.command, chords: keysOf(e, 'other') }));
    expect(shown).toEqual(table);
    await screenshot(page, 'help-sheet-1280x800');
    await page.keyboard.press('Escape');
    await page.getByTestId('help-sheet').waitFor({ state: 'detached' });
  });

  it('browses the catalog, filters, and opens a history without the mouse', async () => {
    const page = await app.page();
    await page.getByTestId('connection-row-default').waitFor();
    await page.keyboard.press(playwrightChord('Mod+Shift+E'));
    await page.getByTestId('catalog-row-billing/refund').waitFor();
    await page.keyboard.press(playwrightChord('Mod+F'));
    await page.keyboard.type('refund');
    await page.locator('[data-testid="catalog-count"][data-query="refund"]').waitFor();
    await page.keyboard.press('ArrowDown');
    await expect(page.getByTestId('catalog-row-billing/refund').getAttribute('aria-selected')).resolves.toBe('true');
    await page.getByTestId('catalog-preview-billing/refund').waitFor();
    await page.keyboard.press(playwrightChord('Mod+H'));
    await page.getByTestId('version-row-3').waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.getByTestId('revision-text').waitFor();
    await expect(page.getByTestId('revision-text').textContent()).resolves.toContain('Refund revision 2');
    expect(pageErrors(page)).toEqual([]);
  });
});
