import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isLoopbackHost, listenerUrl, loopbackHostNames } from '../../../../core/admin/server';

describe('isLoopbackHost', () => {
  it('accepts every loopback spelling', () => {
    for (const h of ['localhost', 'LOCALHOST', 'api.localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1']) {
      expect(isLoopbackHost(h), h).toBe(true);
    }
  });

  it('refuses wildcard, private and public addresses and other names', () => {
    for (const h of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.10', '128.0.0.1', 'example.com', 'localhost.example.com', '::ffff:10.0.0.1']) {
      expect(isLoopbackHost(h), h).toBe(false);
    }
  });

  it('classifies IPv4 addresses by their first octet only', () => {
    fc.assert(
      fc.property(fc.ipV4(), (ip) => {
        expect(isLoopbackHost(ip)).toBe(ip.split('.')[0] === '127');
      }),
    );
  });
});

describe('listenerUrl and loopbackHostNames', () => {
  it('brackets IPv6 and replaces wildcard addresses with loopback', () => {
    expect(listenerUrl('127.0.0.1', 8787, '/api/v1/skills')).toBe('http://127.0.0.1:8787/api/v1/skills');
    expect(listenerUrl('::1', 80, '/api/v1/skills')).toBe('http://[::1]:80/api/v1/skills');
    expect(listenerUrl('[::1]', 80, '/x')).toBe('http://[::1]:80/x');
    expect(listenerUrl('0.0.0.0', 1, '/x')).toBe('http://127.0.0.1:1/x');
    expect(listenerUrl('::', 1, '/x')).toBe('http://[::1]:1/x');
  });

  it('lets a loopback listener answer its own name and the usual loopback names', () => {
    expect(loopbackHostNames('127.0.0.2').sort()).toEqual(['127.0.0.1', '127.0.0.2', '::1', 'localhost']);
    expect(loopbackHostNames('[::1]').sort()).toEqual(['127.0.0.1', '::1', 'localhost']);
  });
});
