/**
 * Journey 2 of the UI research: B's draft is based on v1 while A publishes
 * v2; B's publish answers 412 and the merge view opens (base v1 / theirs v2 /
 * mine). One-sided changes are merged on their own; Complete stays disabled
 * until B resolves the one conflict; the retry with If-Match v2 yields v3
 * holding both sets of examples.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PackageRevision, PublishOutcome } from '../../core/api/contract';
import { addExample, confirmPublish, openEditor, SKILL } from './authoring';
import { E2E_SETUP_TIMEOUT_MS, E2E_TIMEOUT_MS, pageErrors, screenshot, startApp, VIEWPORTS, type App } from './harness';

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
