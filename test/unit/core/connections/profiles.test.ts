import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../../core/errors';
import { ProfileStore, parseProfile, parseSecretsPatch } from '../../../../core/connections/profiles';

function error(fn: () => unknown): WorkbenchError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(WorkbenchError);
    return e as WorkbenchError;
  }
  throw new Error('expected a failure');
}

describe('connection profiles', () => {
  it('parses every kind with defaults, and names the JSON Pointer of each problem', () => {
    const redis = parseProfile({ name: 'cache', target: { kind: 'redis', topology: 'sentinel', hosts: [{ host: 'sentinel-1', port: 26379 }], master_name: 'mymaster', tls: { servername: 'redis.internal' } } });
    expect(redis).toMatchObject({ label: 'cache', environment: null, read_only: false, protected: false, target: { deployment: 'default', topology: 'sentinel' } });
    const http = parseProfile({ name: 'viewer', target: { kind: 'http', url: 'https://skills.example/api/v1/skills', auth: 'basic', username: 'ci', proxy: 'http://proxy:3128' } });
    expect(http.target).toMatchObject({ kind: 'http', auth: 'basic' });
    expect(error(() => parseProfile({ name: 'x', target: { kind: 'redis', topology: 'sentinel', hosts: [{ host: 'h', port: 1 }] } })).details).toMatchObject({ pointer: '/profile/target/master_name' });
    expect(error(() => parseProfile({ name: 'x', target: { kind: 'redis', hosts: [{ host: 'h', port: 1 }], deployment: 'Bad Name' } })).details).toMatchObject({ pointer: '/profile/target/deployment' });
    expect(error(() => parseProfile({ name: 'x', environment: { label: 'prod', colour: 'red' }, target: { kind: 'local', dir: '/srv/r' } })).details).toMatchObject({ pointer: '/profile/environment/colour' });
    expect(error(() => parseProfile({ name: 'x', target: { kind: 'local', dir: 'relative/dir' } })).message).toContain('absolute path');
    expect(error(() => parseProfile({ name: 'x', target: { kind: 'http', url: 'https://u:pw@h/api/v1/skills' } })).message).toContain('secrets');
    expect(error(() => parseProfile({ name: 'x', password: 'pw', target: { kind: 'local', dir: '/srv/r' } })).message).toContain("'password' is a secret");
  });

  it('takes only the secrets a target uses, and never echoes a value in an error', () => {
    const bearer = parseProfile({ name: 'v', target: { kind: 'http', url: 'https://h/api/v1/skills', auth: 'bearer' } });
    expect(parseSecretsPatch({ token: 't-1', proxy_password: null }, bearer)).toEqual({ token: 't-1', proxy_password: null });
    const wrongKind = error(() => parseSecretsPatch({ password: 'pw-77-secret' }, bearer));
    expect(wrongKind.details).toMatchObject({ pointer: '/secrets/password' });
    const unknown = error(() => parseSecretsPatch({ api_key: 'pw-77-secret' }, bearer));
    expect(JSON.stringify([wrongKind.message, unknown.message])).not.toContain('pw-77-secret');
  });

  describe('ProfileStore', () => {
    let dir: string;
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'skillbench-profiles-'));
    });
    afterEach(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('lists the built-in default first; creates, refuses a taken name, renames, and leaves default alone', async () => {
      const store = new ProfileStore(dir);
      expect((await store.list()).map((p) => p.name)).toEqual(['default']);
      const local = parseProfile({ name: 'team', target: { kind: 'local', dir: '/srv/team' } });
      await store.save(local);
      await expect(store.save(local)).rejects.toMatchObject({ code: 'conflict' });
      await store.save({ ...local, name: 'shared' }, 'team');
      expect((await store.list()).map((p) => p.name)).toEqual(['default', 'shared']);
      await expect(store.save({ ...local, name: 'default' })).rejects.toMatchObject({ code: 'invalid_request' });
      await expect(store.remove('default')).rejects.toMatchObject({ code: 'invalid_request' });
      expect(await store.remove('shared')).toBe(true);
      expect(await store.remove('shared')).toBe(false);
      await expect(store.get('shared')).rejects.toMatchObject({ code: 'not_found' });
    });

    it('names a damaged profiles file instead of guessing', async () => {
      const store = new ProfileStore(dir);
      await store.save(parseProfile({ name: 'team', target: { kind: 'local', dir: '/srv/team' } }));
      const { writeFile } = await import('node:fs/promises');
      await writeFile(store.path, (await readFile(store.path, 'utf8')).slice(0, 20));
      await expect(store.list()).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringContaining('not JSON') });
    });

    it('imports with skip, replace and rename, and refuses a document that names a profile twice', async () => {
      const store = new ProfileStore(dir);
      await store.save(parseProfile({ name: 'team', label: 'Old', target: { kind: 'local', dir: '/srv/team' } }));
      const doc = { format: 'skillbench.connections/v1', profiles: [{ name: 'team', label: 'New', target: { kind: 'local', dir: '/srv/new' } }, { name: 'fresh', target: { kind: 'local', dir: '/srv/f' } }] };
      expect(await store.importProfiles(doc, 'skip')).toEqual({ imported: ['fresh'], replaced: [], skipped: ['team'], renamed: [] });
      expect((await store.get('team')).label).toBe('Old');
      expect(await store.importProfiles(doc, 'replace')).toMatchObject({ replaced: ['team', 'fresh'] });
      expect((await store.get('team')).label).toBe('New');
      expect(await store.importProfiles(doc, 'rename')).toMatchObject({ renamed: [{ from: 'team', to: 'team-2' }, { from: 'fresh', to: 'fresh-2' }] });
      await expect(store.importProfiles({ ...doc, profiles: [doc.profiles[0], doc.profiles[0]] }, 'skip')).rejects.toMatchObject({ details: { pointer: '/document/profiles/1/name' } });
      await expect(store.importProfiles({ profiles: [] }, 'skip')).rejects.toMatchObject({ code: 'invalid_request' });
    });
  });
});
