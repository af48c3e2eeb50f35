import { afterEach, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeStaleTemporaries } from '../../../../core/fs/atomic';
import { processGone, selfIdentity } from '../../../../core/fs/processIdentity';

const HAS_PROC = existsSync('/proc/self/stat');
const started: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

function procState(pid: number): string | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

/**
 * A zombie: a child is started in the background, then its shell becomes a
 * long `sleep` that never reaps it. The child outlives the shell's `exec`
 * (a shell may reap a child that ends before it execs); on a machine slow
 * enough to outlast that, the attempt is repeated with a longer-lived child.
 * Resolves with the zombie's pid once `/proc` shows it dead and unreaped.
 */
async function zombie(): Promise<number> {
  for (let lifeMs = 200; ; lifeMs *= 2) {
    const parent = spawn('sh', ['-c', `sleep ${lifeMs / 1000} & echo $!; exec sleep 600`], { stdio: ['ignore', 'pipe', 'ignore'] });
    started.push(parent);
    const pid = await new Promise<number>((resolve, reject) => {
      let out = '';
      parent.stdout.on('data', (c: Buffer) => {
        out += c.toString('utf8');
        if (out.includes('\n')) resolve(Number(out.trim()));
      });
      parent.on('error', reject);
    });
    for (;;) {
      const state = procState(pid);
      if (state === 'Z') return pid;
      // Reaped before the exec: no zombie this time.
      if (state === undefined) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    parent.kill('SIGKILL');
  }
}

describe('processGone', () => {
  it('knows this process by its own identity, and a process that exited as gone', () => {
    expect(processGone({ pid: process.pid, ...selfIdentity() })).toBe(false);
    expect(processGone({ pid: process.pid })).toBe(false);
    const exited = spawnSync(process.execPath, ['-e', '']).pid;
    expect(processGone({ pid: exited })).toBe(true);
  });

  it.skipIf(!HAS_PROC)('takes a running pid with another start time, or from another boot, as gone', () => {
    const self = selfIdentity();
    expect(self.start).toMatch(/^\d+$/);
    expect(processGone({ pid: process.pid, start: `${BigInt(self.start!) + 1n}` })).toBe(true);
    if (self.boot !== undefined) expect(processGone({ pid: process.pid, start: self.start, boot: '00000000-0000-0000-0000-000000000000' })).toBe(true);
  });

  it.skipIf(!HAS_PROC)('takes a zombie as gone although kill(pid, 0) still succeeds on it, and sweeps its temporary files', async () => {
    const pid = await zombie();
    expect(process.kill(pid, 0)).toBe(true);
    expect(processGone({ pid })).toBe(true);

    const dir = await mkdtemp(join(tmpdir(), 'sb-identity-'));
    dirs.push(dir);
    const name = `.pkg.json.${pid}.0123456789ab.tmp`;
    await writeFile(join(dir, name), '{"torn');
    expect(await removeStaleTemporaries(dir)).toBe(1);
    expect(await readdir(dir)).toEqual([]);
  });
});
