/**
 * The results charts in the workbench, against `skillbench serve` in Chromium:
 * a draft-vs-published run on the lexical baseline and two emulated
 * OpenAI-compatible servers on loopback that serve a model of the same name
 * (so their specs share everything but the port). The run's header and its
 * verdict change together when it finishes; the finished run shows no rate,
 * ETA or Stop; the Metrics section charts every model and variant with the
 * numbers of the exported report, each under a short label that tells the two
 * servers apart, with the full spec on hover and in the legend.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatRate } from '../../core/report/format';
import { MODEL_LABEL_MAX } from '../../core/report/modelLabels';
import { selectorAnswer, startChatEndpoint, type ChatEndpoint } from '../helpers/chatEndpoint';
import { E2E_SETUP_TIMEOUT_MS, E2E_TIMEOUT_MS, pageErrors, screenshotThemes, startApp, UI_WAIT_MS, type App } from './harness';

const SKILL = 'travel/weather-assessment';
const WEATHERY = /typhoon|hot|clothes|snow|beach|forecast|storm|rain/i;

/** An emulated server: `activate` decides each activation answer. */
function emulated(activate: (request: string) => boolean): Promise<ChatEndpoint> {
  return startChatEndpoint((prompt) => {
    if (prompt.kind === 'resource') return { text: selectorAnswer('resource', []), delayMs: 5 };
    return { text: selectorAnswer('activation', activate(prompt.request) ? [SKILL] : []), delayMs: 20 };
  });
}

interface Report {
  summary: { models: { model: string; skills: { skill: string; variant: string; accuracy: number | null; recall: number | null }[] }[]; comparisons: { kind: string }[]; verdict: { status: string } };
}

describe('evaluation charts in the workbench', () => {
  let app: App;
  let sharp: ChatEndpoint;
  let eager: ChatEndpoint;
  let page: Page;

  beforeAll(async () => {
    sharp = await emulated((request) => WEATHERY.test(request));
    eager = await emulated(() => true);
    app = await startApp();
    page = await app.page();
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await app?.close();
    await sharp?.close();
    await eager?.close();
  });

  it(
    'finishes with header and verdict in step, drops rate, ETA and Stop, and charts every model and variant under distinct short labels with the full spec in the legend',
    async () => {
      const specs = [`openai-compatible:${sharp.baseUrl}#gpt-x`, `openai-compatible:${eager.baseUrl}#gpt-x`];
      const draft = await app.call<{ id: string; text: string }>('packages.open', { connection: 'default', skill: { namespace: 'travel', name: 'weather-assessment' } });
      const pkg = JSON.parse(draft.text) as { description: string; change_reason?: string };
      pkg.description = 'Use when someone planning a trip asks about forecasts or storms along a route.';
      pkg.change_reason = 'narrower description';
      await app.call('drafts.save', { id: draft.id, text: JSON.stringify(pkg, null, 2) });

      await page.getByTestId('activity-evals').click();
      await page.getByTestId('eval-new').click();
      const setup = page.locator('[data-testid="eval-setup"]:visible');
      await setup.waitFor();
      await setup.getByTestId('eval-skill').selectOption(SKILL);
      await expect.poll(() => setup.getByTestId('eval-target-both').isEnabled(), { timeout: UI_WAIT_MS }).toBe(true);
      await setup.getByTestId('eval-target-both').check();
      for (const spec of specs) {
        await setup.getByTestId('eval-model-spec').fill(spec);
        await setup.getByTestId('eval-model-add').click();
      }
      await setup.getByTestId('eval-repeats').fill('2');
      await expect.poll(() => setup.getByTestId('plan-catalog').count(), { timeout: UI_WAIT_MS }).toBe(2);

      // Every state the page ever renders is checked: a finished header over a verdict that is not final is a mismatch.
      await page.evaluate(() => {
        const seen: string[] = [];
        (window as unknown as { __mismatches: string[] }).__mismatches = seen;
        new MutationObserver(() => {
          const header = document.querySelector('[data-testid="run-status"]');
          const verdict = document.querySelector('[data-testid="verdict"]');
          const status = header?.getAttribute('data-status');
          if (!header || !verdict || status === 'running' || status === 'stopping') return;
          if (verdict.getAttribute('data-status') === 'incomplete' || verdict.querySelector('strong')?.textContent === 'Running') seen.push(`${header.textContent} | ${verdict.textContent}`);
        }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
      });
      await setup.getByTestId('eval-run').click();

      const run = page.locator('[data-testid="eval-run-view"]:visible');
      await run.waitFor();
      const status = run.getByTestId('run-status');
      await expect.poll(() => status.getAttribute('data-status'), { timeout: UI_WAIT_MS }).toBe('complete');
      const runId = (await run.getAttribute('data-run'))!;
      const report = JSON.parse((await app.call<{ text: string }>('evals.export', { run: runId, format: 'json' })).text) as Report;
      await expect.poll(() => run.getByTestId('verdict').getAttribute('data-status'), { timeout: UI_WAIT_MS }).toBe(report.summary.verdict.status);
      expect(await page.evaluate(() => (window as unknown as { __mismatches: string[] }).__mismatches)).toEqual([]);

      // A finished run: no rate, no ETA, no Stop button, only what stays true.
      const progress = run.getByTestId('eval-progress');
      expect(await progress.locator('[data-field="rate"], [data-field="eta"]').count()).toBe(0);
      expect(await progress.getByRole('button', { name: 'Stop' }).count()).toBe(0);
      expect(await run.getByRole('button', { name: 'Stop all' }).count()).toBe(0);
      expect(await progress.textContent()).not.toMatch(/\/s|ETA/);

      await run.getByTestId('section-metrics').click();
      const charts = run.getByTestId('eval-charts');
      await charts.waitFor();
      const rates = charts.locator('[data-chart="rates"] svg');
      const models = report.summary.models.map((m) => m.model);
      expect(models).toEqual(expect.arrayContaining(specs));
      // The legend: one row per model, its full spec, and short labels that differ although the two specs share all but a port.
      const legend = charts.locator('.chart-legend tbody tr');
      expect(await legend.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-spec')))).toEqual(models);
      const labels = await legend.locator('.legend-label').allTextContents();
      expect(new Set(labels).size).toBe(models.length);
      for (const l of labels) expect([...l].length).toBeLessThanOrEqual(MODEL_LABEL_MAX);
      for (const [i, m] of models.entries()) expect(await legend.nth(i).locator('.legend-spec').textContent()).toContain(m);
      // One row per model and variant, its label the legend's, its full spec on hover, its numbers the report's.
      const rows = report.summary.models.flatMap((m) => m.skills.map((s) => ({ m, s })));
      const rowLabels = rates.locator('text.label');
      expect(await rowLabels.count()).toBe(rows.length);
      for (const [i, { m, s }] of rows.entries()) {
        const label = rowLabels.nth(i);
        expect(await label.locator('title').textContent()).toContain(m.model);
        expect(await label.textContent()).toContain(labels[models.indexOf(m.model)]!);
        expect(await label.textContent()).toContain(s.variant);
      }
      const accuracyTips = await rates.locator('g.mark.accuracy > title').allTextContents();
      for (const { s } of rows) if (s.accuracy !== null) expect(accuracyTips.some((t) => t.includes(`· ${s.variant} · Accuracy: ${formatRate(s.accuracy)}`))).toBe(true);
      // The draft-vs-published differences: one row per model.
      const deltas = charts.locator('[data-chart="deltas"] svg');
      expect(await deltas.locator('text.label').count()).toBe(report.summary.comparisons.filter((c) => c.kind === 'variant').length);
      expect(await deltas.locator('text.label').count()).toBe(models.length);
      await screenshotThemes(page, 'evals-charts');
      expect(pageErrors(page)).toEqual([]);
    },
    E2E_TIMEOUT_MS,
  );
});
