/**
 * The `app://workbench/` scheme: the built renderer with the strict CSP, and
 * nothing outside its folder.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workbenchCsp } from '../../../core/api/csp';
import { APP_ENTRY, appFilePath, handleAppRequest } from '../../../electron/appProtocol';

let dir: string;
let renderer: string;
const get = (url: string, method = 'GET') => handleAppRequest(renderer, { url, method });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbench-app-'));
  renderer = join(dir, 'renderer');
  await mkdir(join(renderer, 'assets'), { recursive: true });
  await writeFile(join(renderer, 'index.html'), '<!doctype html><div id="root"></div>');
  await writeFile(join(renderer, 'assets', 'index-1.js'), 'console.log(1)');
  await writeFile(join(dir, 'secret.txt'), 'outside');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the app scheme', () => {
  it('serves the page with the strict CSP and no-sniff', async () => {
    const res = await get(APP_ENTRY);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(workbenchCsp());
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toContain('id="root"');
    expect((await get('app://workbench/')).status).toBe(200);
  });

  it('serves scripts with their type', async () => {
    const res = await get('app://workbench/assets/index-1.js');
    expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await res.text()).toBe('console.log(1)');
    expect(await (await get('app://workbench/assets/index-1.js', 'HEAD')).text()).toBe('');
  });

  it.each([
    'app://workbench/../secret.txt',
    'app://workbench/%2e%2e/secret.txt',
    'app://workbench/assets/..%2f..%2fsecret.txt',
    'app://workbench/assets%5c..%5c..%5csecret.txt',
    'app://workbench/%00index.html',
    'app://other/index.html',
    'file:///etc/passwd',
    'app://workbench/missing.js',
  ])('answers nothing from outside the renderer folder: %s', async (url) => {
    const res = await get(url);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('outside');
  });

  it('refuses other methods', async () => {
    expect((await get(APP_ENTRY, 'POST')).status).toBe(405);
  });

  it('says how to build a missing renderer', async () => {
    const res = await handleAppRequest(join(dir, 'not-built'), { url: APP_ENTRY, method: 'GET' });
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('npm start');
  });

  it('maps only its own host to files', () => {
    expect(appFilePath(renderer, 'app://workbench/assets/index-1.js')).toBe(join(renderer, 'assets', 'index-1.js'));
    expect(appFilePath(renderer, 'app://workbench.evil/index.html')).toBeUndefined();
    expect(appFilePath(renderer, 'not a url')).toBeUndefined();
  });
});
