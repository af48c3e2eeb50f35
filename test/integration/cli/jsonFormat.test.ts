/**
 * Every `--json` document of the CLI is one object whose first key is its
 * `format` tag, `skillbench.<kind>/v1`: a script can tell what it reads and
 * notice a new version. Errors printed with `--json` are tagged too, and so
 * are the evaluation and optimizer reports `--json` prints on stdout.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';

const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url));
const FILE = 'skills/packages/travel/weather-assessment.json';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-cli-json-'));
  await cp(join(EXAMPLES, 'skills'), join(work, 'skills'), { recursive: true });
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** Runs a command with --json and returns its document after checking its tag. */
async function tagged(args: string[], kind: string, code = 0): Promise<Record<string, unknown>> {
  const run = await runCli([...args, '--json'], { cwd: work, env: { SKILLBENCH_HOME: join(work, 'home') } });
  expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(code);
  const doc = JSON.parse(run.stdout) as Record<string, unknown>;
  expect(Object.keys(doc)[0], args.join(' ')).toBe('format');
  expect(doc['format'], args.join(' ')).toBe(`skillbench.${kind}/v1`);
  return doc;
}

describe('skillbench --json documents', () => {
  it('tag every store command, the folder commands and validate', async () => {
    await tagged(['validate', 'skills'], 'validate');
    const published = await tagged(['publish', FILE, '--to', 'local:reg'], 'publish');
    expect(published['outcome']).toBe('created');
    await tagged(['get', 'travel/weather-assessment', '--from', 'local:reg'], 'get');
    await tagged(['versions', 'travel/weather-assessment', '--from', 'local:reg'], 'versions');
    await tagged(['list', '--from', 'local:reg'], 'list');
    await tagged(['sync', '--from', '.', '--to', 'local:reg'], 'sync');
    await tagged(['check', '--from', '.', '--to', 'local:reg'], 'check');
    await tagged(['review', 'list'], 'review-requests');
    await tagged(['select', '--request', 'What is the weather in Oslo tomorrow?', '--catalog', 'local:reg', '--model', 'baseline:lexical'], 'select');
    await tagged(['catalog', 'travel', '--from', 'local:reg'], 'catalog-health');
    await tagged(['connection', 'list'], 'connections');
  });

  it('tag the reports that evaluations print with a bare --json', async () => {
    const report = await tagged(['eval', FILE, '--model', 'baseline:lexical', '--out', 'json-eval'], 'eval-report');
    expect(Object.keys(report)).toEqual(['format', 'models', 'summary', 'run', 'cells']);
    await tagged(['optimize', FILE, '--model', 'baseline:lexical', '--proposer', 'baseline:keywords'], 'optimize');
  });

  it('tag an error printed with --json', async () => {
    const doc = await tagged(['get', 'travel/no-such-skill', '--from', 'local:reg'], 'error', 5);
    expect(doc['error']).toMatchObject({ code: 'not_found' });
  });
});
