/**
 * `skillbench connection add|list|test|remove`: a connection saved from the
 * command line is what `--to NAME` and the workbench use; its secrets come from
 * environment variables or the URL, are saved sealed and never printed.
 */
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminHandler } from '../../../core/admin/handler';
import { bearerTokenAuthenticator, createAdminServer, stopServer } from '../../../core/admin/server';
import { openLocalStore } from '../../../core/store/local';
import type { SkillStore } from '../../../core/store/types';
import { runCli } from '../../helpers/cli';

const TOKEN = 'Conn-Cmd-t0ken-8c21e';
const REDIS_PASSWORD = 'Redis-pa55-in-url-4d0b';
const FILE = resolve('examples/skills/packages/travel/weather-assessment.json');

let work: string;
let home: string;
let backing: SkillStore;
let api: string;
let close: () => Promise<void>;
const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { cwd: work, env: { SKILLBENCH_HOME: home, ...env } });

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-cli-connection-'));
  home = join(work, 'home');
  backing = await openLocalStore(join(work, 'backing'));
  await backing.publish({ id: { namespace: 'travel', name: 'weather-assessment' }, body: await readFile(FILE, 'utf8'), precondition: { kind: 'create' } });
  const server = createAdminServer(createAdminHandler({ store: backing, authenticate: bearerTokenAuthenticator(TOKEN) }));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  api = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/v1/skills`;
  close = () => stopServer(server, 500);
});
afterAll(async () => {
  await close?.();
  await backing?.close();
  await rm(work, { recursive: true, force: true });
});

describe('skillbench connection', () => {
  it('alone lists its subcommands', async () => {
    const run = await cli(['connection']);
    expect(run.code).toBe(2);
    for (const sub of ['add', 'list', 'remove', 'test']) expect(run.stdout).toMatch(new RegExp(`^ {2}${sub} +\\S`, 'm'));
  });

  it('saves a local registry under a name that --to then publishes to, with the folder made absolute', async () => {
    const add = await cli(['connection', 'add', 'prod', 'local:reg', '--protected', '--json']);
    expect(add.code, add.stderr).toBe(0);
    const doc = JSON.parse(add.stdout) as { format: string; profile: { name: string; protected: boolean; target: { kind: string; dir: string } } };
    expect(doc.format).toBe('skillbench.connection/v1');
    expect(doc.profile).toMatchObject({ name: 'prod', protected: true, target: { kind: 'local', dir: join(work, 'reg') } });
    // Protected: a direct publish is refused (exit 8), as for a profile saved in the workbench.
    expect((await cli(['publish', FILE, '--to', 'prod'])).code).toBe(8);
    expect((await cli(['connection', 'remove', 'prod'])).code).toBe(0);
    expect((await cli(['connection', 'add', 'prod', 'local:reg'])).code).toBe(0);
    const publish = await cli(['publish', FILE, '--to', 'prod']);
    expect(publish.code, publish.stderr).toBe(0);
    const list = await cli(['list', '--from', 'prod', '--json']);
    expect(list.stdout).toContain('weather-assessment');
  });

  it('refuses a name taken (exit 4) and the built-in default (exit 2)', async () => {
    expect((await cli(['connection', 'add', 'prod', 'local:other'])).code).toBe(4);
    expect((await cli(['connection', 'add', 'default', 'local:other'])).code).toBe(2);
    expect((await cli(['connection', 'add', 'Bad_Name', 'local:other'])).code).toBe(2);
    expect((await cli(['connection', 'add', 'odd', 'ftp://example.test/'])).code).toBe(2);
  });

  it('saves an admin API token from a variable, uses it, tests it, and never prints it', async () => {
    const add = await cli(['connection', 'add', 'hub', api, '--token-env', 'HUB_TOKEN'], { HUB_TOKEN: TOKEN });
    expect(add.code, add.stderr).toBe(0);
    const test = await cli(['connection', 'test', 'hub', '--json']);
    expect(test.code, test.stderr).toBe(0);
    expect(JSON.parse(test.stdout)).toMatchObject({ format: 'skillbench.connection-test/v1', name: 'hub', result: { ok: true, skills: 1 } });
    const list = await cli(['list', '--from', 'hub', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain('weather-assessment');
    const all = await cli(['connection', 'list', '--json']);
    const rows = (JSON.parse(all.stdout) as { connections: { profile: { name: string }; secrets: Record<string, boolean> }[] }).connections;
    expect(rows.find((r) => r.profile.name === 'hub')?.secrets).toEqual({ token: true });
    for (const run of [add, test, list, all]) expect(run.stdout + run.stderr).not.toContain(TOKEN);
    expect(await readFile(join(home, 'connections', 'profiles.json'), 'utf8')).not.toContain(TOKEN);
  });

  it('says why a refused token fails (exit 8), and a missing variable is a usage error', async () => {
    expect((await cli(['connection', 'add', 'stale', api, '--token-env', 'STALE'], { STALE: 'not-the-token' })).code).toBe(0);
    const test = await cli(['connection', 'test', 'stale']);
    expect(test.code).toBe(8);
    expect(test.stderr).toContain('failed (auth)');
    const missing = await cli(['connection', 'add', 'nokey', api, '--token-env', 'UNSET_VARIABLE']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('UNSET_VARIABLE: the variable is not set');
  });

  it("keeps a Redis URL's password out of the profile and out of every output", async () => {
    const add = await cli(['connection', 'add', 'cache', `redis://:${REDIS_PASSWORD}@127.0.0.1:6390?deployment=team`, '--json']);
    expect(add.code, add.stderr).toBe(0);
    expect(JSON.parse(add.stdout)).toMatchObject({ profile: { target: { kind: 'redis', topology: 'standalone', hosts: [{ host: '127.0.0.1', port: 6390 }], deployment: 'team' } } });
    const list = await cli(['connection', 'list']);
    expect(list.stdout).toMatch(/^cache +redis:\/\/127\.0\.0\.1:6390 \(team\) +\(password saved\)$/m);
    for (const run of [add, list]) expect(run.stdout + run.stderr).not.toContain(REDIS_PASSWORD);
    expect(await readFile(join(home, 'connections', 'profiles.json'), 'utf8')).not.toContain(REDIS_PASSWORD);
  });

  it('lists names for scripts, and removes a connection and its secrets (a second remove exits 5)', async () => {
    const names = await cli(['connection', 'list', '--names']);
    expect(names.stdout.split('\n').filter(Boolean)).toEqual(expect.arrayContaining(['default', 'prod', 'hub', 'cache']));
    expect((await cli(['connection', 'remove', 'hub'])).code).toBe(0);
    expect((await cli(['connection', 'remove', 'hub'])).code).toBe(5);
    expect((await cli(['connection', 'test', 'hub'])).code).toBe(5);
    expect((await cli(['connection', 'list', '--names'])).stdout).not.toMatch(/^hub$/m);
  });
});
