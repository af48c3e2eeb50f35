/**
 * Journey 9: publication requests reviewed in the workbench, signed with real
 * SSH keys made by ssh-keygen.
 *
 * - The author files a request with the CLI; the reviewer (the server's
 *   session, with her own key) sees the author's verified signature, marks the
 *   three changed fields as viewed and approves; the author edits the draft,
 *   the approval turns stale and Publish is disabled with the reason. A
 *   request of the session's own never shows Approve.
 * - The whole signed journey in two workbenches against an approval-enforcing
 *   `registry serve`: the author types an edit in the editor and chooses
 *   "Request review…"; the reviewer's list shows the request as it arrives,
 *   she reads the new example item by item, approves, and publishes; the host
 *   takes the write because the approval verifies against its allowed signers.
 *   Each workbench's environment and git config claim the other's name: the
 *   names shown are the principals of the keys.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalStore } from '../../core/store/local';
import { playwrightChord } from '../../renderer/shell/keys';
import { runCli, type CliRun } from '../helpers/cli';
import { startRegistryHost } from '../helpers/registryHost';
import { makeSigners, signingEnv } from '../helpers/sshKeys';
import { addExample, FIRST_EXAMPLE } from './authoring';
import { E2E_SETUP_TIMEOUT_MS, E2E_TIMEOUT_MS, pageErrors, screenshotSizes, startApp, UI_WAIT_MS, type App } from './harness';

const DRAFT = 'skills/packages/devops/incident-response.json';
const FIELDS = ['/description', '/activation_examples/should_activate', '/change_reason'];

describe('journey 9: review a publication request', () => {
  let app: App;
  let ws: string;
  let keysDir: string;
  let signers: Awaited<ReturnType<typeof makeSigners>>;

  beforeAll(async () => {
    keysDir = await mkdtemp(join(tmpdir(), 'skillbench-e2e-review-keys-'));
    signers = await makeSigners(keysDir, ['ana', 'rita']);
    ws = await mkdtemp(join(tmpdir(), 'skillbench-e2e-review-'));
    const pkg = JSON.parse(await readFile(resolve('examples', DRAFT), 'utf8')) as { description: string; change_reason: string; activation_examples: { should_activate: string[] } };
    pkg.description = `${pkg.description} Also covers degraded partner APIs.`;
    pkg.activation_examples.should_activate.push('The payments API is returning 500s for every request');
    pkg.change_reason = 'Cover partner API outages';
    await mkdir(join(ws, 'skills/packages/devops'), { recursive: true });
    await writeFile(join(ws, DRAFT), `${JSON.stringify(pkg, null, 2)}\n`);
    app = await startApp({ env: signingEnv(signers.keys['rita']!, signers.allowed) });
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await app?.close();
    if (ws) await rm(ws, { recursive: true, force: true });
    if (keysDir) await rm(keysDir, { recursive: true, force: true });
  });

  it('the reviewer views 3/3 fields and approves; an author edit makes it stale and disables Publish', { timeout: E2E_TIMEOUT_MS }, async () => {
    const page = await app.page();
    await page.getByTestId('connection-row-default').waitFor();
    // The embedded registry is seeded with the example skills on first use: v1 is the request's base.
    await app.call('catalog.page', { connection: 'default' });
    await app.call('workspace.open', { dir: ws });

    const created = await runCli(['review', 'create', DRAFT, '--to', 'default', '--note', 'Cover partner API outages', '--json'], {
      cwd: ws,
      env: { SKILLBENCH_HOME: app.home, ...signingEnv(signers.keys['ana']!, signers.allowed) },
    });
    expect(created.code, created.stderr).toBe(0);
    const id = (JSON.parse(created.stdout) as { id: string }).id;

    await page.getByTestId('activity-reviews').click();
    await page.getByTestId(`review-row-${id}`).click();
    const view = page.getByTestId(`review-view-${id}`);
    await view.waitFor();
    await expect(page.getByTestId('review-author').textContent()).resolves.toBe('ana@example.com');
    await expect(page.getByTestId('review-signature-0').getAttribute('data-counts')).resolves.toBe('true');
    await expect(page.getByTestId('review-signature-principal-0').textContent()).resolves.toBe('ana@example.com');
    await expect(page.getByTestId('review-check-validation').getAttribute('data-ok')).resolves.toBe('true');
    await expect(page.getByTestId('review-progress-text').textContent()).resolves.toBe('0/3 fields viewed');
    await expect(page.getByTestId(`review-publish-${id}`).isDisabled()).resolves.toBe(true);

    // The selected field reads in full, base beside request.
    await page.getByTestId('review-field-/description').click();
    const detail = page.getByTestId('review-field-detail');
    await expect(detail.getAttribute('data-pointer')).resolves.toBe('/description');
    await expect(detail.getByTestId('review-detail-after').textContent()).resolves.toMatch(/Also covers degraded partner APIs\.$/);
    await expect(detail.getByTestId('review-detail-before').textContent()).resolves.not.toContain('partner APIs');
    await page.getByTestId('review-field-/activation_examples/should_activate').click();
    // A list reads entry by entry: the new example is the one added row.
    await expect(detail.locator('[data-testid^="review-item-"][data-op="added"]').allTextContents()).resolves.toEqual([expect.stringContaining('The payments API is returning 500s for every request')]);
    await expect(detail.locator('[data-testid^="review-item-"][data-op="removed"]').count()).resolves.toBe(0);

    for (const pointer of FIELDS) await page.getByTestId(`review-viewed-${pointer}`).check();
    await expect(page.getByTestId('review-progress-text').textContent()).resolves.toBe('3/3 fields viewed');
    await screenshotSizes(page, 'review-viewed');

    await page.getByTestId(`review-approve-${id}`).click();
    await expect.poll(() => page.getByTestId(`review-status-${id}`).textContent()).toBe('Approved');
    await expect.poll(() => page.getByTestId(`review-publish-${id}`).isDisabled()).toBe(false);
    await expect(page.getByTestId('review-signature-principal-1').textContent()).resolves.toBe('rita@example.com');
    await expect(page.getByTestId('review-signature-1').getAttribute('data-counts')).resolves.toBe('true');
    await screenshotSizes(page, 'review-approved');

    // The author edits the draft after the approval.
    const edited = JSON.parse(await readFile(join(ws, DRAFT), 'utf8')) as { description: string };
    edited.description = `${edited.description} Edited after the approval.`;
    await writeFile(join(ws, DRAFT), `${JSON.stringify(edited, null, 2)}\n`);
    await expect.poll(() => page.getByTestId(`review-status-${id}`).textContent(), { timeout: UI_WAIT_MS }).toBe('Stale');
    await expect(page.getByTestId(`review-publish-${id}`).isDisabled()).resolves.toBe(true);
    await expect(page.getByTestId('review-publish-reason').textContent()).resolves.toMatch(/stale/);
    await screenshotSizes(page, 'review-stale');
    expect(pageErrors(page)).toEqual([]);
  });

  it('never shows Approve to the requester', { timeout: E2E_TIMEOUT_MS }, async () => {
    const own = await app.call<{ id: string }>('reviews.create', { source: { kind: 'file', path: DRAFT }, connection: 'default', note: 'mine' });
    const page = await app.page();
    await page.getByTestId('activity-reviews').click();
    await page.getByTestId(`review-row-${own.id}`).click();
    await page.getByTestId(`review-publish-${own.id}`).waitFor();
    await expect(page.getByTestId(`review-approve-${own.id}`).count()).resolves.toBe(0);
    await expect(page.getByTestId(`review-reject-${own.id}`).count()).resolves.toBe(0);
    expect(pageErrors(page)).toEqual([]);
  });
});

describe('journey 9b: request review from the editor, approve as another identity, publish to an approval-enforcing host', () => {
  const TOKEN = 'host-write-token-2b7e151628';
  const NEW_EXAMPLE = 'Checkout keeps timing out for customers in every region';
  let work: string;
  let author: App;
  let reviewer: App;
  let host: { child: ChildProcess; url: string; log: () => string; done: Promise<CliRun> };
  let hostDir: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'skillbench-e2e-signed-'));
    await mkdir(join(work, 'keys'));
    const signers = await makeSigners(join(work, 'keys'), ['ana', 'rita']);
    const ws = join(work, 'ws');
    await mkdir(join(ws, 'skills', 'packages'), { recursive: true });
    // The host alone holds the store: v1 of the skill is there, and it takes devops/* only with a signed approval.
    hostDir = join(work, 'host-registry');
    const seed = await openLocalStore(hostDir);
    await seed.publish({ id: { namespace: 'devops', name: 'incident-response' }, body: await readFile(resolve('examples', DRAFT), 'utf8'), precondition: { kind: 'create' } });
    await seed.close();
    host = await startRegistryHost({ dir: hostDir, namespace: 'devops', allowedSigners: signers.allowed, token: TOKEN, cwd: work, home: join(work, 'host-home') });

    // Each workbench's environment and git config claim the other person: only the key decides who signs.
    const claiming = (name: string) => ({ SKILLBENCH_USER: name, USER: name, GIT_CONFIG_COUNT: '2', GIT_CONFIG_KEY_0: 'user.name', GIT_CONFIG_VALUE_0: name, GIT_CONFIG_KEY_1: 'user.email', GIT_CONFIG_VALUE_1: name });
    author = await startApp({ env: { ...signingEnv(signers.keys['ana']!, signers.allowed), ...claiming('rita@example.com') } });
    reviewer = await startApp({ env: { ...signingEnv(signers.keys['rita']!, signers.allowed), ...claiming('ana@example.com') } });
    for (const app of [author, reviewer]) {
      await app.call('workspace.open', { dir: ws });
      await app.call('connections.save', {
        profile: { name: 'prod', label: 'Production', protected: true, enforces_approvals: true, environment: { label: 'PROD', colour: '#d93f3f' }, target: { kind: 'http', url: host.url, auth: 'bearer' } },
        secrets: { token: TOKEN },
      });
    }
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await author?.close();
    await reviewer?.close();
    host?.child.kill('SIGTERM');
    await host?.done;
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('files from the editor, approves as rita in her own workbench, publishes through the enforcing host', { timeout: 2 * E2E_TIMEOUT_MS }, async () => {
    // The reviewer has her requests list open before anything is filed.
    const rita = await reviewer.page();
    await rita.getByTestId('connection-row-prod').waitFor();
    await rita.getByTestId('activity-reviews').click();
    await rita.getByTestId('reviews-empty').waitFor();

    // The author opens the published skill from prod's catalog and adds an activation example by keyboard.
    const ana = await author.page();
    await ana.getByTestId('connection-row-prod').click();
    await ana.locator('[data-testid="connection-row-prod"][aria-selected="true"]').waitFor();
    await expect(ana.getByTestId('connection-enforces-prod').textContent()).resolves.toBe('enforced');
    await ana.keyboard.press(playwrightChord('Mod+Shift+E'));
    await ana.getByTestId('catalog-prod').waitFor();
    await ana.locator('[data-testid="catalog-row-devops/incident-response"], [data-testid="catalog-error"]').first().waitFor();
    expect(await ana.getByTestId('catalog-error').allTextContents()).toEqual([]);
    await ana.getByTestId('catalog-row-devops/incident-response').click();
    await ana.getByTestId('catalog-open-devops/incident-response').click();
    await ana.getByTestId('editor-monaco').locator('.monaco-editor').first().waitFor();
    await ana.getByTestId('meter-description').waitFor();
    await ana.getByTestId('editor-monaco').locator('.monaco-editor').first().click();
    await addExample(ana, NEW_EXAMPLE);
    await expect.poll(() => ana.getByTestId('editor-request-review').isDisabled()).toBe(false);

    // A direct Publish is refused by the protected profile: requests are the way in.
    await ana.getByTestId('editor-request-review').click();
    const dialog = ana.getByTestId('request-review-dialog');
    await dialog.waitFor();
    await expect(dialog.getByTestId('request-review-connection').inputValue()).resolves.toBe('prod');
    await expect.poll(() => dialog.getByTestId('request-review-signer').textContent()).toContain('ana@example.com');
    await dialog.getByTestId('request-review-note').fill('Cover checkout timeouts?');
    await screenshotSizes(ana, 'review-request-dialog');
    await dialog.getByTestId('request-review-submit').click();
    await dialog.waitFor({ state: 'detached' });
    const view = ana.locator('[data-testid^="review-view-"]:visible');
    await view.waitFor();
    const id = ((await view.getAttribute('data-testid')) ?? '').replace('review-view-', '');
    expect(id).toMatch(/^devops\.incident-response\./);
    await expect(ana.getByTestId('review-signature-principal-0').textContent()).resolves.toBe('ana@example.com');
    await expect(ana.getByTestId(`review-approve-${id}`).count()).resolves.toBe(0);

    // The request arrives in rita's list on its own (an event, no reload).
    const row = rita.getByTestId(`review-row-${id}`);
    await row.waitFor();
    await row.click();
    await rita.getByTestId(`review-view-${id}`).waitFor();
    await expect(rita.getByTestId('review-signature-0').getAttribute('data-counts')).resolves.toBe('true');
    await expect(rita.getByTestId('review-signature-principal-0').textContent()).resolves.toBe('ana@example.com');
    await expect(rita.getByTestId('review-viewer').textContent()).resolves.toBe('rita@example.com');
    const field = '/activation_examples/should_activate';
    await rita.getByTestId(`review-field-${field}`).click();
    await expect(rita.getByTestId(`review-field-items-${field}`).textContent()).resolves.toMatch(/^\+1 −0 of \d+$/);
    const detail = rita.getByTestId('review-field-detail');
    await expect(detail.locator('[data-op="added"]').allTextContents()).resolves.toEqual([expect.stringContaining(NEW_EXAMPLE)]);
    await expect(detail.locator('[data-op="equal"]').first().textContent()).resolves.toContain(FIRST_EXAMPLE);
    await screenshotSizes(rita, 'review-signed-items');
    for (const pointer of (await rita.locator('[data-testid^="review-viewed-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!)))) await rita.getByTestId(pointer).check();
    await rita.getByTestId(`review-approve-${id}`).click();
    await expect.poll(() => rita.getByTestId(`review-status-${id}`).textContent()).toBe('Approved');
    await expect(rita.getByTestId('review-signature-principal-1').textContent()).resolves.toBe('rita@example.com');
    await expect(rita.getByTestId('review-signature-1').getAttribute('data-counts')).resolves.toBe('true');
    // The protected connection's lock is drawn from the bundled icons, not an emoji a machine's fonts may lack.
    const lock = rita.getByTestId('status-protected');
    await expect(lock.getAttribute('title')).resolves.toBe('Protected: publishes need an approved review');
    await expect(lock.locator('[data-icon="lock"]').count()).resolves.toBe(1);
    await expect(lock.textContent()).resolves.toBe('');
    await screenshotSizes(rita, 'review-signed-approved');
    await rita.emulateMedia({ colorScheme: 'light' });
    await screenshotSizes(rita, 'review-signed-approved-light');
    await rita.emulateMedia({ colorScheme: 'dark' });

    await rita.getByTestId(`review-publish-${id}`).click();
    await expect.poll(() => rita.getByTestId(`review-status-${id}`).textContent(), { timeout: UI_WAIT_MS }).toBe('Published');
    const published = (await (await fetch(`${host.url}/devops/incident-response`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { version: number; package: { activation_examples: { should_activate: string[] } } };
    expect(published.version).toBe(2);
    expect(published.package.activation_examples.should_activate).toContain(NEW_EXAMPLE);
    await expect.poll(() => host.log()).toMatch(/PUT \/api\/v1\/skills\/\{namespace\}\/\{name\} 200 /);
    expect(host.log()).not.toContain('approval_required');
    // The author's workbench hears of it too.
    await expect.poll(() => ana.getByTestId(`review-status-${id}`).textContent(), { timeout: UI_WAIT_MS }).toBe('Published');
    await screenshotSizes(rita, 'review-signed-published');
    expect(pageErrors(ana)).toEqual([]);
    expect(pageErrors(rita)).toEqual([]);
  });
});
