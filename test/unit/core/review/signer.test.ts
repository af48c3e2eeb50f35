/**
 * Signing a review statement with real keys made by ssh-keygen: once the
 * session's key is known to verify for its principal, each statement costs one
 * `ssh-keygen -Y sign` run (counted through a PATH entry that logs each run
 * and hands it to the real ssh-keygen), and the signature still verifies. A
 * key removed from the allowed signers is refused at once, not a minute later.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../../../core/review/sshsig';
import { resolveSigner, sessionPrincipal, signStatement } from '../../../../core/review/signer';
import { makeKey, writeAllowedSigners, type TestKey } from '../../../helpers/sshKeys';

describe('signStatement', () => {
  let dir: string;
  let author: TestKey;
  let reviewer: TestKey;
  let log: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbench-signer-'));
    author = await makeKey(dir, 'author');
    reviewer = await makeKey(dir, 'reviewer');
    const real = execFileSync('sh', ['-c', 'command -v ssh-keygen'], { encoding: 'utf8' }).trim();
    log = join(dir, 'runs.log');
    await writeFile(log, '');
    const bin = join(dir, 'bin');
    await mkdir(bin);
    await writeFile(join(bin, 'ssh-keygen'), `#!/bin/sh\necho "$1 $2" >> '${log}'\nexec '${real}' "$@"\n`);
    await chmod(join(bin, 'ssh-keygen'), 0o755);
    env = { PATH: `${bin}${delimiter}${process.env['PATH'] ?? ''}` };
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const runs = async () => (await readFile(log, 'utf8')).split('\n').filter(Boolean);

  it('signs each statement with one ssh-keygen run once the key is known to verify, and the signature verifies', async () => {
    const allowed = await writeAllowedSigners(join(dir, 'allowed_signers'), [author, reviewer]);
    const signer = resolveSigner(null, env, { signingKey: reviewer.key, allowedSigners: allowed });
    expect(await sessionPrincipal(signer)).toBe(reviewer.principal);
    for (const n of [1, 2, 3]) {
      const before = (await runs()).length;
      const statement = `skillbench review statement v1\ndecision approve\nrequest r${n}\n`;
      const signed = await signStatement(signer, statement);
      expect(signed).toMatchObject({ principal: reviewer.principal, fingerprint: reviewer.fingerprint });
      expect((await runs()).slice(before)).toEqual(['-Y sign']);
      expect(await verifySignature(statement, signed.signature, allowed, env)).toMatchObject({ ok: true, principal: reviewer.principal });
    }
  });

  it('refuses a key removed from the allowed signers at once, though it verified a moment ago', async () => {
    const allowed = await writeAllowedSigners(join(dir, 'revocable'), [author, reviewer]);
    const signer = resolveSigner(null, env, { signingKey: reviewer.key, allowedSigners: allowed });
    expect((await signStatement(signer, 'skillbench review statement v1\ndecision approve\nrequest before\n')).principal).toBe(reviewer.principal);
    expect(await sessionPrincipal(signer)).toBe(reviewer.principal);
    await writeAllowedSigners(allowed, [author]);
    await expect(signStatement(signer, 'skillbench review statement v1\ndecision approve\nrequest after\n')).rejects.toMatchObject({ code: 'forbidden', details: { reason: 'unknown_signer' } });
    expect(await sessionPrincipal(signer)).toBeNull();
  });
});
