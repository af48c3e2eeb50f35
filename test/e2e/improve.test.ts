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
import { E2E_SETUP_TIMEOUT_MS, E2E_TIMEOUT_MS, pageErrors, screenshot, screenshotSizes, startApp, type App } from './harness';

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
    // The keyword proposer's candidates read as mechanical suggestions, and the best train score is not dressed as a result.
    await expect(page.getByTestId('improve-mechanical').textContent()).resolves.toContain('Mechanical suggestions.');
    const evaluated = report.candidates.filter((c) => c.status === 'evaluated').length;
    if (evaluated > 0) await expect(page.getByTestId('improve-candidates').getByText('mechanical', { exact: true }).count()).resolves.toBe(report.candidates.length);
    if (report.best && !report.winner) await expect(page.getByTestId(`improve-candidate-${report.best.candidate}`).getByText('best on train', { exact: true }).isVisible()).resolves.toBe(true);
    // What the proposer said of each round (no room, nothing missed) is shown, not only the candidates.
    const notes = report.rounds.flatMap((r) => r.notes.filter((n) => n !== 'no candidate to evaluate'));
    if (notes.length > 0) {
      await expect(page.getByTestId('improve-notes').textContent()).resolves.toContain(notes[0]!);
      await page.getByTestId('improve-notes').scrollIntoViewIfNeeded();
      await screenshot(page, 'improve-description-notes-1280x800');
      await page.getByTestId('improve-verdict').scrollIntoViewIfNeeded();
    }
    // The seed shows once.
    await expect(panel.getByText(new RegExp(`seed ${SEED}`)).count()).resolves.toBe(1);
    // Every model of the held-out comparison is judged by case and by answer, green only when it lost nothing.
    for (const h of report.heldout ?? []) {
      const judged = await page.getByTestId(`improve-heldout-${h.model}`).getAttribute('data-judged');
      const lost = h.comparison.test.bOnly > 0 || h.answers.drops.length > 0;
      expect(judged === 'better' || judged === 'no difference').toBe(!lost && !h.worse);
    }
    await screenshotSizes(page, 'improve-description-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await screenshotSizes(page, 'improve-description-light');
    await page.emulateMedia({ colorScheme: 'dark' });

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
