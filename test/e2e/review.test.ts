/**
 * Journey 9: a publication request reviewed in the workbench. The author files
 * it with the CLI; the reviewer (the server's session) marks the three changed
 * fields as viewed and approves; the author edits the draft, the approval turns
 * stale and Publish is disabled with the reason. A request of the session's own
 * never shows Approve.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { E2E_SETUP_TIMEOUT_MS, E2E_TIMEOUT_MS, pageErrors, screenshotSizes, startApp, UI_WAIT_MS, type App } from './harness';

const DRAFT = 'skills/packages/devops/incident-response.json';
const FIELDS = ['/description', '/activation_examples/should_activate', '/change_reason'];

describe('journey 9: review a publication request', () => {
  let app: App;
  let ws: string;

  beforeAll(async () => {
    ws = await mkdtemp(join(tmpdir(), 'skillbench-e2e-review-'));
    const pkg = JSON.parse(await readFile(resolve('examples', DRAFT), 'utf8')) as { description: string; change_reason: string; activation_examples: { should_activate: string[] } };
    pkg.description = `${pkg.description} Also covers degraded partner APIs.`;
    pkg.activation_examples.should_activate.push('The payments API is returning 500s for every request');
    pkg.change_reason = 'Cover partner API outages';
    await mkdir(join(ws, 'skills/packages/devops'), { recursive: true });
    await writeFile(join(ws, DRAFT), `${JSON.stringify(pkg, null, 2)}\n`);
    app = await startApp({ env: { SKILLBENCH_USER: 'rita' } });
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await app?.close();
    if (ws) await rm(ws, { recursive: true, force: true });
  });

  it('the reviewer views 3/3 fields and approves; an author edit makes it stale and disables Publish', { timeout: E2E_TIMEOUT_MS }, async () => {
    const page = await app.page();
    await page.getByTestId('connection-row-default').waitFor();
    // The embedded registry is seeded with the example skills on first use: v1 is the request's base.
    await app.call('catalog.page', { connection: 'default' });
    await app.call('workspace.open', { dir: ws });

    const created = await runCli(['review', 'create', DRAFT, '--to', 'default', '--note', 'Cover partner API outages', '--json'], {
      cwd: ws,
      env: { SKILLBENCH_HOME: app.home, SKILLBENCH_USER: 'ana' },
    });
    expect(created.code, created.stderr).toBe(0);
    const id = (JSON.parse(created.stdout) as { id: string }).id;

    await page.getByTestId('activity-reviews').click();
    await page.getByTestId(`review-row-${id}`).click();
    const view = page.getByTestId(`review-view-${id}`);
    await view.waitFor();
    await expect(page.getByTestId('review-author').textContent()).resolves.toBe('ana');
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
    await expect(detail.getByTestId('review-detail-after').textContent()).resolves.toContain('The payments API is returning 500s for every request');

    for (const pointer of FIELDS) await page.getByTestId(`review-viewed-${pointer}`).check();
    await expect(page.getByTestId('review-progress-text').textContent()).resolves.toBe('3/3 fields viewed');
    await screenshotSizes(page, 'review-viewed');

    await page.getByTestId(`review-approve-${id}`).click();
    await expect.poll(() => page.getByTestId(`review-status-${id}`).textContent()).toBe('Approved');
    await expect.poll(() => page.getByTestId(`review-publish-${id}`).isDisabled()).toBe(false);
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
