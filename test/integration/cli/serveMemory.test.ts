/**
 * Backpressure in the real `skillbench serve`: a client that pipelines 100
 * `workspace.read` calls of a 15 MB file over one WebSocket and never reads
 * an answer cannot push the server's memory past a bound. The server runs at
 * most 8 calls of a socket at once, starts none while more than 8 MiB wait to
 * be sent, and cuts the socket once it has stayed that far behind for the
 * stall timeout (30 s by default; 5 s here, which the unread answers of 100
 * reads, 1.5 GB, far outlast).
 *
 * The bound: the server's peak resident memory (VmHWM, Linux) stays below its
 * idle resident memory plus 640 MiB (8 answers of 15 MB, each held as file
 * bytes, text, JSON and a frame, plus the unsent 8 MiB); without the limits
 * it grew past 5 GB.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LARGE_PACKAGE, callApi, largeWorkspace, nonReadingClient, signIn, startServe, type Served } from '../../helpers/serve';

/** The bound above idle, in bytes. */
const PEAK_ABOVE_IDLE_BYTES = 640 * 1024 * 1024;
const FILE_BYTES = 15 * 1000 * 1000;

describe.runIf(process.platform === 'linux')('skillbench serve memory under a client that never reads', () => {
  let dir: string;
  let serve: Served;
  let session: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbench-memory-'));
    await largeWorkspace(join(dir, 'ws'), FILE_BYTES);
    serve = await startServe(['--workspace', 'ws', '--stall-timeout', '5'], { cwd: dir, env: { SKILLBENCH_HOME: join(dir, 'home') } });
    session = await signIn(serve.url);
  }, 120_000);
  afterAll(async () => {
    serve?.child.kill('SIGTERM');
    await serve?.done;
    await rm(dir, { recursive: true, force: true });
  });

  it('stays below its idle memory plus the bound, cuts the client, and keeps serving', async () => {
    // Warm: one read answered, so the idle figure includes what any read costs once.
    const warm = await callApi<{ text: string }>(serve.url.origin, session, 'workspace.read', { path: LARGE_PACKAGE });
    expect(warm.result?.text.length).toBe(FILE_BYTES);
    const { idle, after } = await nonReadingClient(serve, session, 100);
    expect(after.peak).toBeLessThan(idle.rss + PEAK_ABOVE_IDLE_BYTES);
    expect(serve.stderr()).toContain('stopped reading');
    expect(serve.stderr()).toContain('for 5000 ms');
    expect((await callApi(serve.url.origin, session, 'app.info')).ok).toBe(true);
  }, 180_000);
});
