/**
 * The newcomer's journeys through the real UI, by visible labels and
 * shortcuts: typing `?` and every printable character into each editable
 * surface; publishing through the dialog (change summary, required reason)
 * while the open History and Catalog tabs follow without a reload; a PROD
 * connection that asks for its name typed before it publishes; another
 * writer's change reaching the catalog through the periodic recheck;
 * connections opened by a click and their context menu; Monaco following the
 * theme at once; WCAG AA contrast read from computed colours in both themes;
 * and no console error on a page load.
 */
import type { Page } from 'playwright-core';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PackageRevision } from '../../core/api/contract';
import { openLocalStore } from '../../core/store/local';
import { addExample, confirmPublish, goToText, openEditor, pressCommand, SKILL, lineEnd, typeInEditor } from './authoring';
import { E2E_SETUP_TIMEOUT_MS, E2E_TIMEOUT_MS, pageErrors, screenshotSizes, startApp, type App } from './harness';

/** Every printable ASCII character, and a few that are not ASCII. */
const PRINTABLE = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join('') + 'éßüñ€¿¡«»жλ中✓';
/** The same, without the two characters that end or escape a JSON string. */
const IN_JSON_STRING = PRINTABLE.replace(/["\\]/g, '');

/** The skill the typing journey edits (its draft keeps what was typed), and its first example. */
const TYPED = { namespace: 'travel', name: 'weather-assessment' };
const TYPED_EXAMPLE = 'Are typhoons likely to disrupt my Okinawa trip next week?';

async function focusedTestId(page: Page): Promise<string | null> {
  return page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? null);
}

async function helpOpen(page: Page): Promise<boolean> {
  return (await page.getByTestId('help-sheet').count()) > 0;
}

/** Before the app loads: counts the writes of the saved tabs (`skillbench.tabs` in localStorage). */
async function countTabWrites(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const counted = window as unknown as { skillbenchTabWrites: number };
    counted.skillbenchTabWrites = 0;
    const setItem = Storage.prototype.setItem;
    Storage.prototype.setItem = function (key: string, value: string) {
      if (key === 'skillbench.tabs') counted.skillbenchTabWrites++;
      setItem.call(this, key, value);
    };
  });
}

async function tabWrites(page: Page): Promise<number> {
  return page.evaluate(() => (window as unknown as { skillbenchTabWrites: number }).skillbenchTabWrites);
}

/** Types into the focused field and checks that all of it arrived and no shortcut ran. */
async function typeInto(page: Page, testId: string, text = PRINTABLE): Promise<void> {
  await expect.poll(() => focusedTestId(page)).toBe(testId);
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type(text);
  await expect.poll(() => page.getByTestId(testId).inputValue()).toBe(text);
  expect(await helpOpen(page), `typing into ${testId} opened the shortcuts sheet`).toBe(testId === 'help-filter');
}

/** Text whose colour against its effective background is under 4.5:1 (3:1 for large text), in the visible window. */
async function lowContrast(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const rgb = (text: string): [number, number, number, number] => {
      const m = /rgba?\(([^)]+)\)/.exec(text);
      if (!m) return [0, 0, 0, 0];
      const [r, g, b, a] = m[1]!.split(',').map((x) => Number(x.trim()));
      return [r!, g!, b!, a === undefined ? 1 : a];
    };
    const lum = ([r, g, b]: number[]) => {
      const c = [r!, g!, b!].map((v) => {
        const x = v / 255;
        return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * c[0]! + 0.7152 * c[1]! + 0.0722 * c[2]!;
    };
    const background = (el: Element | null): [number, number, number] => {
      const layers: [number, number, number, number][] = [];
      for (let e = el; e; e = e.parentElement) {
        const bg = rgb(getComputedStyle(e).backgroundColor);
        if (bg[3] > 0) layers.push(bg);
        if (bg[3] >= 1) break;
      }
      let out: [number, number, number] = [255, 255, 255];
      if (layers.length === 0 || layers[layers.length - 1]![3] < 1) out = document.documentElement.dataset['theme'] === 'dark' ? [30, 31, 34] : [255, 255, 255];
      for (const [r, g, b, a] of layers.reverse()) out = [r * a + out[0] * (1 - a), g * a + out[1] * (1 - a), b * a + out[2] * (1 - a)];
      return out;
    };
    const failures: string[] = [];
    const walker = document.createTreeWalker(document.getElementById('root')!, NodeFilter.SHOW_TEXT);
    const seen = new Set<Element>();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement;
      if (!el || seen.has(el) || !node.textContent?.trim()) continue;
      seen.add(el);
      // Monaco draws its own tokens; disabled controls are exempt (WCAG 1.4.3).
      if (el.closest('.monaco-editor, [disabled], [aria-disabled="true"], [hidden]')) continue;
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0 || box.bottom < 0 || box.top > innerHeight) continue;
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden' || Number(style.opacity) < 0.5) continue;
      const fg = rgb(style.color);
      const bg = background(el);
      const blended = [fg[0] * fg[3] + bg[0] * (1 - fg[3]), fg[1] * fg[3] + bg[1] * (1 - fg[3]), fg[2] * fg[3] + bg[2] * (1 - fg[3])];
      const [hi, lo] = [lum(blended), lum(bg)].sort((a, b) => b - a) as [number, number];
      const ratio = (hi + 0.05) / (lo + 0.05);
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5)) failures.push(`${ratio.toFixed(2)}:1 "${node.textContent.trim().slice(0, 40)}" (${el.className || el.tagName})`);
    }
    return failures;
  });
}

describe('newcomer journeys', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp();
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await app?.close();
  });

  it('loads without a console error', { timeout: E2E_TIMEOUT_MS }, async () => {
    const page = await app.page();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.reload();
    await page.locator('[data-testid="connection-row-default"][data-reachability="up"]').waitFor();
    await page.getByTestId('welcome').waitFor();
    expect(errors).toEqual([]);
    expect(pageErrors(page)).toEqual([]);
    await page.context().close();
  });

  it('types ? and every printable character into the editor, the form, the filters and the dialogs', { timeout: E2E_TIMEOUT_MS }, async () => {
    const page = await app.page(undefined, { beforeSignIn: countTabWrites });
    await openEditor(page, TYPED);
    // The JSON editor: inside the first example's string.
    await goToText(page, TYPED_EXAMPLE);
    await lineEnd(page);
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    const before = await tabWrites(page);
    await typeInEditor(page, ` ${IN_JSON_STRING}`);
    expect(await helpOpen(page)).toBe(false);
    // The form view shows the same text, whole.
    await pressCommand(page, 'editor.toggleForm');
    const first = page.getByTestId('form-row-activation_examples-should_activate-0');
    await expect.poll(() => first.inputValue()).toBe(`${TYPED_EXAMPLE} ${IN_JSON_STRING}`);
    // A form field takes every character, quotes and backslashes too.
    await first.focus();
    await typeInto(page, 'form-row-activation_examples-should_activate-0');
    // The open tabs are saved when the tab turns dirty, not again on every key (one write per key before).
    expect(await tabWrites(page)).toBeLessThanOrEqual(before + 1);
    // + Add example puts the keyboard in the new field.
    const add = page.getByTestId('form-row-add-activation_examples-should_activate');
    await add.focus();
    await page.keyboard.press('Enter');
    const count = await page.locator('[data-testid^="form-row-activation_examples-should_activate-"]:not([data-testid*="remove"])').count();
    await typeInto(page, `form-row-activation_examples-should_activate-${count - 1}`, 'Can you page the on-call engineer?');
    // The problems filter.
    await pressCommand(page, 'editor.showProblems');
    await typeInto(page, 'problems-filter');
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.press('Backspace');
    // The help sheet's own filter; it says when nothing matches, and opens unfiltered next time.
    await page.getByTestId('activity-help').click();
    await typeInto(page, 'help-filter');
    await page.getByTestId('help-no-matches').waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('activity-help').click();
    await expect.poll(() => page.getByTestId('help-filter').inputValue()).toBe('');
    await page.keyboard.press('Escape');
    // The Add Connection dialog's fields.
    await page.getByTestId('connection-add').click();
    await typeInto(page, 'connection-field-name');
    await page.getByTestId('connection-cancel').click();
    // The catalog filter.
    await pressCommand(page, 'view.catalog');
    await page.getByTestId('catalog-row-travel/weather-assessment').waitFor();
    await pressCommand(page, 'catalog.search');
    await typeInto(page, 'catalog-search');
    expect(pageErrors(page)).toEqual([]);
    await page.context().close();
  });

  it('publishes through the dialog while History and Catalog follow without a reload', { timeout: E2E_TIMEOUT_MS }, async () => {
    const page = await app.page();
    await page.evaluate(() => localStorage.clear());
    await openEditor(page);
    // History and Catalog open first, then back to the editor.
    await pressCommand(page, 'view.versions');
    await page.getByTestId('version-row-1').waitFor();
    await pressCommand(page, 'view.catalog');
    const row = page.getByTestId(`catalog-row-${SKILL.namespace}/${SKILL.name}`);
    await row.waitFor();
    await expect(row.locator('.col-version').textContent()).resolves.toBe('v1');
    await page.getByTestId(`tab-editor:default:${SKILL.namespace}/${SKILL.name}`).click();
    await pressCommand(page, 'focus.main');
    await page.waitForFunction(() => document.activeElement?.closest('.monaco-editor') !== null);
    await addExample(page, 'Is the checkout page down for everyone?');
    // The empty example was an error until the text typed into it is validated: the chord waits for Publish to be enabled.
    await expect.poll(() => page.locator('[data-testid="editor-publish"]:visible').isEnabled()).toBe(true);

    await pressCommand(page, 'editor.publish');
    await page.getByTestId('publish-confirm').waitFor();
    await expect(page.getByTestId('publish-target').textContent()).resolves.toContain('Local registry');
    await expect.poll(() => page.getByTestId('publish-chip').allTextContents()).toEqual(['+1 should_activate']);
    // The reason is required: the previous version's is not reused unnoticed.
    await expect.poll(() => page.getByTestId('publish-reason').inputValue()).toBe('');
    await expect(page.getByTestId('publish-submit').isDisabled()).resolves.toBe(true);
    await screenshotSizes(page, 'publish-dialog-dark');
    await confirmPublish(page, 'Does checkout trigger an incident? Now it does.');
    await expect.poll(() => page.getByTestId('publish-result').getAttribute('data-version')).toBe('2');
    await page.keyboard.press('Escape');

    const published = await app.call<PackageRevision>('packages.get', { connection: 'default', skill: SKILL });
    expect(published.package.change_reason).toBe('Does checkout trigger an incident? Now it does.');

    // The open History tab shows v2 on top, published, and says it was updated.
    await pressCommand(page, 'view.versions');
    await page.getByTestId('version-published-2').waitFor();
    await expect(page.getByTestId('versions-updated').textContent()).resolves.toMatch(/v2 published by \S+/);
    // The open Catalog tab too.
    await page.getByTestId('tab-catalog:default').click();
    await expect.poll(() => row.locator('.col-version').textContent()).toBe('v2');
    await expect(page.getByTestId('catalog-updated').textContent()).resolves.toMatch(/incident-response v2 published/);
    await screenshotSizes(page, 'catalog-updated-dark');

    // Another writer (a sync, the CLI) publishes: the periodic recheck brings it in.
    const other = await openLocalStore(app.registry);
    try {
      const body = (await readFile(join('examples', 'skills', 'packages', 'travel', 'weather-assessment.json'), 'utf8')).replace(/"name": "[^"]*"/, '"name": "synced-elsewhere"');
      await other.publish({ id: { namespace: 'travel', name: 'synced-elsewhere' }, body, precondition: { kind: 'create' }, actor: 'sync' });
    } finally {
      await other.close();
    }
    await page.getByTestId('catalog-row-travel/synced-elsewhere').waitFor();
    await expect(page.getByTestId('catalog-updated').textContent()).resolves.toMatch(/synced-elsewhere v1 published elsewhere/);
    expect(pageErrors(page)).toEqual([]);
    await page.context().close();
  });

  it('asks for the connection\'s name typed before publishing to a PROD connection that is not protected', { timeout: E2E_TIMEOUT_MS }, async () => {
    // A second registry holding the skill at v1, as a production mirror would.
    const folder = join(app.home, 'prod-registry');
    const mirror = await openLocalStore(folder);
    try {
      const v1 = await app.call<PackageRevision>('packages.get', { connection: 'default', skill: SKILL, version: 1 });
      await mirror.publish({ id: SKILL, body: JSON.stringify(v1.package), precondition: { kind: 'create' }, actor: 'release' });
    } finally {
      await mirror.close();
    }
    const page = await app.page();
    // Added through the form, environment PROD, not protected.
    await page.getByRole('button', { name: 'Add connection', exact: true }).click();
    const form = page.getByTestId('connection-dialog');
    await form.getByLabel('Name', { exact: true }).fill('prod-mirror');
    await form.getByLabel('Label', { exact: true }).fill('Production mirror');
    await form.getByLabel('Environment', { exact: true }).selectOption({ label: 'PROD' });
    await form.getByLabel('Store', { exact: true }).selectOption({ label: 'Local registry folder' });
    await form.getByLabel('Folder', { exact: true }).fill(folder);
    await expect(form.getByLabel(/Protected \(publishes and deletes only/).isChecked()).resolves.toBe(false);
    await form.getByRole('button', { name: 'Save', exact: true }).click();
    await form.waitFor({ state: 'detached' });
    // A click makes it the active connection and opens its catalog.
    await page.getByTestId('connection-row-prod-mirror').click();
    await page.getByTestId(`catalog-row-${SKILL.namespace}/${SKILL.name}`).waitFor();

    await openEditor(page, SKILL, 'prod-mirror');
    await addExample(page, 'Is production on fire right now?');
    // The empty example was an error until the text typed into it is validated: the chord waits for Publish to be enabled.
    await expect.poll(() => page.locator('[data-testid="editor-publish"]:visible').isEnabled()).toBe(true);
    await pressCommand(page, 'editor.publish');
    await page.getByTestId('publish-confirm').waitFor();
    const target = await page.getByTestId('publish-target').textContent();
    expect(target).toContain('Production mirror');
    expect(target).toContain('PROD');
    await expect.poll(() => page.getByTestId('publish-chip').allTextContents()).toEqual(['+1 should_activate']);
    // A reason alone does not publish: the name must be typed, exactly.
    const submit = page.getByTestId('publish-submit');
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'publish-reason');
    await page.keyboard.type('Does the on-call rota see this? It should.');
    await expect.poll(() => page.getByTestId('publish-blocked').textContent()).toBe('Type prod-mirror to publish to production');
    await expect(submit.isDisabled()).resolves.toBe(true);
    await page.getByLabel(/is a production connection/).fill('Production mirror');
    await expect(submit.isDisabled()).resolves.toBe(true);
    // Enter with the wrong name publishes nothing.
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('publish-confirm').isVisible()).resolves.toBe(true);
    await screenshotSizes(page, 'publish-dialog-prod-dark');
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('prod-mirror');
    await expect.poll(() => submit.isEnabled()).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('publish-result').getAttribute('data-version')).toBe('2');
    await page.keyboard.press('Escape');

    const published = await app.call<PackageRevision>('packages.get', { connection: 'prod-mirror', skill: SKILL });
    expect(published).toMatchObject({ version: 2, package: { change_reason: 'Does the on-call rota see this? It should.' } });
    // The default registry is untouched by it.
    expect((await app.call<PackageRevision>('packages.get', { connection: 'default', skill: SKILL })).package.activation_examples.should_activate).not.toContain('Is production on fire right now?');
    expect(pageErrors(page)).toEqual([]);
    await page.context().close();
  });

  it('opens the catalog from its chord pressed before the saved connections have loaded', { timeout: E2E_TIMEOUT_MS }, async () => {
    // The workbench's first connections.list (over the socket or HTTP) is held until the chord has been pressed.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked = false;
    const page = await app.page(undefined, {
      beforeSignIn: async (p) => {
        await p.route('**/api/connections.list', async (route) => {
          asked = true;
          await held;
          await route.continue();
        });
        await p.routeWebSocket('**/api/ws', (ws) => {
          const server = ws.connectToServer();
          ws.onMessage((message) => {
            if (typeof message === 'string' && message.includes('"connections.list"')) {
              asked = true;
              void held.then(() => server.send(message));
            } else server.send(message);
          });
        });
      },
    });
    await expect.poll(() => asked).toBe(true);
    await expect(page.getByTestId('connection-row-default').count()).resolves.toBe(0);
    await pressCommand(page, 'view.catalog');
    release();
    await page.getByTestId('catalog-row-devops/incident-response').waitFor();
    expect(pageErrors(page)).toEqual([]);
  });

  it('opens a connection\'s catalog by a click and offers its context menu; a test fills the dot', { timeout: E2E_TIMEOUT_MS }, async () => {
    const page = await app.page();
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    await page.getByTestId('welcome').waitFor();
    // The welcome page's rows are actions.
    await page.getByTestId('welcome-help.shortcuts').click();
    await page.getByTestId('help-sheet').waitFor();
    await page.keyboard.press('Escape');
    await screenshotSizes(page, 'welcome-dark');
    await page.getByTestId('connection-row-default').click();
    await page.getByTestId('catalog-default').waitFor();
    await page.getByTestId('connection-row-default').click({ button: 'right' });
    const menu = page.getByTestId('context-menu');
    await menu.waitFor();
    await expect(menu.getByRole('menuitem').allTextContents()).resolves.toEqual(['Open catalog', 'Test', 'Edit…', 'Clone…', 'Export…', 'Remove…']);
    await screenshotSizes(page, 'connection-menu-dark');
    await page.getByTestId('menu-test').click();
    await expect.poll(() => page.getByTestId('connection-dot-default').getAttribute('class')).toContain('up');
    // The workspace section lists the packages of the folder serve opened.
    await page.getByTestId('workspace-section').waitFor();
    expect(pageErrors(page)).toEqual([]);
    await page.context().close();
  });

  it('recolours Monaco with the theme at once, and keeps text at 4.5:1 in both themes', { timeout: E2E_TIMEOUT_MS }, async () => {
    const page = await app.page();
    await openEditor(page);
    const editorBackground = () => page.evaluate(() => getComputedStyle(document.querySelector('[data-testid="editor-monaco"] .monaco-editor-background')!).backgroundColor);
    const dark = await editorBackground();
    for (const theme of ['light', 'dark'] as const) {
      await pressCommand(page, 'palette.show');
      await page.keyboard.type(`Color Theme: ${theme === 'light' ? 'Light' : 'Dark'}`);
      await page.keyboard.press('Enter');
      await expect.poll(() => page.evaluate(() => document.documentElement.dataset['theme'])).toBe(theme);
      if (theme === 'light') await expect.poll(editorBackground).not.toBe(dark);
      else await expect.poll(editorBackground).toBe(dark);
      await screenshotSizes(page, `editor-${theme}`);
      expect(await lowContrast(page), `editor in the ${theme} theme`).toEqual([]);
      await pressCommand(page, 'view.versions');
      await page.locator('[data-testid^="version-row-"]').first().waitFor();
      await screenshotSizes(page, `history-${theme}`);
      expect(await lowContrast(page), `history in the ${theme} theme`).toEqual([]);
      await pressCommand(page, 'view.catalog');
      await page.getByTestId('catalog-row-travel/weather-assessment').click();
      await page.getByTestId('catalog-preview-travel/weather-assessment').waitFor();
      await screenshotSizes(page, `catalog-${theme}`);
      expect(await lowContrast(page), `catalog in the ${theme} theme`).toEqual([]);
      await page.getByTestId(`tab-editor:default:${SKILL.namespace}/${SKILL.name}`).click();
    }
    expect(pageErrors(page)).toEqual([]);
    await page.context().close();
  });
});
