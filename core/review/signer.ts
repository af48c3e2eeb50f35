/**
 * Who signs and against what signatures are checked, read the way git reads
 * them for signed commits:
 *
 * - the signing key: an explicit setting (a CLI flag, the host's option),
 *   else `SKILLBENCH_SIGNING_KEY`, else `git config user.signingkey` in the
 *   workspace: a private key file, a public key file or a `key::ssh-…`
 *   literal whose private half an ssh-agent holds (`SSH_AUTH_SOCK`);
 * - the allowed signers: an explicit setting, else `SKILLBENCH_ALLOWED_SIGNERS`,
 *   else `git config gpg.ssh.allowedSignersFile`. It is the user's (or the
 *   host's) own configuration: a file inside the workspace is refused, since
 *   whoever can push to the workspace could then approve.
 *
 * Whoever acts is the principal the allowed-signers file gives their key,
 * never a name from the environment.
 *
 * Node-only: asks git, spawns ssh-keygen.
 */
import { execFileSync } from 'node:child_process';
import { realpath, stat } from 'node:fs/promises';
import { relative, isAbsolute, sep } from 'node:path';
import { WorkbenchError } from '../errors';
import { expandPath, parseSigningKey, signData, signatureKey, verifySignature, type ArmoredSignature, type SigningKey } from './sshsig';

/** Explicit settings: they win over the environment and git. */
export interface SignerSettings {
  /** A key as `user.signingkey` takes it. */
  signingKey?: string;
  /** Path of an allowed-signers file. */
  allowedSigners?: string;
}

/** How this session signs and verifies. */
export interface Signer {
  /** The signing key, when one is configured. */
  key: SigningKey | undefined;
  /** Where the key came from, for messages (`SKILLBENCH_SIGNING_KEY`, `git config user.signingkey`, ...). */
  keySource: string | undefined;
  /** The allowed-signers file, when one is configured. */
  allowedSigners: string | undefined;
  allowedSignersSource: string | undefined;
  /** The environment ssh-keygen needs (HOME, SSH_AUTH_SOCK, PATH). */
  env: Record<string, string | undefined>;
  /** The workspace, which the allowed-signers file must not be inside (null: no workspace). */
  root: string | null;
}

function gitConfig(root: string | null, key: string, env: Record<string, string | undefined>): string | undefined {
  try {
    const value = execFileSync('git', ['config', '--get', key], {
      ...(root !== null && { cwd: root }),
      encoding: 'utf8',
      timeout: 5_000,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: env as NodeJS.ProcessEnv,
    }).trim();
    return value.length > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Reads the signing key and allowed signers of `root` (the workspace) from the settings, the environment and git config. */
export function resolveSigner(root: string | null, env: Record<string, string | undefined>, settings: SignerSettings = {}): Signer {
  const base = root ?? process.cwd();
  let keyText: string | undefined;
  let keySource: string | undefined;
  if (settings.signingKey) [keyText, keySource] = [settings.signingKey, 'the signing key setting'];
  else if (env['SKILLBENCH_SIGNING_KEY']) [keyText, keySource] = [env['SKILLBENCH_SIGNING_KEY'], 'SKILLBENCH_SIGNING_KEY'];
  else {
    const fromGit = gitConfig(root, 'user.signingkey', env);
    const format = gitConfig(root, 'gpg.format', env);
    // With gpg.format openpgp (git's default) the value is a GPG key id, unless it is plainly an SSH key.
    if (fromGit && (format === 'ssh' || /^(key::|ssh-|ecdsa-|sk-|~\/|\/|\.{1,2}\/)/.test(fromGit))) [keyText, keySource] = [fromGit, 'git config user.signingkey'];
  }
  let allowedSigners: string | undefined;
  let allowedSignersSource: string | undefined;
  if (settings.allowedSigners) [allowedSigners, allowedSignersSource] = [expandPath(settings.allowedSigners, env, base), 'the allowed signers setting'];
  else if (env['SKILLBENCH_ALLOWED_SIGNERS']) [allowedSigners, allowedSignersSource] = [expandPath(env['SKILLBENCH_ALLOWED_SIGNERS'], env, base), 'SKILLBENCH_ALLOWED_SIGNERS'];
  else {
    const fromGit = gitConfig(root, 'gpg.ssh.allowedSignersFile', env);
    if (fromGit) [allowedSigners, allowedSignersSource] = [expandPath(fromGit, env, base), 'git config gpg.ssh.allowedSignersFile'];
  }
  return { key: keyText ? parseSigningKey(keyText, env, base) : undefined, keySource, allowedSigners, allowedSignersSource, env, root };
}

/** Whether `path` lies inside `root`, both resolved through symbolic links. */
async function inside(path: string, root: string): Promise<boolean> {
  const real = async (p: string) => realpath(p).catch(() => p);
  const rel = relative(await real(root), await real(path));
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * The allowed-signers file to verify with; 403 when none is configured or it
 * lies inside the workspace.
 */
export async function allowedSignersOf(signer: Signer): Promise<string> {
  const file = signer.allowedSigners;
  if (file === undefined) {
    throw new WorkbenchError('forbidden', 'no allowed signers file is configured, so no signature can be verified: set git config gpg.ssh.allowedSignersFile (or SKILLBENCH_ALLOWED_SIGNERS, --allowed-signers)', {
      details: { reason: 'allowed_signers' },
    });
  }
  if (signer.root !== null && (await inside(file, signer.root))) {
    throw new WorkbenchError('forbidden', `the allowed signers file (${signer.allowedSignersSource}) is inside the workspace: whoever can change the workspace could approve. Keep it in your own configuration`, {
      details: { reason: 'allowed_signers' },
    });
  }
  return file;
}

/** The key to sign with; a usage error naming what to set when there is none. */
export function signingKeyOf(signer: Signer): SigningKey {
  if (!signer.key) {
    throw new WorkbenchError('usage', 'who is signing? set git config user.signingkey to your SSH key (gpg.format ssh), or SKILLBENCH_SIGNING_KEY, or --signing-key');
  }
  return signer.key;
}

/** A statement and its signature, with the principal it verified for. */
export interface SignedByMe {
  signature: ArmoredSignature;
  principal: string;
  fingerprint: string;
}

/**
 * Signs `statement` with the session's key and checks the signature at once
 * against the allowed signers: a key nobody could verify is refused (403)
 * before anything is written, and the signer's identity is its principal.
 * When the same key verified for this allowed-signers file as it is now (the
 * session's identity, see {@link sessionPrincipal}), the new signature is made
 * by that key and needs no second ssh-keygen run: signing is one spawn.
 */
export async function signStatement(signer: Signer, statement: string): Promise<SignedByMe> {
  const key = signingKeyOf(signer);
  const allowed = await allowedSignersOf(signer);
  const [signature, identity] = await Promise.all([signData(statement, key, signer.env), sessionIdentity(signer)]);
  const fingerprint = signatureKey(signature)?.fingerprint;
  if (identity.principal !== null && fingerprint !== undefined && fingerprint === identity.fingerprint) return { signature, principal: identity.principal, fingerprint };
  const verdict = await verifySignature(statement, signature, allowed, signer.env);
  if (!verdict.ok) {
    throw new WorkbenchError('forbidden', `your signing key (${signer.keySource}) cannot be verified: ${verdict.reason}. Add it to the allowed signers file (${signer.allowedSignersSource}) first`, {
      details: { reason: 'unknown_signer', ...(verdict.fingerprint !== undefined && { fingerprint: verdict.fingerprint }) },
    });
  }
  return { signature, principal: verdict.principal, fingerprint: verdict.fingerprint };
}

const PROBE = 'skillbench review identity probe v1\n';
interface Identity {
  principal: string | null;
  /** The fingerprint of the key that verified for `principal`. */
  fingerprint: string | null;
}
const identities = new Map<string, Identity & { at: number }>();

/** What tells one version of the allowed-signers file from another: a key removed from it is seen at once. */
async function fileVersion(path: string): Promise<string> {
  try {
    const s = await stat(path);
    return `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
  } catch {
    return 'absent';
  }
}

/** The session key's principal and fingerprint in the allowed signers as they are now; remembered for a minute per file version. */
async function sessionIdentity(signer: Signer): Promise<Identity> {
  if (!signer.key || signer.allowedSigners === undefined) return { principal: null, fingerprint: null };
  const cacheKey = JSON.stringify([signer.key, signer.allowedSigners, await fileVersion(signer.allowedSigners)]);
  const known = identities.get(cacheKey);
  if (known && Date.now() - known.at < 60_000) return known;
  let identity: Identity;
  try {
    const allowed = await allowedSignersOf(signer);
    const signature = await signData(PROBE, signer.key, signer.env);
    const verdict = await verifySignature(PROBE, signature, allowed, signer.env);
    identity = verdict.ok ? { principal: verdict.principal, fingerprint: verdict.fingerprint } : { principal: null, fingerprint: null };
  } catch {
    identity = { principal: null, fingerprint: null };
  }
  identities.set(cacheKey, { ...identity, at: Date.now() });
  return identity;
}

/**
 * The principal of the session's key in the allowed signers (null when there
 * is no key, no allowed-signers file, or the key is not in it): whom the views
 * call "you". Found by signing a fixed probe text, which no statement can be;
 * remembered for a minute, and only while the allowed-signers file is unchanged.
 */
export async function sessionPrincipal(signer: Signer): Promise<string | null> {
  return (await sessionIdentity(signer)).principal;
}
