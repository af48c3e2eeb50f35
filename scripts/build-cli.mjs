#!/usr/bin/env node
/**
 * Builds the `skillbench` command once with esbuild, so a launch runs plain
 * JavaScript instead of compiling TypeScript:
 *
 * - `dist/cli/main.mjs`, the entry, and its code-split chunks beside it (every
 *   command stays a chunk of its own, loaded only when it runs). Package
 *   dependencies stay external, resolved from node_modules as the sources do.
 * - `dist/cli/manifest.json`: every source file the bundle was built from,
 *   with its modification time, so `bin/skillbench.mjs` can tell in a few
 *   stat calls whether a source changed since (see scripts/cliBundle.mjs).
 *
 * A source that locates files from its own `import.meta.url` (the example
 * skills, the built renderer, package.json) is given its source location, so
 * those paths resolve the same from the bundle as from the sources.
 *
 * Files are written to a temporary name and renamed into place (chunks first,
 * the entry and the manifest last): a launch in another terminal sees the old
 * build or the new one, never half of either. Run by `npm install` (the
 * `prepare` script) and `npm test`.
 *
 * Usage: node scripts/build-cli.mjs [--if-possible]   (--if-possible: a failure is
 * reported in one line and exits 0, for `npm install`)
 */
import { readFileSync, readdirSync, renameSync, rmSync, statSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLE_DIR, MANIFEST, ROOT, SOURCE_DIRS, BUILD_INPUTS } from './cliBundle.mjs';

/** Modification times of every file under the source folders, taken before esbuild reads them. */
function sourceTimes() {
  const times = new Map();
  const visit = (dir) => {
    let names;
    try {
      names = readdirSync(join(ROOT, dir), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of names) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) visit(rel);
      else if (entry.isFile()) times.set(rel, statSync(join(ROOT, rel)).mtimeMs);
    }
  };
  for (const dir of SOURCE_DIRS) visit(dir);
  return times;
}

/** Gives each module using `import.meta.url` the URL of its source file instead of its chunk's. */
const sourceUrls = {
  name: 'source-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?ts$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      // Every output file sits in dist/cli/, two folders below the root.
      const fromOutput = `../../${relative(ROOT, args.path).split(sep).join('/')}`;
      return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(fromOutput)}, import.meta.url).href`), loader: 'ts' };
    });
  },
};

function writeAtomically(path, contents) {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, contents);
  renameSync(temp, path);
}

/**
 * The esbuild options of the CLI bundle, as {@link buildCli} builds it (nothing
 * written: the caller writes the output files). Tests inspect the same build.
 * @returns {import('esbuild').BuildOptions & { metafile: true, write: false }}
 */
export function cliBuildOptions() {
  return {
    absWorkingDir: ROOT,
    entryPoints: { main: 'cli/main.ts' },
    outdir: BUNDLE_DIR,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outExtension: { '.js': '.mjs' },
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
    write: false,
    plugins: [sourceUrls],
  };
}

/**
 * Builds the CLI bundle into dist/cli and writes its manifest.
 * @param {{ esbuild?: typeof import('esbuild'), prune?: boolean }} [options]
 *   `prune` removes files of earlier builds (a running command may still load
 *   an old chunk lazily, so a rebuild on launch leaves them).
 * @returns {Promise<{ files: number, inputs: number }>}
 */
export async function buildCli(options = {}) {
  const esbuild = options.esbuild ?? (await import('esbuild'));
  const before = sourceTimes();
  const result = await esbuild.build(cliBuildOptions());
  const entry = join(BUNDLE_DIR, 'main.mjs');
  const outputs = result.outputFiles.filter((f) => f.path !== entry).concat(result.outputFiles.filter((f) => f.path === entry));
  for (const file of outputs) writeAtomically(file.path, file.contents);
  const inputs = {};
  for (const path of [...Object.keys(result.metafile.inputs), ...BUILD_INPUTS].sort()) {
    inputs[path] = before.get(path) ?? statSync(join(ROOT, path)).mtimeMs;
  }
  writeAtomically(MANIFEST, `${JSON.stringify({ format: 'skillbench.cli-bundle/v1', entry: 'main.mjs', inputs }, null, 1)}\n`);
  if (options.prune) {
    const keep = new Set([...result.outputFiles.map((f) => f.path), MANIFEST]);
    for (const name of readdirSync(BUNDLE_DIR)) {
      const path = join(BUNDLE_DIR, name);
      if (!keep.has(path)) rmSync(path, { force: true, recursive: true });
    }
  }
  return { files: result.outputFiles.length, inputs: Object.keys(inputs).length };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const { files, inputs } = await buildCli({ prune: true });
    process.stderr.write(`built ${relative(ROOT, BUNDLE_DIR)}/main.mjs (${files} files from ${inputs} sources)\n`);
  } catch (error) {
    // On install (`--if-possible`), an install without esbuild (--omit=dev) still succeeds:
    // bin/skillbench.mjs then runs the sources through tsx.
    if (!process.argv.includes('--if-possible')) throw error;
    process.stderr.write(`skillbench: the CLI bundle was not built (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); the command will run from its TypeScript sources\n`);
  }
}
