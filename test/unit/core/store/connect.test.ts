import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appDataDir, defaultConnection, openStore, redactConnection } from '../../../../core/store/connect';
import { StoreError } from '../../../../core/store/errors';

describe('defaultConnection', () => {
  it('prefers SKILLBENCH_HOME on every platform', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      expect(appDataDir({ SKILLBENCH_HOME: '/srv/sb' }, platform, '/home/u')).toBe('/srv/sb');
    }
  });

  it('follows each platform convention', () => {
    expect(defaultConnection({}, 'linux', '/home/u')).toBe('local:/home/u/.local/share/skillbench/registry');
    expect(defaultConnection({ XDG_DATA_HOME: '/x/data' }, 'linux', '/home/u')).toBe('local:/x/data/skillbench/registry');
    // A relative XDG_DATA_HOME is invalid per the spec and ignored.
    expect(defaultConnection({ XDG_DATA_HOME: 'rel' }, 'linux', '/home/u')).toBe('local:/home/u/.local/share/skillbench/registry');
    expect(defaultConnection({}, 'darwin', '/Users/u')).toBe('local:/Users/u/Library/Application Support/Skillbench/registry');
    expect(defaultConnection({ APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32', 'C:\\Users\\u')).toBe(
      'local:C:\\Users\\u\\AppData\\Roaming\\Skillbench\\registry',
    );
  });
});

describe('redactConnection', () => {
  it('hides passwords and secret parameters, keeps hosts and users', () => {
    expect(redactConnection('redis://alice:s3cret@db.example:6380/0?deployment=prod')).toBe('redis://alice:***@db.example:6380/0?deployment=prod');
    expect(redactConnection('rediss://:s3cret@db.example:6380')).toBe('rediss://:***@db.example:6380');
    expect(redactConnection('redis://s3cret@db.example')).toBe('redis://***@db.example');
    expect(redactConnection('https://reg.example/api/v1/skills?token=abc&x=1')).toBe('https://reg.example/api/v1/skills?token=***&x=1');
    expect(redactConnection('redis+sentinel://u:pw@h1:26379,h2:26379/mymaster')).not.toContain('pw');
    expect(redactConnection('local:/data/registry')).toBe('local:/data/registry');
    expect(redactConnection('redis://plainhost:6379')).toBe('redis://plainhost:6379');
  });

  it('never leaks the password of any URL-shaped connection', () => {
    for (const pw of ['p', 'longer-password', 'with%40at']) {
      for (const scheme of ['redis', 'rediss', 'http', 'https']) {
        expect(redactConnection(`${scheme}://user:${pw}@host:1/x`)).not.toContain(`:${pw}@`);
      }
    }
  });
});

describe('openStore', () => {
  it('opens local:DIR relative to cwd', async () => {
    const base = await mkdtemp(join(tmpdir(), 'skillbench-connect-'));
    try {
      const store = await openStore('local:reg', { cwd: base });
      expect(store.description).toBe(`local:${join(base, 'reg')}`);
      expect(await store.listMetadata()).toEqual([]);
      await store.close();
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  it('rejects unknown schemes and an empty local path with 400', async () => {
    for (const conn of ['ftp://x', 'local:', 'nonsense']) {
      const error = await openStore(conn).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreError);
      expect((error as StoreError).code).toBe('invalid_request');
    }
  });
});
