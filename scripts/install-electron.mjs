#!/usr/bin/env node
/**
 * Fetches Electron's binary: the project's `postinstall` (after `npm install`
 * and `npm ci`) and `npm run install:electron`.
 *
 * npm runs a dependency's install script only when package.json's
 * `allowScripts` allows it, and Electron's (the download of its binary) stays
 * denied there, so no dependency's script runs with network access. This
 * script runs the same installer (`node_modules/electron/install.js`, which
 * downloads the binary for this platform through @electron/get, honouring
 * ELECTRON_MIRROR, electron_config_cache and the other variables Electron
 * documents) from the project's own postinstall instead, and says in one line
 * on stderr what happened:
 *
 * - the binary is in place (already, or downloaded now): `npm start` opens the
 *   desktop app;
 * - ELECTRON_SKIP_BINARY_DOWNLOAD is set (any value, as Electron reads it):
 *   nothing is fetched;
 * - the `electron` package is not installed (an install without dev
 *   dependencies): there is nothing to fetch;
 * - the download fails, or gives no result within the time limit: the reason
 *   (the installer's first error line, URLs cut to their host) and how to retry.
 *
 * Every case exits 0, so `npm install` and `npm ci` pass where the binary
 * cannot be downloaded, and `npm start` then opens the workbench in the
 * browser. With --strict (`npm run install:electron`), any case that leaves no
 * binary exits 1.
 *
 * Usage: node scripts/install-electron.mjs [--strict] [--timeout-ms N] [--electron DIR]
 *   --timeout-ms  how long the download may take (default 10 minutes)
 *   --electron    the Electron package folder (default: the project's)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { electronBinary } from './electronBinary.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const RETRY = 'npm run install:electron';
const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;

/** The Electron package folder, or undefined when it is not installed. */
function packageFolder(given) {
  if (given !== undefined) return existsSync(join(given, 'package.json')) ? resolve(given) : undefined;
  try {
    return dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  } catch {
    return undefined;
  }
}

function versionOf(folder) {
  try {
    const { version } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
    return typeof version === 'string' ? version : undefined;
  } catch {
    return undefined;
  }
}

/** A path as the user would type it from the project folder. */
function shown(path) {
  const rel = relative(root, path);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

/**
 * The installer's first error line, on one line and short. URLs are cut to
 * their host: a mirror URL may carry credentials, and the host says enough.
 */
function reasonOf(output) {
  const line = output.split('\n').map((l) => l.trim()).find((l) => l !== '' && !l.startsWith('at ')) ?? '';
  const withHosts = line.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>)]+/gi, (url) => {
    try {
      return new URL(url).host || 'a URL';
    } catch {
      return 'a URL';
    }
  });
  return withHosts.length > 200 ? `${withHosts.slice(0, 200)}...` : withHosts;
}

/** Runs the installer; resolves to undefined when it succeeded, else why it did not. */
function runInstaller(installer, timeoutMs) {
  const result = spawnSync(process.execPath, [installer], {
    cwd: dirname(installer),
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: 4 * 1024 * 1024,
  });
  if (result.error?.code === 'ETIMEDOUT') return `no result within ${Math.round(timeoutMs / 100) / 10} s`;
  if (result.error) return `the installer could not run: ${result.error.message}`;
  if (result.status === 0) return undefined;
  const reason = reasonOf(`${result.stderr ?? ''}\n${result.stdout ?? ''}`);
  const ended = result.signal ? `ended by ${result.signal}` : `exit ${result.status}`;
  return reason === '' ? `the installer failed (${ended})` : reason;
}

/** Does the work; returns [line, installed]. */
function install({ electron, timeoutMs }) {
  const folder = packageFolder(electron);
  const installer = folder && join(folder, 'install.js');
  if (!folder || !existsSync(installer)) {
    return ['Electron is not installed here (an install without dev dependencies), so there is no desktop binary to fetch; npm start opens the workbench in the browser', false];
  }
  const version = versionOf(folder);
  const named = version ? `Electron ${version}'s binary` : "Electron's binary";
  const ready = () => {
    const binary = electronBinary(folder);
    return binary && [`${named} is installed (${shown(binary)}); npm start opens the desktop app`, true];
  };
  if (process.env['ELECTRON_SKIP_BINARY_DOWNLOAD']) {
    return (
      ready() || [`ELECTRON_SKIP_BINARY_DOWNLOAD is set, so ${named} was not fetched; npm start opens the workbench in the browser (unset it and run ${RETRY} for the desktop app)`, false]
    );
  }
  const failed = runInstaller(installer, timeoutMs);
  const done = failed === undefined && ready();
  if (done) return done;
  const why = failed ?? 'the installer finished but left no binary';
  return [`could not fetch ${named} (${why}), so npm start opens the workbench in the browser; retry with ${RETRY} (see docs/desktop.md)`, false];
}

function main() {
  let options;
  try {
    options = parseArgs({
      options: { strict: { type: 'boolean', default: false }, 'timeout-ms': { type: 'string' }, electron: { type: 'string' } },
      strict: true,
    }).values;
  } catch (error) {
    process.stderr.write(`install-electron: ${error.message}\n`);
    return 2;
  }
  const timeoutMs = options['timeout-ms'] === undefined ? DEFAULT_TIMEOUT_MS : Number(options['timeout-ms']);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    process.stderr.write('install-electron: --timeout-ms takes a positive whole number of milliseconds\n');
    return 2;
  }
  const [line, installed] = install({ electron: options.electron, timeoutMs });
  process.stderr.write(`skillbench: ${line}\n`);
  return installed || !options.strict ? 0 : 1;
}

process.exitCode = main();
