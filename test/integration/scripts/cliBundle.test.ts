/**
 * The `skillbench` launcher on a copy of the project's sources (node_modules
 * linked, no dist/): the first launch builds the bundle; an edited source, even
 * one given an older modification time, is rebuilt before the next launch runs;
 * and a source esbuild cannot compile falls back to running the sources
 * through tsx, so a command the broken file does not touch still works.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

let copy: string;

function skillbench(args: string[]) {
  const run = spawnSync(process.execPath, [join(copy, 'bin', 'skillbench.mjs'), ...args], {
    cwd: copy,
    env: { PATH: process.env['PATH'] ?? '', SKILLBENCH_HOME: join(copy, 'home') },
    encoding: 'utf8',
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

async function manifest(): Promise<{ inputs: Record<string, number> }> {
  return JSON.parse(await readFile(join(copy, 'dist', 'cli', 'manifest.json'), 'utf8')) as { inputs: Record<string, number> };
}

/** Rewrites `file` with `edit` applied, keeping its modification time `shiftMs` away from before (negative: older). */
async function editSource(file: string, edit: (text: string) => string, shiftMs?: number): Promise<void> {
  const path = join(copy, file);
  const before = (await manifest()).inputs[file]!;
  await writeFile(path, edit(await readFile(path, 'utf8')));
  if (shiftMs !== undefined) await utimes(path, (before + shiftMs) / 1000, (before + shiftMs) / 1000);
}

beforeAll(async () => {
  copy = await mkdtemp(join(tmpdir(), 'skillbench-launcher-'));
  for (const part of ['bin', 'cli', 'core', 'evals', 'scripts', 'examples', 'package.json', 'tsconfig.json']) {
    await cp(join(ROOT, part), join(copy, part), { recursive: true });
  }
  await symlink(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
});
afterAll(async () => {
  await rm(copy, { recursive: true, force: true });
});

describe('bin/skillbench.mjs', () => {
  it('builds the bundle on first launch and records every source it read', async () => {
    expect(existsSync(join(copy, 'dist'))).toBe(false);
    const run = skillbench(['--help']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Usage: skillbench <command>');
    expect(run.stderr).toBe('');
    const { inputs } = await manifest();
    expect(Object.keys(inputs)).toEqual(expect.arrayContaining(['cli/main.ts', 'cli/commands/list.ts', 'core/store/local.ts', 'scripts/build-cli.mjs']));
    // The default registry is seeded from the examples, found from the bundle as from the sources.
    const list = skillbench(['list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as { skills: { name: string }[] }).skills.map((s) => s.name)).toContain('weather-assessment');
  });

  it('rebuilds after a source changes, also when the change carries an older time', async () => {
    await editSource('cli/main.ts', (t) => t.replace("list: 'List published skills", "list: 'Edited summary. List published skills"));
    expect(skillbench(['--help']).stdout).toContain('Edited summary. List published skills');
    await editSource('cli/main.ts', (t) => t.replace('Edited summary. ', 'Restored from an older copy. '), -60_000);
    expect(skillbench(['--help']).stdout).toContain('Restored from an older copy. List published skills');
  });

  it('runs the sources through tsx when a source does not compile', async () => {
    await editSource('cli/commands/eval.ts', (t) => `${t}\nexport const broken = ;\n`);
    const help = skillbench(['--help']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain('Restored from an older copy. List published skills');
    const evalRun = skillbench(['eval', '--help']);
    expect(evalRun.code).not.toBe(0);
  });
});
