/**
 * Where the built CLI lives and whether it is current. `bin/skillbench.mjs`
 * loads this on every launch, so it imports nothing but node:fs, node:path and
 * node:url: the freshness check is one small JSON read and a stat per source.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The project root. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The bundle's folder: the entry `main.mjs`, its chunks and the manifest. */
export const BUNDLE_DIR = join(ROOT, 'dist', 'cli');
/** The build's record of its sources and their modification times. */
export const MANIFEST = join(BUNDLE_DIR, 'manifest.json');
/** Folders holding the CLI's sources. */
export const SOURCE_DIRS = ['cli', 'core', 'evals'];
/** Files that shape the output without being imported: a change to either rebuilds too. */
export const BUILD_INPUTS = ['scripts/build-cli.mjs', 'tsconfig.json'];

/**
 * Why the bundle in `dir` cannot be used as it is (missing, unreadable, or a
 * source modified, added to the import graph or removed since it was built),
 * or undefined when it is current. A source counts as changed when its
 * modification time differs from the recorded one either way, so a checkout
 * that restores an older file is noticed too.
 * @param {string} [dir] the bundle folder
 * @param {string} [root] the folder the manifest's paths are relative to
 * @returns {string | undefined}
 */
export function staleReason(dir = BUNDLE_DIR, root = ROOT) {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  } catch {
    return 'not built yet';
  }
  if (manifest?.format !== 'skillbench.cli-bundle/v1' || typeof manifest.inputs !== 'object' || manifest.inputs === null) return 'built by another version';
  for (const [path, mtimeMs] of Object.entries(manifest.inputs)) {
    let now;
    try {
      now = statSync(join(root, path)).mtimeMs;
    } catch {
      return `${path} is gone`;
    }
    if (now !== mtimeMs) return `${path} changed`;
  }
  try {
    statSync(join(dir, manifest.entry));
  } catch {
    return 'the entry is missing';
  }
  return undefined;
}

/**
 * The CLI's `main`: from the bundle when it is current; else the bundle is
 * rebuilt first (esbuild, about a second), and when that cannot happen (no
 * esbuild in a production install, a read-only folder, a source that does not
 * compile) the sources run through tsx, as they would without a bundle.
 * @returns {Promise<(argv: string[]) => Promise<number>>}
 */
export async function loadMain() {
  const entry = pathToFileURL(join(BUNDLE_DIR, 'main.mjs')).href;
  if (staleReason() === undefined) return (await import(entry)).main;
  try {
    const { buildCli } = await import('./build-cli.mjs');
    await buildCli();
    return (await import(entry)).main;
  } catch {
    const { register } = await import('tsx/esm/api');
    register();
    return (await import(pathToFileURL(join(ROOT, 'cli', 'main.ts')).href)).main;
  }
}
