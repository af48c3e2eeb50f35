/**
 * The package editor's form view in Chromium against `skillbench serve`: the
 * form and the JSON view edit one text (an edit in either shows in the other,
 * undo takes a form edit back), a validation problem shows beside the field
 * its pointer names, an unreadable text is never overwritten, and an autosaved
 * draft left by a page that never closed is offered back on reopen.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DraftView, PackageRevision } from '../../core/api/contract';
import { hostile } from './fixtures';
import { goToText, openEditor, pressCommand, reloadEditor, SKILL, statusErrors, lineEnd, typeInEditor } from './authoring';
import { E2E_SETUP_TIMEOUT_MS, E2E_TIMEOUT_MS, expectInert, pageErrors, screenshot, startApp, UI_WAIT_MS, VIEWPORTS, type App } from './harness';

/** Waits for a value as long as one UI expectation may take (an autosave waits for typing to settle first). */
function poll<T>(read: () => T | Promise<T>) {
  return expect.poll(read, { timeout: UI_WAIT_MS });
}

/** A member of a package text; undefined while the text does not parse. */
function member(text: string, key: string): unknown {
  try {
    return (JSON.parse(text) as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** The lines the JSON view renders, spaces as spaces (Monaco draws them as no-break spaces). */
async function shownText(page: Page): Promise<string> {
  return ((await page.getByTestId('editor-monaco').locator('.view-lines').textContent()) ?? '').replace(/\u00a0/g, ' ');
}

describe('package editor form view', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp();
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await app?.close();
  });

  /** The text of the editor's draft as the host autosaved it (what a reopen gets back). */
  async function draftText(skill: { namespace: string; name: string } = SKILL): Promise<string> {
    const { drafts } = await app.call<{ drafts: DraftView[] }>('drafts.list');
    const draft = drafts.find((d) => d.origin.kind === 'store' && d.origin.skill.namespace === skill.namespace && d.origin.skill.name === skill.name);
    return draft?.text ?? '';
  }

  it('edits the same text as the JSON view, both ways, with problems beside their fields', { timeout: E2E_TIMEOUT_MS }, async () => {
    const page = await app.page();
    await openEditor(page);
    const json = page.getByTestId('editor-monaco');
    const form = page.getByTestId('editor-form');

    // The toggle's chord comes from the keymap table, so the help sheet lists it.
    await pressCommand(page, 'editor.toggleForm');
    await form.waitFor();
    await expect(json.isVisible()).resolves.toBe(false);
    // The form has no text cursor: the status bar drops its line and column.
    await page.getByTestId('status-cursor').waitFor({ state: 'detached' });
    await expect(page.getByTestId('editor-view-form').getAttribute('aria-pressed')).resolves.toBe('true');
    await expect(page.getByTestId('form-identity').textContent()).resolves.toContain(SKILL.name);

    // Edit the description in the form; its meter follows.
    const description = page.getByTestId('form-input-description');
    const newDescription = 'Use when a production incident is declared, to run the response and the updates.';
    await description.fill(newDescription);
    await poll(() => page.getByTestId('form-description-meter').textContent()).toMatch(new RegExp(`^${[...newDescription].length} / `));
    await poll(() => page.getByTestId('meter-description').getAttribute('data-used')).toBe(String([...newDescription].length));
    await screenshot(page, 'editor-form-1280x800');
    await page.setViewportSize(VIEWPORTS[1]);
    await screenshot(page, 'editor-form-1920x1080');
    await page.setViewportSize(VIEWPORTS[0]);

    // The JSON view shows it, as one edit of the same text (every other line unchanged).
    await page.getByTestId('editor-view-json').click();
    await poll(() => json.isVisible()).toBe(true);
    await poll(async () => member(await draftText(), 'description')).toBe(newDescription);
    await poll(() => shownText(page)).toContain(newDescription.slice(0, 40));
    const published = await app.call<PackageRevision>('packages.get', { connection: 'default', skill: SKILL });
    const text = await draftText();
    expect(JSON.parse(text)).toEqual({ ...published.package, description: newDescription });
    expect(text.split('\n').filter((line, i) => line !== published.text.split('\n')[i])).toEqual([`  "description": ${JSON.stringify(newDescription)},`]);

    // Edit the JSON by keyboard; the form shows it.
    await json.locator('.monaco-editor').first().click();
    await goToText(page, '"display_name": "Incident Response"');
    await lineEnd(page);
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await typeInEditor(page, ' Desk');
    await poll(async () => member(await draftText(), 'display_name')).toBe('Incident Response Desk');
    await page.getByTestId('editor-view-form').click();
    await poll(() => page.getByTestId('form-input-display_name').inputValue()).toBe('Incident Response Desk');

    // An empty activation example added in the form: the error sits beside that row and in the status bar.
    await page.getByTestId('form-row-add-activation_examples-should_activate').click();
    const rows = page.getByTestId('editor-form').locator('[data-testid^="form-row-activation_examples-should_activate-"]');
    const last = (await rows.count()) - 1;
    const field = page.getByTestId(`form-row-activation_examples-should_activate-${last}`);
    const problem = field.locator('xpath=..').locator('..').getByTestId('form-problem');
    await problem.first().waitFor();
    await expect(problem.first().getAttribute('data-pointer')).resolves.toBe(`/activation_examples/should_activate/${last}`);
    await expect(field.getAttribute('aria-invalid')).resolves.toBe('true');
    await poll(() => statusErrors(page)).toBe(1);
    await expect(page.getByTestId('editor-publish').isDisabled()).resolves.toBe(true);
    await screenshot(page, 'editor-form-problem-1280x800');

    // Undo in the form takes the added row back out of the one text.
    await field.focus();
    await page.keyboard.press('ControlOrMeta+z');
    await poll(() => statusErrors(page)).toBe(0);
    await poll(async () => (member(await draftText(), 'activation_examples') as { should_activate: string[] } | undefined)?.should_activate.length).toBe(last);

    // Tags as chips: add one, remove it.
    const tags = page.getByTestId('form-chip-input-tags');
    await tags.fill('sev1');
    await tags.press('Enter');
    await poll(async () => (member(await draftText(), 'tags') as string[] | undefined)?.at(-1)).toBe('sev1');
    const count = await page.getByTestId('form-chip-tags').count();
    await page.getByTestId(`form-chip-remove-tags-${count - 1}`).click();
    await poll(async () => (member(await draftText(), 'tags') as string[] | undefined)?.includes('sev1')).toBe(false);

    // Switching back and forth lost nothing.
    await pressCommand(page, 'editor.toggleForm');
    await poll(() => json.isVisible()).toBe(true);
    const final = await draftText();
    expect(member(final, 'description')).toBe(newDescription);
    expect(member(final, 'display_name')).toBe('Incident Response Desk');
    expect(pageErrors(page)).toEqual([]);
  });

  it('says the JSON does not read and never writes over it', { timeout: E2E_TIMEOUT_MS }, async () => {
    const page = await app.page();
    const skill = { namespace: 'devops', name: 'kubernetes-safety' };
    await openEditor(page, skill);
    await page.keyboard.press('ControlOrMeta+Home');
    await typeInEditor(page, 'oops ');
    await poll(() => draftText(skill)).toMatch(/^oops /);
    const broken = await draftText(skill);
    await page.getByTestId('editor-view-form').click();
    await page.getByTestId('form-unreadable').waitFor();
    await expect(page.getByTestId('form-unreadable').textContent()).resolves.toMatch(/line 1/);
    await expect(page.getByTestId('editor-form').locator('input, textarea').count()).resolves.toBe(0);
    await page.getByTestId('form-show-json').click();
    await poll(() => page.getByTestId('editor-monaco').isVisible()).toBe(true);
    await poll(() => shownText(page)).toMatch(/^oops /);
    expect(await draftText(skill)).toBe(broken);
    expect(pageErrors(page)).toEqual([]);
  });

  it('shows hostile text in every field as inert text', { timeout: E2E_TIMEOUT_MS }, async () => {
    const skill = { namespace: 'travel', name: 'currency-conversion' };
    const opened = await app.call<DraftView>('packages.open', { connection: 'default', skill });
    const pkg = JSON.parse(opened.text) as { resources: Record<string, unknown>[] };
    const evil = {
      ...pkg,
      display_name: hostile('display'),
      description: hostile('description'),
      domains: [hostile('domain')],
      tags: [hostile('tag')],
      planning_instructions: [hostile('instruction')],
      resources: [{ ...pkg.resources[0], name: hostile('resource'), content: hostile('content') }],
      activation_examples: { should_activate: [hostile('example')], should_not_activate: [] },
      change_reason: hostile('reason'),
    };
    await app.call('drafts.save', { id: opened.id, text: JSON.stringify(evil, null, 2) });

    const page = await app.page();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await openEditor(page, skill);
    await page.getByTestId('editor-restore-offer').waitFor();
    await page.getByTestId('editor-view-form').click();
    await page.getByTestId('editor-form').waitFor();
    // Focus Active Tab lands in the form while it is shown.
    await pressCommand(page, 'focus.main');
    await poll(() => page.evaluate(() => document.activeElement?.closest('[data-testid="editor-form"]') !== null)).toBe(true);

    await expect(page.getByTestId('form-input-display_name').inputValue()).resolves.toBe(hostile('display'));
    await expect(page.getByTestId('form-chip-tags').first().textContent()).resolves.toContain('<script>window.__pwned=1</script>');
    await expect(page.getByTestId('form-chip-tags').first().locator('.control-char').first().textContent()).resolves.toBe('U+202E');
    await expect(page.getByTestId('form-resource-0').locator('legend').textContent()).resolves.toContain('<img src=x onerror=');
    // A text box applies an override; the value is shown again beside it with the controls visible.
    const controls = page.getByTestId('form-field-display_name').getByTestId('form-controls');
    await expect(controls.locator('.control-char').allTextContents()).resolves.toEqual(['U+202E', 'U+202C']);
    await expectInert(page, dialogs);
    await screenshot(page, 'editor-form-hostile-1280x800');
  });

  it('offers back a draft autosaved by a page that never closed, and discards it only when confirmed', { timeout: E2E_TIMEOUT_MS }, async () => {
    const skill = { namespace: 'devops', name: 'observability-investigation' };
    // What an autosave leaves behind when the page goes away without closing the tab.
    const opened = await app.call<DraftView>('packages.open', { connection: 'default', skill });
    const pkg = JSON.parse(opened.text) as { description: string };
    const unsaved = `${pkg.description} Also when traces are missing.`;
    const saved = await app.call<DraftView>('drafts.save', { id: opened.id, text: JSON.stringify({ ...pkg, description: unsaved }, null, 2) });

    const page = await app.page();
    await openEditor(page, skill);
    const tabId = `editor:default:${skill.namespace}/${skill.name}`;
    const offer = page.getByTestId('editor-restore-offer');
    await offer.waitFor();
    await expect(page.getByTestId('editor-restore-time').getAttribute('datetime')).resolves.toBe(saved.updated_at);
    await expect(offer.textContent()).resolves.toMatch(/unsaved draft from .*published v1/);
    await poll(() => shownText(page)).toContain('Also when traces are missing.');
    await screenshot(page, 'editor-restore-offer-1280x800');

    // Discard asks first; Cancel keeps everything.
    await page.getByTestId('editor-restore-discard').click();
    await expect(offer.getAttribute('data-step')).resolves.toBe('confirm');
    await page.getByTestId('editor-restore-cancel').click();
    await expect(offer.getAttribute('data-step')).resolves.toBe('ask');
    expect((await app.call<DraftView>('drafts.get', { id: opened.id })).text).toContain(unsaved);

    // Reloading without answering offers it again; confirmed, the editor goes back to the published text.
    await reloadEditor(page, tabId);
    await offer.waitFor();
    await page.getByTestId('editor-restore-discard').click();
    await page.getByTestId('editor-restore-discard-confirm').click();
    await poll(() => offer.count()).toBe(0);
    const published = await app.call<PackageRevision>('packages.get', { connection: 'default', skill });
    await poll(() => draftText(skill)).toBe(published.text);
    await poll(async () => (await app.call<{ drafts: DraftView[] }>('drafts.list')).drafts.find((d) => d.id === opened.id)?.dirty ?? false).toBe(false);

    // The discarded text is still one Undo away in the JSON view.
    await pressCommand(page, 'editor.focusText');
    await page.keyboard.press('ControlOrMeta+z');
    await poll(async () => member(await draftText(skill), 'description')).toBe(unsaved);

    // Kept, the offer goes away and the draft stays.
    await reloadEditor(page, tabId);
    await offer.waitFor();
    await page.getByTestId('editor-restore-keep').click();
    await poll(() => offer.count()).toBe(0);
    await poll(() => shownText(page)).toContain('Also when traces are missing.');
    expect(pageErrors(page)).toEqual([]);
  });
});
