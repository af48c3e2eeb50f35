/**
 * Saved connection secrets (Redis and Sentinel passwords, admin API tokens,
 * Basic passwords, extra headers, proxy passwords), kept apart from the
 * profiles so the profiles file can be shown, exported and backed up freely.
 *
 * - {@link SecretStore} is the port: the web host uses {@link FileSecretStore};
 *   the desktop shell plugs Electron's `safeStorage` in as a {@link SecretSealer}.
 * - The file (`connections/secrets.json`, mode 0600) holds the secret *names*
 *   of each profile in the clear (the sidebar shows which are saved even while
 *   locked) and the values sealed with AES-256-GCM. The key is derived with
 *   scrypt from `SKILLBENCH_SECRET_KEY` when it is set (protection `key`);
 *   otherwise it is a random key in `connections/secrets.key`, mode 0600
 *   (protection `file-permissions`: the values are not readable as text, but
 *   whoever can read the folder can read them).
 * - A file sealed with a key this process does not have (the variable unset or
 *   different) is `secrets_locked`: nothing is guessed and nothing is overwritten.
 *
 * Node-only: uses node:crypto and node:fs.
 */
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
import { join } from 'node:path';
import { WorkbenchError } from '../errors';
import type { SecretName, SecretProtection, SecretsPresence } from './types';
import { writeFileAtomic } from '../fs/atomic';
import { PRIVATE_FILE, SharedFileQueue, readSmallFile } from './files';

/** The secret names a profile may have, in display order. */
export const SECRET_NAMES: readonly SecretName[] = ['password', 'sentinel_password', 'token', 'headers', 'proxy_password'];

/** A profile's secret values. `headers` is a JSON object text of header name → value. */
export type ProfileSecrets = Partial<Record<SecretName, string>>;

/** A change to a profile's secrets: a value sets, null removes, an absent name keeps. */
export type SecretsPatch = Partial<Record<SecretName, string | null>>;

/** The environment variable whose value the secrets key is derived from. */
export const SECRET_KEY_ENV = 'SKILLBENCH_SECRET_KEY';

/** Where secrets are kept. */
export interface SecretStore {
  readonly protection: SecretProtection;
  /** The secrets of `profile` (empty when none); `secrets_locked` when they cannot be unsealed. */
  get(profile: string): Promise<ProfileSecrets>;
  /** Which secrets `profile` has (names only); works while locked. */
  presence(profile: string): Promise<SecretsPresence>;
  /** Applies `patch` to the secrets of `profile`. */
  update(profile: string, patch: SecretsPatch): Promise<void>;
  /** Moves the secrets of `from` to `to` (a rename). */
  rename(from: string, to: string): Promise<void>;
  /** Forgets every secret of `profile`. */
  remove(profile: string): Promise<void>;
  /** Every secret value this store has unsealed so far, for redaction of outgoing text. */
  knownValues(): string[];
}

/** Seals and unseals bytes: AES-GCM with a key from the environment or a key file, or Electron's `safeStorage`. */
export interface SecretSealer {
  readonly protection: SecretProtection;
  /** A short, secret-free identifier of the key (stored beside the sealed data to tell a wrong key from a damaged file). */
  readonly keyId: string;
  seal(plain: Buffer): Promise<Buffer>;
  /** Throws when the data was sealed with another key or was altered. */
  unseal(sealed: Buffer): Promise<Buffer>;
}

const FORMAT = 'skillbench.secrets/v1';
const MAX_FILE_BYTES = 4 * 1024 * 1024;
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** AES-256-GCM with a 32-byte key: `iv ‖ ciphertext ‖ tag`. */
export function aesGcmSealer(key: Buffer, protection: SecretProtection, keyId: string): SecretSealer {
  if (key.length !== KEY_BYTES) throw new WorkbenchError('internal', 'the secrets key must be 32 bytes');
  return {
    protection,
    keyId,
    async seal(plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain), cipher.final()]);
      return Buffer.concat([iv, body, cipher.getAuthTag()]);
    },
    async unseal(sealed) {
      if (sealed.length < IV_BYTES + TAG_BYTES) throw new Error('sealed data is too short');
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]);
    },
  };
}

/**
 * The sealer of the web host and the CLI: a key derived from
 * `SKILLBENCH_SECRET_KEY` (scrypt, salted per folder) when it is set, else the
 * random key of `<dir>/secrets.key` (created 0600 on first need).
 */
export async function keySealer(dir: string, env: Record<string, string | undefined>, options: { create: boolean }): Promise<SecretSealer | undefined> {
  const passphrase = env[SECRET_KEY_ENV];
  if (passphrase !== undefined && passphrase.length > 0) {
    const saltPath = join(dir, 'secrets.salt');
    let salt = await readSmallFile(saltPath, 1024, 'the secrets salt');
    if (salt === undefined) {
      if (!options.create) return undefined;
      salt = randomBytes(16).toString('base64');
      await writeFileAtomic(saltPath, salt, PRIVATE_FILE);
    }
    const key = scryptSync(passphrase, Buffer.from(salt.trim(), 'base64'), KEY_BYTES, { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    return aesGcmSealer(key, 'key', 'env');
  }
  const keyPath = join(dir, 'secrets.key');
  let text = await readSmallFile(keyPath, 1024, 'the secrets key file');
  if (text === undefined) {
    if (!options.create) return undefined;
    text = randomBytes(KEY_BYTES).toString('base64');
    await writeFileAtomic(keyPath, text, PRIVATE_FILE);
  }
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== KEY_BYTES) throw new WorkbenchError('secrets_locked', 'the secrets key file of the app-data folder is damaged: remove the saved secrets and enter them again');
  return aesGcmSealer(key, 'file-permissions', 'file');
}

interface SecretsFile {
  format: typeof FORMAT;
  /** Which key sealed `sealed` (`env`, `file`, `os`). */
  key: string;
  /** Profile → saved secret names (not secret). */
  names: Record<string, SecretName[]>;
  /** base64 of the sealed JSON `{profile: {name: value}}`. */
  sealed: string;
}

function isSecretName(value: unknown): value is SecretName {
  return typeof value === 'string' && (SECRET_NAMES as readonly string[]).includes(value);
}

function parseFile(text: string, label: string): SecretsFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new WorkbenchError('secrets_locked', `${label} is damaged (not JSON): remove it and enter the secrets again`);
  }
  const o = json as Partial<SecretsFile> | null;
  if (!o || typeof o !== 'object' || o.format !== FORMAT || typeof o.key !== 'string' || typeof o.sealed !== 'string' || typeof o.names !== 'object' || o.names === null) {
    throw new WorkbenchError('secrets_locked', `${label} is not a ${FORMAT} file: remove it and enter the secrets again`);
  }
  const names: Record<string, SecretName[]> = {};
  for (const [profile, list] of Object.entries(o.names)) names[profile] = Array.isArray(list) ? list.filter(isSecretName) : [];
  return { format: FORMAT, key: o.key, names, sealed: o.sealed };
}

/**
 * Why secrets sealed with key `sealedWith` cannot be unsealed by `sealer` (undefined: no key
 * of its kind is there), and what to do, naming the key actually in play.
 */
function lockedReason(sealedWith: string, sealer: SecretSealer | undefined, envKeySet: boolean): string {
  // With the variable set, the key file is never looked at (and a sealer may not exist before the first save).
  const current = envKeySet ? 'env' : sealer?.keyId;
  if (sealedWith === 'file') {
    if (current === 'env') {
      return `they were sealed with the key file of the app-data folder (secrets.key), but ${SECRET_KEY_ENV} is set, so that file is not used: unset ${SECRET_KEY_ENV} to read them, or enter them again to seal them with the variable's key`;
    }
    if (current === 'file') return 'the key file (secrets.key) was replaced since they were sealed, or the saved secrets were altered: restore the key file, or enter them again';
    return 'the key file (secrets.key) is missing from the app-data folder: restore it, or enter them again';
  }
  if (sealedWith === 'env') {
    if (current === 'env') return `${SECRET_KEY_ENV} is not the value they were sealed with (or the saved secrets or secrets.salt were altered): set it to that value`;
    return `they were sealed with a key from ${SECRET_KEY_ENV}, and ${SECRET_KEY_ENV} is not set: set it to the value they were sealed with`;
  }
  if (sealedWith === 'os') return "they were saved by the desktop app with the operating system's keychain";
  return 'they were sealed with another key';
}

/**
 * Secrets in `<dir>/secrets.json` (0600), sealed by `sealer` (default
 * {@link keySealer} for `env`).
 */
export class FileSecretStore implements SecretStore {
  private readonly path: string;
  /** Changes (and the key's creation) run under the folder's lock: no process loses another's secret or replaces its key. */
  private readonly queue: SharedFileQueue;
  private readonly seen = new Set<string>();
  private sealerPromise: Promise<SecretSealer | undefined> | undefined;

  constructor(
    private readonly dir: string,
    private readonly options: { env?: Record<string, string | undefined>; sealer?: SecretSealer } = {},
  ) {
    this.path = join(dir, 'secrets.json');
    this.queue = new SharedFileQueue(dir, 'the saved connection secrets');
  }

  get protection(): SecretProtection {
    if (this.options.sealer) return this.options.sealer.protection;
    const key = (this.options.env ?? {})[SECRET_KEY_ENV];
    return key !== undefined && key.length > 0 ? 'key' : 'file-permissions';
  }

  private async sealer(create: boolean): Promise<SecretSealer | undefined> {
    if (this.options.sealer) return this.options.sealer;
    const known = await this.sealerPromise?.catch(() => undefined);
    if (known) return known;
    this.sealerPromise = keySealer(this.dir, this.options.env ?? {}, { create });
    return this.sealerPromise;
  }

  private async readFile(): Promise<SecretsFile | undefined> {
    const text = await readSmallFile(this.path, MAX_FILE_BYTES, 'the saved secrets');
    return text === undefined ? undefined : parseFile(text, 'the saved secrets');
  }

  private async unsealAll(file: SecretsFile | undefined): Promise<Record<string, ProfileSecrets>> {
    if (!file) return {};
    const sealer = await this.sealer(false);
    const locked = () =>
      new WorkbenchError('secrets_locked', `the saved connection secrets cannot be unlocked: ${lockedReason(file.key, sealer, !this.options.sealer && this.protection === 'key')}`, {
        details: { reason: 'wrong_key' },
      });
    if (!sealer || sealer.keyId !== file.key) throw locked();
    let plain: Buffer;
    try {
      plain = await sealer.unseal(Buffer.from(file.sealed, 'base64'));
    } catch {
      throw locked();
    }
    const all = JSON.parse(plain.toString('utf8')) as Record<string, ProfileSecrets>;
    for (const secrets of Object.values(all)) for (const [name, value] of Object.entries(secrets)) this.remember(name, value);
    return all;
  }

  /** Keeps a value for {@link knownValues}; header values one by one. */
  private remember(name: string, value: unknown): void {
    if (typeof value !== 'string' || value.length === 0) return;
    this.seen.add(value);
    if (name === 'headers') {
      try {
        for (const v of Object.values(JSON.parse(value) as Record<string, unknown>)) if (typeof v === 'string' && v.length > 0) this.seen.add(v);
      } catch {
        // Not JSON: the whole text is remembered already.
      }
    }
  }

  private async writeAll(all: Record<string, ProfileSecrets>): Promise<void> {
    const sealer = await this.sealer(true);
    if (!sealer) throw new WorkbenchError('internal', 'no secrets key');
    const names: Record<string, SecretName[]> = {};
    for (const [profile, secrets] of Object.entries(all)) {
      const present = SECRET_NAMES.filter((n) => typeof secrets[n] === 'string');
      if (present.length > 0) names[profile] = present;
      else delete all[profile];
    }
    const sealed = await sealer.seal(Buffer.from(JSON.stringify(all), 'utf8'));
    const file: SecretsFile = { format: FORMAT, key: sealer.keyId, names, sealed: sealed.toString('base64') };
    await writeFileAtomic(this.path, `${JSON.stringify(file, null, 2)}\n`, PRIVATE_FILE);
  }

  async get(profile: string): Promise<ProfileSecrets> {
    const file = await this.readFile();
    if (!file || !file.names[profile]) return {};
    return { ...(await this.unsealAll(file))[profile] };
  }

  async presence(profile: string): Promise<SecretsPresence> {
    const file = await this.readFile().catch(() => undefined);
    const out: SecretsPresence = {};
    for (const name of file?.names[profile] ?? []) out[name] = true;
    return out;
  }

  update(profile: string, patch: SecretsPatch): Promise<void> {
    return this.queue.run(async () => {
      const all = await this.unsealAll(await this.readFile());
      const next: ProfileSecrets = { ...all[profile] };
      for (const [name, value] of Object.entries(patch)) {
        if (!isSecretName(name)) continue;
        if (value === null) delete next[name];
        else if (typeof value === 'string') {
          next[name] = value;
          this.remember(name, value);
        }
      }
      all[profile] = next;
      await this.writeAll(all);
    });
  }

  rename(from: string, to: string): Promise<void> {
    return this.queue.run(async () => {
      const file = await this.readFile();
      if (!file?.names[from]) return;
      const all = await this.unsealAll(file);
      all[to] = all[from] ?? {};
      delete all[from];
      await this.writeAll(all);
    });
  }

  remove(profile: string): Promise<void> {
    return this.queue.run(async () => {
      const file = await this.readFile();
      if (!file?.names[profile]) return;
      const all = await this.unsealAll(file);
      delete all[profile];
      await this.writeAll(all);
    });
  }

  knownValues(): string[] {
    return [...this.seen];
  }
}
