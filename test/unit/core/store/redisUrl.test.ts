import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { StoreError } from '../../../../core/store/errors';
import { keyPrefix, redisKeyspace } from '../../../../core/store/redisKeyspace';
import { parseRedisUrl, redactRedisUrl } from '../../../../core/store/redisUrl';

function failure(fn: () => unknown): StoreError {
  try {
    fn();
  } catch (error) {
    if (error instanceof StoreError) return error;
    throw error;
  }
  throw new Error('expected a StoreError');
}

describe('parseRedisUrl', () => {
  it('reads the standalone form with defaults', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6380')).toMatchObject({
      topology: 'standalone',
      tls: false,
      hosts: [{ host: '127.0.0.1', port: 6380 }],
      deployment: 'default',
      redacted: 'redis://127.0.0.1:6380',
    });
    expect(parseRedisUrl('redis://cache.internal').hosts).toEqual([{ host: 'cache.internal', port: 6379 }]);
    expect(parseRedisUrl('redis://[::1]:7000/0').hosts).toEqual([{ host: '::1', port: 7000 }]);
  });

  it('reads ACL credentials, a requirepass password and percent-escapes', () => {
    const acl = parseRedisUrl('redis://writer:p%40ss%3Aw%2Frd@h:1/0?deployment=team-a');
    expect(acl).toMatchObject({ username: 'writer', password: 'p@ss:w/rd', deployment: 'team-a' });
    expect(acl.redacted).toBe('redis://writer:***@h:1/0?deployment=team-a');
    const legacy = parseRedisUrl('redis://:only-pass@h:1');
    expect(legacy.username).toBeUndefined();
    expect(legacy.password).toBe('only-pass');
    expect(legacy.redacted).toBe('redis://:***@h:1');
  });

  it('reads TLS options only on rediss schemes', () => {
    expect(parseRedisUrl('rediss://h:6380?ca=/etc/ca.pem&servername=redis.example.com')).toMatchObject({
      tls: true,
      caFile: '/etc/ca.pem',
      servername: 'redis.example.com',
    });
    expect(failure(() => parseRedisUrl('redis://h:6380?ca=/etc/ca.pem')).message).toMatch(/needs TLS/);
  });

  it('reads the Sentinel and Cluster forms', () => {
    expect(parseRedisUrl('redis+sentinel://u:p@s1:26379,s2:26380/mymaster/0?deployment=prod')).toMatchObject({
      topology: 'sentinel',
      hosts: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26380 },
      ],
      masterName: 'mymaster',
      username: 'u',
      password: 'p',
      deployment: 'prod',
    });
    expect(parseRedisUrl('rediss+cluster://n1:7000,n2:7001,[::1]:7002')).toMatchObject({
      topology: 'cluster',
      tls: true,
      hosts: [
        { host: 'n1', port: 7000 },
        { host: 'n2', port: 7001 },
        { host: '::1', port: 7002 },
      ],
    });
  });

  it('reads timeouts in milliseconds', () => {
    expect(parseRedisUrl('redis://h?connect_timeout=250&command_timeout=1500')).toMatchObject({ connectTimeoutMs: 250, commandTimeoutMs: 1500 });
    expect(failure(() => parseRedisUrl('redis://h?command_timeout=0')).message).toMatch(/positive number of milliseconds/);
  });

  it.each([
    ['redis://h:6379/2', /DB 0/],
    ['redis+cluster://a:1,b:2/1', /DB 0/],
    ['redis+sentinel://s:1/master/5', /DB 0/],
    ['redis+sentinel://s:1', /master name/],
    ['redis://a:1,b:2', /several hosts/],
    ['redis://h:70000', /invalid port/],
    ['redis://h?deployment=Team_A', /invalid deployment/],
    ['redis://h?deployment=a&deployment=b', /repeated/],
    ['redis://h?db=0', /unknown option 'db'/],
    ['memcached://h', /unknown scheme/],
    ['redis://', /missing host|expected/],
    ['redis://user@h', /needs a password/],
    ['redis://::1:6379', /IPv6/],
  ])('rejects %s with a clear 400', (url, message) => {
    const error = failure(() => parseRedisUrl(url));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(message);
  });

  it('never puts the password into a message or the redacted form', () => {
    const user = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/);
    // Passwords from an alphabet (upper case, symbols) the rest of the URL never uses.
    const pass = fc.stringMatching(/^[A-Z!$&'()*+;=~]{6,20}$/);
    const host = fc.stringMatching(/^[a-z][a-z0-9.-]{0,15}$/);
    fc.assert(
      fc.property(user, pass, host, fc.integer({ min: 1, max: 65535 }), fc.boolean(), (u, p, h, port, badDb) => {
        const url = `redis://${u}:${encodeURIComponent(p)}@${h}:${port}${badDb ? '/9' : ''}?deployment=x`;
        const encoded = encodeURIComponent(p);
        expect(redactRedisUrl(url)).not.toContain(encoded);
        expect(redactRedisUrl(url)).toContain(`${u}:***@`);
        if (badDb) {
          const error = failure(() => parseRedisUrl(url));
          expect(error.message).not.toContain(encoded);
          expect(error.message).not.toContain(p);
        } else {
          const config = parseRedisUrl(url);
          expect(config).toMatchObject({ username: u, password: p, hosts: [{ host: h, port }] });
          expect(config.redacted).not.toContain(encoded);
        }
      }),
    );
  });

  it('redacts a password that contains @ and keeps everything else', () => {
    expect(redactRedisUrl('redis+sentinel://u:a@b@s1:1,s2:2/m?deployment=d')).toBe('redis+sentinel://u:***@s1:1,s2:2/m?deployment=d');
    expect(redactRedisUrl('redis://h:1')).toBe('redis://h:1');
  });
});

describe('redisKeyspace', () => {
  it('puts every key under the prefix with the deployment hash tag', () => {
    const ks = redisKeyspace('team-a');
    const id = { namespace: 'travel', name: 'weather-assessment' };
    expect(ks.prefix).toBe('truvag3:v1:team-a:skills:{team-a:skills}:');
    const keys = [ks.catalog, ks.audit, ks.noIdempotency, ks.state(id), ks.version(id, 3), ks.history(id), ks.tombstones(id), ks.idempotency(id, 'ab'.repeat(32))];
    for (const key of keys) {
      expect(key.startsWith(ks.prefix)).toBe(true);
      // The only braces are the hash tag: Redis Cluster hashes '{team-a:skills}' alone.
      expect(key.match(/\{([^}]*)\}/)?.[1]).toBe('team-a:skills');
      expect(key.indexOf('{')).toBe(key.lastIndexOf('{'));
    }
    expect(ks.version(id, 3).startsWith(ks.versionPrefix(id))).toBe(true);
    expect(ks.state(id)).toBe('truvag3:v1:team-a:skills:{team-a:skills}:skill:travel/weather-assessment:state');
  });

  it('refuses a deployment that is not a slug', () => {
    for (const bad of ['', 'A', 'a}b', 'a:b', '-a', 'a'.repeat(65)]) {
      expect(failure(() => keyPrefix(bad)).code).toBe('invalid_request');
    }
  });
});
