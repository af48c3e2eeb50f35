// The renderer bundle of `npm start` and the end-to-end tests: `vite build` into
// dist/renderer, skipped while a stamp says the last build is newer than every
// input. `npm test` builds it beside the node tests (whose `npm start` test waits
// for that build), and the e2e harness calls it again, which costs a stat walk.
// Parallel callers share one build: a lock folder makes the others wait.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DIST = join(ROOT, 'dist', 'renderer');
const STAMP = join(ROOT, 'dist', '.renderer-build-stamp');
const LOCK = join(ROOT, 'dist', '.renderer-build-lock');
/** Inputs of the renderer bundle: when any is newer than the last build, it is rebuilt. */
const INPUTS = ['renderer', 'core', 'vite.config.ts', 'package-lock.json', 'tsconfig.json'];

function newestMtime(path) {
  let info;
  try {
    info = statSync(path);
  } catch {
    return 0;
  }
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const name of readdirSync(path)) {
    if (name === 'node_modules') continue;
    newest = Math.max(newest, newestMtime(join(path, name)));
  }
  return newest;
}

function sleepSync(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Builds the renderer unless the last build is newer than every input. A lock
 * older than `lockLimitMs` belongs to a dead builder and is taken over; waiting
 * longer than that for a live one throws. `onWait` is told once when another
 * build holds the lock, `onBuild` when this call builds.
 *
 * @param {{ lockLimitMs?: number, onWait?: () => void, onBuild?: () => void }} [options]
 */
export function ensureRendererBuilt({ lockLimitMs = 600_000, onWait, onBuild } = {}) {
  const fresh = () => existsSync(join(DIST, 'index.html')) && existsSync(STAMP) && statSync(STAMP).mtimeMs >= Math.max(...INPUTS.map((p) => newestMtime(join(ROOT, p))));
  if (fresh()) return;
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  const deadline = Date.now() + lockLimitMs;
  let waited = false;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      if (!waited) onWait?.();
      waited = true;
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > lockLimitMs) rmSync(LOCK, { recursive: true, force: true });
      } catch {
        // It went away between the two calls.
      }
      if (Date.now() > deadline) throw new Error('timed out waiting for another renderer build');
      sleepSync(500);
    }
  }
  try {
    if (fresh()) return;
    onBuild?.();
    const started = Date.now();
    const build = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NODE_ENV: 'production' },
    });
    if (build.status !== 0) throw new Error(`vite build failed (exit ${build.status}):\n${build.stderr}\n${build.stdout}`);
    // The stamp records when the build started: an input saved during the build makes it stale again.
    writeFileSync(STAMP, new Date(started).toISOString());
    utimesSync(STAMP, started / 1000, started / 1000);
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
