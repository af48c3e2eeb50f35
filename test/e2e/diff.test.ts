/**
 * Journey 6 of the UI research: a cross-version diff shows the field summary;
 * inline view, hide-unchanged and F7 work; a change of key order alone reads
 * "No changes".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DraftView, PackageRevision, PublishOutcome } from '../../core/api/contract';
import { openEditor, pressCommand, SKILL } from './authoring';
import { E2E_SETUP_TIMEOUT_MS, E2E_TIMEOUT_MS, pageErrors, screenshot, startApp, UI_WAIT_MS, VIEWPORTS, type App } from './harness';

describe('diffs (journey 6)', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp();
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await app?.close();
  });

  it('compares two versions with the field summary, inline, hide-unchanged and F7', { timeout: E2E_TIMEOUT_MS }, async () => {
    const v1 = await app.call<PackageRevision>('packages.get', { connection: 'default', skill: SKILL });
    const next = structuredClone(v1.package);
    next.description = `${next.description} Also use it for incident drills.`;
    next.tags = [...next.tags, 'drills'];
    next.activation_examples.should_activate.push('Run a game-day drill of a full region outage');
    next.change_reason = 'Drills';
    const v2 = await app.call<PublishOutcome>('publish.package', { connection: 'default', skill: SKILL, text: JSON.stringify(next), base: { version: 1, etag: v1.etag }, idempotency_key: 'e2e-v2' });
    expect(v2.version).toBe(2);

    const page = await app.page(VIEWPORTS[1]);
    await openEditor(page);
    await page.getByTestId('editor-diff-version').click();
    await page.getByTestId('picker-option-1').click();
    await page.getByTestId('diff-chip').first().waitFor();
    await expect(page.getByTestId('diff-title').textContent()).resolves.toMatch(/Local registry v1 → draft/);
    const chips = await page.getByTestId('diff-chip').allTextContents();
    expect(chips).toEqual(['~description', '+1 tags', '+1 should_activate', '~change_reason']);
    // Unchanged regions are collapsed behind "N hidden lines" bars once the diff is computed.
    const hiddenBars = () => page.getByTestId('diff-monaco').locator('.diff-hidden-lines').count();
    await expect.poll(hiddenBars, { timeout: UI_WAIT_MS }).toBeGreaterThan(0);
    await screenshot(page, 'diff-versions-1920x1080');

    // A chip jumps to its change in the draft side.
    await page.getByTestId('diff-chip').filter({ hasText: 'should_activate' }).click();
    const modifiedLine = () =>
      page.evaluate(() => Number(document.querySelector('[data-testid="diff-monaco"] .editor.modified .line-numbers.active-line-number')?.textContent ?? 'NaN'));
    const afterChip = await modifiedLine();
    expect(afterChip).toBeGreaterThan(1);

    // F7 walks the changes.
    await page.keyboard.press('ControlOrMeta+Home');
    await pressCommand(page, 'diff.nextChange');
    await expect.poll(modifiedLine).toBeGreaterThan(1);
    const first = await modifiedLine();
    await pressCommand(page, 'diff.nextChange');
    await expect.poll(modifiedLine).not.toBe(first);

    // Inline and showing unchanged regions.
    await expect(page.getByTestId('diff-monaco').locator('.monaco-diff-editor.side-by-side').count()).resolves.toBe(1);
    await page.getByTestId('diff-inline').click();
    await expect.poll(() => page.getByTestId('diff-monaco').locator('.monaco-diff-editor.side-by-side').count()).toBe(0);
    // The toggle shows the unchanged regions, and its command hides them again.
    await page.getByTestId('diff-hide-unchanged').uncheck();
    await expect.poll(hiddenBars, { timeout: UI_WAIT_MS }).toBe(0);
    await screenshot(page, 'diff-inline-all-1920x1080');
    await pressCommand(page, 'diff.toggleUnchanged');
    await expect.poll(hiddenBars, { timeout: UI_WAIT_MS }).toBeGreaterThan(0);
    await expect(page.getByTestId('diff-hide-unchanged').isChecked()).resolves.toBe(true);
    await page.setViewportSize(VIEWPORTS[0]);
    await screenshot(page, 'diff-inline-1280x800');
    expect(pageErrors(page)).toEqual([]);
  });

  it('reads "No changes" when only the key order differs', { timeout: E2E_TIMEOUT_MS }, async () => {
    // An autosaved draft whose text has every key in reverse order (and other indentation).
    const published = await app.call<PackageRevision>('packages.get', { connection: 'default', skill: SKILL });
    const draft = await app.call<DraftView>('packages.open', { connection: 'default', skill: SKILL });
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(published.package).reverse()), null, 4);
    await app.call('drafts.save', { id: draft.id, text: reordered });

    const page = await app.page();
    await openEditor(page);
    await expect.poll(() => page.evaluate(() => document.querySelector('[data-testid="editor-monaco"] .view-lines')?.textContent?.replace(/\s+/g, '').startsWith('{"change_reason"') ?? false)).toBe(true);
    await pressCommand(page, 'editor.diffPublished');
    await expect.poll(() => page.getByTestId('diff-headline').textContent()).toBe('No changes');
    await expect(page.getByTestId('diff-chip').count()).resolves.toBe(0);
    await screenshot(page, 'diff-no-changes-1280x800');
    expect(pageErrors(page)).toEqual([]);
  });

  it("opens from the catalog preview's Diff: the draft against the published revision, or the published revision alone", { timeout: E2E_TIMEOUT_MS }, async () => {
    const published = await app.call<PackageRevision>('packages.get', { connection: 'default', skill: SKILL });
    const draft = await app.call<DraftView>('packages.open', { connection: 'default', skill: SKILL });
    await app.call('drafts.save', { id: draft.id, text: JSON.stringify({ ...published.package, description: `${published.package.description} Also for drills.` }, null, 2) });

    const page = await app.page();
    await pressCommand(page, 'view.catalog');
    await page.getByTestId('catalog-row-devops/incident-response').click();
    await page.getByTestId('catalog-diff-devops/incident-response').click();
    await page.getByTestId('diff-chip').first().waitFor();
    await expect(page.getByTestId('diff-title').textContent()).resolves.toMatch(/→ draft/);
    await expect(page.getByTestId('diff-chip').allTextContents()).resolves.toEqual(['~description']);
    await screenshot(page, 'diff-from-catalog-1280x800');

    // A skill with no draft compares its published revision with itself.
    await pressCommand(page, 'view.catalog');
    const other = page.locator('[data-testid^="catalog-row-"]:not([data-testid="catalog-row-devops/incident-response"])').first();
    const key = (await other.getAttribute('data-testid'))!.slice('catalog-row-'.length);
    await other.click();
    await page.getByTestId(`catalog-diff-${key}`).click();
    await expect.poll(() => page.locator('[data-testid="diff-view"]:visible [data-testid="diff-headline"]').textContent(), { timeout: UI_WAIT_MS }).toBe('No changes');
    expect(pageErrors(page)).toEqual([]);
  });
});
