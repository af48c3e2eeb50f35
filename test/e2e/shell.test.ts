/**
 * The workbench opens in Chromium from `skillbench serve` and shows the
 * catalog of the embedded registry (seeded with the example skills).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageErrors, screenshot, startApp, type App } from './harness';

describe('the workbench in Chromium', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('opens the shell from the address skillbench serve prints, and drops the token from the address bar', async () => {
    const page = await app.page();
    expect(new URL(page.url()).searchParams.has('token')).toBe(false);
    await expect(page.getByTestId('status-bar').isVisible()).resolves.toBe(true);
    await screenshot(page, 'shell-1280x800');
    expect(pageErrors(page)).toEqual([]);
  });
});
