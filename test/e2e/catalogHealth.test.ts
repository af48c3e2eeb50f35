/**
 * Catalog health in the workbench: a 17-skill namespace over both runtime
 * limits beside a one-skill namespace that fits. Opened from the catalog's
 * toolbar, the view measures the selected skill's namespace; switched to the
 * big one, it names both broken limits, marks their meters over, lists every
 * skill's share and proposes a split whose parts fit. The palette command
 * opens the same view.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SELECTOR_LIMITS } from '../../core/selector/limits';
import { playwrightChord } from '../../renderer/shell/keys';
import { writeCatalogFixture } from '../helpers/catalogFixture';
import { seedRefund } from './fixtures';
import { pageErrors, screenshotThemes, startApp, type App } from './harness';

async function openCatalog(page: Page): Promise<void> {
  await page.getByTestId('connection-row-default').waitFor();
  await page.keyboard.press(playwrightChord('Mod+Shift+E'));
  await page.getByTestId('catalog-list').waitFor();
}

describe('catalog health view', () => {
  let app: App;
  let skills: string[];
  beforeAll(async () => {
    const fixture = await mkdtemp(join(tmpdir(), 'skillbench-e2e-health-'));
    try {
      skills = await writeCatalogFixture(fixture);
      app = await startApp({
        seed: async (store) => {
          await seedRefund(store, 1);
          for (const id of skills) {
            const [namespace, name] = id.split('/') as [string, string];
            const body = await readFile(join(fixture, 'skills', 'packages', namespace, `${name}.json`), 'utf8');
            await store.publish({ id: { namespace, name }, body, precondition: { kind: 'create' }, actor: 'e2e' });
          }
        },
      });
    } finally {
      await rm(fixture, { recursive: true, force: true });
    }
  });
  afterAll(async () => {
    await app?.close();
  });

  it('opens from the catalog, names the limits a 17-skill namespace breaks and proposes a split that fits', async () => {
    const page = await app.page();
    await openCatalog(page);
    await page.getByTestId('catalog-row-billing/refund').click();
    await page.getByRole('button', { name: 'Catalog health' }).click();

    // The selected skill's namespace is measured first: one skill, within every limit.
    const view = page.getByTestId('catalog-health-default');
    await view.getByText('Every budget is within its limit.').waitFor();
    await expect(view.getByRole('combobox', { name: 'Namespace' }).inputValue()).resolves.toBe('billing');

    await view.getByRole('combobox', { name: 'Namespace' }).fill('docs');
    await view.getByRole('button', { name: 'Check' }).click();
    const verdict = view.getByTestId('health-verdict');
    await verdict.getByText('2 limits broken').waitFor();
    await expect(verdict.textContent()).resolves.toContain(`auto candidates 17 > ${DEFAULT_SELECTOR_LIMITS.maxAutoCandidates} (maxAutoCandidates, TRUVAG3_SKILL_MAX_AUTO_CANDIDATES)`);
    await expect(verdict.textContent()).resolves.toMatch(/activation catalog tokens \d+ > 2000 \(catalogTokenBudget, TRUVAG3_SKILL_CATALOG_TOKEN_BUDGET\)/);
    await expect(verdict.textContent()).resolves.toContain('the selector is never asked');

    // The meters: the two broken budgets over, named with their limit; the binding count within.
    const candidates = view.getByRole('meter', { name: 'auto candidates' });
    await expect(candidates.getAttribute('aria-valuenow')).resolves.toBe('17');
    await expect(view.getByTestId('health-budget-auto_candidates').getAttribute('data-over')).resolves.toBe('true');
    await expect(view.getByTestId('health-budget-auto_candidates').textContent()).resolves.toContain('Over the limit by 1maxAutoCandidates · TRUVAG3_SKILL_MAX_AUTO_CANDIDATES');
    await expect(view.getByTestId('health-budget-catalog_tokens').textContent()).resolves.toContain('catalogTokenBudget · TRUVAG3_SKILL_CATALOG_TOKEN_BUDGET');
    await expect(view.getByTestId('health-budget-catalog_tokens').getAttribute('data-over')).resolves.toBe('true');
    await expect(view.getByTestId('health-budget-bindings').getAttribute('data-over')).resolves.toBe('false');

    // Every skill with its share; the shares add up to the whole catalog.
    const table = view.getByRole('table', { name: 'Skills' });
    await expect(table.locator('tbody tr').count()).resolves.toBe(skills.length);
    const shares = (await table.locator('.share-figure').allTextContents()).map((t) => Number.parseFloat(t));
    expect(shares).toHaveLength(skills.length);
    expect(shares.reduce((a, b) => a + b, 0)).toBeCloseTo(100, 0);

    // The split: every skill in exactly one part, each part within both limits as shown.
    const split = view.getByRole('region', { name: 'Proposed split' });
    await split.getByText(/Proposed split into \d+ agent catalogs that each fit/).waitFor();
    const parts = split.locator('[data-testid^="health-part-"]');
    const placed: string[] = [];
    for (let i = 0; i < (await parts.count()); i++) {
      const part = parts.nth(i);
      const figures = /(\d+) auto candidates \(≤ (\d+)\) · ([\d,]+) catalog tokens \(≤ ([\d,]+)\)/.exec((await part.locator('p').textContent()) ?? '')!;
      const n = (s: string) => Number(s.replace(/,/g, ''));
      expect(n(figures[1]!)).toBeLessThanOrEqual(n(figures[2]!));
      expect(n(figures[3]!)).toBeLessThanOrEqual(n(figures[4]!));
      placed.push(...(await part.locator('li').allTextContents()));
    }
    expect(placed.sort()).toEqual(skills);

    await screenshotThemes(page, 'catalog-health');
    expect(pageErrors(page)).toEqual([]);
  });

  it('adds where the requests of a chosen eval run went', async () => {
    const toId = (s: string) => ({ namespace: s.split('/')[0]!, name: s.split('/')[1]! });
    const { run } = await app.call<{ run: string }>('evals.start', { targets: skills.map((s) => ({ kind: 'published', skill: toId(s) })), models: ['baseline:lexical'], connection: 'default', concurrency: 2 });
    // The run's own state says when every cell is recorded.
    while ((await app.call<{ run: { status: string } }>('evals.get', { run })).run.status === 'running') await new Promise((r) => setTimeout(r, 200));

    const page = await app.page();
    await openCatalog(page);
    await page.getByTestId('catalog-row-docs/api-client').click();
    await page.getByRole('button', { name: 'Catalog health' }).click();
    const view = page.getByTestId('catalog-health-default');
    await view.getByTestId('health-verdict').getByText('2 limits broken').waitFor();
    await view.getByRole('combobox', { name: 'Eval run' }).focus();
    await view.getByRole('combobox', { name: 'Eval run' }).locator(`option[value="${run}"]`).waitFor({ state: 'attached' });
    await view.getByRole('combobox', { name: 'Eval run' }).selectOption(run);
    await view.getByRole('button', { name: 'Check' }).click();
    const routing = view.getByRole('region', { name: 'Routing' });
    await routing.getByText(`Where the requests of run ${run} went`).waitFor();
    await expect(routing.locator('tbody tr').count()).resolves.toBe(skills.length);
    // Over both limits the selector is never asked: every request of the run activated nothing.
    await expect(routing.textContent()).resolves.toContain('No two skills took each other’s requests or fired together.');
    await routing.scrollIntoViewIfNeeded();
    await screenshotThemes(page, 'catalog-health-routing');
    expect(pageErrors(page)).toEqual([]);
  });

  it('opens from the command palette for the active connection', async () => {
    const page = await app.page();
    await page.getByTestId('connection-row-default').waitFor();
    await page.keyboard.press(playwrightChord('Mod+Shift+P'));
    await page.getByTestId('palette-command-catalog.showHealth').waitFor();
    await page.keyboard.type('Show Catalog Health');
    await page.keyboard.press('Enter');
    const view = page.getByTestId('catalog-health-default');
    await view.getByRole('heading', { name: /Catalog health/ }).waitFor();
    // Without a skill chosen, the catalog's first namespace is measured.
    await view.getByText('Every budget is within its limit.').waitFor();
    await expect(view.getByRole('combobox', { name: 'Namespace' }).inputValue()).resolves.toBe('billing');
    expect(pageErrors(page)).toEqual([]);
  });
});
