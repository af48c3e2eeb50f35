/**
 * Bench suite `cli`: the start of the `skillbench` command as a user pays it,
 * a whole process from exec to exit, against a bare `node -e 0` measured in
 * the same run, interleaved.
 *
 * - `skillbench --help`: lists the commands from their static summaries;
 * - `skillbench list --json`: the default embedded registry (seeded with the
 *   examples by a first run before timing) listed as JSON;
 * - `skillbench serve`, from exec until it prints its address (then killed):
 *   the workbench's start, with no model, Redis or Agent Skills conversion
 *   loaded until one is used. Informational.
 *
 * Target of the first two: at most 3x the bare Node start. The bundle is built first
 * (scripts/build-cli.mjs), as `npm install` and `npm test` do, so the rows time
 * the built command rather than a rebuild.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServe } from '../helpers/serve';
import { compare, type BenchRow } from './harness';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'skillbench.mjs');
const TARGET_RATIO = 3;

function exec(args: string[], env: NodeJS.ProcessEnv): void {
  const run = spawnSync(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  if (run.status !== 0) throw new Error(`node ${args.join(' ')} exited ${run.status}: ${String(run.stderr)}`);
}

/** Starts `skillbench serve` on a free port, waits for its address, then kills it and waits for it to exit. */
async function serveUntilAddress(home: string): Promise<void> {
  const served = await startServe(['--port', '0'], { cwd: ROOT, env: { SKILLBENCH_HOME: home } });
  served.child.kill('SIGKILL');
  await served.done;
}

export async function bench(): Promise<BenchRow[]> {
  const { buildCli } = (await import(join(ROOT, 'scripts', 'build-cli.mjs'))) as { buildCli: (o?: { prune?: boolean }) => Promise<unknown> };
  await buildCli();
  const home = await mkdtemp(join(tmpdir(), 'skillbench-bench-cli-'));
  const env = { PATH: process.env['PATH'] ?? '', SKILLBENCH_HOME: home };
  try {
    // The first list seeds the default registry; timing starts after it.
    exec([BIN, 'list', '--json'], env);
    const bare = () => exec(['-e', '0'], env);
    const cases: { name: string; args: string[] }[] = [
      { name: 'skillbench --help', args: ['--help'] },
      { name: 'skillbench list --json (default registry, 8 skills)', args: ['list', '--json'] },
    ];
    const rows: BenchRow[] = [];
    for (const c of cases) {
      const { subjectMs, baselineMs } = await compare(() => exec([BIN, ...c.args], env), bare, { rounds: 21, warmup: 2 });
      const ratio = subjectMs / baselineMs;
      rows.push({
        suite: 'cli',
        name: c.name,
        medianMs: subjectMs,
        baselineName: 'node -e 0',
        baselineMs,
        ratio,
        target: `ratio <= ${TARGET_RATIO}`,
        met: ratio <= TARGET_RATIO,
      });
    }
    const serve = await compare(() => serveUntilAddress(home), bare, { rounds: 15, warmup: 2 });
    rows.push({
      suite: 'cli',
      name: 'skillbench serve, until it prints its address',
      medianMs: serve.subjectMs,
      baselineName: 'node -e 0',
      baselineMs: serve.baselineMs,
      ratio: serve.subjectMs / serve.baselineMs,
      target: 'informational',
    });
    return rows;
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
