/**
 * Journey 5, guarded delete: the history of a skill with seven versions shows
 * the published and protected markers; deleting v5 states the consequence and
 * needs the typed `billing/refund@v5` and a reason; v5 then reads as a
 * tombstone; the published version's Delete is disabled with the reason; and
 * the registry's 409 for a range that touches a protected version is shown
 * inside the dialog. A retained version opens read-only.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playwrightChord } from '../../renderer/shell/keys';
import { seedRefund } from './fixtures';
import { pageErrors, screenshot, startApp, VIEWPORTS, type App } from './harness';

/**
 * Opens the history of billing/refund from the catalog. The chord is pressed
 * once the sidebar shows `default` as the active connection and answering,
 * so Open Catalog has a connection to open; the catalog tab's own selection
 * says the chord arrived.
 */
async function openHistory(page: Page): Promise<void> {
  await page.locator('[data-testid="connection-row-default"][aria-selected="true"][data-reachability="up"]').waitFor();
  await page.keyboard.press(playwrightChord('Mod+Shift+E'));
  await page.locator('[data-testid="tab-catalog:default"][aria-selected="true"]').waitFor();
  await page.getByTestId('catalog-row-billing/refund').click();
  await page.getByTestId('catalog-history-billing/refund').click();
  await page.getByTestId('version-row-7').waitFor();
}

describe('version history and guarded delete (journey 5)', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp({ seed: (store) => seedRefund(store, 7) });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('marks the published version and its predecessor, and disables their Delete with the reason', async () => {
    const page = await app.page();
    await openHistory(page);
    await expect(page.getByTestId('version-row-7').getAttribute('data-protection')).resolves.toBe('published');
    await expect(page.getByTestId('version-row-6').getAttribute('data-protection')).resolves.toBe('protected');
    await expect(page.getByTestId('version-published-7').isVisible()).resolves.toBe(true);
    await expect(page.getByTestId('version-delete-7').isDisabled()).resolves.toBe(true);
    await expect(page.getByTestId('version-delete-7').getAttribute('title')).resolves.toMatch(/published version/);
    await expect(page.getByTestId('version-delete-6').isDisabled()).resolves.toBe(true);
    await expect(page.getByTestId('version-delete-5').isEnabled()).resolves.toBe(true);
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      await screenshot(page, `versions-${viewport.width}x${viewport.height}`);
    }
    expect(pageErrors(page)).toEqual([]);
  });

  it('deletes v5 only after the consequence is stated and billing/refund@v5 is typed, then shows the tombstone', async () => {
    const page = await app.page();
    await openHistory(page);
    await page.getByTestId('version-delete-5').click();
    const dialog = page.getByTestId('delete-dialog');
    await dialog.waitFor();
    // The consequence comes from the registry's preview: wait for it, as a person reads it once it is there.
    await page.getByTestId('delete-consequence').filter({ hasText: /v5 of billing\/refund will become a tombstone/ }).waitFor();
    await page.getByTestId('delete-expected').filter({ hasText: /^billing\/refund@v5$/ }).waitFor();
    const submit = page.getByTestId('delete-submit');
    await expect(submit.isDisabled()).resolves.toBe(true);
    await page.getByTestId('delete-reason').fill('leaked secret in an example');
    await page.getByTestId('delete-confirm').fill('billing/refund@v4');
    await expect(submit.isDisabled()).resolves.toBe(true);
    await page.getByTestId('delete-confirm').fill('billing/refund@v5');
    await expect(submit.isEnabled()).resolves.toBe(true);
    await screenshot(page, 'delete-dialog-1280x800');
    await submit.click();
    await dialog.waitFor({ state: 'detached' });
    await page.locator('[data-testid="version-row-5"][data-status="deleted"]').waitFor();
    await expect(page.getByTestId('version-tombstone-5').textContent()).resolves.toMatch(/deleted/);
    await expect(page.getByTestId('version-open-5').isDisabled()).resolves.toBe(true);
    // The registry agrees: v5 is a tombstone, the others are untouched.
    const history = await app.call<{ versions: { version: number; status: string }[] }>('versions.list', { connection: 'default', skill: { namespace: 'billing', name: 'refund' } });
    expect(history.versions.filter((v) => v.status === 'deleted').map((v) => v.version)).toEqual([5]);
    await screenshot(page, 'versions-tombstone-1280x800');
    expect(pageErrors(page)).toEqual([]);
  });

  it('shows the registry refusing a range that touches a protected version (409) inside the dialog, deleting nothing', async () => {
    const page = await app.page();
    await openHistory(page);
    await page.getByTestId('versions-delete-range').click();
    await page.getByTestId('delete-from').fill('3');
    await page.getByTestId('delete-to').fill('6');
    await page.getByTestId('delete-expected').filter({ hasText: /^billing\/refund@v3-v6$/ }).waitFor();
    await page.getByTestId('delete-refusal').waitFor();
    await page.getByTestId('delete-reason').fill('clean up');
    await page.getByTestId('delete-confirm').fill('billing/refund@v3-v6');
    await page.getByTestId('delete-submit').click();
    const error = page.getByTestId('delete-error');
    await error.waitFor();
    await expect(error.textContent()).resolves.toMatch(/409 Conflict: .*protected/);
    await expect(page.getByTestId('delete-dialog').isVisible()).resolves.toBe(true);
    await screenshot(page, 'delete-409-1280x800');
    const history = await app.call<{ versions: { version: number; status: string }[] }>('versions.list', { connection: 'default', skill: { namespace: 'billing', name: 'refund' } });
    expect(history.versions.filter((v) => v.status === 'deleted').map((v) => v.version)).toEqual([5]);
  });

  it('opens a retained version read-only', async () => {
    const page = await app.page();
    await openHistory(page);
    await page.getByTestId('version-open-3').click();
    const text = page.getByTestId('revision-text');
    await text.waitFor();
    await expect(text.textContent()).resolves.toContain('Refund revision 3');
    await expect(page.locator('[data-testid="revision-billing/refund@3"] textarea, [data-testid="revision-billing/refund@3"] input').count()).resolves.toBe(0);
    expect(pageErrors(page)).toEqual([]);
  });
});
