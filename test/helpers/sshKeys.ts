/**
 * Real SSH keys for signed reviews, made by `ssh-keygen` in a temp folder: one
 * Ed25519 key per person (principal `<name>@example.com`) and an
 * allowed-signers file in git's `gpg.ssh.allowedSignersFile` format listing
 * whom the test chooses.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A person's key pair. */
export interface TestKey {
  name: string;
  principal: string;
  /** The private key file (what `user.signingkey` names). */
  key: string;
  /** The public key line, `ssh-ed25519 AAAA… comment`. */
  publicKey: string;
  /** `SHA256:…` as ssh-keygen prints it. */
  fingerprint: string;
}

/** Makes an Ed25519 key for `name` in `dir` (no passphrase unless given). */
export async function makeKey(dir: string, name: string, passphrase = ''): Promise<TestKey> {
  const key = join(dir, `${name}_ed25519`);
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', passphrase, '-C', `${name}@example.com`, '-f', key]);
  const publicKey = (await readFile(`${key}.pub`, 'utf8')).trim();
  const { stdout } = await run('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${key}.pub`]);
  return { name, principal: `${name}@example.com`, key, publicKey, fingerprint: stdout.split(' ')[1]! };
}

/** Writes an allowed-signers file listing `keys` (each under its principal), optionally limited to namespaces. */
export async function writeAllowedSigners(file: string, keys: readonly TestKey[], options: { namespaces?: string } = {}): Promise<string> {
  const lines = keys.map((k) => `${k.principal}${options.namespaces ? ` namespaces="${options.namespaces}"` : ''} ${k.publicKey.split(' ').slice(0, 2).join(' ')}`);
  await writeFile(file, `${lines.join('\n')}\n`, { mode: 0o644 });
  return file;
}

/** Makes keys for `names` and an allowed-signers file listing them all. */
export async function makeSigners(dir: string, names: readonly string[]): Promise<{ keys: Record<string, TestKey>; allowed: string }> {
  const keys: Record<string, TestKey> = {};
  for (const name of names) keys[name] = await makeKey(dir, name);
  const allowed = await writeAllowedSigners(join(dir, 'allowed_signers'), Object.values(keys));
  return { keys, allowed };
}

/** The environment of someone signing with `key` against `allowed` (a CLI run, a workbench host). */
export function signingEnv(key: TestKey, allowed: string): Record<string, string> {
  return { SKILLBENCH_SIGNING_KEY: key.key, SKILLBENCH_ALLOWED_SIGNERS: allowed };
}
