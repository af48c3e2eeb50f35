/**
 * SSH signatures in the SSHSIG format git uses for signed commits, made and
 * checked by OpenSSH's own `ssh-keygen -Y sign | find-principals | verify`:
 * no cryptography is done here. A signing key is given as git's
 * `user.signingkey` is (a private key file, a public key file or a
 * `key::ssh-…` literal whose private half an ssh-agent holds); signatures are
 * verified against an allowed-signers file in the format of git's
 * `gpg.ssh.allowedSignersFile` (see ssh-keygen(1), ALLOWED SIGNERS).
 *
 * What is read here without ssh-keygen is only the signature's public key
 * (the SSHSIG blob's second field), to show and compare who signed; whether
 * the signature holds is always ssh-keygen's verdict.
 *
 * ssh-keygen runs without a terminal (a new session), so a key that needs a
 * passphrase fails at once instead of waiting for one; use an ssh-agent.
 *
 * Node-only: spawns ssh-keygen and writes short-lived files in the temp folder.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { WorkbenchError } from '../errors';

/** The SSHSIG namespace of every review statement, so a git commit signature can never stand for an approval. */
export const SIGNATURE_NAMESPACE = 'skillbench-review';

const MAX_ALLOWED_SIGNERS_BYTES = 1024 * 1024;
const MAX_SIGNATURE_CHARS = 16 * 1024;
const TIMEOUT_MS = 20_000;

/** The environment ssh-keygen sees: enough to find itself, the home folder and the agent, nothing else. */
function keygenEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const name of ['PATH', 'HOME', 'SSH_AUTH_SOCK', 'LANG', 'LC_ALL']) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  out['PATH'] ??= '/usr/bin:/bin';
  return out;
}

interface KeygenRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs ssh-keygen with `input` on stdin, detached from any terminal. */
function sshKeygen(args: string[], input: string, env: Record<string, string | undefined>): Promise<KeygenRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('ssh-keygen', args, { env: keygenEnv(env), stdio: ['pipe', 'pipe', 'pipe'], detached: true, timeout: TIMEOUT_MS });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    // ssh-keygen may exit before reading its input (a bad key): that is its answer, not an error of ours.
    child.stdin.on('error', () => undefined);
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') reject(new WorkbenchError('unavailable', 'ssh-keygen is not installed: signed reviews need OpenSSH (Debian: apt-get install openssh-client)'));
      else reject(error);
    });
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** The first meaningful line ssh-keygen printed, for a message. */
function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.length > 0 && !/^Signing data on standard input/.test(l)) ?? 'no reason given'
  ).slice(0, 300);
}

async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'skillbench-sig-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `~/…` as the shell would expand it, and a relative path against `base`. */
export function expandPath(path: string, env: Record<string, string | undefined>, base: string): string {
  if (path === '~' || path.startsWith('~/')) return join(env['HOME'] ?? homedir(), path.slice(1));
  return isAbsolute(path) ? path : resolve(base, path);
}

/** A signing key as configured: what ssh-keygen is given. */
export interface SigningKey {
  /** A key file (private, or public with the private half in an ssh-agent). */
  file?: string;
  /** A public key literal (`ssh-ed25519 AAAA…`) whose private half an ssh-agent holds. */
  literal?: string;
}

/**
 * Reads git's `user.signingkey` value: `key::ssh-…` (or a bare `ssh-…`
 * literal, as older git accepted) is a public key the agent signs with;
 * anything else is a path (`~` expanded, relative to `base`).
 */
export function parseSigningKey(value: string, env: Record<string, string | undefined>, base: string): SigningKey {
  const text = value.trim();
  if (text.startsWith('key::')) return { literal: text.slice('key::'.length).trim() };
  if (/^(ssh-|ecdsa-|sk-)/.test(text)) return { literal: text };
  return { file: expandPath(text, env, base) };
}

/** A signature as its file records it: armored SSHSIG text. */
export type ArmoredSignature = string;

/**
 * Signs `data` with `key` in the review namespace and returns the armored
 * signature. A key ssh-keygen cannot use (missing, wrong permissions, needs a
 * passphrase with no agent) is 400 with ssh-keygen's reason.
 */
export async function signData(data: string, key: SigningKey, env: Record<string, string | undefined>): Promise<ArmoredSignature> {
  const run = async (file: string, agent: boolean) => {
    const result = await sshKeygen(['-Y', 'sign', '-n', SIGNATURE_NAMESPACE, '-f', file, ...(agent ? ['-U'] : [])], data, env);
    if (result.code !== 0 || !result.stdout.includes('-----BEGIN SSH SIGNATURE-----')) {
      throw new WorkbenchError('invalid_request', `ssh-keygen could not sign with ${key.file ?? 'the key literal of user.signingkey'}: ${firstLine(result.stderr)}`, {
        details: { reason: 'signing_failed' },
      });
    }
    return result.stdout.trim();
  };
  if (key.literal !== undefined) {
    return withTempDir(async (dir) => {
      const file = join(dir, 'key.pub');
      await writeFile(file, `${key.literal}\n`, { mode: 0o600 });
      return run(file, true);
    });
  }
  if (key.file === undefined) throw new WorkbenchError('usage', 'no signing key given');
  return run(key.file, false);
}

/** The public key inside an armored SSHSIG signature, read without checking the signature. */
export interface SignatureKey {
  /** `ssh-ed25519`, `ssh-rsa`, ... */
  type: string;
  /** The public key blob, base64: equal blobs are the same key. */
  blob: string;
  /** `SHA256:…` as ssh-keygen prints it. */
  fingerprint: string;
  /** The signature's namespace. */
  namespace: string;
}

/** Reads the public key and namespace of an armored SSHSIG signature; undefined when it is not one. */
export function signatureKey(armored: string): SignatureKey | undefined {
  if (armored.length > MAX_SIGNATURE_CHARS) return undefined;
  const m = /^-----BEGIN SSH SIGNATURE-----\r?\n([A-Za-z0-9+/=\r\n]+)-----END SSH SIGNATURE-----\s*$/.exec(armored.trim());
  if (!m) return undefined;
  const bytes = Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64');
  let at = 0;
  const take = (n: number): Buffer | undefined => {
    if (at + n > bytes.length) return undefined;
    const out = bytes.subarray(at, at + n);
    at += n;
    return out;
  };
  const string = (): Buffer | undefined => {
    const len = take(4);
    return len ? take(len.readUInt32BE(0)) : undefined;
  };
  if (take(6)?.toString('latin1') !== 'SSHSIG') return undefined;
  if (take(4)?.readUInt32BE(0) !== 1) return undefined;
  const blob = string();
  const namespace = string();
  if (!blob || !namespace || blob.length < 4) return undefined;
  const typeLength = blob.readUInt32BE(0);
  if (4 + typeLength > blob.length) return undefined;
  const fingerprint = `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
  return { type: blob.subarray(4, 4 + typeLength).toString('latin1'), blob: blob.toString('base64'), fingerprint, namespace: namespace.toString('utf8') };
}

/** ssh-keygen's verdict on one signature. */
export type Verification =
  | { ok: true; principal: string; fingerprint: string; key: string }
  | { ok: false; reason: string; fingerprint?: string; key?: string };

/** An allowed-signers file read once per check: its path and its bytes (the cache key). */
interface AllowedSigners {
  path: string;
  digest: string;
}

async function readAllowedSigners(path: string): Promise<AllowedSigners> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new WorkbenchError('forbidden', `the allowed signers file ${path} cannot be read (${code ?? (error as Error).message}): no signature can be verified`, {
      details: { reason: 'allowed_signers' },
    });
  }
  if (bytes.length > MAX_ALLOWED_SIGNERS_BYTES) {
    throw new WorkbenchError('forbidden', `the allowed signers file ${path} is larger than ${MAX_ALLOWED_SIGNERS_BYTES} bytes`, { details: { reason: 'allowed_signers' } });
  }
  return { path, digest: createHash('sha256').update(bytes).digest('hex') };
}

/**
 * Verdicts already reached, by data, signature and allowed-signers content (a
 * list re-reads the same files often), kept a minute: an entry's
 * `valid-before` may pass, and a removed key changes the file's content.
 */
const verdicts = new Map<string, { verdict: Verification; at: number }>();
const MAX_VERDICTS = 2000;
const VERDICT_TTL_MS = 60_000;

/**
 * Verifies an armored signature over `data` in the review namespace against
 * the allowed-signers file at `allowedSigners`: the signer must be listed
 * (`find-principals`) and the signature must hold for one of its principals
 * (`verify`, which also honours the entry's `namespaces=`, `valid-after=` and
 * `valid-before=` options). A key that is not (or no longer) listed, a
 * signature over other bytes or in another namespace, or text that is not a
 * signature, is `ok: false` with the reason. An unreadable allowed-signers
 * file is 403 (nothing can be verified), not a verdict.
 */
export async function verifySignature(data: string, signature: string, allowedSigners: string, env: Record<string, string | undefined>): Promise<Verification> {
  const key = signatureKey(signature);
  if (!key) return { ok: false, reason: 'it is not an SSH signature (SSHSIG)' };
  const shown = { fingerprint: key.fingerprint, key: `${key.type} ${key.blob}` };
  if (key.namespace !== SIGNATURE_NAMESPACE) return { ok: false, reason: `it was made for '${key.namespace.slice(0, 60)}', not for a review (${SIGNATURE_NAMESPACE})`, ...shown };
  const file = await readAllowedSigners(allowedSigners);
  const cacheKey = createHash('sha256').update(file.digest).update('\0').update(data).update('\0').update(signature).digest('hex');
  const known = verdicts.get(cacheKey);
  if (known && Date.now() - known.at < VERDICT_TTL_MS) return known.verdict;
  const verdict = await withTempDir(async (dir): Promise<Verification> => {
    const sigFile = join(dir, 'statement.sig');
    await writeFile(sigFile, `${signature.trim()}\n`, { mode: 0o600 });
    const found = await sshKeygen(['-Y', 'find-principals', '-s', sigFile, '-f', file.path], '', env);
    const principals = found.code === 0 ? found.stdout.split('\n').map((l) => l.trim()).filter((l) => l.length > 0) : [];
    if (principals.length === 0) return { ok: false, reason: `the key ${key.fingerprint} is not in the allowed signers file`, ...shown };
    for (const principal of principals) {
      const checked = await sshKeygen(['-Y', 'verify', '-f', file.path, '-I', principal, '-n', SIGNATURE_NAMESPACE, '-s', sigFile], data, env);
      if (checked.code === 0) return { ok: true, principal, ...shown };
    }
    return { ok: false, reason: `the signature of ${principals[0]} (${key.fingerprint}) does not verify over this statement`, ...shown };
  });
  if (verdicts.size >= MAX_VERDICTS) verdicts.delete(verdicts.keys().next().value!);
  verdicts.set(cacheKey, { verdict, at: Date.now() });
  return verdict;
}
