import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../../core/errors';
import { extraCasesFile, resolveTargets } from '../../../../core/workspace/targets';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'skillbench-targets-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function touch(path: string, content = '{}'): Promise<string> {
  const file = join(root, path);
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, content);
  return file;
}

async function refusal(args: string[]): Promise<WorkbenchError> {
  const error = await resolveTargets(args, { cwd: root }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkbenchError);
  expect((error as WorkbenchError).code).toBe('invalid_request');
  return error as WorkbenchError;
}

describe('resolveTargets', () => {
  it('resolves a package file as a draft with its extra cases beside the workspace', async () => {
    const file = await touch('ws/skills/packages/travel/weather.json');
    const extras = await touch('ws/skills/evals/travel/weather.json');
    expect(await resolveTargets(['ws/skills/packages/travel/weather.json'], { cwd: root })).toEqual({
      targets: [{ kind: 'draft', id: { namespace: 'travel', name: 'weather' }, file: join('ws/skills/packages/travel/weather.json'), abs: file, extras }],
      skipped: [],
    });
  });

  it('resolves a workspace folder to every package, and returns what it skipped as data', async () => {
    await touch('ws/skills/packages/travel/weather.json');
    await touch('ws/skills/packages/travel/notes.txt');
    await touch('ws/skills/packages/devops/pods.json');
    const { targets, skipped } = await resolveTargets(['ws'], { cwd: root });
    expect(targets.map((t) => [t.kind, `${t.id.namespace}/${t.id.name}`])).toEqual([
      ['draft', 'devops/pods'],
      ['draft', 'travel/weather'],
    ]);
    expect(skipped).toEqual([{ file: join('ws/skills/packages/travel/notes.txt'), message: expect.stringContaining('unexpected file') }]);
  });

  it('resolves <namespace>/<name> as a stored target, with extra cases from the working directory', async () => {
    const extras = await touch('skills/evals/travel/weather.json');
    expect((await resolveTargets(['travel/weather', 'travel/other'], { cwd: root })).targets).toEqual([
      { kind: 'stored', id: { namespace: 'travel', name: 'weather' }, extras },
      { kind: 'stored', id: { namespace: 'travel', name: 'other' } },
    ]);
  });

  it('refuses what names no skill, with the argument in the error', async () => {
    await touch('Bad/weather.json');
    await mkdir(join(root, 'empty'));
    expect((await refusal(['Bad/weather.json'])).message).toBe('Bad/weather.json: a package file must be .../<namespace>/<name>.json with slug names, to give its identity');
    expect((await refusal(['empty'])).details).toEqual({ argument: 'empty' });
    expect((await refusal(['nowhere.json'])).message).toContain('not a <namespace>/<name> identity');
  });

  it('refuses a skill named twice', async () => {
    await touch('ws/skills/packages/travel/weather.json');
    expect((await refusal(['ws', 'travel/weather'])).message).toBe('travel/weather is given twice');
  });
});

describe('extraCasesFile', () => {
  it('looks only beside a packages folder, and only for a file that exists', async () => {
    const file = await touch('ws/skills/evals/travel/weather.json');
    const id = { namespace: 'travel', name: 'weather' };
    expect(await extraCasesFile(join(root, 'ws/skills/packages'), id)).toBe(file);
    expect(await extraCasesFile(join(root, 'ws/skills/other'), id)).toBeUndefined();
    expect(await extraCasesFile(join(root, 'ws/skills/packages'), { namespace: 'travel', name: 'none' })).toBeUndefined();
  });

  it('returns whatever stands at the path, a folder or a FIFO too, so the planner refuses it instead of skipping it', async () => {
    const folder = join(root, 'ws/skills/evals/travel/folder.json');
    await mkdir(folder, { recursive: true });
    const fifo = join(root, 'ws/skills/evals/travel/fifo.json');
    execFileSync('mkfifo', [fifo]);
    expect(await extraCasesFile(join(root, 'ws/skills/packages'), { namespace: 'travel', name: 'folder' })).toBe(folder);
    expect(await extraCasesFile(join(root, 'ws/skills/packages'), { namespace: 'travel', name: 'fifo' })).toBe(fifo);
  });

  it('serves a published skill from the evaluating workspace when one is given', async () => {
    const extras = await touch('other/skills/evals/travel/weather.json');
    expect((await resolveTargets(['travel/weather'], { cwd: root, workspace: join(root, 'other') })).targets).toEqual([{ kind: 'stored', id: { namespace: 'travel', name: 'weather' }, extras }]);
  });
});
