/**
 * Live evaluation in Chromium against `skillbench serve`: the lexical and
 * embedding baselines and an emulated OpenAI-compatible server on loopback
 * (slow, erroring on some requests, flaky on others). Progress bars advance
 * and cells fill live, one model is stopped and its column reads Incomplete,
 * the Failures filter and the keyboard drive the trace drawer, and every
 * number on screen equals the run's JSON report.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCount, formatP, formatRate } from '../../core/report/format';
import { selectorAnswer, startChatEndpoint, type ChatEndpoint } from '../helpers/chatEndpoint';
import { E2E_SETUP_TIMEOUT_MS, E2E_TIMEOUT_MS, pageErrors, screenshotSizes, startApp, UI_WAIT_MS, VIEWPORTS, type App } from './harness';

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

interface CaseVerdicts {
  case: string;
  verdict_a: 'right' | 'wrong' | 'tie' | 'none';
  verdict_b: 'right' | 'wrong' | 'tie' | 'none';
}

interface Comparison {
  kind: 'variant' | 'model';
  a: string;
  b: string;
  model?: string;
  variant?: string;
  accuracy_a: number | null;
  accuracy_b: number | null;
  test: { pValue: number };
  deltas?: { recall: { value: number | null; interval: { low: number; high: number } | null } };
  cases: CaseVerdicts[];
}

interface JsonReport {
  summary: {
    comparisons: Comparison[];
    models: { model: string; cells: number; errors: number; skills: { skill: string; variant: string; accuracy: number | null; precision: number | null; recall: number | null; f1: number | null; cells: number; errors: number; invalid: number; flaky_cases: string[] }[] }[];
    totals: { cells: number; errors: number };
    verdict: { status: string; reasons?: { code: string; message: string }[] };
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
      // Every case (the package's examples and the workspace's extra cases) x 3 models x 5 repeats, once the plan is current.
      let cases = 0;
      await expect
        .poll(
          async () => {
            const found = /(\d+) cases/.exec(await text(page, '[data-testid="plan-catalog"]'));
            cases = found ? Number(found[1]) : 0;
            return cases > 0 && (await text(page, '[data-testid="plan-cells"]')) === formatCount(cases * 15);
          },
          { timeout: UI_WAIT_MS },
        )
        .toBe(true);
      expect(cases).toBeGreaterThanOrEqual(8);
      const perModel = cases * 5;
      expect(await text(page, '[data-testid="plan-catalog-tokens"]')).toMatch(/^[\d,]+ \/ 2,000 tokens$/);
      await screenshotSizes(page, 'evals-setup');

      await page.keyboard.press('Control+Enter');
      const run = page.getByTestId('eval-run-view');
      await run.waitFor();
      const emulatedRow = page.locator(`[data-testid^="model-progress-"][data-model="${emulated}"]`);
      // Cells fill live: some are recorded while others are still pending.
      await expect.poll(async () => Number((await emulatedRow.locator('[data-field="done"]').textContent())?.split('/')[0]?.trim() ?? 0), { timeout: UI_WAIT_MS }).toBeGreaterThanOrEqual(3);
      const filled = await page.locator('[data-testid="slot"]:not([data-state="pending"])').count();
      const pending = await page.locator('[data-testid="slot"][data-state="pending"]').count();
      expect(filled).toBeGreaterThan(0);
      expect(pending).toBeGreaterThan(0);
      // One size while the emulated model is still running (the journey stops it next); the wide one after the resume below.
      await screenshotSizes(page, 'evals-live', [VIEWPORTS[0]]);
      await emulatedRow.getByRole('button', { name: 'Stop' }).click();

      await expect.poll(() => page.getByTestId('run-status').getAttribute('data-status'), { timeout: UI_WAIT_MS }).toBe('incomplete');
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
      await expect.poll(() => drawer.getByTestId('trace-repeat').count(), { timeout: UI_WAIT_MS }).toBe(5);
      expect(await drawer.getByTestId('trace-raw').count()).toBe(5);
      expect(await drawer.getByTestId('trace-decision').count()).toBe(5);
      expect(await drawer.getByTestId('trace-prompt').first().textContent()).toContain('<request>');
      const firstRequest = await text(page, '[data-testid="trace-drawer"] .trace-request bdi');
      await screenshotSizes(page, 'evals-trace');
      await page.keyboard.press('ArrowDown');
      if (shown > 1) await expect.poll(() => text(page, '[data-testid="trace-drawer"] .trace-request bdi'), { timeout: UI_WAIT_MS }).not.toBe(firstRequest);
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => drawer.getByTestId('trace-repeat').count(), { timeout: UI_WAIT_MS }).toBeGreaterThan(0);
      await page.keyboard.press('Escape');
      await expect.poll(() => drawer.count(), { timeout: UI_WAIT_MS }).toBe(0);

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
          // Every rate beside the share of cells it rests on: usable answers, errors and unusable answers apart.
          expect(await row.locator('[data-field="usable"]').textContent()).toBe(
            `${formatCount(s.cells - s.errors - s.invalid)} of ${formatCount(s.cells)}${s.errors > 0 ? ` · ${formatCount(s.errors)} err` : ''}${s.invalid > 0 ? ` · ${formatCount(s.invalid)} unusable` : ''}`,
          );
          expect(await row.locator('[data-field="flaky"]').textContent()).toBe(formatCount(s.flaky_cases.length));
        }
      }
      expect(await page.getByTestId('verdict').getAttribute('data-status')).toBe(report.summary.verdict.status);
      // The emulated model's refused request is an error cell: the run reaches no verdict, and says why, loudly.
      const reasons = (report.summary.verdict.reasons ?? []).filter((r) => r.code !== 'cells_missing');
      expect(await page.getByTestId('verdict-reason').allTextContents()).toEqual(reasons.map((r) => r.message));
      await screenshotSizes(page, 'evals-metrics');

      // The run is listed from the run folder with its config hash and resumes to completion.
      await page.getByTestId('resume').click();
      await page.getByTestId('section-matrix').click();
      await expect.poll(() => page.getByTestId('run-status').getAttribute('data-status'), { timeout: UI_WAIT_MS }).toMatch(/^(running|complete)$/);
      await screenshotSizes(page, 'evals-live', [VIEWPORTS[1]]);
      await expect.poll(() => page.getByTestId('run-status').getAttribute('data-status'), { timeout: UI_WAIT_MS }).toBe('complete');
      expect(await page.getByTestId('run-status').textContent()).toMatch(/^Finished with \d+ errors?$/);
      const listed = page.locator(`[data-testid="eval-run-item"][data-run="${runId}"]`);
      await expect.poll(() => listed.getAttribute('data-status'), { timeout: UI_WAIT_MS }).toBe('complete');
      expect(await listed.textContent()).toContain(runId.slice(0, 12));
      expect(pageErrors(page)).toEqual([]);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'journey 8: draft vs published shows per-model rates with intervals, the recall difference with its interval and p-value, pass→fail flips first, a missing case flagged, and no Complete badge while errors remain',
    async () => {
      const emulated = `openai-compatible:${endpoint.baseUrl}#emulated`;
      // An author's draft: a narrower description, so some requests the published revision caught are missed.
      const draft = await app.call<{ id: string; text: string }>('packages.open', { connection: 'default', skill: { namespace: 'travel', name: 'weather-assessment' } });
      const pkg = JSON.parse(draft.text) as { description: string; change_reason?: string };
      pkg.description = 'Use when someone planning a trip asks about forecasts or storms along a route.';
      pkg.change_reason = 'narrower description';
      await app.call('drafts.save', { id: draft.id, text: JSON.stringify(pkg, null, 2) });

      await page.getByTestId('eval-new').click();
      const setup = page.locator('[data-testid="eval-setup"]:visible');
      await setup.waitFor();
      await setup.getByTestId('eval-skill').selectOption(SKILL);
      await expect.poll(() => setup.getByTestId('eval-target-both').isEnabled(), { timeout: UI_WAIT_MS }).toBe(true);
      await setup.getByTestId('eval-target-both').check();
      await setup.locator('label', { hasText: 'baseline:embedding' }).locator('input').check();
      await setup.getByTestId('eval-model-spec').fill(emulated);
      await setup.getByTestId('eval-model-add').click();
      await setup.getByTestId('eval-repeats').fill('3');
      // Guide 9.4: one resource model for every activation model, chosen by its visible label.
      await setup.getByLabel('Resource model').selectOption('baseline:lexical');
      await expect.poll(() => setup.getByTestId('plan-catalog').count(), { timeout: UI_WAIT_MS }).toBe(2);
      expect(await setup.getByTestId('plan-case-origins').first().textContent()).toMatch(/^\(\d+ activation examples \+ \d+ extra cases/);
      await screenshotSizes(page, 'evals-setup-draft-vs-published');
      await setup.getByTestId('eval-run').click();

      const run = page.locator('[data-testid="eval-run-view"]:visible');
      await run.waitFor();
      const status = run.getByTestId('run-status');
      await expect.poll(() => status.getAttribute('data-status'), { timeout: UI_WAIT_MS }).toBe('complete');
      // Errors remain (the emulated model refuses one request): never a Complete badge.
      expect(await status.textContent()).toMatch(/^Finished with \d+ errors?$/);

      const runId = (await run.getAttribute('data-run'))!;
      const report = JSON.parse((await app.call<{ text: string }>('evals.export', { run: runId, format: 'json' })).text) as JsonReport & { run: { resource_model?: string } };
      expect(report.run.resource_model).toBe('baseline:lexical');
      expect(await run.getByTestId('eval-resource-model').textContent()).toBe('Resource model: baseline:lexical');
      const variantComparisons = report.summary.comparisons.filter((c) => c.kind === 'variant');
      expect(variantComparisons.map((c) => c.model).sort()).toEqual(['baseline:embedding', 'baseline:lexical', emulated].sort());

      await run.getByTestId('section-comparison').click();
      const sections = run.getByTestId('comparison');
      expect(await sections.count()).toBe(report.summary.comparisons.length);
      for (let i = 0; i < report.summary.comparisons.length; i++) {
        const c = report.summary.comparisons[i]!;
        const section = sections.nth(i);
        expect(await section.getAttribute('data-a')).toBe(c.a);
        expect(await section.getAttribute('data-b')).toBe(c.b);
        expect(await section.locator('[data-field="accuracy_a"]').textContent()).toBe(formatRate(c.accuracy_a));
        expect(await section.locator('[data-field="accuracy_b"]').textContent()).toBe(formatRate(c.accuracy_b));
        expect(await section.locator('[data-field="p"]').textContent()).toBe(formatP(c.test.pValue));
        const r = c.deltas?.recall;
        const shown = r && r.value !== null ? `${r.value > 0 ? '+' : ''}${formatRate(r.value)}${r.interval ? ` [${formatRate(r.interval.low)}, ${formatRate(r.interval.high)}]` : ''}` : 'n/a';
        expect(await section.locator('[data-field="d_recall"]').textContent()).toBe(shown);
        // Flips: pass→fail first, then fail→pass, then missing cases; exactly the report's case verdicts.
        const kinds = await section.getByTestId('flip').evaluateAll((rows) => rows.map((row) => `${row.getAttribute('data-kind')}|${row.getAttribute('data-case')}`));
        const expected = [
          ...c.cases.filter((x) => x.verdict_a === 'wrong' && x.verdict_b === 'right').map((x) => `pass→fail|${x.case}`),
          ...c.cases.filter((x) => x.verdict_a === 'right' && x.verdict_b === 'wrong').map((x) => `fail→pass|${x.case}`),
          ...c.cases.filter((x) => x.verdict_a === 'none' || x.verdict_b === 'none').map((x) => `missing|${x.case}`),
        ];
        expect(kinds.filter((k) => !k.startsWith('flaky|'))).toEqual(expected);
        // The direction is said in words: which side a PASS→FAIL flip counts against.
        expect(await section.getByTestId('comparison-direction').textContent()).toContain(c.kind === 'variant' ? 'PASS→FAIL means the draft lost the case' : 'PASS→FAIL means');
      }
      // The emulated model never answered the refused request: flagged missing, not counted as a pass.
      const emulatedSection = sections.filter({ hasText: 'emulated' }).first();
      expect(await emulatedSection.locator('[data-testid="flip"][data-kind="missing"]').count()).toBeGreaterThan(0);
      await screenshotSizes(page, 'evals-comparison');

      await run.getByTestId('section-metrics').click();
      for (const m of report.summary.models) {
        for (const s of m.skills) {
          const row = run.locator(`[data-testid="metrics-row"][data-model="${m.model}"][data-variant="${s.variant}"]`);
          expect(await row.locator('[data-field="precision"]').textContent()).toBe(formatRate(s.precision));
          expect(await row.locator('[data-field="recall"]').textContent()).toBe(formatRate(s.recall));
          expect(await row.locator('[data-field="flaky"]').textContent()).toBe(formatCount(s.flaky_cases.length));
        }
      }
      expect(await run.locator('[data-testid="metrics-row"] .ci').first().textContent()).toMatch(/^\[\d+\.\d%, \d+\.\d%\]$/);
      await screenshotSizes(page, 'evals-metrics-draft');
      expect(pageErrors(page)).toEqual([]);
    },
    E2E_TIMEOUT_MS,
  );
});

describe("the workspace's skillbench.config.json in the evaluation setup", () => {
  let app: App;
  let ws: string;

  beforeAll(async () => {
    ws = await mkdtemp(join(tmpdir(), 'skillbench-e2e-project-'));
    await mkdir(join(ws, 'skills', 'packages'), { recursive: true });
    app = await startApp();
    await app.call('workspace.open', { dir: ws });
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await app?.close();
    await rm(ws, { recursive: true, force: true });
  });

  it('starts from the models, repeats and gates the CLI reads from the same file, and says which setting of a broken file is wrong', { timeout: E2E_TIMEOUT_MS }, async () => {
    await writeFile(
      join(ws, 'skillbench.config.json'),
      JSON.stringify({ models: ['baseline:embedding'], gates: { min_accuracy: 0.9, fail_on_regression: true }, limits: { repeats: 3, concurrency: 2 } }),
    );
    const page = await app.page();
    await page.getByTestId('activity-evals').click();
    await page.getByTestId('eval-new').click();
    const setup = page.locator('[data-testid="eval-setup"]:visible');
    await setup.waitFor();
    await expect
      .poll(() => setup.getByTestId('eval-project-defaults').textContent(), { timeout: UI_WAIT_MS })
      .toBe('Defaults from skillbench.config.json: models baseline:embedding · repeats 3 · concurrency 2 · min accuracy 0.9 · fail on regression');
    await expect(setup.getByTestId('eval-repeats').inputValue()).resolves.toBe('3');
    await expect(setup.getByLabel('Concurrency').inputValue()).resolves.toBe('2');
    await expect(setup.getByLabel('baseline:embedding').isChecked()).resolves.toBe(true);
    await expect(setup.getByLabel('baseline:lexical').isChecked()).resolves.toBe(false);
    // The plan counts one model at three repeats.
    let cases = 0;
    await expect
      .poll(
        async () => {
          const found = /(\d+) cases/.exec((await setup.getByTestId('plan-catalog').first().textContent()) ?? '');
          cases = found ? Number(found[1]) : 0;
          return cases > 0 && (await setup.getByTestId('plan-cells').textContent()) === formatCount(cases * 3);
        },
        { timeout: UI_WAIT_MS },
      )
      .toBe(true);
    await screenshotSizes(page, 'evals-setup-project-defaults');

    // A wrong setting: the setup names the file and the setting, and starts from the built-in defaults.
    await writeFile(join(ws, 'skillbench.config.json'), JSON.stringify({ limits: { repeats: 0 } }));
    await page.getByTestId('tab-close-evals.setup:default:').click();
    await page.getByTestId('eval-new').click();
    const second = page.locator('[data-testid="eval-setup"]:visible');
    await expect
      .poll(() => second.getByTestId('eval-project-defaults-problem').textContent(), { timeout: UI_WAIT_MS })
      .toBe('skillbench.config.json: /limits/repeats: expected a positive integer. The built-in defaults apply until the file is fixed.');
    await expect(second.getByTestId('eval-repeats').inputValue()).resolves.toBe('1');
    expect(pageErrors(page)).toEqual([]);
  });

  it('keeps the next model spec typed while the previous one is still being checked', { timeout: E2E_TIMEOUT_MS }, async () => {
    const specs = ['openai-compatible:http://127.0.0.1:9/v1#first', 'openai-compatible:http://127.0.0.1:9/v1#second'];
    // The page's socket to the server, with the first spec's check held back until the next spec is typed.
    let held: (() => void) | undefined;
    const page = await app.page(undefined, {
      beforeSignIn: (p) =>
        p.routeWebSocket(/\/api\/ws/, (socket) => {
          const server = socket.connectToServer();
          socket.onMessage((message) => {
            if (held === undefined && String(message).includes('"models.check"')) held = () => server.send(message);
            else server.send(message);
          });
          server.onMessage((message) => socket.send(message));
        }),
    });
    await page.getByTestId('activity-evals').click();
    await page.getByTestId('eval-new').click();
    const setup = page.locator('[data-testid="eval-setup"]:visible');
    await setup.waitFor();
    const field = setup.getByLabel('Add a model spec');
    await field.click();
    await page.keyboard.type(specs[0]!);
    await setup.getByRole('button', { name: 'Add', exact: true }).click();
    await expect.poll(() => held !== undefined, { timeout: UI_WAIT_MS }).toBe(true);
    await field.fill('');
    await page.keyboard.type(specs[1]!);
    held!();
    // The first spec is added; the second, typed during its check, is still in the field.
    await setup.getByLabel(specs[0]!).waitFor();
    await expect(field.inputValue()).resolves.toBe(specs[1]);
    await setup.getByRole('button', { name: 'Add', exact: true }).click();
    await setup.getByLabel(specs[1]!).waitFor();
    await expect(field.inputValue()).resolves.toBe('');
    expect(pageErrors(page)).toEqual([]);
  });
});
