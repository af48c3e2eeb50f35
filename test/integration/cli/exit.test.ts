/**
 * Exit codes of `skillbench` for failures that are not a user's mistake nor an
 * outage: an unexpected error is internal (7, the real binary's own exit
 * status) with one line asking for a report and the stack only under --debug;
 * a missing llama.cpp model file is "not found" (5), not a usage error.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliProcess } from '../../helpers/cli';
import { startRedis, type RedisSetup } from '../../helpers/redis';
import { redisKeyspace } from '../../../core/store/redisKeyspace';

const EXAMPLES = fileURLToPath(new URL('../../../examples/skills/packages/', import.meta.url));

let work: string;
let redis: RedisSetup;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-cli-exit-'));
  redis = await startRedis();
  // A keyspace the store never writes: the catalog key holds a string, so Redis
  // answers WRONGTYPE, which the adapter classes as an unexpected failure.
  const client = new Redis(redis.url, { lazyConnect: true });
  await client.connect();
  await client.set(redisKeyspace('default').catalog, 'not a hash');
  await client.quit();
});
afterAll(async () => {
  await redis?.stop();
  await rm(work, { recursive: true, force: true });
});

const options = () => ({ cwd: work, env: { SKILLBENCH_HOME: join(work, 'home') } });
const cli = (args: string[]) => runCli(args, options());

describe('skillbench exit codes', () => {
  it('reports an unexpected error as internal (exit 7) in one line asking for a report, with no stack', async () => {
    const run = await runCliProcess(['list', '--from', redis.url], options());
    expect(run.code, run.stderr).toBe(7);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^skillbench list: internal error \(.*WRONGTYPE.*\)\. This is a bug: please report it/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('prints the stack of an unexpected error only under --debug, and --json carries code internal', async () => {
    const run = await cli(['list', '--from', redis.url, '--json', '--debug']);
    expect(run.code, run.stderr).toBe(7);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'internal' } });
    expect(run.stderr).toMatch(/internal error/);
    expect(run.stderr).toMatch(/\n\s+at /);
  });

  it('exits 5 (not found), not 2 (usage), when a llama.cpp model file does not exist', async () => {
    const missing = join(work, 'absent.gguf');
    const run = await cli(['select', '--request', 'Will it rain on my trip?', '--catalog', EXAMPLES, '--model', `llama-cpp:${missing}`]);
    expect(run.code, run.stderr).toBe(5);
    expect(run.stderr).toContain(`model file not found: ${missing}`);
    expect(run.stderr).not.toContain('Usage:');
  });
});
