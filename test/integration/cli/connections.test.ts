/**
 * The store commands through saved profiles (`--to NAME`, `--from NAME`): the
 * profile's secrets are used and never shown, a read-only or protected profile
 * refuses writes, and a refused credential is `unauthorized` with its own exit code.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminHandler } from '../../../core/admin/handler';
import { bearerTokenAuthenticator, createAdminServer, stopServer } from '../../../core/admin/server';
import { ConnectionManager } from '../../../core/connections/manager';
import { openLocalStore } from '../../../core/store/local';
import type { SkillStore } from '../../../core/store/types';
import { runCli } from '../../helpers/cli';

const TOKEN = 'Cli-M4rker-t0ken-31f7';
const FILE = resolve('examples/skills/packages/travel/weather-assessment.json');

describe('store commands through saved profiles', () => {
  let work: string;
  let home: string;
  let backing: SkillStore;
  let close: () => Promise<void>;
  const cli = (args: string[]) => runCli(args, { cwd: work, env: { SKILLBENCH_HOME: home } });

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'skillbench-cli-conn-'));
    home = join(work, 'home');
    backing = await openLocalStore(join(work, 'backing'));
    await backing.publish({ id: { namespace: 'travel', name: 'weather-assessment' }, body: await readFile(FILE, 'utf8'), precondition: { kind: 'create' } });
    const server = createAdminServer(createAdminHandler({ store: backing, authenticate: bearerTokenAuthenticator(TOKEN) }));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/v1/skills`;
    close = () => stopServer(server, 500);
    const manager = new ConnectionManager({ dataDir: home, env: {} });
    await manager.save({ profile: { name: 'viewer', target: { kind: 'http', url, auth: 'bearer' } }, secrets: { token: TOKEN } });
    await manager.save({ profile: { name: 'stale-token', target: { kind: 'http', url, auth: 'bearer' } }, secrets: { token: 'not-the-token' } });
    await manager.save({ profile: { name: 'frozen', read_only: true, target: { kind: 'local', dir: join(work, 'frozen') } } });
    await manager.save({ profile: { name: 'guarded', protected: true, target: { kind: 'local', dir: join(work, 'guarded') } } });
  });
  afterAll(async () => {
    await close?.();
    await backing?.close();
    await rm(work, { recursive: true, force: true });
  });

  it('reads through a profile with its saved token, never printing it', async () => {
    const run = await cli(['list', '--from', 'viewer', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ skills: [{ namespace: 'travel', name: 'weather-assessment' }] });
    expect(`${run.stdout}${run.stderr}`).not.toContain(TOKEN);
  });

  it('exits 8 with code unauthorized when the host refuses the saved token', async () => {
    const run = await cli(['get', 'travel/weather-assessment', '--from', 'stale-token', '--json']);
    expect(run.code).toBe(8);
    expect(JSON.parse(run.stdout).error.code).toBe('unauthorized');
    expect(run.stderr).toMatch(/refused the credentials/);
    expect(`${run.stdout}${run.stderr}`).not.toContain('not-the-token');
  });

  it('refuses a publish through a read-only profile and a direct publish through a protected one (exit 8)', async () => {
    const ro = await cli(['publish', FILE, '--to', 'frozen', '--json']);
    expect(ro.code).toBe(8);
    expect(JSON.parse(ro.stdout).error).toMatchObject({ code: 'forbidden', details: { reason: 'read_only' } });
    expect(ro.stderr).toContain("connection 'frozen' is read-only");
    const prot = await cli(['publish', FILE, '--to', 'guarded']);
    expect(prot.code).toBe(8);
    expect(prot.stderr).toContain('approved review request');
  });

  it('leaves no registry behind when a write to a read-only or protected local profile is refused', async () => {
    const exists = (path: string) => stat(path).then(() => true, () => false);
    const packages = resolve('examples/skills/packages');
    for (const to of ['frozen', 'guarded']) {
      const published = await cli(['publish', FILE, '--to', to]);
      expect(published.code, published.stderr).toBe(8);
      const synced = await cli(['sync', '--from', packages, '--to', to]);
      expect(synced.code, synced.stderr).toBe(8);
    }
    expect(await exists(join(work, 'frozen'))).toBe(false);
    expect(await exists(join(work, 'guarded'))).toBe(false);
  });

  it('reads a profile whose folder is missing as not found (exit 5), as the same folder given as local: is', async () => {
    const manager = new ConnectionManager({ dataDir: home, env: {} });
    const dir = join(work, 'not-there');
    await manager.save({ profile: { name: 'missing-folder', target: { kind: 'local', dir } } });
    const byProfile = await cli(['list', '--from', 'missing-folder', '--json']);
    const byString = await cli(['list', '--from', `local:${dir}`, '--json']);
    expect(byString.code, byString.stderr).toBe(5);
    expect(byProfile.code, byProfile.stderr).toBe(5);
    expect(JSON.parse(byProfile.stdout).error.code).toBe('not_found');
    expect(byProfile.stderr).toContain('does not exist');
  });

  it('names an unknown profile (exit 5)', async () => {
    const run = await cli(['list', '--from', 'nowhere']);
    expect(run.code).toBe(5);
    expect(run.stderr).toContain("no connection named 'nowhere'");
  });
});
