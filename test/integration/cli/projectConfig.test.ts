/**
 * `skillbench.config.json`: project defaults found from the working folder
 * upwards, with the precedence flag > environment variable > file > built-in
 * default, and a clear usage error naming the file and setting when it is wrong.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';

const FILE = resolve('examples/skills/packages/travel/weather-assessment.json');
const EXAMPLES = resolve('examples');

let work: string;
const sub = () => join(work, 'nested', 'deeper');
const cli = (args: string[], env: Record<string, string> = {}, cwd = sub()) => runCli(args, { cwd, env: { SKILLBENCH_HOME: join(work, 'home'), ...env } });
const config = (value: unknown) => writeFile(join(work, 'skillbench.config.json'), JSON.stringify(value));
const skillsIn = async (connection: string) => ((JSON.parse((await cli(['list', '--from', connection, '--json'])).stdout) as { skills?: unknown[] }).skills ?? []).length;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-cli-config-'));
  await mkdir(sub(), { recursive: true });
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('skillbench.config.json', () => {
  it("gives the store commands their connection, from a parent folder's file", async () => {
    await config({ connection: `local:${join(work, 'from-file')}` });
    const run = await cli(['publish', FILE, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(await skillsIn(`local:${join(work, 'from-file')}`)).toBe(1);
  });

  it('yields to SKILLBENCH_CONNECTION, which yields to a flag', async () => {
    const fromEnv = `local:${join(work, 'from-env')}`;
    expect((await cli(['publish', FILE], { SKILLBENCH_CONNECTION: fromEnv })).code).toBe(0);
    expect(await skillsIn(fromEnv)).toBe(1);
    const fromFlag = `local:${join(work, 'from-flag')}`;
    expect((await cli(['publish', FILE, '--to', fromFlag], { SKILLBENCH_CONNECTION: fromEnv })).code).toBe(0);
    expect(await skillsIn(fromFlag)).toBe(1);
  });

  it("gives eval its models and gates: a gate from the file fails the run", async () => {
    await config({ models: ['baseline:lexical'], gates: { min_accuracy: 1 }, limits: { repeats: 1 } });
    const gated = await cli(['eval', EXAMPLES, '--no-cache', '--out', 'gated', '--json']);
    expect(gated.stderr).toContain('baseline:lexical');
    expect(gated.code, gated.stderr).toBe(1);
    const report = JSON.parse(gated.stdout) as { summary: { gates: { gate: string }[] } };
    expect(report.summary.gates.map((g) => g.gate).some((g) => g.includes('accuracy'))).toBe(true);
    // A flag wins over the file.
    const loose = await cli(['eval', EXAMPLES, '--no-cache', '--out', 'loose', '--min-accuracy', '0']);
    expect(loose.code, loose.stderr).toBe(0);
  });

  it('is refused with the file and the setting named (exit 2)', async () => {
    await config({ gates: { min_accuracy: 3 } });
    const bad = await cli(['eval', EXAMPLES, '--no-cache', '--out', 'bad']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${join(work, 'skillbench.config.json')}: /gates/min_accuracy: expected a number from 0 to 1`);
    await config({ conection: 'typo' });
    const typo = await cli(['list']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('/conection: unknown setting');
    await writeFile(join(work, 'skillbench.config.json'), '{"connection": ');
    expect((await cli(['list'])).stderr).toContain('skillbench.config.json: /: not valid JSON');
  });
});
