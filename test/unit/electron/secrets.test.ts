import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileSecretStore } from '../../../core/connections/secrets';
import { desktopSecretStore, safeStorageSealer } from '../../../electron/secrets';
import { safeStorageStandIn } from '../../helpers/electronStandIns';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbench-desktop-secrets-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('safeStorageSealer (with a safeStorage stand-in)', () => {
  it('round-trips any bytes and marks the protection as the OS keychain', async () => {
    const sealer = safeStorageSealer(safeStorageStandIn(), 'darwin')!;
    expect(sealer.protection).toBe('os-keychain');
    const bytes = Buffer.from([0, 255, 10, 13, 0xc3, 0x28]);
    const sealed = await sealer.seal(bytes);
    expect(sealed.includes(bytes)).toBe(false);
    expect(await sealer.unseal(sealed)).toEqual(bytes);
  });

  it('is not used when encryption is unavailable or Linux has no keyring', () => {
    expect(safeStorageSealer(safeStorageStandIn(false), 'win32')).toBeUndefined();
    const noKeyring = { ...safeStorageStandIn(), getSelectedStorageBackend: () => 'basic_text' };
    expect(safeStorageSealer(noKeyring, 'linux')).toBeUndefined();
    expect(safeStorageSealer(noKeyring, 'darwin')?.protection).toBe('os-keychain');
  });
});

describe('desktopSecretStore', () => {
  it('seals with safeStorage in a fresh app-data folder', async () => {
    const store = await desktopSecretStore(dir, {}, safeStorageStandIn(), 'linux');
    expect(store.protection).toBe('os-keychain');
    await store.update('p', { token: 'tok-1' });
    expect(await (await desktopSecretStore(dir, {}, safeStorageStandIn(), 'linux')).get('p')).toEqual({ token: 'tok-1' });
  });

  it('keeps the key of secrets saved by the web host, so they stay readable', async () => {
    const web = new FileSecretStore(join(dir, 'connections'), { env: {} });
    await web.update('p', { password: 'pw-1' });
    const desktop = await desktopSecretStore(dir, {}, safeStorageStandIn(), 'linux');
    expect(desktop.protection).toBe('file-permissions');
    expect(await desktop.get('p')).toEqual({ password: 'pw-1' });
  });

  it('uses SKILLBENCH_SECRET_KEY when it is set', async () => {
    const store = await desktopSecretStore(dir, { SKILLBENCH_SECRET_KEY: 'correct horse' }, safeStorageStandIn(), 'linux');
    expect(store.protection).toBe('key');
  });
});
