/**
 * Agent Skills in the workbench, in Chromium against `skillbench serve`:
 * "Import SKILL.md…" from the palette shows the conversion report of each
 * skill before anything is written, then imports into the open workspace;
 * "Export as SKILL.md" on an open package previews what SKILL.md cannot carry,
 * then writes the folder. By visible labels, in both themes and both sizes.
 */
import { cp, mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEditor, pressCommand } from './authoring';
import { E2E_SETUP_TIMEOUT_MS, E2E_TIMEOUT_MS, pageErrors, screenshotThemes, startApp, UI_WAIT_MS, type App } from './harness';

const FIXTURES = join(__dirname, '../fixtures/agent-skills');

describe('Agent Skills import and export in the workbench', () => {
  let app: App;
  let work: string;
  let ws: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'skillbench-e2e-interop-'));
    ws = join(work, 'ws');
    await mkdir(ws);
    for (const name of ['orbit-api', 'generative-sketches', 'pdf-toolkit']) await cp(join(FIXTURES, name), join(work, 'skills', name), { recursive: true });
    app = await startApp();
    await app.call('workspace.open', { dir: ws });
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await app?.close();
    await rm(work, { recursive: true, force: true });
  });

  it('previews the conversion of a folder of skills, writes nothing until asked, then imports them', { timeout: E2E_TIMEOUT_MS }, async () => {
    const page = await app.page();
    await page.getByTestId('connection-row-default').waitFor();

    await pressCommand(page, 'palette.show');
    await page.keyboard.type('Import SKILL.md');
    await page.locator('[data-testid="palette-command-interop.import"][aria-selected="true"]').waitFor();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Import SKILL.md' });
    await dialog.waitFor();

    // The folder field has the focus (a browser has no folder picker): type the path, then the namespace.
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('interop-path');
    await page.keyboard.type(join(work, 'skills'));
    const namespace = dialog.getByLabel('Namespace');
    await namespace.fill('');
    await namespace.pressSequentially('docs');
    await dialog.getByRole('button', { name: 'Preview', exact: true }).click();

    const report = dialog.getByTestId('interop-report');
    await report.waitFor();
    await expect(dialog.getByTestId('interop-summary').textContent()).resolves.toBe('3 skills found; 3 valid after conversion.');
    const orbit = dialog.getByRole('region', { name: 'Import of docs/orbit-api' });
    await expect(orbit.getByText('1,170 characters is over the V1 limit of 1,024', { exact: false }).isVisible()).resolves.toBe(true);
    await expect(orbit.locator('[data-change="split"]').count()).resolves.toBe(2);
    await expect(orbit.getByText('will be written').isVisible()).resolves.toBe(true);
    const sketches = dialog.getByRole('region', { name: 'Import of docs/generative-sketches' });
    await expect(sketches.locator('[data-change="escaped"]').textContent()).resolves.toContain('2 <script> tags (SKILL.md lines 17, 21, in code blocks)');
    const pdf = dialog.getByRole('region', { name: 'Import of docs/pdf-toolkit' });
    await expect(pdf.locator('[data-change="redacted"]').textContent()).resolves.toContain('replaced with <redacted>');
    await expect(pdf.locator('[data-change="needed"]').textContent()).resolves.toContain('none were invented');
    // A preview writes nothing.
    expect(await readdir(ws)).toEqual([]);
    await screenshotThemes(page, 'interop-import-preview');

    await dialog.getByRole('button', { name: 'Import 3 skills' }).click();
    await expect.poll(() => dialog.getByTestId('interop-summary').textContent(), { timeout: UI_WAIT_MS }).toBe('Imported 3 of 3 skills into skills/packages/docs/.');
    expect((await readdir(join(ws, 'skills/packages/docs'))).sort()).toEqual(['generative-sketches.json', 'orbit-api.json', 'pdf-toolkit.json']);
    const orbitPackage = JSON.parse(await readFile(join(ws, 'skills/packages/docs/orbit-api.json'), 'utf8'));
    expect(orbitPackage.change_reason).toContain('description shortened');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });

    // Importing again into the same namespace is a no-op the report says so.
    await pressCommand(page, 'palette.show');
    await page.keyboard.type('Import SKILL.md');
    await page.locator('[data-testid="palette-command-interop.import"][aria-selected="true"]').waitFor();
    await page.keyboard.press('Enter');
    await dialog.getByRole('button', { name: 'Preview', exact: true }).click();
    await expect.poll(() => dialog.getByText('already there, unchanged').count(), { timeout: UI_WAIT_MS }).toBe(3);
    await expect(dialog.getByRole('button', { name: 'Import 0 skills' }).isEnabled()).resolves.toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(pageErrors(page)).toEqual([]);
  });

  it('exports the open package as SKILL.md after showing what it cannot carry', { timeout: E2E_TIMEOUT_MS }, async () => {
    const page = await app.page();
    const skill = { namespace: 'travel', name: 'weather-assessment' };
    await openEditor(page, skill);
    await page.getByRole('button', { name: 'Export as SKILL.md' }).click();
    const dialog = page.getByRole('dialog', { name: 'Export travel/weather-assessment as SKILL.md' });
    await dialog.waitFor();
    const folder = dialog.getByLabel('Into folder');
    await folder.fill('');
    await folder.pressSequentially(join(work, 'exported'));
    await dialog.getByRole('button', { name: 'Preview', exact: true }).click();
    await dialog.getByTestId('interop-export-report').waitFor();
    await expect(dialog.getByTestId('interop-export-summary').textContent()).resolves.toBe(`Will write 3 files to ${join(work, 'exported/weather-assessment')}`);
    const leftOut = dialog.locator('[data-change="left_out"]');
    await expect(leftOut.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-field')))).resolves.toEqual(['domains', 'tags', 'activation_examples', 'change_reason']);
    await screenshotThemes(page, 'interop-export-preview');

    await dialog.getByRole('button', { name: 'Export', exact: true }).click();
    await expect.poll(() => dialog.getByTestId('interop-export-summary').textContent(), { timeout: UI_WAIT_MS }).toBe(`Wrote 3 files to ${join(work, 'exported/weather-assessment')}`);
    const text = await readFile(join(work, 'exported/weather-assessment/SKILL.md'), 'utf8');
    const frontmatter = parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(text)![1]!) as { name: string; description: string };
    expect(frontmatter.name).toBe('weather-assessment');
    expect(frontmatter.description).toMatch(/^Use when someone planning or taking a trip/);
    await dialog.getByRole('button', { name: 'Close' }).click();
    expect(pageErrors(page)).toEqual([]);
  });
});
