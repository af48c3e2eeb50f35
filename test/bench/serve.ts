/**
 * Bench suite `serve-memory`: the real `skillbench serve` while a client
 * pipelines 100 `workspace.read` calls of a 15 MB package over one WebSocket
 * and never reads an answer (which once took the server from 128 MB to
 * 5.2 GB). The row is the server's peak resident memory against its idle
 * resident memory in the same run; the target is the bound the backpressure
 * limits promise (idle + 640 MiB). Linux only (it reads /proc).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { LARGE_PACKAGE, callApi, largeWorkspace, nonReadingClient, signIn, startServe } from '../helpers/serve';
import type { BenchRow } from './harness';

const SUITE = 'serve-memory';
const FILE_BYTES = 15 * 1000 * 1000;
const CALLS = 100;
const BOUND_MIB = 640;

const mib = (bytes: number) => bytes / 1024 / 1024;

/** Runs the suite. */
export async function bench(): Promise<BenchRow[]> {
  if (process.platform !== 'linux') return [];
  const dir = await mkdtemp(join(tmpdir(), 'skillbench-bench-serve-'));
  await largeWorkspace(join(dir, 'ws'), FILE_BYTES);
  const served = await startServe(['--workspace', 'ws'], { cwd: dir, env: { SKILLBENCH_HOME: join(dir, 'home') } });
  try {
    const session = await signIn(served.url);
    await callApi(served.url.origin, session, 'workspace.read', { path: LARGE_PACKAGE });
    const started = performance.now();
    const { idle, after } = await nonReadingClient(served, session, CALLS);
    const seconds = (performance.now() - started) / 1000;
    const alive = (await callApi(served.url.origin, session, 'app.info')).ok;
    return [
      {
        suite: SUITE,
        name: `peak RSS MiB, a client pipelining ${CALLS} reads of a 15 MB file without reading`,
        medianMs: mib(after.peak),
        baselineName: 'idle RSS MiB',
        baselineMs: mib(idle.rss),
        ratio: after.peak / idle.rss,
        target: `peak < idle + ${BOUND_MIB} MiB`,
        met: alive && mib(after.peak) < mib(idle.rss) + BOUND_MIB,
        note: `cut after ${seconds.toFixed(1)} s; server ${alive ? 'answered' : 'DID NOT answer'} afterwards (values in MiB, not ms)`,
      },
    ];
  } finally {
    served.child.kill('SIGTERM');
    await served.done;
    await rm(dir, { recursive: true, force: true });
  }
}
