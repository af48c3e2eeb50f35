import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../../helpers/cli';
import { baseline } from '../../unit/core/package/baseline';


type Run = CliRun;

interface Report {
  file: string;
  namespace: string | null;
  name: string | null;
  valid: boolean;
  errors: { code: string; path: string; message: string; line: number | null; column: number | null }[];
  warnings: { code: string; path: string; message: string; line: number | null; column: number | null }[];
  metrics: Record<string, unknown>;
}

let work: string;

/** Runs `skillbench` with the temp folder as working directory. */
function cli(args: string[]): Promise<Run> {
  return runCli(args, { cwd: work, env: { SKILLBENCH_HOME: join(work, 'home') } });
}

async function write(path: string, content: string | Uint8Array): Promise<void> {
  await mkdir(dirname(join(work, path)), { recursive: true });
  await writeFile(join(work, path), content);
}

const pretty = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-cli-validate-'));
  const valid = baseline();
  await write('ws/skills/packages/devops/rollout-safety.json', pretty(valid));
  const invalid = baseline();
  invalid.tags = ['Risk', '-bad'];
  invalid.resources[0]!.load_when = 'when needed';
  await write('ws/skills/packages/devops/broken.json', pretty(invalid));
  await write('ws/skills/packages/.DS_Store', 'x');
  await write('ws/skills/packages/devops/notes.txt', 'x');
  await write('single/travel/weather.json', pretty(valid));
  await write('syntax/bad.json', '{\n  "display_name": "x",\n  "tags": [1,]\n}\n');
  await write('bytes/bad.json', new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]));
  await write('empty/.gitkeep', '');
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** The per-file reports of a `validate --json` document, checking its envelope. */
function files(stdout: string): Report[] {
  const doc = JSON.parse(stdout) as { format: string; files: Report[] };
  expect(Object.keys(doc)).toEqual(['format', 'files']);
  expect(doc.format).toBe('skillbench.validate/v1');
  return doc.files;
}

describe('skillbench validate', () => {
  it('accepts a valid file, deriving the identity from its path', async () => {
    const run = await cli(['validate', 'single/travel/weather.json', '--json']);
    expect(run.code).toBe(0);
    const [report] = files(run.stdout);
    expect(report).toMatchObject({ file: 'single/travel/weather.json', namespace: 'travel', name: 'weather', valid: true, errors: [], warnings: [] });
    expect(report!.metrics).toMatchObject({ resource_count: 1, token_estimator: { name: 'truvag3-canonical', version: 'v1' } });
    expect(run.stderr).toContain('1 file checked, 1 valid, 0 invalid');
  });

  it('walks a workspace, reports findings like a compiler and exits 1', async () => {
    const run = await cli(['validate', 'ws', '--json']);
    expect(run.code).toBe(1);
    const reports = files(run.stdout);
    expect(reports.map((r) => [r.file, r.valid])).toEqual([
      ['ws/skills/packages/devops/broken.json', false],
      ['ws/skills/packages/devops/notes.txt', false],
      ['ws/skills/packages/devops/rollout-safety.json', true],
    ]);
    const broken = reports[0]!;
    expect(broken.errors).toEqual([expect.objectContaining({ code: 'invalid_slug', path: '/tags/1', line: 9, column: 5 })]);
    expect(broken.warnings.map((w) => w.code)).toEqual(['load_when_vague']);
    expect(Object.keys(broken.errors[0]!).sort()).toEqual(['code', 'column', 'line', 'message', 'path']);
    expect(reports[1]!.errors[0]).toMatchObject({ code: 'unexpected_entry', line: null, column: null });
    expect(run.stderr).toContain("ws/skills/packages/devops/broken.json:9:5: error invalid_slug: tag '-bad' is not a valid slug");
    expect(run.stderr).toMatch(/broken\.json:\d+:\d+: warning load_when_vague: /);
    expect(run.stderr).toContain('3 files checked, 1 valid, 2 invalid (2 errors, 1 warning)');
  });

  it('takes the identity from --namespace and --name for one file', async () => {
    const run = await cli(['validate', 'single/travel/weather.json', '--namespace', 'Bad_NS', '--name', 'fine', '--json']);
    expect(run.code).toBe(1);
    const [report] = files(run.stdout);
    expect(report).toMatchObject({ namespace: 'Bad_NS', name: 'fine', valid: false });
    expect(report!.errors[0]).toMatchObject({ code: 'invalid_slug', line: 1, column: 1 });
  });

  it('locates JSON syntax errors and invalid UTF-8', async () => {
    const run = await cli(['validate', 'syntax/bad.json', 'bytes/bad.json']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain("syntax/bad.json:3:14: error json_syntax: trailing comma before ']'");
    expect(run.stderr).toContain('bytes/bad.json:1:7: error invalid_utf8: invalid UTF-8 at byte offset 6');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('reports a missing path as a finding without a stack trace, and exits 2: a mistyped operand is a usage error', async () => {
    const run = await cli(['validate', 'nope/missing.json', '--json']);
    expect(run.code).toBe(2);
    const [report] = files(run.stdout);
    expect(report!.errors).toEqual([{ code: 'file_unreadable', path: '', message: expect.stringContaining('no such file'), line: null, column: null }]);
    expect(run.stderr).toContain('nope/missing.json: error file_unreadable:');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 2 when any operand does not exist, even beside a valid file', async () => {
    const run = await cli(['validate', 'single/travel/weather.json', 'no-such-folder']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no-such-folder: error file_unreadable: cannot read the file: no such file or folder');
    expect(run.stderr).toContain('2 files checked, 1 valid, 1 invalid');
  });

  it('reports a folder without packages', async () => {
    const run = await cli(['validate', 'empty', '--json']);
    expect(run.code).toBe(1);
    expect(files(run.stdout)[0]!.errors[0]!.code).toBe('no_packages');
  });

  it.each([
    [['validate'], 'give at least one package file or folder'],
    [['validate', 'ws', 'single', '--name', 'x'], '--namespace and --name need exactly one file'],
    [['validate', 'ws', '--namespace', 'x'], 'apply to a single file'],
    [['validate', 'ws', '--frobnicate'], "Unknown option '--frobnicate'"],
  ])('exits 2 on usage errors: %j', async (args, message) => {
    const run = await cli(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
  });

  it('prints its usage with --help', async () => {
    const run = await cli(['validate', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: skillbench validate');
  });
});
