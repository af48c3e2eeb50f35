/**
 * The package editor in Chromium against `skillbench serve` (journey 1 of the
 * UI research, keyboard only): edit → the registry's verdict as a squiggle, a
 * problem at its JSON Pointer and the status count → F8 → fix → diff against
 * the published revision → publish → "based on" the new version.
 *
 * "Improve description" (the server's example workspace, so the skill's extra
 * cases are there): open a skill, run the description optimizer with the
 * lexical and embedding baselines and the deterministic keyword proposer, read
 * the held-out verdict, then either apply the winner to the draft (a proven
 * gain) or see "no proven gain" with the draft untouched. Nothing is published
 * either way.
 *
 * Journey 2 of the UI research: B's draft is based on v1 while A publishes
 * v2; B's publish answers 412 and the merge view opens (base v1 / theirs v2 /
 * mine). One-sided changes are merged on their own; Complete stays disabled
 * until B resolves the one conflict; the retry with If-Match v2 yields v3
 * holding both sets of examples.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DraftView, OptimizeRunView, PackageRevision, PublishOutcome } from '../../core/api/contract';
import { playwrightChord } from '../../renderer/shell/keys';
import { addEmptyExample, addExample, confirmPublish, FIRST_EXAMPLE, goToText, openEditor, pressCommand, SKILL, statusErrors, expectErrors, expectProblem, lineEnd, typeInEditor } from './authoring';
import { E2E_SETUP_TIMEOUT_MS, E2E_TIMEOUT_MS, pageErrors, screenshot, screenshotSizes, startApp, UI_WAIT_MS, VIEWPORTS, type App } from './harness';

const WEATHER = { namespace: 'travel', name: 'weather-assessment' };
const SEED = '20251201';

describe('package editor (journey 1)', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp();
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await app?.close();
  });

  it('downloads Monaco only when an editor opens, not for the catalog', { timeout: E2E_TIMEOUT_MS }, async () => {
    // Every script the page fetches, from the sign-in on (module preloads and lazy chunks alike).
    const scripts: string[] = [];
    const page = await app.page(undefined, {
      beforeSignIn: (p) => {
        p.on('request', (request) => {
          const path = new URL(request.url()).pathname;
          if (path.endsWith('.js')) scripts.push(path.slice(path.lastIndexOf('/') + 1));
        });
      },
    });
    const monacoChunks = () => scripts.filter((name) => /^monaco-[\w-]+\.js$/.test(name));
    // The catalog (Mod+Shift+E) painted its rows, and a skill's preview opened from it.
    await page.getByTestId('connection-row-default').waitFor();
    await page.keyboard.press(playwrightChord('Mod+Shift+E'));
    await page.getByTestId(`catalog-row-${SKILL.namespace}/${SKILL.name}`).click();
    await page.getByTestId(`catalog-preview-${SKILL.namespace}/${SKILL.name}`).waitFor();
    expect(scripts.some((name) => /^index-[\w-]+\.js$/.test(name))).toBe(true);
    expect(monacoChunks()).toEqual([]);
    expect(scripts.filter((name) => /^(PackageEditor|DiffView|MergeView)-/.test(name))).toEqual([]);

    await openEditor(page);
    expect(monacoChunks()).not.toEqual([]);
    expect(scripts.some((name) => name.startsWith('PackageEditor-'))).toBe(true);

    // The editor's chunk holds the contributions renderer/editor/monaco.ts names, not all of Monaco's
    // (its JSON language imports every contribution unless the build resolves that import elsewhere).
    const chunkTexts = await Promise.all(monacoChunks().map(async (name) => (await page.request.get(`${app.origin}/assets/${name}`)).text()));
    const editorChunk = chunkTexts.join('\n');
    for (const id of ['editor.contrib.unicodeHighlighter', 'editor.action.toggleTabFocusMode', 'editor.contrib.findController']) expect(editorChunk, id).toContain(id);
    for (const id of ['editor.linkDetector', 'store.contrib.stickyScrollController', 'editor.controller.parameterHints', 'css.editor.codeLens']) expect(editorChunk, id).not.toContain(id);

    // The JSON language's worker answers: Ctrl+Space at a key offers the package schema's fields
    // (property suggestions; the editor's own word suggestions carry another icon).
    await goToText(page, '"description"');
    await page.keyboard.press('Control+Space');
    const fields = page.locator('.suggest-widget.visible .monaco-list-row').filter({ has: page.locator('.codicon-symbol-property') });
    await fields.first().waitFor();
    expect(await fields.allTextContents()).toContain('description');
    await page.keyboard.press('Escape');
    await page.locator('.suggest-widget.visible').waitFor({ state: 'detached' });
    expect(pageErrors(page)).toEqual([]);
  });

  it('edits, validates, diffs and publishes without a mouse', { timeout: E2E_TIMEOUT_MS }, async () => {
    const page = await app.page();
    await openEditor(page);
    await expect(page.getByTestId('editor-base').textContent()).resolves.toMatch(/based on v1/);
    expect(await statusErrors(page)).toBe(0);

    // An empty example: a squiggle, a problem at its pointer, the status count.
    await addEmptyExample(page);
    const problem = await expectProblem(page, 'empty_entry');
    await expect(problem.getAttribute('data-pointer')).resolves.toBe('/activation_examples/should_activate/1');
    await page.locator('.squiggly-error').first().waitFor();
    await expectErrors(page, 1);
    await expect(page.getByTestId('editor-publish').isDisabled()).resolves.toBe(true);
    await screenshot(page, 'editor-problem-1280x800');

    // F8 from the top of the text lands on the problem's line.
    await page.keyboard.press('ControlOrMeta+Home');
    await pressCommand(page, 'editor.nextProblem');
    const line = Number(await problem.getAttribute('data-line'));
    await expect.poll(() => page.evaluate(() => document.querySelector('.monaco-editor .current-line')?.parentElement?.getAttribute('style') ?? '')).not.toBe('');
    // The cursor moves once the editor has handled the key: wait for it to arrive, not for a moment.
    const cursorLine = () =>
      page.evaluate(() => {
        const el = document.querySelector('[data-testid="editor-monaco"] .monaco-editor .line-numbers.active-line-number');
        return Number(el?.textContent ?? 'NaN');
      });
    await expect.poll(cursorLine).toBe(line);

    // The fix: type the example into the empty quotes.
    await lineEnd(page);
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await typeInEditor(page, 'Our status page is down, start the incident');
    await expectErrors(page, 0);

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

  describe('improve description', () => {
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
      await verdict.waitFor();
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
          .poll(async () => (await app.call<{ drafts: DraftView[] }>('drafts.list')).drafts.find((d) => d.origin.kind === 'store' && d.origin.skill.name === WEATHER.name)?.text ?? '', { timeout: UI_WAIT_MS })
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
});

describe('412 → merge (journey 2)', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp();
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await app?.close();
  });

  it('merges a concurrent publication and publishes on the newer revision', { timeout: E2E_TIMEOUT_MS }, async () => {
    const page = await app.page(VIEWPORTS[1]);
    await openEditor(page);
    await expect(page.getByTestId('editor-base').textContent()).resolves.toMatch(/based on v1/);

    // B adds an example in the editor.
    await addExample(page, 'Mine: the VPN is down for the whole support team');

    // Meanwhile A publishes v2 on v1: another example and a new display name.
    const v1 = await app.call<PackageRevision>('packages.get', { connection: 'default', skill: SKILL });
    const theirs = structuredClone(v1.package);
    theirs.display_name = 'Incident Response (on call)';
    theirs.activation_examples.should_activate.push('Theirs: checkout returns 500 errors for every customer');
    theirs.change_reason = 'Another author adds an example';
    const a = await app.call<PublishOutcome>('publish.package', {
      connection: 'default',
      skill: SKILL,
      text: JSON.stringify(theirs),
      base: { version: v1.version, etag: v1.etag },
      idempotency_key: 'e2e-author-a',
    });
    expect(a.version).toBe(2);

    // B publishes: 412, and the merge view opens.
    await page.getByTestId('editor-publish').click();
    await confirmPublish(page, 'Add the VPN outage example');
    const mergeView = page.getByTestId('merge-view');
    await mergeView.waitFor();
    await expect(page.getByTestId('merge-row-display_name').getAttribute('data-state')).resolves.toBe('theirs');
    await expect(page.getByTestId('merge-row-description').getAttribute('data-state')).resolves.toBe('unchanged');
    const conflict = page.getByTestId('merge-conflict-/activation_examples/should_activate');
    await expect(conflict.getAttribute('data-state')).resolves.toBe('conflict');
    await expect(page.getByTestId('merge-complete').isDisabled()).resolves.toBe(true);
    await expect(page.getByTestId('merge-open-count').textContent()).resolves.toBe('1 of 1 conflict open');
    // The conflict's values show whole: nothing in its cells hides behind a scroll box of its own.
    const cut = await conflict.evaluate((row) =>
      [...row.querySelectorAll('td.merge-value, td.merge-value *')].filter((el) => el.scrollHeight > el.clientHeight + 1 && getComputedStyle(el).overflowY !== 'visible').map((el) => el.className || el.tagName),
    );
    expect(cut).toEqual([]);
    await screenshot(page, 'merge-1920x1080');

    // Keep both sets of examples; Complete becomes available.
    await conflict.getByTestId('merge-take-both').click();
    await expect(conflict.getAttribute('data-state')).resolves.toBe('resolved-both');
    await expect(page.getByTestId('merge-complete').isEnabled()).resolves.toBe(true);
    await page.setViewportSize(VIEWPORTS[0]);
    await screenshot(page, 'merge-resolved-1280x800');
    await page.getByTestId('merge-complete').click();

    const result = page.getByTestId('publish-result');
    await result.waitFor();
    await expect(result.getAttribute('data-version')).resolves.toBe('3');
    await page.getByTestId('publish-close').click();
    await expect.poll(() => page.getByTestId('editor-base').textContent()).toMatch(/based on v3/);

    const v3 = await app.call<PackageRevision>('packages.get', { connection: 'default', skill: SKILL });
    expect(v3.version).toBe(3);
    expect(v3.package.display_name).toBe('Incident Response (on call)');
    expect(v3.package.activation_examples.should_activate).toEqual(
      expect.arrayContaining(['Mine: the VPN is down for the whole support team', 'Theirs: checkout returns 500 errors for every customer']),
    );
    expect(pageErrors(page)).toEqual([]);
  });
});
