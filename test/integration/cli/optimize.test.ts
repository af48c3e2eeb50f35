/**
 * `skillbench optimize` as a user runs it: the CLI on the example
 * skills, offline, with the deterministic keyword proposer and the two
 * baselines; the JSON and HTML reports; a rerun with the recorded seed.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile, copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const FILE = join('skills', 'packages', 'travel', 'weather-assessment.json');

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON output is navigated freely in assertions
type Json = any;

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-optimize-cli-'));
  await mkdir(join(work, 'skills', 'packages', 'travel'), { recursive: true });
  await mkdir(join(work, 'skills', 'evals', 'travel'), { recursive: true });
  await copyFile(join(ROOT, 'examples', FILE), join(work, FILE));
  await copyFile(join(ROOT, 'examples', 'skills', 'evals', 'travel', 'weather-assessment.json'), join(work, 'skills', 'evals', 'travel', 'weather-assessment.json'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const env = () => ({ SKILLBENCH_HOME: join(work, 'home') });
const ARGS = [FILE, '--model', 'baseline:lexical', '--model', 'baseline:embedding', '--proposer', 'baseline:keywords'];

describe('skillbench optimize', () => {
  it('runs offline on an example skill, writes the JSON and HTML reports, and repeats its verdict from the recorded seed', async () => {
    const first = await runCli(['optimize', ...ARGS, '--json', '--html', 'report.html'], { cwd: work, env: env() });
    expect(first.code, first.stderr).toBe(0);
    const report = JSON.parse(first.stdout) as Json;
    for (const field of ['verdict', 'winner', 'candidates', 'split', 'seed']) expect(report).toHaveProperty(field);
    expect(['proven_gain', 'no_proven_gain']).toContain(report.verdict);
    expect(report.split.train.length + report.split.heldout.length).toBe(16);
    // The seed is printed once, on the split it fixes.
    expect(first.stderr.split('\n').filter((line) => line.includes(`seed ${report.seed}`))).toEqual([expect.stringMatching(new RegExp(`^split with seed ${report.seed} \\(--seed ${report.seed} repeats it and the verdict\\): 10 train`))]);
    expect(first.stderr).toMatch(/verdict: (PROVEN GAIN|no proven gain)/);

    const html = await readFile(join(work, 'report.html'), 'utf8');
    expect(html).toContain("Content-Security-Policy");
    expect(html).not.toContain('<script');
    expect(html).toContain(report.verdict === 'proven_gain' ? 'proven gain' : 'no proven gain');

    // Same seed, same folder: every run resumes from its recorded cells, and the verdict is the same.
    const again = await runCli(['optimize', ...ARGS, '--seed', String(report.seed), '--json', 'again.json'], { cwd: work, env: env() });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('already recorded');
    const repeated = JSON.parse(await readFile(join(work, 'again.json'), 'utf8')) as Json;
    expect({ ...repeated, runs: null }).toEqual({ ...report, runs: null });
  }, 240_000);

  it('refuses bad usage and invalid packages with their exit codes', async () => {
    const usage = await runCli(['optimize', FILE, '--model', 'baseline:lexical', '--holdout', '1'], { cwd: work, env: env() });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--holdout must be between 0 and 1');
    const proposer = await runCli(['optimize', FILE, '--model', 'baseline:lexical', '--proposer', 'baseline:lexical'], { cwd: work, env: env() });
    expect(proposer.code).toBe(2);
    expect(proposer.stderr).toContain('cannot write descriptions');
    const doc = JSON.parse(await readFile(join(work, FILE), 'utf8')) as Record<string, unknown>;
    await mkdir(join(work, 'bad', 'travel'), { recursive: true });
    await writeFile(join(work, 'bad', 'travel', 'weather-assessment.json'), JSON.stringify({ ...doc, planning_instructions: [] }, null, 2));
    const invalid = await runCli(['optimize', join('bad', 'travel', 'weather-assessment.json'), '--model', 'baseline:lexical'], { cwd: work, env: env() });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/weather-assessment\.json:\d+:\d+: error /);
  });

  it('stops before any model call when the held-out cases could never prove a gain, naming the cases needed and the file for them', async () => {
    const doc = JSON.parse(await readFile(join(work, FILE), 'utf8')) as Record<string, unknown>;
    const tiny = join('skills', 'packages', 'travel', 'tiny-weather.json');
    await writeFile(join(work, tiny), JSON.stringify({ ...doc, activation_examples: { should_activate: ['Will it snow in Oslo next week?'], should_not_activate: ['Book a table in Oslo for two'] } }, null, 2));
    const run = await runCli(['optimize', tiny, '--model', 'baseline:lexical', '--json', 'tiny.json'], { cwd: work, env: env() });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).not.toContain('Usage:');
    expect(run.stderr).toContain('travel/tiny-weather cannot prove a gain: its 2 cases');
    expect(run.stderr).toMatch(/needs at least 6 held-out cases: add \d+ cases \(.*\) to skills\/evals\/travel\/tiny-weather\.json/);
    // Nothing was run.
    expect(run.stderr).not.toContain('train run');
    // A held-out share too small for the cases the skill has says so the same way.
    const small = await runCli(['optimize', FILE, '--model', 'baseline:lexical', '--holdout', '0.2'], { cwd: work, env: env() });
    expect(small.code, small.stderr).toBe(1);
    expect(small.stderr).toMatch(/needs at least 6 held-out cases: add \d+ cases .* to skills\/evals\/travel\/weather-assessment\.json, or hold out a larger share \(0\.\d+\)/);
  });
});
