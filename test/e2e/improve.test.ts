/**
 * "Improve description" in Chromium against `skillbench serve` (its example
 * workspace, so the skill's extra cases are there): open a skill, run the
 * description optimizer with the lexical and embedding baselines and the
 * deterministic keyword proposer, read the held-out verdict, then either
 * apply the winner to the draft (a proven gain) or see "no proven gain" with
 * the draft untouched. Nothing is published either way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DraftView, OptimizeRunView, PackageRevision } from '../../core/api/contract';
import { openEditor } from './authoring';
import { E2E_SETUP_TIMEOUT_MS, E2E_TIMEOUT_MS, pageErrors, screenshot, startApp, type App } from './harness';

const WEATHER = { namespace: 'travel', name: 'weather-assessment' };
const SEED = '20251201';

describe('improve description', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp();
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await app?.close();
  });

  it('runs the optimizer on the baselines, shows the verdict, and applies only a proven gain, only on click', { timeout: E2E_TIMEOUT_MS }, async () => {
    const page = await app.page();
    await openEditor(page, WEATHER);
    const before = await app.call<PackageRevision>('packages.get', { connection: 'default', skill: WEATHER });

    await page.getByTestId('editor-improve').click();
    const panel = page.getByTestId('improve-panel');
    await panel.waitFor();
    await expect(page.getByTestId('improve-models').inputValue()).resolves.toBe('baseline:lexical, baseline:embedding');
    await expect(page.getByTestId('improve-proposer').inputValue()).resolves.toBe('baseline:keywords');
    await page.getByTestId('improve-seed').fill(SEED);
    await page.getByTestId('improve-run').click();

    await page.getByTestId('improve-progress').waitFor();
    const verdict = page.getByTestId('improve-verdict');
    await verdict.waitFor({ timeout: 150_000 });
    const run = await app.call<OptimizeRunView>('optimize.get', { run: (await panel.getAttribute('data-run'))! });
    const report = run.report!;
    await expect(verdict.getAttribute('data-verdict')).resolves.toBe(report.verdict);
    // Every candidate is listed, with a score per model for those evaluated.
    await expect(page.locator('[data-testid^="improve-candidate-"]').count()).resolves.toBe(report.candidates.length);
    await page.getByTestId('improve-candidates').getByText('original', { exact: true }).waitFor();
    await screenshot(page, 'improve-description-1280x800');

    if (report.verdict === 'proven_gain') {
      await expect(page.getByTestId('improve-heldout').isVisible()).resolves.toBe(true);
      await page.getByTestId('improve-apply').click();
      await page.getByTestId('improve-applied').waitFor();
      await screenshot(page, 'improve-description-applied-1280x800');
      await page.getByTestId('improve-close').click();
      // The draft holds the winner (autosaved), the published revision does not.
      await expect
        .poll(async () => (await app.call<{ drafts: DraftView[] }>('drafts.list')).drafts.find((d) => d.origin.kind === 'store' && d.origin.skill.name === WEATHER.name)?.text ?? '', { timeout: 30_000 })
        .toContain(JSON.stringify(report.winner!.description).slice(1, -1));
    } else {
      await expect(verdict.textContent()).resolves.toMatch(/No proven gain/);
      await page.getByTestId('improve-nothing').waitFor();
      await expect(page.getByTestId('improve-apply').count()).resolves.toBe(0);
      await page.getByTestId('improve-close').click();
      await expect(page.locator('[data-dirty="true"]').count()).resolves.toBe(0);
    }
    const after = await app.call<PackageRevision>('packages.get', { connection: 'default', skill: WEATHER });
    expect(after.version).toBe(before.version);
    expect(after.package.description).toBe(before.package.description);
    expect(pageErrors(page)).toEqual([]);
  });
});
