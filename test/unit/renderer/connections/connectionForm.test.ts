import { describe, expect, it } from 'vitest';
import type { ConnectionProfile } from '../../../../core/api/contract';
import { EMPTY_FORM, formOf, parseHosts, profileOf, secretsOf } from '../../../../renderer/connections/ConnectionDialog';
import { isProductionLabel } from '../../../../renderer/connections/env';

const times = { created_at: '2025-01-01T00:00:00Z', updated_at: '2025-01-01T00:00:00Z' };

function profile(target: ConnectionProfile['target'], extra: Partial<ConnectionProfile> = {}): ConnectionProfile {
  return { name: 'prod-redis', label: 'Production', environment: { label: 'PROD', colour: '#d93f3f' }, read_only: false, protected: true, target, ...times, ...extra };
}

describe('the connection form', () => {
  it('reads host lists as people type them', () => {
    expect(parseHosts('127.0.0.1:6379')).toEqual([{ host: '127.0.0.1', port: 6379 }]);
    expect(parseHosts('a:26379, b:26380  c')).toEqual([
      { host: 'a', port: 26379 },
      { host: 'b', port: 26380 },
      { host: 'c', port: 6379 },
    ]);
    expect(parseHosts('[::1]:7000,[::1]')).toEqual([
      { host: '::1', port: 7000 },
      { host: '::1', port: 6379 },
    ]);
  });

  const targets: ConnectionProfile['target'][] = [
    { kind: 'redis', topology: 'standalone', hosts: [{ host: '127.0.0.1', port: 6379 }], deployment: 'default' },
    { kind: 'redis', topology: 'sentinel', hosts: [{ host: 's1', port: 26379 }, { host: 's2', port: 26379 }], master_name: 'mymaster', deployment: 'prod', username: 'app', sentinel_username: 'watcher', tls: { ca_file: '/etc/ca.pem', servername: 'redis.internal' } },
    { kind: 'redis', topology: 'cluster', hosts: [{ host: '::1', port: 7000 }, { host: '10.0.0.2', port: 7001 }], deployment: 'default', tls: {}, command_timeout_ms: 5000 },
    { kind: 'http', url: 'https://registry.example/api/v1/skills', auth: 'bearer' },
    { kind: 'http', url: 'https://registry.example/api/v1/skills', auth: 'basic', username: 'ana', ca_file: '/etc/ca.pem' },
    { kind: 'local', dir: '/srv/registry' },
  ];

  it('gives back every saved setting when a profile is edited and saved unchanged', () => {
    for (const target of targets) {
      const saved = profile(target);
      const { created_at: _c, updated_at: _u, ...expected } = saved;
      expect(profileOf(formOf(saved, false), saved)).toEqual(expected);
    }
  });

  it('clones a profile under a new name and copies no secret', () => {
    const saved = profile(targets[1]!);
    const form = formOf(saved, true);
    expect(form.name).toBe('prod-redis-copy');
    expect(form.secret).toBe('');
    expect(secretsOf(form)).toBeUndefined();
    expect(profileOf(form, saved)['target']).toEqual(targets[1]);
  });

  it('sends the Sentinel password only for a Sentinel profile, and the password as a Redis secret', () => {
    const sentinel = { ...EMPTY_FORM, kind: 'redis' as const, topology: 'sentinel' as const, secret: 'pw', sentinelSecret: 'spw' };
    expect(secretsOf(sentinel)).toEqual({ password: 'pw', sentinel_password: 'spw' });
    expect(secretsOf({ ...sentinel, topology: 'cluster' })).toEqual({ password: 'pw' });
    expect(secretsOf({ ...EMPTY_FORM, kind: 'http', secret: 'tok' })).toEqual({ token: 'tok' });
  });

  it('drops Sentinel-only fields from other topologies', () => {
    const form = { ...EMPTY_FORM, kind: 'redis' as const, topology: 'cluster' as const, hosts: 'a:7000', masterName: 'mymaster', sentinelUsername: 'w' };
    const target = profileOf(form)['target'] as Record<string, unknown>;
    expect(target['master_name']).toBeUndefined();
    expect(target['sentinel_username']).toBeUndefined();
  });
});

describe('production labels', () => {
  it('recognises production environments, not words that contain prod', () => {
    for (const label of ['PROD', 'prod', 'Production', 'prod-eu', 'EU PROD']) expect(isProductionLabel(label), label).toBe(true);
    for (const label of ['STAGING', 'product', 'preprod2x', 'DEV', '', undefined]) expect(isProductionLabel(label), String(label)).toBe(false);
  });
});
