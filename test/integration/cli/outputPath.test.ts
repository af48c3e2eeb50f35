/**
 * Report and run-folder paths of `skillbench eval`, through the CLI: a
 * missing parent folder is a usage error naming it (nothing is created), and a
 * pseudo-filesystem such as /proc or /sys is refused before any work starts
 * (a tmpfs such as /dev/shm is not one).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';

const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url));

let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-cli-paths-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const evalCli = (args: string[]) => runCli(['eval', EXAMPLES, '--model', 'baseline:lexical', ...args], { cwd: work, env: { SKILLBENCH_HOME: join(work, 'home') } });

describe('skillbench eval output paths', () => {
  it.each(['--junit', '--json', '--markdown', '--html'])('refuses %s into a missing folder with exit 2, naming it, and creates nothing', async (flag) => {
    const target = join(work, 'nonexistent', 'dir', 'report.out');
    const run = await evalCli([flag, target]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`${flag} ${target}: the folder ${join(work, 'nonexistent', 'dir')} does not exist`);
    expect(existsSync(join(work, 'nonexistent'))).toBe(false);
    expect(existsSync(join(work, '.skillbench'))).toBe(false);
  });

  it('refuses a report whose parent is a file', async () => {
    await writeFile(join(work, 'plain-file'), 'x');
    const run = await evalCli(['--junit', join(work, 'plain-file', 'j.xml')]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`${join(work, 'plain-file')} is not a folder`);
  });

  it('refuses --out whose parent is missing, and creates only the last level otherwise', async () => {
    const deep = join(work, 'no-such', 'run');
    const refused = await evalCli(['--out', deep]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`--out ${deep}: the folder ${join(work, 'no-such')} does not exist`);
    expect(existsSync(join(work, 'no-such'))).toBe(false);

    const ok = await evalCli(['--out', join(work, 'run-here')]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(existsSync(join(work, 'run-here', 'cells.jsonl'))).toBe(true);
  });

  it.runIf(process.platform === 'linux').each([
    ['/proc/self/skillbench-run'],
    ['/proc/skillbench/a/b/c'],
    ['/sys/kernel/skillbench-run'],
  ])('refuses --out %s on a pseudo-filesystem at once', async (out) => {
    const run = await evalCli(['--out', out]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/pseudo-filesystem|does not exist/);
    expect(run.stderr.split('\n').filter((l) => l.startsWith('skillbench eval:'))).toHaveLength(1);
  });

  it.runIf(process.platform === 'linux')('refuses a report file under /dev, and writes one to /dev/shm (a tmpfs meant for files)', async () => {
    const refused = await evalCli(['--json', '/dev/report.json']);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain('pseudo-filesystem /dev');
    expect(existsSync('/dev/report.json')).toBe(false);
    if (!existsSync('/dev/shm')) return;
    const report = join('/dev/shm', `skillbench-report-${process.pid}-${Date.now()}.json`);
    try {
      const run = await evalCli(['--json', report]);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(await readFile(report, 'utf8'))).toMatchObject({ run: { format: 'skillbench.eval/v1' } });
    } finally {
      await rm(report, { force: true });
    }
  });

  it.runIf(process.platform === 'linux')('refuses a report file under /proc', async () => {
    const run = await evalCli(['--json', '/proc/self/report.json']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('--json /proc/self/report.json');
    expect(run.stderr).toContain('pseudo-filesystem /proc');
  });
});
