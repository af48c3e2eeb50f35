/**
 * Journey 3, the connections part the browser host serves: the sidebar shows
 * the embedded registry as reachable; testing an unreachable address from the
 * Add Connection dialog fails inside the dialog (or, on a host without
 * `connections.test`, says the host cannot test) and saves nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageErrors, screenshot, startApp, type App } from './harness';

describe('connections in the sidebar and the add dialog', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('tests unsaved form values inside the dialog and saves nothing', async () => {
    const page = await app.page();
    await page.locator('[data-testid="connection-row-default"][data-reachability="up"]').waitFor();
    await page.getByTestId('connection-add').click();
    await page.getByTestId('connection-dialog').waitFor();
    await page.getByTestId('connection-field-name').fill('prod-http');
    await page.getByTestId('connection-field-env').selectOption('PROD');
    await expect(page.getByTestId('connection-env-preview').getAttribute('data-colour')).resolves.toBe('#d93f3f');
    await page.getByTestId('connection-field-url').fill('http://127.0.0.1:9/api/v1/skills');
    await page.getByTestId('connection-field-secret').fill('wrong-token');
    await page.getByTestId('connection-test').click();
    const outcome = page.locator('[data-testid="connection-test-result"][data-ok="false"], [data-testid="connection-error"]').first();
    await outcome.waitFor();
    const text = (await outcome.textContent()) ?? '';
    expect(text).not.toContain('wrong-token');
    expect(text.length).toBeGreaterThan(10);
    await screenshot(page, 'connection-dialog-1280x800');
    await page.getByTestId('connection-cancel').click();
    await page.getByTestId('connection-dialog').waitFor({ state: 'detached' });
    const list = await app.call<{ connections: { profile: { name: string } }[] }>('connections.list');
    expect(list.connections.map((c) => c.profile.name)).toEqual(['default']);
    expect(pageErrors(page)).toEqual([]);
  });

});
