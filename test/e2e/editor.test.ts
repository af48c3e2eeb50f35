/**
 * The package editor in Chromium against `skillbench serve` (journey 1 of the
 * UI research, keyboard only): edit → the registry's verdict as a squiggle, a
 * problem at its JSON Pointer and the status count → F8 → fix → diff against
 * the published revision → publish → "based on" the new version.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PackageRevision } from '../../core/api/contract';
import { addEmptyExample, confirmPublish, FIRST_EXAMPLE, openEditor, pressCommand, SKILL, statusErrors } from './authoring';
import { E2E_SETUP_TIMEOUT_MS, E2E_TIMEOUT_MS, pageErrors, screenshot, startApp, VIEWPORTS, type App } from './harness';

describe('package editor (journey 1)', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp();
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await app?.close();
  });

  it('edits, validates, diffs and publishes without a mouse', { timeout: E2E_TIMEOUT_MS }, async () => {
    const page = await app.page();
    await openEditor(page);
    await expect(page.getByTestId('editor-base').textContent()).resolves.toMatch(/based on v1/);
    expect(await statusErrors(page)).toBe(0);

    // An empty example: a squiggle, a problem at its pointer, the status count.
    await addEmptyExample(page);
    const problem = page.getByTestId('problem-empty_entry');
    await problem.waitFor();
    await expect(problem.getAttribute('data-pointer')).resolves.toBe('/activation_examples/should_activate/1');
    await page.locator('.squiggly-error').first().waitFor();
    await expect.poll(() => statusErrors(page)).toBe(1);
    await expect(page.getByTestId('editor-publish').isDisabled()).resolves.toBe(true);
    await screenshot(page, 'editor-problem-1280x800');

    // F8 from the top of the text lands on the problem's line.
    await page.keyboard.press('ControlOrMeta+Home');
    await pressCommand(page, 'editor.nextProblem');
    const line = Number(await problem.getAttribute('data-line'));
    await expect.poll(() => page.evaluate(() => document.querySelector('.monaco-editor .current-line')?.parentElement?.getAttribute('style') ?? '')).not.toBe('');
    const cursorLine = await page.evaluate(() => {
      const el = document.querySelector('[data-testid="editor-monaco"] .monaco-editor .line-numbers.active-line-number');
      return Number(el?.textContent ?? 'NaN');
    });
    expect(cursorLine).toBe(line);

    // The fix: type the example into the empty quotes.
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.type('Our status page is down, start the incident');
    await expect.poll(() => statusErrors(page)).toBe(0);

    // Diff against the published revision: one added example.
    await pressCommand(page, 'editor.diffPublished');
    await page.getByTestId('diff-chip').first().waitFor();
    const chips = await page.getByTestId('diff-chip').allTextContents();
    expect(chips).toEqual(['+1 should_activate']);
    await expect(page.getByTestId('diff-title').textContent()).resolves.toMatch(/Local registry v1.*→ draft/);
    await screenshot(page, 'diff-draft-1280x800');

    // Back to the editor, publish.
    await pressCommand(page, 'tab.previous');
    await page.waitForFunction(() => document.activeElement?.closest('[data-scope="editor"]') !== null);
    await pressCommand(page, 'editor.publish');
    await page.getByTestId('publish-confirm').waitFor();
    await expect.poll(() => page.getByTestId('publish-chip').allTextContents()).toEqual(['+1 should_activate']);
    await confirmPublish(page, 'Start the incident when the status page is down');
    const result = page.getByTestId('publish-result');
    await result.waitFor();
    await expect(result.getAttribute('data-version')).resolves.toBe('2');
    await expect(page.getByTestId('publish-audit').textContent()).resolves.toBe('recorded');
    await screenshot(page, 'publish-result-1280x800');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('editor-base').textContent()).toMatch(/based on v2/);
    await expect(page.getByTestId('status-base').textContent()).resolves.toMatch(/based on v2/);

    const published = await app.call<PackageRevision>('packages.get', { connection: 'default', skill: SKILL });
    expect(published.version).toBe(2);
    expect(published.package.activation_examples.should_activate.slice(0, 2)).toEqual([expect.stringContaining(FIRST_EXAMPLE), 'Our status page is down, start the incident']);
    expect(pageErrors(page)).toEqual([]);
  });

  it('reads well at both window sizes', { timeout: E2E_TIMEOUT_MS }, async () => {
    for (const viewport of VIEWPORTS) {
      const page = await app.page(viewport);
      await openEditor(page);
      await screenshot(page, `editor-${viewport.width}x${viewport.height}`);
      await page.context().close();
    }
  });
});
