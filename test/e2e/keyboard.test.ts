/**
 * Keyboard only (journey 10): the palette opens with Mod+Shift+P, lists
 * commands with their shortcuts and runs one; the help sheet (?) lists exactly
 * the keymap table's rows that have keys; the catalog is browsed, previewed and
 * its history opened without the mouse; and journey 1 (edit, validate, diff,
 * publish) with "Eval: Run" from the palette and the unsaved-changes prompt of
 * Mod+W runs on keys alone: these tests never click.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYMAP } from '../../renderer/keymap';
import { keysOf } from '../../renderer/shell/keymap';
import { formatChord, playwrightChord } from '../../renderer/shell/keys';
import { addEmptyExample, addExample, confirmPublish, pressCommand, expectErrors, lineEnd, typeInEditor } from './authoring';
import { seedRefund } from './fixtures';
import { E2E_SETUP_TIMEOUT_MS, E2E_TIMEOUT_MS, pageErrors, screenshot, startApp, UI_WAIT_MS, type App } from './harness';

/** The `data-testid` of the focused element (or of its nearest ancestor that has one). */
function focusedTestId(page: Page): Promise<string | null> {
  return page.evaluate(() => document.activeElement?.closest('[data-testid]')?.getAttribute('data-testid') ?? null);
}

/** The line of the cursor in the package editor. */
function cursorLine(page: Page): Promise<number> {
  return page.evaluate(() => Number(document.querySelector('[data-testid="editor-monaco"] .line-numbers.active-line-number')?.textContent ?? 'NaN'));
}

/** Moves the focus into the visible tab and waits until it is in the package text. */
async function focusPackageText(page: Page): Promise<void> {
  await pressCommand(page, 'focus.main');
  await page.waitForFunction(() => document.activeElement?.closest('[data-testid="editor-monaco"] .monaco-editor') !== null);
}

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
    await expect.poll(() => page.getByTestId('catalog-row-billing/refund').getAttribute('aria-selected')).toBe('true');
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

describe('journey 1 and evaluations by keyboard alone', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp();
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await app?.close();
  });

  it('runs "Eval: Run" from the palette, then edits, validates, diffs and publishes a skill, and Mod+W on the dirty tab prompts', { timeout: 2 * E2E_TIMEOUT_MS }, async () => {
    const page = await app.page();
    await page.getByTestId('connection-row-default').waitFor();
    const wait = { timeout: UI_WAIT_MS };

    // The palette opens an evaluation setup; in it, "Eval: Run" shows its shortcut and runs.
    await pressCommand(page, 'palette.show');
    await page.keyboard.type('New Evaluation');
    await page.locator('[data-testid="palette-command-evals.new"][aria-selected="true"]').waitFor();
    await page.keyboard.press('Enter');
    await page.getByTestId('eval-setup').waitFor();
    await expect.poll(() => page.getByTestId('eval-run').isEnabled(), { timeout: UI_WAIT_MS }).toBe(true);
    await pressCommand(page, 'focus.main');
    await pressCommand(page, 'palette.show');
    await page.keyboard.type('Eval: Run');
    const runRow = page.getByTestId('palette-command-evals.run');
    await runRow.waitFor();
    await expect(runRow.textContent()).resolves.toContain(formatChord('Mod+Enter', 'other'));
    await expect(runRow.getAttribute('aria-disabled')).resolves.toBeNull();
    await expect(runRow.getAttribute('aria-selected')).resolves.toBe('true');
    await screenshot(page, 'palette-eval-run-1280x800');
    await page.keyboard.press('Enter');
    await page.getByTestId('eval-run-view').waitFor();

    // Quick open finds the skill by name and opens it in the editor.
    await pressCommand(page, 'quickOpen.show');
    await page.keyboard.type('incident-response');
    await page.locator('[data-testid="quick-open-item-default:devops/incident-response"][aria-selected="true"]').waitFor();
    await screenshot(page, 'quick-open-1280x800');
    await page.keyboard.press('Enter');
    await page.getByTestId('editor-monaco').locator('.monaco-editor').first().waitFor();
    await page.getByTestId('meter-description').waitFor();
    await focusPackageText(page);

    // An empty example is an error; F8 goes to it from the top; the fix brings the count to 0.
    await addEmptyExample(page);
    await expectErrors(page, 1, UI_WAIT_MS);
    const problemLine = await cursorLine(page);
    await page.keyboard.press('ControlOrMeta+Home');
    await expect.poll(() => cursorLine(page), wait).toBe(1);
    await pressCommand(page, 'editor.nextProblem');
    await expect.poll(() => cursorLine(page), wait).toBe(problemLine);
    await lineEnd(page);
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await typeInEditor(page, 'Page the on-call engineer, checkout is down');
    await expectErrors(page, 0, UI_WAIT_MS);

    // The diff against the published revision, by its chord.
    await pressCommand(page, 'editor.diffPublished');
    await page.locator('[data-testid="diff-chip"][data-pointer^="/activation_examples/should_activate"]').waitFor();
    await expect(page.getByTestId('diff-chip').allTextContents()).resolves.toEqual(['+1 should_activate']);

    // Back to the editor and publish; the result dialog focuses its action and keeps Tab inside.
    await pressCommand(page, 'tab.previous');
    await focusPackageText(page);
    await pressCommand(page, 'editor.publish');
    await confirmPublish(page, 'Page the on-call engineer when checkout is down?');
    await page.getByTestId('publish-result').waitFor();
    await expect(page.getByTestId('publish-result').getAttribute('data-version')).resolves.toBe('2');
    await expect.poll(() => focusedTestId(page), wait).toBe('publish-close');
    await page.keyboard.press('Tab');
    await expect.poll(() => focusedTestId(page), wait).toBe('publish-close');
    await screenshot(page, 'publish-result-1280x800');
    await page.keyboard.press('Space');
    await page.getByTestId('publish-dialog').waitFor({ state: 'detached' });
    const editorTab = page.getByTestId('tab-editor:default:devops/incident-response');
    await expect(editorTab.getAttribute('data-dirty')).resolves.toBe('false');

    // A new edit makes the tab dirty; Mod+W asks, with Save focused, and Cancel keeps the tab.
    await focusPackageText(page);
    await addExample(page, 'Roll back the deploy that broke login');
    await expect.poll(() => editorTab.getAttribute('data-dirty'), wait).toBe('true');
    await expectErrors(page, 0, UI_WAIT_MS);
    await pressCommand(page, 'tab.close');
    await page.getByTestId('unsaved-dialog').waitFor();
    await expect.poll(() => focusedTestId(page), wait).toBe('unsaved-save');
    await screenshot(page, 'unsaved-prompt-1280x800');
    await page.keyboard.press('Shift+Tab');
    await expect.poll(() => focusedTestId(page), wait).toBe('unsaved-cancel');
    await page.keyboard.press('Enter');
    await page.getByTestId('unsaved-dialog').waitFor({ state: 'detached' });
    await expect(editorTab.getAttribute('data-dirty')).resolves.toBe('true');
    await pressCommand(page, 'editor.saveDraft');
    await expect.poll(() => page.getByTestId('editor-save-state').textContent(), wait).toBe('Draft saved');

    // The catalog preview's Diff button, reached with Tab and pressed with Enter, compares the draft with v2.
    await pressCommand(page, 'view.catalog');
    await page.getByTestId('catalog-row-devops/incident-response').waitFor();
    await pressCommand(page, 'catalog.search');
    await page.keyboard.type('incident-response');
    await page.locator('[data-testid="catalog-count"][data-query="incident-response"]').waitFor();
    await page.keyboard.press('ArrowDown');
    await page.getByTestId('catalog-preview-devops/incident-response').waitFor();
    await page.keyboard.press('Tab');
    await expect.poll(() => focusedTestId(page), wait).toBe('catalog-open-devops/incident-response');
    await page.keyboard.press('Tab');
    await expect.poll(() => focusedTestId(page), wait).toBe('catalog-diff-devops/incident-response');
    await page.keyboard.press('Enter');
    const catalogDiff = page.locator('[data-testid="diff-view"]:visible');
    await catalogDiff.locator('[data-testid="diff-headline"], [data-testid="diff-error"]').first().waitFor();
    await screenshot(page, 'diff-from-catalog-keyboard-1280x800');
    await expect(catalogDiff.getByTestId('diff-error').count()).resolves.toBe(0);
    await expect(catalogDiff.getByTestId('diff-title').textContent()).resolves.toMatch(/v2 \(published\) → draft/);
    await expect(catalogDiff.getByTestId('diff-chip').allTextContents()).resolves.toEqual(['+1 should_activate']);
    expect(pageErrors(page)).toEqual([]);
  });
});
