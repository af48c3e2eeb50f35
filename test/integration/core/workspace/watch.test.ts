/**
 * The workspace watcher on a real folder: native events and the polling
 * fallback used for network folders both report an outside edit with the hash
 * of the new bytes; dotfiles and the temporary files of atomic saves are not
 * reported.
 */
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../../../core/fs/atomic';
import { hashText } from '../../../../core/workspace/drafts';
import { isNetworkFolder, watchWorkspace, type WorkspaceChange, type WorkspaceWatcher } from '../../../../core/workspace/watch';

let root: string | undefined;
let watcher: WorkspaceWatcher | undefined;

afterEach(async () => {
  await watcher?.close();
  if (root) await rm(root, { recursive: true, force: true });
  watcher = undefined;
  root = undefined;
});

describe.each([false, true])('watchWorkspace (polling %s)', (polling) => {
  it('reports an outside edit, an atomic save and a removal, and never a temp or dot file', async () => {
    root = await mkdtemp(join(tmpdir(), 'skillbench-watch-'));
    const ns = join(root, 'skills', 'packages', 'travel');
    await mkdir(ns, { recursive: true });
    const file = join(ns, 'weather.json');
    await writeFile(file, '{"v":1}');
    const seen: WorkspaceChange[] = [];
    watcher = await watchWorkspace(root, (changes) => seen.push(...changes), { polling, intervalMs: 100, batchMs: 20 });
    expect(watcher.polling).toBe(polling);

    await writeFile(file, '{"v":2}');
    await expect.poll(() => seen.find((c) => c.hash === hashText('{"v":2}')), { timeout: 10_000 }).toMatchObject({
      kind: 'changed',
      path: 'skills/packages/travel/weather.json',
      skill: { namespace: 'travel', name: 'weather' },
    });
    await writeFileAtomic(file, '{"v":3}');
    await expect.poll(() => seen.some((c) => c.path === 'skills/packages/travel/weather.json' && c.hash === hashText('{"v":3}')), { timeout: 10_000 }).toBe(true);
    await writeFile(join(ns, '.DS_Store'), 'x');
    await rm(file);
    await expect.poll(() => seen.some((c) => c.kind === 'removed'), { timeout: 10_000 }).toBe(true);
    expect(seen.filter((c) => c.path.split('/').some((p) => p.startsWith('.')))).toEqual([]);
  });
});

it('reports a link that leads out of the workspace without reading what it points at', async () => {
  root = await mkdtemp(join(tmpdir(), 'skillbench-watch-'));
  const outside = await mkdtemp(join(tmpdir(), 'skillbench-watch-outside-'));
  try {
    const ns = join(root, 'skills', 'packages', 'travel');
    await mkdir(ns, { recursive: true });
    await writeFile(join(outside, 'secret.json'), '{"secret":1}');
    const seen: WorkspaceChange[] = [];
    watcher = await watchWorkspace(root, (changes) => seen.push(...changes), { batchMs: 20 });
    await symlink(join(outside, 'secret.json'), join(ns, 'linked.json'));
    await writeFile(join(ns, 'real.json'), '{"v":1}');
    await expect.poll(() => seen.some((c) => c.path === 'skills/packages/travel/real.json'), { timeout: 10_000 }).toBe(true);
    await expect.poll(() => seen.find((c) => c.path === 'skills/packages/travel/linked.json'), { timeout: 10_000 }).toBeDefined();
    expect(seen.filter((c) => c.path === 'skills/packages/travel/linked.json').map((c) => c.hash)).toEqual([undefined]);
    expect(seen.some((c) => c.hash === hashText('{"secret":1}'))).toBe(false);
  } finally {
    await rm(outside, { recursive: true, force: true });
  }
});

it('treats a local temp folder as a local (natively watched) folder', async () => {
  expect(await isNetworkFolder(tmpdir())).toBe(false);
});

describe('watchWorkspace with native events', () => {
  it('reports the first package of every new namespace, whatever the gap between its folder and its file', async () => {
    root = await mkdtemp(join(tmpdir(), 'skillbench-watch-ns-'));
    const packages = join(root, 'skills', 'packages');
    await mkdir(join(packages, 'travel'), { recursive: true });
    const added = new Set<string>();
    let all: () => void = () => undefined;
    const everyOne = new Promise<void>((resolve) => (all = resolve));
    const ATTEMPTS = 64;
    watcher = await watchWorkspace(
      root,
      (changes) => {
        for (const c of changes) if (c.kind === 'added' && c.hash === hashText('{}')) added.add(c.path);
        if (added.size === ATTEMPTS) all();
      },
      { polling: false, batchMs: 20 },
    );
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      // chokidar reads a new folder before it watches it: a file renamed in between was never reported.
      const ns = join(packages, `ns${attempt}`);
      await mkdir(ns);
      await new Promise((resolve) => setTimeout(resolve, attempt % 32));
      await writeFile(join(ns, '.skill.json.tmp'), '{}');
      await rename(join(ns, '.skill.json.tmp'), join(ns, 'skill.json'));
    }
    // Only a package that is never reported ends this wait with the test's timeout.
    await everyOne;
    expect([...added].sort()).toEqual(Array.from({ length: ATTEMPTS }, (_, i) => `skills/packages/ns${i}/skill.json`).sort());
  });
});
