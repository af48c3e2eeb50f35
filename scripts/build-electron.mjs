#!/usr/bin/env node
/**
 * Builds the desktop shell's main process and preload with esbuild:
 *
 * - `dist/electron/main.mjs`: `electron/main.ts` and the engine it composes,
 *   an ES module (package dependencies stay external: electron-builder ships
 *   them in node_modules). It sits two folders below the project root, as the
 *   engine's sources do, so paths the engine derives from its own location
 *   (the example skills) resolve the same way.
 * - `dist/electron/preload.cjs`: `electron/preload.ts` in one CommonJS file,
 *   since a sandboxed preload may require nothing but `electron`.
 *
 * Usage: node scripts/build-electron.mjs
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

const common = { absWorkingDir: root, bundle: true, platform: 'node', target: 'node22', sourcemap: 'linked', logLevel: 'warning', legalComments: 'none' };

/**
 * The preload's esbuild options, shared with the checks of its size and
 * contents (a test and `npm run bench` build it exactly as shipped).
 */
export const preloadBuildOptions = { ...common, entryPoints: ['electron/preload.ts'], outfile: 'dist/electron/preload.cjs', format: 'cjs', external: ['electron'], minify: true };

/** Builds both bundles into `dist/electron`. */
export async function buildElectron() {
  await Promise.all([build({ ...common, entryPoints: ['electron/main.ts'], outfile: 'dist/electron/main.mjs', format: 'esm', packages: 'external' }), build(preloadBuildOptions)]);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildElectron();
  process.stderr.write('built dist/electron/main.mjs and dist/electron/preload.cjs\n');
}
