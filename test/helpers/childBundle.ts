/**
 * A TypeScript fixture that tests start as a child process many times, bundled
 * once into plain JavaScript: a child then starts on Node alone instead of
 * compiling its sources through a TypeScript loader on every launch.
 *
 * The bundle lives under `node_modules/.cache` so its package imports resolve
 * from the repository; each test process gets its own file.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** A bundled fixture: the file to run with `node`, and its removal. */
export interface ChildBundle {
  file: string;
  remove(): Promise<void>;
}

/** Bundles the fixture at `entry` (a file URL or path) into one ES module. */
export async function bundleChild(entry: URL | string): Promise<ChildBundle> {
  const source = typeof entry === 'string' ? entry : fileURLToPath(entry);
  const name = source.split(/[\\/]/).pop()!.replace(/\.ts$/, '');
  const file = join(REPO, 'node_modules', '.cache', 'skillbench-tests', `${name}-${process.pid}-${Date.now().toString(36)}.mjs`);
  await build({ entryPoints: [source], bundle: true, packages: 'external', platform: 'node', format: 'esm', outfile: file, logLevel: 'error' });
  return { file, remove: () => rm(file, { force: true }) };
}
