/**
 * Which store a connection names: a typed connection string is matched to the
 * guarded profile of the same store (the same folder after resolving links,
 * even a link to a folder not created yet; the same Redis deployment on a
 * shared node; the same base URL), and the identity a review statement binds
 * never is a local path alone.
 */
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionProfile, ConnectionTarget } from '../../../../core/api/contract';
import { guardingProfile, normalizeBaseUrl, registryIdentity } from '../../../../core/connections/identity';

const profile = (name: string, target: ConnectionTarget, flags: Partial<ConnectionProfile> = {}): ConnectionProfile => ({
  name,
  label: name,
  environment: null,
  read_only: false,
  protected: true,
  target,
  created_at: '',
  updated_at: '',
  ...flags,
});

describe('store identity', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbench-identity-'));
    await mkdir(join(dir, 'real'));
    await symlink(join(dir, 'real'), join(dir, 'link'));
    await symlink(join(dir, 'not-yet'), join(dir, 'dangling'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('matches a local path, a symlink to it, and a link to a folder not created yet, to the guarded profile', async () => {
    const profiles = [profile('prod', { kind: 'local', dir: join(dir, 'real') }), profile('next', { kind: 'local', dir: join(dir, 'not-yet') }), profile('open', { kind: 'local', dir: join(dir, 'x') }, { protected: false })];
    expect((await guardingProfile(`local:${join(dir, 'real')}`, '/', profiles))?.name).toBe('prod');
    expect((await guardingProfile('local:link/', dir, profiles))?.name).toBe('prod');
    expect((await guardingProfile(`local:${join(dir, 'dangling')}`, '/', profiles))?.name).toBe('next');
    expect(await guardingProfile(`local:${join(dir, 'x')}`, '/', profiles)).toBeUndefined();
    expect(await guardingProfile(`local:${join(dir, 'other')}`, '/', profiles)).toBeUndefined();
  });

  it('matches a Redis deployment on a shared node, and a base URL however it is written', async () => {
    const profiles = [
      profile('cache', { kind: 'redis', topology: 'cluster', hosts: [{ host: '10.0.0.1', port: 7000 }, { host: '10.0.0.2', port: 7000 }], deployment: 'prod' }),
      profile('api', { kind: 'http', url: 'https://Registry.example/api/v1/skills', auth: 'none' }, { protected: false, enforces_approvals: true }),
    ];
    expect((await guardingProfile('redis+cluster://10.0.0.2:7000?deployment=prod', '/', profiles))?.name).toBe('cache');
    expect(await guardingProfile('redis+cluster://10.0.0.2:7000?deployment=staging', '/', profiles)).toBeUndefined();
    expect(await guardingProfile('redis+cluster://10.0.0.9:7000?deployment=prod', '/', profiles)).toBeUndefined();
    expect((await guardingProfile('https://registry.example:443/api/v1/skills/', '/', profiles))?.name).toBe('api');
    expect(await guardingProfile('https://registry.example/api/v2/skills', '/', profiles)).toBeUndefined();
    expect(normalizeBaseUrl('HTTP://Host:80/a/b//')).toBe('http://host/a/b');
  });

  it('names a local registry by machine and real path, a Redis store by nodes and deployment, an admin API by base URL', async () => {
    expect(await registryIdentity(profile('p', { kind: 'local', dir: join(dir, 'link') }))).toBe(`local://${hostname().toLowerCase()}${join(dir, 'real')}`);
    expect(await registryIdentity(profile('p', { kind: 'redis', topology: 'sentinel', hosts: [{ host: 'b', port: 2 }, { host: 'a', port: 1 }], master_name: 'mymaster', deployment: 'prod' }))).toBe('redis+sentinel://a:1,b:2/mymaster#prod');
    expect(await registryIdentity(profile('p', { kind: 'http', url: 'https://registry.example/api/v1/skills/', auth: 'bearer' }))).toBe('https://registry.example/api/v1/skills');
  });
});
