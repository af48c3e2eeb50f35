/**
 * Connection secrets on the desktop: sealed with Electron's `safeStorage`
 * (the operating system's keychain, DPAPI or libsecret) when it is available.
 *
 * The web host and the CLI seal the same file with a key file or
 * `SKILLBENCH_SECRET_KEY`, so the desktop keeps that key when the user set the
 * variable or when the file was already sealed with it: a secret saved in one
 * host stays readable in the other, instead of turning up locked.
 */
import { join } from 'node:path';
import { readSmallFile } from '../core/connections/files';
import { FileSecretStore, SECRET_KEY_ENV, type SecretSealer, type SecretStore } from '../core/connections/secrets';

/** The part of Electron's `safeStorage` used here. */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(sealed: Buffer): string;
  /** Linux only: `basic_text` means no keyring, only a password built into Chromium. */
  getSelectedStorageBackend?(): string;
}

/** `safeStorage` as a sealer, or `undefined` when it would not protect anything. */
export function safeStorageSealer(safeStorage: SafeStorageLike, platform: NodeJS.Platform): SecretSealer | undefined {
  if (!safeStorage.isEncryptionAvailable()) return undefined;
  if (platform === 'linux' && ['basic_text', 'unknown'].includes(safeStorage.getSelectedStorageBackend?.() ?? 'unknown')) return undefined;
  return {
    protection: 'os-keychain',
    keyId: 'os',
    // Bytes cross safeStorage's string interface as base64, so any value round-trips.
    seal: async (plain) => safeStorage.encryptString(plain.toString('base64')),
    unseal: async (sealed) => Buffer.from(safeStorage.decryptString(sealed), 'base64'),
  };
}

/** Which key sealed the secrets file of `dir`, if there is one (a damaged file is the store's to report). */
async function sealedWith(dir: string): Promise<string | undefined> {
  try {
    const text = await readSmallFile(join(dir, 'secrets.json'), 4 * 1024 * 1024, 'the saved connection secrets');
    if (text === undefined) return undefined;
    const key = (JSON.parse(text) as { key?: unknown } | null)?.key;
    return typeof key === 'string' ? key : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The desktop's secret store for the app-data folder `dataDir`: sealed by
 * `safeStorage` unless `SKILLBENCH_SECRET_KEY` is set or the file already holds
 * secrets sealed with another key.
 */
export async function desktopSecretStore(dataDir: string, env: Record<string, string | undefined>, safeStorage: SafeStorageLike, platform: NodeJS.Platform): Promise<SecretStore> {
  const dir = join(dataDir, 'connections');
  const explicitKey = (env[SECRET_KEY_ENV] ?? '').length > 0;
  const existing = await sealedWith(dir);
  const sealer = explicitKey || (existing !== undefined && existing !== 'os') ? undefined : safeStorageSealer(safeStorage, platform);
  return new FileSecretStore(dir, { env, ...(sealer && { sealer }) });
}
