/**
 * What the commands do with inputs that are not what they seem: devices, FIFOs,
 * oversized files, mistyped registry paths and namespace folders named directly.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliProcess, type CliRun } from '../../helpers/cli';
import { DEFAULT_AUTHORING_LIMITS } from '../../../core/package/limits';
import { samplePackage } from '../core/store/samplePackage';

const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url));
const LIMIT = DEFAULT_AUTHORING_LIMITS.maxPackageBytes;
const POSIX = process.platform !== 'win32';

let work: string;

function cli(args: string[], cwd = work): Promise<CliRun> {
  return runCli(args, { cwd, env: { SKILLBENCH_HOME: join(work, 'home') } });
}

/** The real binary in a child process: a read that blocked on a device or a FIFO would hang the process, not just the call. */
function binary(args: string[]): Promise<CliRun> {
  return runCliProcess(args, { cwd: work, env: { SKILLBENCH_HOME: join(work, 'home') } });
}

/** The non-empty lines a run printed on stderr. */
const lines = (text: string): string[] => text.split('\n').filter((l) => l.trim().length > 0);

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-cli-inputs-'));
  if (POSIX) execFileSync('mkfifo', [join(work, 'pipe.json')]);
  const big = join(work, 'big', 'huge.json');
  await mkdir(dirname(big), { recursive: true });
  await writeFile(big, Buffer.alloc(LIMIT + 10, 0x20));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('package files that are not regular files of bounded size', () => {
  it.runIf(POSIX)('validate /dev/zero ends at once with one line naming the limit', async () => {
    const run = await binary(['validate', '/dev/zero']);
    expect(run.code).toBe(1);
    expect(lines(run.stderr)[0]).toMatch(/^\/dev\/zero: error file_unreadable: .*character device, not a regular file.*1048576 bytes/);
    expect(run.stderr).toContain('1 file checked, 0 valid, 1 invalid');
  });

  it.runIf(POSIX)('publish /dev/zero ends at once with one line naming the limit and publishes nothing', async () => {
    const run = await binary(['publish', '/dev/zero', '--namespace', 'ns', '--name', 'zero', '--to', 'local:zero-reg']);
    expect(run.code).toBe(2);
    expect(lines(run.stderr)).toEqual([expect.stringMatching(/^skillbench publish: \/dev\/zero is a character device, not a regular file: .*1048576 bytes/)]);
    expect(existsSync(join(work, 'zero-reg'))).toBe(false);
  });

  it.runIf(POSIX)('refuses a FIFO instead of waiting for a writer, in validate and publish', async () => {
    const validate = await binary(['validate', 'pipe.json', '--namespace', 'ns', '--name', 'pipe']);
    expect(validate.code).toBe(1);
    expect(validate.stderr).toContain('pipe.json: error file_unreadable: the file is a FIFO, not a regular file');
    const publish = await binary(['publish', 'pipe.json', '--namespace', 'ns', '--name', 'pipe', '--to', 'local:pipe-reg']);
    expect(publish.code).toBe(2);
    expect(lines(publish.stderr)).toEqual([expect.stringContaining('pipe.json is a FIFO, not a regular file')]);
  });

  it('refuses a package file above the limit without reading it whole, naming the limit', async () => {
    const validate = await cli(['validate', 'big/huge.json']);
    expect(validate.code).toBe(1);
    expect(validate.stderr).toContain(`big/huge.json: error package_bytes_exceeded: the file is ${LIMIT + 10} bytes, above the limit of ${LIMIT} bytes`);
    const publish = await cli(['publish', 'big/huge.json', '--to', 'local:big-reg']);
    expect(publish.code).toBe(1);
    expect(lines(publish.stderr)).toEqual([`skillbench publish: big/huge.json is ${LIMIT + 10} bytes, above the limit of ${LIMIT} bytes`]);
  });
});

describe('read commands on a registry path that does not exist', () => {
  it('list, get, versions, delete, select and eval exit 5 naming the path, and create nothing', async () => {
    const typo = join(work, 'some', 'typo', 'path');
    const runs = [
      await cli(['list', '--from', 'local:some/typo/path']),
      await cli(['get', 'travel/weather-assessment', '--from', 'local:some/typo/path']),
      await cli(['versions', 'travel/weather-assessment', '--from', 'local:some/typo/path']),
      await cli(['delete', 'travel/weather-assessment', '--version', '1', '--if-match', 'v2-x', '--reason', 'cleanup', '--from', 'local:some/typo/path']),
      await cli(['select', '--request', 'what is the weather', '--catalog', 'local:some/typo/path']),
      await cli(['eval', 'travel/weather-assessment', '--model', 'baseline:lexical', '--from', 'local:some/typo/path']),
    ];
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(5);
      expect(lines(run.stderr)).toEqual([expect.stringContaining(`no Skillbench registry at ${typo}`)]);
    }
    expect(existsSync(join(work, 'some'))).toBe(false);
  });

  it('an existing empty folder is not a registry either; publish creates one and reads then find it', async () => {
    await mkdir(join(work, 'empty'));
    const list = await cli(['list', '--from', 'local:empty']);
    expect(list.code).toBe(5);
    expect(await readdir(join(work, 'empty'))).toEqual([]);
    const file = join(work, 'skills', 'packages', 'ns', 'first.json');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify(samplePackage('first')));
    const publish = await cli(['publish', 'skills/packages/ns/first.json', '--to', 'local:new/reg']);
    expect(publish.code, publish.stderr).toBe(0);
    const after = await cli(['list', '--from', 'local:new/reg', '--json']);
    expect(after.code, after.stderr).toBe(0);
    expect((JSON.parse(after.stdout) as { skills: { name: string }[] }).skills.map((s) => s.name)).toEqual(['first']);
  });

  it('the default registry is still created and seeded by a read', async () => {
    const run = await cli(['list', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { skills: { name: string }[] }).skills.map((s) => s.name)).toContain('weather-assessment');
  });
});

describe('a namespace folder named directly', () => {
  it('validates the example workspace travel folder as packages of namespace travel', async () => {
    const run = await cli(['validate', 'skills/packages/travel', '--json'], EXAMPLES);
    expect(run.code, run.stderr).toBe(0);
    const reports = (JSON.parse(run.stdout) as { files: { file: string; namespace: string; name: string; valid: boolean }[] }).files;
    const names = (await readdir(join(EXAMPLES, 'skills', 'packages', 'travel'))).filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5));
    expect(reports.map((r) => r.name).sort()).toEqual(names.sort());
    expect(reports.every((r) => r.valid && r.namespace === 'travel')).toBe(true);
    expect(run.stderr).not.toContain('unexpected');
  });

  it('reports what does not belong in a namespace folder', async () => {
    const ns = join(work, 'loose', 'travel');
    await mkdir(join(ns, 'nested'), { recursive: true });
    await writeFile(join(ns, 'good.json'), JSON.stringify(samplePackage('good')));
    await writeFile(join(ns, 'notes.txt'), 'not a package');
    const run = await cli(['validate', 'loose/travel', '--json']);
    const reports = (JSON.parse(run.stdout) as { files: { file: string; namespace: string | null; valid: boolean; errors: { code: string }[] }[] }).files;
    expect(reports.find((r) => r.file.endsWith('good.json'))).toMatchObject({ namespace: 'travel', valid: true });
    expect(reports.find((r) => r.file.endsWith('notes.txt'))?.errors[0]?.code).toBe('unexpected_entry');
    expect(reports.find((r) => r.file.endsWith('nested'))?.errors[0]?.code).toBe('unexpected_entry');
    expect(run.code).toBe(1);
  });
});
