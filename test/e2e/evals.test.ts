/**
 * Live evaluation in Chromium against `skillbench serve`: the lexical and
 * embedding baselines and an emulated OpenAI-compatible server on loopback
 * (slow, erroring on some requests, flaky on others). Progress bars advance
 * and cells fill live, one model is stopped and its column reads Incomplete,
 * the Failures filter and the keyboard drive the trace drawer, and every
 * number on screen equals the run's JSON report.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCount, formatRate } from '../../core/report/format';
import { selectorAnswer, startChatEndpoint, type ChatEndpoint } from '../helpers/chatEndpoint';
import { E2E_SETUP_TIMEOUT_MS, E2E_TIMEOUT_MS, pageErrors, screenshot, startApp, type App } from './harness';

const SKILL = 'travel/weather-assessment';
const WEATHERY = /typhoon|hot|clothes|snow|beach/i;

/** The emulated model: wrong on beach requests, flaky on Edinburgh (by seed), an HTTP 400 on Santorini, 120 ms per answer. */
async function emulatedModel(): Promise<ChatEndpoint> {
  return startChatEndpoint((prompt) => {
    if (prompt.kind === 'resource') return { text: selectorAnswer('resource', []), delayMs: 20 };
    if (prompt.request.includes('Santorini')) return { status: 400, message: 'emulated: this request is refused', delayMs: 60 };
    const flaky = prompt.request.includes('Edinburgh');
    const activate = flaky ? (prompt.seed ?? 0) % 2 === 1 : WEATHERY.test(prompt.request);
    return { text: selectorAnswer('activation', activate ? [SKILL] : []), delayMs: 120 };
  });
}

interface JsonReport {
  summary: {
    models: { model: string; cells: number; errors: number; skills: { skill: string; variant: string; accuracy: number | null; precision: number | null; recall: number | null; f1: number | null; cells: number; errors: number; flaky_cases: string[] }[] }[];
    totals: { cells: number; errors: number };
    verdict: { status: string };
  };
  cells: { model: string; outcome: string }[];
}

async function text(page: Page, selector: string): Promise<string> {
  return ((await page.locator(selector).first().textContent()) ?? '').trim();
}

describe('journey 7: a live evaluation in the workbench', () => {
  let app: App;
  let endpoint: ChatEndpoint;
  let page: Page;

  beforeAll(async () => {
    endpoint = await emulatedModel();
    app = await startApp();
    page = await app.page();
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await app?.close();
    await endpoint?.close();
  });

  it(
    'runs 3 models x 5 repeats live, stops the emulated model, filters failures and follows the selection with the trace drawer; every number equals the JSON report',
    async () => {
      const emulated = `openai-compatible:${endpoint.baseUrl}#emulated`;
      await page.getByTestId('activity-evals').click();
      await page.getByTestId('eval-new').click();
      const setup = page.getByTestId('eval-setup');
      await setup.waitFor();
      await page.getByTestId('eval-skill').selectOption(SKILL);
      await setup.getByLabel('baseline:embedding').check().catch(async () => {
        await setup.locator('label', { hasText: 'baseline:embedding' }).locator('input').check();
      });
      await page.getByTestId('eval-model-spec').fill(emulated);
      await page.getByTestId('eval-model-add').click();
      await page.getByTestId('eval-repeats').fill('5');
      // Every case (the package's examples and the workspace's extra cases) x 3 models x 5 repeats.
      await expect.poll(() => text(page, '[data-testid="plan-catalog"]'), { timeout: 60_000 }).toMatch(/\d+ cases/);
      const cases = Number(/(\d+) cases/.exec(await text(page, '[data-testid="plan-catalog"]'))![1]);
      expect(cases).toBeGreaterThanOrEqual(8);
      const perModel = cases * 5;
      await expect.poll(() => text(page, '[data-testid="plan-cells"]'), { timeout: 60_000 }).toBe(formatCount(perModel * 3));
      expect(await text(page, '[data-testid="plan-catalog-tokens"]')).toMatch(/^[\d,]+ \/ 2,000 tokens$/);
      await screenshot(page, 'evals-setup-1280x800');

      await page.keyboard.press('Control+Enter');
      const run = page.getByTestId('eval-run-view');
      await run.waitFor();
      const emulatedRow = page.locator(`[data-testid^="model-progress-"][data-model="${emulated}"]`);
      // Cells fill live: some are recorded while others are still pending.
      await expect.poll(async () => Number((await emulatedRow.locator('[data-field="done"]').textContent())?.split('/')[0]?.trim() ?? 0), { timeout: 60_000 }).toBeGreaterThanOrEqual(3);
      const filled = await page.locator('[data-testid="slot"]:not([data-state="pending"])').count();
      const pending = await page.locator('[data-testid="slot"][data-state="pending"]').count();
      expect(filled).toBeGreaterThan(0);
      expect(pending).toBeGreaterThan(0);
      await screenshot(page, 'evals-live-1280x800');
      await emulatedRow.getByRole('button', { name: 'Stop' }).click();

      await expect.poll(() => page.getByTestId('run-status').getAttribute('data-status'), { timeout: 60_000 }).toBe('incomplete');
      expect(await emulatedRow.getAttribute('data-status')).toBe('stopped');
      expect(await emulatedRow.locator('[data-field="status"]').textContent()).toBe('Incomplete');
      for (const spec of ['baseline:lexical', 'baseline:embedding']) {
        expect(await page.locator(`[data-testid^="model-progress-"][data-model="${spec}"]`).getAttribute('data-status')).toBe('complete');
      }
      expect(await page.getByTestId('run-status').textContent()).not.toContain('Complete');

      // Failures, then Enter: the trace of the selected slot with its 5 repeats.
      await page.getByTestId('mode-failures').click();
      const shown = Number((await text(page, '[data-testid="visible-rows"]')).split(' ')[0]);
      expect(shown).toBeGreaterThan(0);
      expect(shown).toBeLessThan(cases);
      const failing = page.locator('[data-testid="slot"][data-state="fail"]').first();
      await failing.click();
      await page.getByTestId('matrix').focus();
      await page.keyboard.press('Enter');
      const drawer = page.getByTestId('trace-drawer');
      await drawer.waitFor();
      await expect.poll(() => drawer.getByTestId('trace-repeat').count()).toBe(5);
      expect(await drawer.getByTestId('trace-raw').count()).toBe(5);
      expect(await drawer.getByTestId('trace-decision').count()).toBe(5);
      expect(await drawer.getByTestId('trace-prompt').first().textContent()).toContain('<request>');
      const firstRequest = await text(page, '[data-testid="trace-drawer"] .trace-request bdi');
      await screenshot(page, 'evals-trace-1280x800');
      await page.keyboard.press('ArrowDown');
      if (shown > 1) await expect.poll(() => text(page, '[data-testid="trace-drawer"] .trace-request bdi')).not.toBe(firstRequest);
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => drawer.getByTestId('trace-repeat').count()).toBeGreaterThan(0);
      await page.keyboard.press('Escape');
      await expect.poll(() => drawer.count()).toBe(0);

      // Every number on screen equals the run's JSON report.
      const runId = (await run.getAttribute('data-run'))!;
      const exported = await app.call<{ text: string }>('evals.export', { run: runId, format: 'json' });
      const report = JSON.parse(exported.text) as JsonReport;
      expect(await text(page, '[data-testid="run-progress"]')).toContain(`${formatCount(report.summary.totals.cells)} / ${formatCount(perModel * 3)} cells · ${formatCount(report.summary.totals.errors)} errors`);
      for (const m of report.summary.models) {
        const row = page.locator(`[data-testid^="model-progress-"][data-model="${m.model}"]`);
        expect(await row.locator('[data-field="done"]').textContent()).toBe(`${formatCount(m.cells)} / ${formatCount(perModel)}`);
        expect(await row.locator('[data-field="errors"]').textContent()).toBe(`${formatCount(m.errors)} err`);
      }
      await page.getByTestId('section-metrics').click();
      const rows = page.getByTestId('metrics-row');
      expect(await rows.count()).toBe(report.summary.models.reduce((n, m) => n + m.skills.length, 0));
      for (const m of report.summary.models) {
        for (const s of m.skills) {
          const row = page.locator(`[data-testid="metrics-row"][data-model="${m.model}"][data-skill="${s.skill}"][data-variant="${s.variant}"]`);
          expect(await row.locator('[data-field="accuracy"]').textContent()).toBe(formatRate(s.accuracy));
          expect(await row.locator('[data-field="precision"]').textContent()).toBe(formatRate(s.precision));
          expect(await row.locator('[data-field="recall"]').textContent()).toBe(formatRate(s.recall));
          expect(await row.locator('[data-field="f1"]').textContent()).toBe(formatRate(s.f1));
          expect(await row.locator('[data-field="answered"]').textContent()).toBe(`${formatCount(s.cells - s.errors)} of ${formatCount(s.cells)}`);
          expect(await row.locator('[data-field="flaky"]').textContent()).toBe(formatCount(s.flaky_cases.length));
        }
      }
      expect(await page.getByTestId('verdict').getAttribute('data-status')).toBe(report.summary.verdict.status);
      await screenshot(page, 'evals-metrics-1280x800');

      // The run is listed from the run folder with its config hash and resumes to completion.
      await page.getByTestId('resume').click();
      await expect.poll(() => page.getByTestId('run-status').getAttribute('data-status'), { timeout: 120_000 }).toBe('complete');
      expect(await page.getByTestId('run-status').textContent()).toMatch(/^Finished with \d+ errors?$/);
      const listed = page.locator(`[data-testid="eval-run-item"][data-run="${runId}"]`);
      await expect.poll(() => listed.getAttribute('data-status')).toBe('complete');
      expect(await listed.textContent()).toContain(runId.slice(0, 12));
      expect(pageErrors(page)).toEqual([]);
    },
    E2E_TIMEOUT_MS,
  );
});
