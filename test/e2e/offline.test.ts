/**
 * Journey 3 of the UI research, connections and offline, against a real V1
 * admin API host on loopback that requires a bearer token (reached through a
 * TCP proxy, so the test can cut the network): testing the Add Connection
 * form with a bad token fails inside the dialog and saves nothing; with the
 * right token the connection saves as PROD, and its row, the tab underlines
 * and the status bar turn red; switching connection with two dirty tabs opens
 * the unsaved-changes modal listing both, which Escape does not close; with
 * the network cut the status bar reads Offline, typing still gets the
 * validator's markers, and Publish is disabled with the reason.
 */
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminHandler } from '../../core/admin/handler';
import { bearerTokenAuthenticator, createAdminServer, stopServer } from '../../core/admin/server';
import { openLocalStore } from '../../core/store/local';
import type { SkillStore } from '../../core/store/types';
import { startTcpProxy, type TcpProxy } from '../helpers/tcpProxy';
import { addEmptyExample, addExample, goToSkill, pressCommand, expectErrors, expectProblem, typeInEditor } from './authoring';
import { E2E_SETUP_TIMEOUT_MS, E2E_TIMEOUT_MS, pageErrors, screenshot, startApp, UI_WAIT_MS, type App } from './harness';

const TOKEN = 'pr0d-t0ken-4c7a91';
const WRONG = 'wr0ng-t0ken-0d2e55';
const PROD_RED = '#d93f3f';
const SKILLS = [
  { namespace: 'devops', name: 'incident-response' },
  { namespace: 'devops', name: 'kubernetes-safety' },
];
const editorTab = (skill: { namespace: string; name: string }) => `editor:prod-http:${skill.namespace}/${skill.name}`;

/** Opens the editors of `SKILLS` on prod-http from Go to Skill, each in a tab of its own. */
async function openProdEditors(page: Page): Promise<void> {
  for (const skill of SKILLS) await goToSkill(page, skill, 'prod-http');
}

/** Activates an editor tab and puts the keyboard focus into its text once it has loaded. */
async function focusEditor(page: Page, id: string): Promise<void> {
  await page.getByTestId(`tab-${id}`).click();
  const panel = page.getByTestId(`panel-${id}`);
  await panel.locator('.monaco-editor').first().waitFor();
  await panel.getByTestId('meter-description').waitFor();
  await pressCommand(page, 'focus.main');
  await page.waitForFunction((panelId) => document.activeElement?.closest('.monaco-editor') !== null && document.activeElement?.closest(`[id="${panelId}"]`) !== null, `panel-${id}`);
}

describe('connections and offline (journey 3)', () => {
  let app: App;
  let registry: SkillStore;
  let server: Server;
  let proxy: TcpProxy;
  let adminUrl: string;

  beforeAll(async () => {
    app = await startApp();
    registry = await openLocalStore(join(app.home, 'prod-registry'), { create: true, durable: false });
    for (const s of SKILLS) {
      await registry.publish({ id: s, body: await readFile(join('examples', 'skills', 'packages', s.namespace, `${s.name}.json`), 'utf8'), precondition: { kind: 'create' } });
    }
    server = createAdminServer(createAdminHandler({ store: registry, authenticate: bearerTokenAuthenticator(TOKEN) }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = await startTcpProxy((server.address() as { port: number }).port);
    adminUrl = `http://127.0.0.1:${proxy.port}/api/v1/skills`;
  }, E2E_SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await app?.close();
    await proxy?.close();
    if (server) await stopServer(server, 500);
    await registry?.close();
  });

  it('fails a bad token inline, saves PROD in red, guards a switch with two dirty tabs, and works on offline', { timeout: E2E_TIMEOUT_MS }, async () => {
    const page = await app.page();
    await page.locator('[data-testid="connection-row-default"][data-reachability="up"]').waitFor();

    // A bad token: the test fails inside the dialog, and nothing is saved.
    await page.getByTestId('connection-add').click();
    await page.getByTestId('connection-dialog').waitFor();
    await page.getByTestId('connection-field-name').fill('prod-http');
    await page.getByTestId('connection-field-env').selectOption('PROD');
    await page.getByTestId('connection-field-url').fill(adminUrl);
    await page.getByTestId('connection-field-secret').fill(WRONG);
    await page.getByTestId('connection-test').click();
    const failed = page.locator('[data-testid="connection-test-result"][data-ok="false"]');
    await failed.waitFor();
    const reason = (await failed.textContent()) ?? '';
    expect(reason).toMatch(/credentials were refused/);
    expect(reason).not.toContain(WRONG);
    await expect(page.getByTestId('connection-dialog').isVisible()).resolves.toBe(true);
    const before = await app.call<{ connections: { profile: { name: string } }[] }>('connections.list');
    expect(before.connections.map((c) => c.profile.name)).toEqual(['default']);

    // The right token: the test passes, the connection saves as PROD, red.
    await page.getByTestId('connection-field-secret').fill(TOKEN);
    await page.getByTestId('connection-test').click();
    await page.locator('[data-testid="connection-test-result"][data-ok="true"]').waitFor();
    await page.getByTestId('connection-save').click();
    await page.getByTestId('connection-dialog').waitFor({ state: 'detached' });
    const row = page.getByTestId('connection-row-prod-http');
    await row.waitFor();
    await expect(page.getByTestId('connection-stripe-prod-http').getAttribute('data-colour')).resolves.toBe(PROD_RED);
    await expect(page.getByTestId('connection-env-prod-http').textContent()).resolves.toBe('PROD');
    const saved = await app.call<{ connections: { profile: { name: string; environment: { label: string } | null }; secrets: Record<string, boolean> }[] }>('connections.list');
    expect(saved.connections.find((c) => c.profile.name === 'prod-http')).toMatchObject({ profile: { environment: { label: 'PROD' } }, secrets: { token: true } });

    // Working on PROD: the status bar and both tabs' underlines are red.
    await row.click();
    const status = page.getByTestId('status-connection');
    await expect.poll(() => status.getAttribute('data-connection'), { timeout: UI_WAIT_MS }).toBe('prod-http');
    await expect(status.getAttribute('data-colour')).resolves.toBe(PROD_RED);
    await expect(status.evaluate((el) => getComputedStyle(el).backgroundColor)).resolves.toBe('rgb(217, 63, 63)');
    await openProdEditors(page);
    await page.locator('[data-testid="connection-row-prod-http"][data-reachability="up"]').waitFor();
    for (const skill of SKILLS) {
      const underline = page.getByTestId(`tab-underline-${editorTab(skill)}`);
      await expect(underline.getAttribute('data-colour')).resolves.toBe(PROD_RED);
      await expect(underline.evaluate((el) => getComputedStyle(el).backgroundColor)).resolves.toBe('rgb(217, 63, 63)');
    }
    await expect(page.getByTestId('status-connection').getAttribute('data-colour')).resolves.toBe(PROD_RED);

    // Two dirty tabs, then a switch to another connection: the modal lists both and ignores Escape.
    for (const skill of SKILLS) {
      await focusEditor(page, editorTab(skill));
      await page.keyboard.press('ControlOrMeta+End');
      await typeInEditor(page, ' ');
      await page.locator(`[data-testid="tab-${editorTab(skill)}"][data-dirty="true"]`).waitFor();
    }
    await page.getByTestId('connection-row-default').click();
    const modal = page.getByTestId('unsaved-dialog');
    await modal.waitFor();
    for (const skill of SKILLS) await page.getByTestId(`unsaved-item-${editorTab(skill)}`).waitFor();
    await expect(page.getByTestId('unsaved-list').locator('li').count()).resolves.toBe(2);
    await page.keyboard.press('Escape');
    await page.mouse.click(5, 5);
    await expect(modal.isVisible()).resolves.toBe(true);
    await screenshot(page, 'connection-switch-guard-1280x800');
    await page.getByTestId('unsaved-cancel').click();
    await modal.waitFor({ state: 'detached' });
    await expect(page.getByTestId('status-connection').getAttribute('data-connection')).resolves.toBe('prod-http');
    for (const skill of SKILLS) await page.getByTestId(`tab-${editorTab(skill)}`).waitFor();

    // The network is cut: the status bar reads Offline on its own.
    await proxy.close();
    await page.getByTestId('status-offline').waitFor();
    await expect(page.getByTestId('status-connection').getAttribute('data-offline')).resolves.toBe('true');
    await expect(page.getByTestId('status-connection').getAttribute('title')).resolves.toMatch(/^Offline: .*does not answer/);
    await page.locator('[data-testid="connection-row-prod-http"][data-reachability="down"]').waitFor();

    // Editing and validation keep working; Publish is disabled with the reason.
    const first = editorTab(SKILLS[0]!);
    const panel = page.getByTestId(`panel-${first}`);
    await focusEditor(page, first);
    await addExample(page, 'Pager says every checkout request returns 502');
    await expectErrors(page, 0, UI_WAIT_MS);
    const publish = panel.getByTestId('editor-publish');
    await expect(publish.isDisabled()).resolves.toBe(true);
    await expect(publish.getAttribute('title')).resolves.toMatch(/^Offline: /);
    await expect(panel.getByTestId('editor-offline').textContent()).resolves.toMatch(/Offline\..*Publish waits until the connection answers again/);
    await expect.poll(() => panel.getByTestId('editor-save-state').textContent(), { timeout: UI_WAIT_MS }).toBe('Draft saved');

    await addEmptyExample(page);
    await expectProblem(page, 'empty_entry', panel);
    await panel.locator('.squiggly-error').first().waitFor();
    await expectErrors(page, 1, UI_WAIT_MS);
    await expect(publish.isDisabled()).resolves.toBe(true);
    await page.mouse.move(0, 0);
    await screenshot(page, 'offline-editor-1280x800');
    expect(pageErrors(page)).toEqual([]);
  });
});
