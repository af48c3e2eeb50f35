/**
 * Bench suite `ui-catalog`: the workbench's catalog with 10,000 skills,
 * measured in Chromium against `skillbench serve` (the end-to-end harness).
 *
 * - first rows: from the keystroke that opens the catalog tab to its first row
 *   in the DOM, against the baseline of the one `catalog.page` request those
 *   rows need, sent from the same page;
 * - the number of row elements in the DOM at the end of the list (target < 100).
 */
import { performance } from 'node:perf_hooks';
import { playwrightChord } from '../../renderer/shell/keys';
import { seedMany } from '../e2e/fixtures';
import { startApp } from '../e2e/harness';
import { median, type BenchRow } from './harness';

const SKILLS = 10_000;
const ROUNDS = 7;

export async function bench(): Promise<BenchRow[]> {
  const app = await startApp({ seed: (store) => seedMany(store, SKILLS) });
  try {
    const page = await app.page();
    await page.getByTestId('connection-row-default').waitFor();
    const firstRows: number[] = [];
    const requests: number[] = [];
    let rowsAtEnd = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const start = performance.now();
      await page.keyboard.press(playwrightChord('Mod+Shift+E'));
      await page.locator('[data-testid^="catalog-row-"]').first().waitFor();
      firstRows.push(performance.now() - start);
      await page.locator('[data-testid="catalog-count"][data-complete="true"]').waitFor({ timeout: 120_000 });
      if (round === 0) {
        await page.locator('[data-testid^="catalog-row-"]').first().click();
        await page.keyboard.press(playwrightChord('Mod+End'));
        await page.locator('[data-testid="catalog-row-ns-99/skill-9999"]').waitFor();
        rowsAtEnd = await page.locator('[data-testid^="catalog-row-"]').count();
        await page.keyboard.press(playwrightChord('Mod+Home'));
      }
      const before = performance.now();
      await page.evaluate(async () => {
        const res = await fetch('/api/catalog.page', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ connection: 'default', limit: 200 }) });
        await res.json();
      });
      requests.push(performance.now() - before);
      await page.keyboard.press(playwrightChord('Alt+W'));
      await page.getByTestId('catalog-list').waitFor({ state: 'detached' });
    }
    const subject = median(firstRows);
    const baseline = median(requests);
    return [
      {
        suite: 'ui-catalog',
        name: `catalog first rows, ${SKILLS.toLocaleString('en')} skills (Chromium)`,
        medianMs: subject,
        baselineName: 'one catalog.page request from the page',
        baselineMs: baseline,
        ratio: subject / baseline,
        target: '< 1000 ms; < 100 rows in DOM',
        met: subject < 1000 && rowsAtEnd < 100,
        note: `${rowsAtEnd} row elements in the DOM at the end of the list`,
      },
    ];
  } finally {
    await app.close();
  }
}
