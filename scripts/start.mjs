#!/usr/bin/env node
/**
 * `npm start`: opens the workbench.
 *
 * 1. Builds the renderer (`vite build` into dist/renderer) when it is missing
 *    or older than its sources.
 * 2. When Electron's binary is installed: builds the main process and preload
 *    (dist/electron) the same way, then launches the desktop shell.
 * 3. When it is not (its download failed or was skipped during `npm install`;
 *    `npm run install:electron` retries it), or on Linux without a display
 *    ($DISPLAY and $WAYLAND_DISPLAY unset): says so in one line and runs `skillbench serve --open` instead, the same
 *    workbench in the browser, on the embedded registry with the example skills.
 *
 * SIGINT and SIGTERM are passed on to the shell or the server, and the script
 * exits with its exit code. Arguments after `npm start --` go to Electron or to
 * `skillbench serve` (e.g. `npm start -- --port 8080`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronBinary } from './electronBinary.mjs';
import { ensureRendererBuilt } from './rendererBuild.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const at = (...parts) => join(root, ...parts);

/** Newest modification time (ms) of the files under `paths`; 0 when none exist. */
function newest(paths) {
  let max = 0;
  const visit = (path) => {
    let info;
    try {
      info = statSync(path);
    } catch {
      return;
    }
    if (info.isDirectory()) {
      for (const name of readdirSync(path)) if (name !== 'node_modules' && !name.startsWith('.')) visit(join(path, name));
    } else if (info.mtimeMs > max) {
      max = info.mtimeMs;
    }
  };
  for (const p of paths) visit(p);
  return max;
}

/** True when any of `outputs` is missing or older than the newest of `inputs`. */
/** The keymap files the desktop menu bundles: the collection and each feature's `keymap.ts` (see `scripts/layers.mjs`). */
function keymapFiles() {
  const renderer = at('renderer');
  return readdirSync(renderer, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => join(renderer, d.name, 'keymap.ts'));
}

function stale(outputs, inputs) {
  const built = Math.min(...outputs.map((o) => (existsSync(o) ? statSync(o).mtimeMs : 0)));
  return built === 0 || built < newest(inputs);
}

function run(what, args) {
  process.stderr.write(`skillbench: building ${what} ...\n`);
  // Build output goes to stderr: stdout carries only what the workbench prints (its address).
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: ['ignore', 2, 2] });
  if (result.status !== 0) {
    process.stderr.write(`skillbench: building ${what} failed (exit ${result.status ?? result.signal}); see the output above\n`);
    process.exit(1);
  }
}

/** Runs `command`, passing signals on; exits with its code. */
function launch(command, args) {
  const child = spawn(command, args, { cwd: root, stdio: 'inherit' });
  const forward = (signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => forward(signal));
  child.on('error', (error) => {
    process.stderr.write(`skillbench: cannot start ${command}: ${error.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
}

const extra = process.argv.slice(2);

// The UI through the same build as the tests (scripts/rendererBuild.mjs): one stamp says
// whether it is current, and its lock keeps two builds (a second npm start, npm test)
// from writing dist/renderer at once.
try {
  ensureRendererBuilt({
    onWait: () => process.stderr.write('skillbench: waiting for another build of the workbench UI ...\n'),
    onBuild: () => process.stderr.write('skillbench: building the workbench UI ...\n'),
  });
} catch (error) {
  process.stderr.write(`skillbench: building the workbench UI failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

/** Why the desktop app cannot open here, or undefined when it can. */
function whyNotElectron(binary) {
  if (!binary) return "Electron's binary is not installed here (npm run install:electron fetches it)";
  if (process.platform === 'linux' && !process.env['DISPLAY'] && !process.env['WAYLAND_DISPLAY']) return 'there is no display here ($DISPLAY is not set)';
  return undefined;
}

const electron = electronBinary();
const why = whyNotElectron(electron);
if (!why) {
  const bundles = [at('dist', 'electron', 'main.mjs'), at('dist', 'electron', 'preload.cjs')];
  if (stale(bundles, [at('electron'), at('core'), at('evals'), at('renderer', 'keymap.ts'), ...keymapFiles(), at('scripts', 'build-electron.mjs')])) {
    run('the desktop shell', [at('scripts', 'build-electron.mjs')]);
  }
  launch(electron, [root, ...extra]);
} else {
  process.stderr.write(`skillbench: ${why}, so the workbench opens in your browser instead (skillbench serve --open)\n`);
  launch(process.execPath, [at('bin', 'skillbench.mjs'), 'serve', '--open', ...extra]);
}
