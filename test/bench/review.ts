/**
 * Bench suite `review`: what signing an approval costs.
 *
 * - The signing step of one approval (`signStatement`: the canonical
 *   statement signed by `ssh-keygen -Y sign`; the session's key was checked
 *   against this version of the allowed signers once, so a key nobody could
 *   verify is still refused before anything is written) against one bare
 *   `ssh-keygen -Y sign` spawn over the same bytes. Target: under 100 ms.
 * - Checking one signature as publish does (`verifySignature`, uncached)
 *   against the same bare spawn.
 *
 * Real Ed25519 keys made by ssh-keygen in a temp folder.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveSigner, signStatement } from '../../core/review/signer';
import { SIGNATURE_NAMESPACE, signData, verifySignature } from '../../core/review/sshsig';
import { statementText } from '../../core/review/statement';
import { makeSigners } from '../helpers/sshKeys';
import { compare, type BenchRow } from './harness';

/** One `ssh-keygen -Y sign` over `data`, nothing else. */
function bareSign(key: string, data: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('ssh-keygen', ['-Y', 'sign', '-n', SIGNATURE_NAMESPACE, '-f', key], { stdio: ['pipe', 'ignore', 'ignore'] });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ssh-keygen exited ${code}`))));
    child.stdin.end(data);
  });
}

/** Runs the suite and returns its rows. */
export async function bench(): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'skillbench-bench-review-'));
  const rows: BenchRow[] = [];
  try {
    const { keys, allowed } = await makeSigners(dir, ['rita']);
    const env = { PATH: process.env['PATH'] };
    const signer = resolveSigner(null, env, { signingKey: keys['rita']!.key, allowedSigners: allowed });
    let n = 0;
    // A new request id each time: no verdict is served from the cache.
    const statement = () =>
      statementText({
        decision: 'approve',
        request: `devops.incident-response.bench.${n++}`,
        registry: 'https://registry.example/api/v1/skills',
        skill: { namespace: 'devops', name: 'incident-response' },
        action: 'publish',
        base: { version: 7, etag: '"v7-5f2a0c"' },
        manifest: `sha256:${'a'.repeat(64)}`,
        bytes: `sha256:${'b'.repeat(64)}`,
      });

    const signing = await compare(
      () => signStatement(signer, statement()),
      () => bareSign(keys['rita']!.key, statement()),
      { rounds: 15, batch: 2, warmup: 2 },
    );
    rows.push({
      suite: 'review',
      name: 'signing one approval (one ssh-keygen -Y sign once the session key is known to verify)',
      medianMs: signing.subjectMs,
      baselineName: 'bare ssh-keygen -Y sign spawn',
      baselineMs: signing.baselineMs,
      ratio: signing.subjectMs / signing.baselineMs,
      target: '< 100 ms per approval',
      met: signing.subjectMs < 100,
    });

    const signed: { text: string; signature: string }[] = [];
    for (let i = 0; i < 40; i++) {
      const text = statement();
      signed.push({ text, signature: await signData(text, { file: keys['rita']!.key }, env) });
    }
    let next = 0;
    const checking = await compare(
      async () => {
        // Each signature is checked once (34 checks, 40 signatures): the verdict cache stays out of the measurement.
        const s = signed[next++ % signed.length]!;
        const verdict = await verifySignature(s.text, s.signature, allowed, env);
        if (!verdict.ok) throw new Error(verdict.reason);
      },
      () => bareSign(keys['rita']!.key, statement()),
      { rounds: 15, batch: 2, warmup: 2 },
    );
    rows.push({
      suite: 'review',
      name: 'checking one signature (find-principals + verify, uncached)',
      medianMs: checking.subjectMs,
      baselineName: 'bare ssh-keygen -Y sign spawn',
      baselineMs: checking.baselineMs,
      ratio: checking.subjectMs / checking.baselineMs,
      target: 'ratio <= 3',
      met: checking.subjectMs / checking.baselineMs <= 3,
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}
