/**
 * `skillbench completion`: the bash script, loaded into a real bash, completes
 * commands, group subcommands, each command's flags and choices, and saved
 * connection names (asked live from a `skillbench` on PATH, the built binary).
 */
import { spawnSync } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../../helpers/cli';

let work: string;
let script: string;
const home = () => join(work, 'home');

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-cli-completion-'));
  const run = await runCli(['completion', 'bash'], { cwd: work });
  expect(run.code, run.stderr).toBe(0);
  script = join(work, 'skillbench.bash');
  await writeFile(script, run.stdout);
  // The `skillbench` the script calls for connection names: the real binary.
  await writeFile(join(work, 'skillbench'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  await chmod(join(work, 'skillbench'), 0o755);
  expect((await runCli(['connection', 'add', 'staging-eu', 'local:staging'], { cwd: work, env: { SKILLBENCH_HOME: home() } })).code).toBe(0);
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** What bash offers for the command line `words`, the last word being completed. */
function complete(...words: string[]): string[] {
  const line = ['skillbench', ...words].map((w) => `'${w}'`).join(' ');
  const body = `source '${script}'\nCOMP_WORDS=(${line})\nCOMP_CWORD=${words.length}\n_skillbench\nprintf '%s\\n' "\${COMPREPLY[@]}"\n`;
  const run = spawnSync('bash', ['--norc', '-c', body], { cwd: work, encoding: 'utf8', env: { PATH: `${work}:${process.env['PATH'] ?? ''}`, SKILLBENCH_HOME: home() } });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout.split('\n').filter(Boolean);
}

describe('skillbench completion bash', () => {
  it('completes command names and group subcommands', () => {
    expect(complete('re')).toEqual(['registry', 'review']);
    expect(complete('--v')).toEqual(['--version']);
    expect(complete('review', 'a')).toEqual(['approve']);
    expect(complete('connection', '')).toEqual(expect.arrayContaining(['add', 'list', 'remove', 'test']));
  });

  it("completes a command's flags, --debug included, and a flag's choices", () => {
    expect(complete('publish', '--i')).toEqual(['--if-match', '--idempotency-key']);
    expect(complete('eval', '--min-')).toEqual(['--min-accuracy', '--min-recall', '--min-precision']);
    expect(complete('list', '--de')).toEqual(['--debug']);
    expect(complete('select', '--boundary', '')).toEqual(['planning', 'continuation', 'synthesis']);
  });

  it('completes saved connection names after --to and as the operand of connection test', () => {
    expect(complete('publish', 'x.json', '--to', 'st')).toEqual(['staging-eu']);
    expect(complete('connection', 'test', '')).toEqual(['default', 'staging-eu']);
  });

  it('refuses an unknown shell with a usage error', async () => {
    const run = await runCli(['completion', 'tcsh'], { cwd: work });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown shell 'tcsh': use bash, zsh, fish");
  });

  it('prints zsh and fish scripts from the same table', async () => {
    const zsh = await runCli(['completion', 'zsh'], { cwd: work });
    expect(zsh.stdout).toContain('bashcompinit');
    expect(zsh.stdout).toContain('complete -o filenames -F _skillbench skillbench');
    const fish = await runCli(['completion', 'fish'], { cwd: work });
    expect(fish.stdout).toContain('complete -c skillbench -n "__fish_seen_subcommand_from select" -l boundary -x -a "planning continuation synthesis"');
    expect(fish.stdout).toContain('complete -c skillbench -n "__fish_seen_subcommand_from publish" -l to -x -a "(skillbench connection list --names 2>/dev/null)"');
  });
});
