/**
 * `npm run bench`: runs every bench suite and prints one table. A suite is a
 * module in this folder exporting `bench(): Promise<BenchRow[]>`; pass suite
 * names as arguments to run only those. Each suite runs in a child process of
 * its own (see {@link runAll}).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatTable, type BenchRow } from './harness';

const SUITES: Record<string, () => Promise<{ bench: () => Promise<BenchRow[]> }>> = {
  cli: () => import('./cli'),
  bundle: () => import('./bundle'),
  package: () => import('./package'),
  'store-local': () => import('./store'),
  'store-redis': () => import('./redis'),
  selector: () => import('./selector'),
  evals: () => import('./evals'),
  optimize: () => import('./optimize'),
  api: () => import('./api'),
  'serve-memory': () => import('./serve'),
  editor: () => import('./editor'),
  workspace: () => import('./workspace'),
  interop: () => import('./interop'),
  'ui-catalog': () => import('./ui'),
  'workbench-evals': () => import('./workbench'),
  'workbench-live': () => import('./live'),
  review: () => import('./review'),
};

/**
 * Runs one suite in this process and writes its rows, as JSON, to `file`.
 * The UI suites share one Chromium; closing it lets the process end.
 */
async function runSuite(name: string, file: string): Promise<void> {
  const load = SUITES[name];
  if (!load) throw new Error(`no bench suite named ${name}`);
  const { bench } = await load();
  writeFileSync(file, JSON.stringify(await bench()));
  await (await import('../e2e/harness')).closeSharedBrowser();
}

/**
 * Every suite runs in a process of its own, so a suite's figures, subject and
 * baseline alike, never depend on what the suites before it left in the
 * process (heap, compiled code, handles). In one process they did: the cold
 * listing of 10,000 skills read 1.42-1.56x its baseline after the cli and
 * bundle suites, 1.38x after cli alone, 1.14x after bundle alone and
 * 1.18-1.23x on its own.
 */
async function runAll(names: string[]): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'skillbench-bench-'));
  const rows: BenchRow[] = [];
  try {
    for (const name of names) {
      process.stderr.write(`bench: ${name} ...\n`);
      const file = join(dir, `${name}.json`);
      const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--suite', name, file], { stdio: 'inherit' });
      if (child.status !== 0) {
        process.stderr.write(`bench: suite ${name} failed (${child.signal ?? `exit ${child.status}`})\n`);
        return child.status ?? 1;
      }
      rows.push(...(JSON.parse(readFileSync(file, 'utf8')) as BenchRow[]));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(`${formatTable(rows)}\n`);
  return 0;
}

const args = process.argv.slice(2);
if (args[0] === '--suite') {
  await runSuite(args[1]!, args[2]!);
} else {
  const unknown = args.filter((name) => !(name in SUITES));
  if (unknown.length > 0) {
    process.stderr.write(`bench: no suite named ${unknown.join(', ')}; the suites are ${Object.keys(SUITES).join(', ')}\n`);
    process.exit(2);
  }
  process.exitCode = await runAll(Object.keys(SUITES).filter((name) => args.length === 0 || args.includes(name)));
}
