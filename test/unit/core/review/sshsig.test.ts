/**
 * SSH signatures of review statements with real keys made by ssh-keygen in a
 * temp folder: an author's and a reviewer's keys verify for their principals;
 * a key not in the allowed signers, a key removed from them (revoked), a
 * signature over other bytes, one made for git's namespace, and text that is
 * no signature all fail with the reason. A `key::` literal signs through a
 * real ssh-agent, and a key that needs a passphrase fails at once instead of
 * waiting for a terminal.
 */
import { spawn, execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../../core/errors';
import { SIGNATURE_NAMESPACE, parseSigningKey, signData, signatureKey, verifySignature } from '../../../../core/review/sshsig';
import { makeKey, writeAllowedSigners, type TestKey } from '../../../helpers/sshKeys';

const run = promisify(execFile);
const STATEMENT = 'skillbench review statement v1\ndecision approve\n';

describe('SSHSIG through ssh-keygen', () => {
  let dir: string;
  let author: TestKey;
  let reviewer: TestKey;
  let stranger: TestKey;
  let allowed: string;
  const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin' };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbench-sshsig-'));
    author = await makeKey(dir, 'author');
    reviewer = await makeKey(dir, 'reviewer');
    stranger = await makeKey(dir, 'stranger');
    allowed = await writeAllowedSigners(join(dir, 'allowed_signers'), [author, reviewer]);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('signs with a key file and verifies for the principal the allowed signers give the key', async () => {
    const byAuthor = await signData(STATEMENT, { file: author.key }, env);
    const byReviewer = await signData(STATEMENT, { file: reviewer.key }, env);
    expect(byAuthor).toMatch(/^-----BEGIN SSH SIGNATURE-----\n[\s\S]+\n-----END SSH SIGNATURE-----$/);
    expect(await verifySignature(STATEMENT, byAuthor, allowed, env)).toMatchObject({ ok: true, principal: author.principal, fingerprint: author.fingerprint });
    expect(await verifySignature(STATEMENT, byReviewer, allowed, env)).toMatchObject({ ok: true, principal: reviewer.principal, fingerprint: reviewer.fingerprint });
    expect(signatureKey(byAuthor)).toMatchObject({ type: 'ssh-ed25519', fingerprint: author.fingerprint, namespace: SIGNATURE_NAMESPACE });
    expect(signatureKey(byAuthor)!.blob).not.toBe(signatureKey(byReviewer)!.blob);
  });

  it('refuses a key that is not in the allowed signers', async () => {
    const signature = await signData(STATEMENT, { file: stranger.key }, env);
    const verdict = await verifySignature(STATEMENT, signature, allowed, env);
    expect(verdict).toMatchObject({ ok: false, fingerprint: stranger.fingerprint });
    expect(verdict.ok ? '' : verdict.reason).toContain('not in the allowed signers');
  });

  it('refuses a key once it is removed from the allowed signers (revoked), though it verified before', async () => {
    const file = join(dir, 'revocable');
    await writeAllowedSigners(file, [author, reviewer]);
    const signature = await signData(`${STATEMENT}revocation\n`, { file: reviewer.key }, env);
    expect((await verifySignature(`${STATEMENT}revocation\n`, signature, file, env)).ok).toBe(true);
    await writeAllowedSigners(file, [author]);
    const verdict = await verifySignature(`${STATEMENT}revocation\n`, signature, file, env);
    expect(verdict.ok).toBe(false);
    expect(verdict.ok ? '' : verdict.reason).toContain(reviewer.fingerprint);
  });

  it('refuses a signature over other bytes', async () => {
    const signature = await signData(STATEMENT, { file: reviewer.key }, env);
    const verdict = await verifySignature(`${STATEMENT}bytes sha256:0000\n`, signature, allowed, env);
    expect(verdict).toMatchObject({ ok: false });
    expect(verdict.ok ? '' : verdict.reason).toContain('does not verify');
  });

  it('refuses a signature made for git commits, and text that is no signature', async () => {
    const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) => {
      const child = spawn('ssh-keygen', ['-Y', 'sign', '-n', 'git', '-f', reviewer.key], { stdio: ['pipe', 'pipe', 'ignore'] });
      let out = '';
      child.stdout.on('data', (c) => (out += String(c)));
      child.on('error', reject);
      child.on('close', () => resolve({ stdout: out }));
      child.stdin.end(STATEMENT);
    });
    const verdict = await verifySignature(STATEMENT, stdout.trim(), allowed, env);
    expect(verdict.ok ? '' : verdict.reason).toContain("made for 'git'");
    expect(await verifySignature(STATEMENT, 'approved by bob', allowed, env)).toMatchObject({ ok: false, reason: expect.stringContaining('not an SSH signature') });
  });

  it('honours namespaces= of an allowed-signers entry', async () => {
    const file = join(dir, 'git-only');
    await writeAllowedSigners(file, [reviewer], { namespaces: 'git' });
    const signature = await signData(`${STATEMENT}ns\n`, { file: reviewer.key }, env);
    expect((await verifySignature(`${STATEMENT}ns\n`, signature, file, env)).ok).toBe(false);
  });

  it('signs through an ssh-agent with a key:: literal, as git does', async () => {
    const agent = await run('ssh-agent', ['-s', '-a', join(dir, 'agent.sock')]);
    const pid = /SSH_AGENT_PID=(\d+)/.exec(agent.stdout)?.[1];
    const agentEnv = { ...env, SSH_AUTH_SOCK: join(dir, 'agent.sock') };
    try {
      await run('ssh-add', [reviewer.key], { env: agentEnv });
      const key = parseSigningKey(`key::${reviewer.publicKey}`, agentEnv, dir);
      expect(key).toEqual({ literal: reviewer.publicKey });
      const signature = await signData(STATEMENT, key, agentEnv);
      expect(await verifySignature(STATEMENT, signature, allowed, env)).toMatchObject({ ok: true, principal: reviewer.principal });
    } finally {
      if (pid) process.kill(Number(pid));
    }
  });

  it('fails at once, naming the key, when it needs a passphrase and no agent holds it', async () => {
    const locked = await makeKey(dir, 'locked', 'a passphrase');
    const error = await signData(STATEMENT, { file: locked.key }, env).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkbenchError);
    expect((error as WorkbenchError).message).toContain(locked.key);
  });

  it('reads the key forms of user.signingkey', () => {
    expect(parseSigningKey('~/.ssh/id_ed25519', { HOME: '/home/ana' }, '/ws')).toEqual({ file: '/home/ana/.ssh/id_ed25519' });
    expect(parseSigningKey('keys/me', {}, '/ws')).toEqual({ file: '/ws/keys/me' });
    expect(parseSigningKey('ssh-ed25519 AAAAC3 ana', {}, '/ws')).toEqual({ literal: 'ssh-ed25519 AAAAC3 ana' });
  });

  it('says so when the allowed signers file cannot be read', async () => {
    const signature = await signData(STATEMENT, { file: author.key }, env);
    await writeFile(join(dir, 'empty'), '');
    expect((await verifySignature(STATEMENT, signature, join(dir, 'empty'), env)).ok).toBe(false);
    await expect(verifySignature(STATEMENT, signature, join(dir, 'missing'), env)).rejects.toMatchObject({ code: 'forbidden', details: { reason: 'allowed_signers' } });
  });
});
