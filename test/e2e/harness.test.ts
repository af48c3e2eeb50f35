/**
 * The harness's Chromium command line. Chromium keeps only the last
 * `--disable-features`, so the harness's own list must hold every feature
 * playwright-core switches off, or adding ours would switch those back on.
 * A recorder stands in for the browser: playwright-core launches it with the
 * exact command line Chromium would get, and it writes that down and exits.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS } from './harness';

let dir: string;
let recorded: string[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbench-e2e-args-'));
  const recorder = join(dir, 'chromium');
  await writeFile(recorder, `#!/bin/sh\nprintf '%s\\n' "$@" > '${join(dir, 'args')}'\nexit 1\n`);
  await chmod(recorder, 0o755);
  // The recorder exits at once, so the launch fails; what it was given stays in the file.
  await chromium.launch({ executablePath: recorder, args: [...CHROMIUM_ARGS] }).then(
    (browser) => browser.close(),
    () => undefined,
  );
  recorded = (await readFile(join(dir, 'args'), 'utf8')).split('\n').filter(Boolean);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The features of every `--disable-features` on the command line, in order. */
function disabledLists(args: string[]): string[][] {
  return args.filter((a) => a.startsWith('--disable-features=')).map((a) => a.slice('--disable-features='.length).split(','));
}

describe('the harness launches Chromium', () => {
  it('with one last --disable-features holding all of playwright-core\'s and the unused browser UI', () => {
    const lists = disabledLists(recorded);
    expect(lists.length).toBeGreaterThanOrEqual(1);
    const last = lists.at(-1)!;
    for (const list of lists) expect(last).toEqual(expect.arrayContaining(list));
    expect(last).toEqual(expect.arrayContaining(['PaintHolding', 'WebUIOmniboxPopup', 'WebUIOmniboxAimPopup']));
  });

  it('headless, with the harness\'s switches after playwright-core\'s', () => {
    expect(recorded).toContain('--headless');
    const ours = CHROMIUM_ARGS.map((a) => recorded.lastIndexOf(a));
    expect(ours.every((i) => i >= 0)).toBe(true);
    expect(ours).toEqual([...ours].sort((a, b) => a - b));
  });
});
