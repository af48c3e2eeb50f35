import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { discoverPackages, packagesFolder } from '../../../../core/workspace/discover';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'skillbench-discover-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function touch(path: string, content = '{}'): Promise<void> {
  await mkdir(join(root, path, '..'), { recursive: true });
  await writeFile(join(root, path), content);
}

describe('discoverPackages', () => {
  it('finds skills/packages/<namespace>/<name>.json in a workspace, sorted', async () => {
    await touch('skills/packages/travel/weather.json');
    await touch('skills/packages/devops/rollout-safety.json');
    await touch('skills/evals/travel/weather.json');
    await touch('README.md', '# x');
    const found = await discoverPackages(root);
    expect(found).toEqual([
      { file: join(root, 'skills/packages/devops/rollout-safety.json'), path: 'skills/packages/devops/rollout-safety.json', id: { namespace: 'devops', name: 'rollout-safety' } },
      { file: join(root, 'skills/packages/travel/weather.json'), path: 'skills/packages/travel/weather.json', id: { namespace: 'travel', name: 'weather' } },
    ]);
    expect(await packagesFolder(root)).toBe(join(root, 'skills', 'packages'));
  });

  it('finds <namespace>/<name>.json directly below a folder that is not a workspace', async () => {
    await touch('travel/weather.json');
    expect((await discoverPackages(root)).map((f) => [f.path, f.id])).toEqual([['travel/weather.json', { namespace: 'travel', name: 'weather' }]]);
  });

  it('treats a workspace skills/ folder like the workspace', async () => {
    await touch('skills/packages/travel/weather.json');
    expect((await discoverPackages(join(root, 'skills'))).map((f) => f.path)).toEqual(['packages/travel/weather.json']);
  });

  it('ignores .DS_Store and other dotfiles at every level', async () => {
    await touch('travel/weather.json');
    await touch('.DS_Store', 'x');
    await touch('travel/.DS_Store', 'x');
    await touch('.git/config', 'x');
    await touch('travel/.weather.json.swp', 'x');
    expect((await discoverPackages(root)).map((f) => f.path)).toEqual(['travel/weather.json']);
  });

  it('reports unexpected files and folders instead of skipping them', async () => {
    await touch('travel/weather.json');
    await touch('notes.txt', 'x');
    await touch('travel/readme.txt', 'x');
    await touch('travel/nested/deep.json');
    await touch('Travel/x.json');
    await touch('travel/Bad_Name.json');
    const found = await discoverPackages(root);
    expect(found.map((f) => [f.path, f.problem?.code ?? 'package'])).toEqual([
      ['Travel', 'invalid_slug'],
      ['notes.txt', 'unexpected_entry'],
      ['travel/Bad_Name.json', 'invalid_slug'],
      ['travel/nested', 'unexpected_entry'],
      ['travel/readme.txt', 'unexpected_entry'],
      ['travel/weather.json', 'package'],
    ]);
    for (const entry of found) expect(entry.id === undefined).toBe(entry.problem !== undefined);
    expect(found.find((f) => f.path === 'travel/nested')!.problem!.message).toContain('nested');
  });

  it('follows symbolic links to package files', async () => {
    await touch('elsewhere/real.json');
    await mkdir(join(root, 'travel'));
    await symlink(join(root, 'elsewhere', 'real.json'), join(root, 'travel', 'linked.json'));
    const found = await discoverPackages(root);
    expect(found.find((f) => f.path === 'travel/linked.json')?.id).toEqual({ namespace: 'travel', name: 'linked' });
  });

  it('reports a link that leads out of the folder as a problem, for a file and for a folder, and reads neither', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'skillbench-discover-outside-'));
    try {
      await mkdir(join(outside, 'ns'));
      await writeFile(join(outside, 'ns', 'secret.json'), '{}');
      await mkdir(join(root, 'travel'));
      await symlink(join(outside, 'ns', 'secret.json'), join(root, 'travel', 'linked.json'));
      await symlink(join(outside, 'ns'), join(root, 'elsewhere'));
      const found = await discoverPackages(root);
      expect(found.find((f) => f.path === 'travel/linked.json')).toMatchObject({ problem: { code: 'unexpected_entry' } });
      expect(found.find((f) => f.path === 'travel/linked.json')?.id).toBeUndefined();
      expect(found.find((f) => f.path === 'elsewhere')?.problem?.message).toContain('leads out of the folder');
      expect(found.some((f) => f.path.startsWith('elsewhere/'))).toBe(false);
      // skills/packages itself linked out of the workspace.
      const ws = join(root, 'ws');
      await mkdir(join(ws, 'skills'), { recursive: true });
      await symlink(outside, join(ws, 'skills', 'packages'));
      const linked = await discoverPackages(ws);
      expect(linked).toHaveLength(1);
      expect(linked[0]!.problem?.message).toContain('leads out of the folder');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('reports a missing root as one unreadable entry', async () => {
    const found = await discoverPackages(join(root, 'missing'));
    expect(found).toHaveLength(1);
    expect(found[0]!.problem).toMatchObject({ code: 'unreadable' });
    expect(found[0]!.problem!.message).toContain('does not exist');
  });
});
