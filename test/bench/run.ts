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
import { build } from 'esbuild';
import { cliBuildOptions } from '../../scripts/build-cli.mjs';
import { formatTable, type BenchRow } from './harness';

/** Each suite's module, relative to this folder. */
const SUITES: Record<string, string> = {
  cli: './cli.ts',
  bundle: './bundle.ts',
  package: './package.ts',
  'store-local': './store.ts',
  'store-redis': './redis.ts',
  selector: './selector.ts',
  evals: './evals.ts',
  optimize: './optimize.ts',
  api: './api.ts',
  'serve-memory': './serve.ts',
  editor: './editor.ts',
  workspace: './workspace.ts',
  interop: './interop.ts',
  'ui-catalog': './ui.ts',
  'workbench-evals': './workbench.ts',
  'workbench-live': './live.ts',
  review: './review.ts',
};

/**
 * Suites that time the engine's own code against a library or system call in
 * the same process run the engine as `skillbench` ships it: bundled by esbuild
 * with the CLI's options (scripts/build-cli.mjs), not compiled by tsx as the
 * tests load it. tsx keeps function names (esbuild's `keepNames`), which adds a
 * `__name` call each time a named closure is made: measured on the runner, 15 %
 * of its own time in process, a cost the shipped command does not have.
 */
const BUILT_SUITES = new Set(['evals']);

/** Where a built suite's bundle goes: inside the checkout, so its package imports resolve from node_modules. */
const BUILT_DIR = fileURLToPath(new URL('../../node_modules/.cache/skillbench-bench/', import.meta.url));

/**
 * Bundles suite `name` with a small entry that runs it and writes its rows to
 * the file named by its first argument; returns the bundle's path.
 */
async function buildSuite(name: string, module: string): Promise<string> {
  const { target, format, platform, packages, absWorkingDir } = cliBuildOptions();
  const outfile = join(BUILT_DIR, `${name}.mjs`);
  await build({
    absWorkingDir,
    target,
    format,
    platform,
    packages,
    bundle: true,
    outfile,
    logLevel: 'warning',
    stdin: {
      contents: `import { writeFileSync } from 'node:fs';\nimport { bench } from ${JSON.stringify(module)};\nwriteFileSync(process.argv[2], JSON.stringify(await bench()));\n`,
      resolveDir: fileURLToPath(new URL('.', import.meta.url)),
      sourcefile: `bench-${name}.ts`,
      loader: 'ts',
    },
  });
  return outfile;
}

/**
 * Runs one suite in this process and writes its rows, as JSON, to `file`.
 * The UI suites share one Chromium; closing it lets the process end.
 */
async function runSuite(name: string, file: string): Promise<void> {
  const module = SUITES[name];
  if (!module) throw new Error(`no bench suite named ${name}`);
  const { bench } = (await import(module)) as { bench: () => Promise<BenchRow[]> };
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
      const argv = BUILT_SUITES.has(name) ? [await buildSuite(name, SUITES[name]!), file] : ['--import', 'tsx', fileURLToPath(import.meta.url), '--suite', name, file];
      const child = spawnSync(process.execPath, argv, { stdio: 'inherit' });
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
