/**
 * The desktop window's saved bounds: read bounded and without creating
 * anything, torn or foreign files ignored, written atomically, and fitted to
 * the displays present at launch.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_WINDOW_STATE, MIN_SIZE, fitToDisplays, loadWindowState, saveWindowState, stateOf } from '../../../electron/windowState';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbench-window-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('window state file', () => {
  it('gives the defaults for a missing file and creates nothing', async () => {
    const missing = join(dir, 'user-data', 'window-state.json');
    expect(await loadWindowState(missing)).toEqual(DEFAULT_WINDOW_STATE);
    expect(await readdir(dir)).toEqual([]);
  });

  it.each([
    ['torn JSON', '{"version":1,"width":9'],
    ['another shape', '{"version":2,"width":900,"height":700,"maximized":false}'],
    ['a negative size', '{"version":1,"width":-5,"height":700,"maximized":false}'],
    ['not JSON at all', '\u0000\u0001binary'],
  ])('gives the defaults for %s', async (_what, text) => {
    const file = join(dir, 'window-state.json');
    await writeFile(file, text);
    expect(await loadWindowState(file)).toEqual(DEFAULT_WINDOW_STATE);
  });

  it('gives the defaults for an oversized file without reading it whole', async () => {
    const file = join(dir, 'window-state.json');
    await writeFile(file, `{"version":1,"width":900,"height":700,"maximized":false,"pad":"${'x'.repeat(200_000)}"}`);
    expect(await loadWindowState(file)).toEqual(DEFAULT_WINDOW_STATE);
  });

  it('round-trips bounds and the maximized flag, atomically, leaving no temporary file', async () => {
    const file = join(dir, 'nested', 'window-state.json');
    await saveWindowState(file, { x: 40, y: 60, width: 1000.4, height: 700, maximized: true });
    expect(await loadWindowState(file)).toEqual({ x: 40, y: 60, width: 1000, height: 700, maximized: true });
    await saveWindowState(file, { width: 800, height: 600, maximized: false });
    expect(await loadWindowState(file)).toEqual({ width: 800, height: 600, maximized: false });
    expect(await readdir(join(dir, 'nested'))).toEqual(['window-state.json']);
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ version: 1 });
  });

  it('keeps the previous state when many saves race (each rename replaces a whole file)', async () => {
    const file = join(dir, 'window-state.json');
    await Promise.all(Array.from({ length: 20 }, (_, i) => saveWindowState(file, { width: 800 + i, height: 600, maximized: false })));
    const state = await loadWindowState(file);
    expect(state.width).toBeGreaterThanOrEqual(800);
    expect(state.width).toBeLessThan(820);
    expect(await readdir(dir)).toEqual(['window-state.json']);
  });

  it('saves the normal bounds of a maximized window', () => {
    const window = { getNormalBounds: () => ({ x: 5, y: 6, width: 900, height: 650 }), isMaximized: () => true };
    expect(stateOf(window)).toEqual({ x: 5, y: 6, width: 900, height: 650, maximized: true });
  });

  it('refuses to write a state that could not be read back', async () => {
    await mkdir(join(dir, 'x'));
    await expect(saveWindowState(join(dir, 'x', 'window-state.json'), { width: Number.NaN, height: 1, maximized: false })).rejects.toThrow();
    expect(await readdir(join(dir, 'x'))).toEqual([]);
  });
});

describe('fitting to the displays present', () => {
  const primary = { x: 0, y: 0, width: 1920, height: 1050 };
  const right = { x: 1920, y: 0, width: 1280, height: 1000 };

  it('keeps a window that is on a display', () => {
    expect(fitToDisplays({ x: 2000, y: 100, width: 1000, height: 700, maximized: false }, [primary, right])).toEqual({ x: 2000, y: 100, width: 1000, height: 700, maximized: false });
  });

  it('centres a window whose monitor is gone (drops its position)', () => {
    expect(fitToDisplays({ x: 2000, y: 100, width: 1000, height: 700, maximized: true }, [primary])).toEqual({ width: 1000, height: 700, maximized: true });
  });

  it('pulls a window hanging off the edge back onto its display', () => {
    expect(fitToDisplays({ x: 1700, y: -10, width: 1000, height: 700, maximized: false }, [primary])).toEqual({ x: 920, y: 0, width: 1000, height: 700, maximized: false });
  });

  it('clamps the size to the largest display and to the minimum', () => {
    expect(fitToDisplays({ width: 5000, height: 4000, maximized: false }, [primary, right])).toEqual({ width: 1920, height: 1050, maximized: false });
    expect(fitToDisplays({ width: 10, height: 10, maximized: false }, [primary])).toEqual({ ...MIN_SIZE, maximized: false });
  });
});
