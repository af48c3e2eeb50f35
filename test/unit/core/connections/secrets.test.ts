import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../../core/errors';
import { FileSecretStore } from '../../../../core/connections/secrets';

const MARKER = 'Mk-7d0c-unit-s3cret';

describe('FileSecretStore', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbench-secrets-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads nothing and creates nothing before the first save', async () => {
    const store = new FileSecretStore(join(dir, 'connections'), { env: {} });
    expect(await store.get('prod')).toEqual({});
    expect(await store.presence('prod')).toEqual({});
    expect(await readdir(dir)).toEqual([]);
  });

  for (const [mode, env] of [
    ['a random key file', {}],
    ['a key derived from SKILLBENCH_SECRET_KEY', { SKILLBENCH_SECRET_KEY: 'correct horse battery staple' }],
  ] as const) {
    it(`seals values with ${mode}: files are 0600 and never hold a value as text`, async () => {
      const store = new FileSecretStore(dir, { env });
      expect(store.protection).toBe('SKILLBENCH_SECRET_KEY' in env ? 'key' : 'file-permissions');
      await store.update('prod', { password: MARKER, token: 'tok-1234' });
      await store.update('prod', { token: null });
      const again = new FileSecretStore(dir, { env });
      expect(await again.get('prod')).toEqual({ password: MARKER });
      expect(await again.presence('prod')).toEqual({ password: true });
      for (const name of await readdir(dir)) {
        const path = join(dir, name);
        expect((await stat(path)).mode & 0o777, name).toBe(0o600);
        const bytes = await readFile(path);
        expect(bytes.includes(MARKER), name).toBe(false);
        expect(bytes.includes(Buffer.from(MARKER).toString('base64')), name).toBe(false);
      }
    });
  }

  it('is locked under another key or without the key it was sealed with, and shows names meanwhile', async () => {
    await new FileSecretStore(dir, { env: { SKILLBENCH_SECRET_KEY: 'one' } }).update('prod', { password: MARKER });
    for (const env of [{ SKILLBENCH_SECRET_KEY: 'two' }, {}]) {
      const store = new FileSecretStore(dir, { env });
      const error = await store.get('prod').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WorkbenchError);
      expect((error as WorkbenchError).code).toBe('secrets_locked');
      expect(String((error as Error).message)).not.toContain(MARKER);
      expect(await store.presence('prod')).toEqual({ password: true });
      // Nothing is overwritten by a locked store.
      await expect(store.update('other', { token: 'x' })).rejects.toMatchObject({ code: 'secrets_locked' });
    }
    expect(await new FileSecretStore(dir, { env: { SKILLBENCH_SECRET_KEY: 'one' } }).get('prod')).toEqual({ password: MARKER });
  });

  it('says which key is missing or wrong when secrets are locked, instead of blaming a key file that is there', async () => {
    const locked = async (env: Record<string, string>): Promise<string> => {
      const error = await new FileSecretStore(dir, { env }).get('prod').catch((e: unknown) => e);
      expect((error as WorkbenchError).code).toBe('secrets_locked');
      return (error as Error).message;
    };
    // Sealed with the key file, read with the variable set.
    await new FileSecretStore(dir, { env: {} }).update('prod', { password: MARKER });
    const withVariable = await locked({ SKILLBENCH_SECRET_KEY: 'a passphrase' });
    expect(withVariable).toContain('sealed with the key file');
    expect(withVariable).toContain('SKILLBENCH_SECRET_KEY is set');
    expect(withVariable).not.toMatch(/missing|replaced/);
    const keyFile = await readFile(join(dir, 'secrets.key'));
    await rm(join(dir, 'secrets.key'));
    expect(await locked({})).toContain('key file (secrets.key) is missing');
    await writeFile(join(dir, 'secrets.key'), Buffer.alloc(32, 7).toString('base64'));
    expect(await locked({})).toContain('key file (secrets.key) was replaced');
    await writeFile(join(dir, 'secrets.key'), keyFile);
    expect(await new FileSecretStore(dir, { env: {} }).get('prod')).toEqual({ password: MARKER });

    // Sealed with the variable, read without it or with another value.
    await rm(join(dir, 'secrets.json'));
    await new FileSecretStore(dir, { env: { SKILLBENCH_SECRET_KEY: 'one' } }).update('prod', { password: MARKER });
    expect(await locked({})).toContain('SKILLBENCH_SECRET_KEY is not set');
    expect(await locked({ SKILLBENCH_SECRET_KEY: 'two' })).toContain('SKILLBENCH_SECRET_KEY is not the value they were sealed with');
  });

  it('refuses an altered file as locked rather than reading garbage', async () => {
    const store = new FileSecretStore(dir, { env: {} });
    await store.update('prod', { password: MARKER });
    const path = join(dir, 'secrets.json');
    const doc = JSON.parse(await readFile(path, 'utf8'));
    const sealed = Buffer.from(doc.sealed, 'base64');
    sealed[20] = (sealed[20] ?? 0) ^ 1;
    doc.sealed = sealed.toString('base64');
    await writeFile(path, JSON.stringify(doc));
    await expect(new FileSecretStore(dir, { env: {} }).get('prod')).rejects.toMatchObject({ code: 'secrets_locked' });
  });

  it('moves secrets with a rename and forgets them on remove; knows the values for redaction, headers one by one', async () => {
    const store = new FileSecretStore(dir, { env: {} });
    await store.update('a', { headers: JSON.stringify({ 'X-Gateway-Key': 'gw-9981-secret' }) });
    await store.rename('a', 'b');
    expect(await store.presence('a')).toEqual({});
    expect(await store.presence('b')).toEqual({ headers: true });
    expect(store.knownValues()).toContain('gw-9981-secret');
    await store.remove('b');
    expect(await store.get('b')).toEqual({});
  });
});
