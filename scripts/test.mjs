#!/usr/bin/env node
// `npm test`: provision the system packages the tests need, build the CLI bundle
// the tests spawn, run vitest in two phases (the unit, unit-heap and integration
// projects, with the renderer the e2e tests serve built beside them; then the e2e
// project alone, so Chromium never competes with them for the two cores), and end
// with one line `N passed, N failed` counted from both phases' JSON reports. The
// exit code is vitest's: 0 only when both phases passed. Both phases keep their
// temporary files in memory when they can (see memoryTemp).
//
// Arguments go to both phases (`npm test -- test/unit/cli` runs what matches).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { buildCli } from './build-cli.mjs';
import { combinedSummaryLine } from './testSummary.mjs';

/** Debian packages the tests need, by the command that proves each is present. */
const REQUIRED = [
  { command: 'redis-server', pkg: 'redis-server' },
  // The admin API test replays the guide's curl session; TLS tests make certificates with openssl.
  { command: 'curl', pkg: 'curl' },
  { command: 'openssl', pkg: 'openssl' },
  // Reviews are SSH signatures: ssh-keygen makes the test keys, signs and verifies (ssh-agent for key:: literals).
  { command: 'ssh-keygen', pkg: 'openssh-client' },
  // The end-to-end tests drive Debian's Chromium through playwright-core (no browser download).
  { command: 'chromium', pkg: 'chromium' },
];

function onPath(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

function provision() {
  const missing = REQUIRED.filter((r) => !onPath(r.command));
  if (missing.length === 0) return;
  const pkgs = missing.map((m) => m.pkg);
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !onPath('apt-get')) {
    console.error(`npm test needs the system package(s): ${pkgs.join(' ')}. Install them (on Debian: apt-get install ${pkgs.join(' ')}) and run npm test again.`);
    process.exit(1);
  }
  console.error(`Installing ${pkgs.join(' ')} with apt-get ...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  const install = spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...pkgs], { stdio: 'inherit', env });
  if (update.status !== 0 || install.status !== 0 || missing.some((m) => !onPath(m.command))) {
    console.error(`apt-get could not install: ${pkgs.join(' ')}.`);
    process.exit(1);
  }
}

/**
 * Runs `ensureRendererBuilt` (rendererBuild.mjs) in a child process; resolves when it ends. A failed
 * build is reported here and again, with vite's output, by the first test that needs it.
 */
function buildRendererInBackground() {
  const child = spawn(process.execPath, ['--input-type=module', '-e', `import(${JSON.stringify(pathToFileURL(join(import.meta.dirname, 'rendererBuild.mjs')).href)}).then((m) => m.ensureRendererBuilt())`], { stdio: ['ignore', 'inherit', 'inherit'] });
  return new Promise((resolve) => {
    child.on('error', (error) => {
      console.error(`npm test: could not start the renderer build: ${error.message}`);
      resolve();
    });
    child.on('close', (code) => {
      if (code !== 0) console.error(`npm test: the renderer build failed (exit ${code}); the e2e tests will try it again`);
      resolve();
    });
  });
}

/** A tmpfs's `f_type` (linux/magic.h). */
const TMPFS_MAGIC = 0x01021994;
/** Free room a tmpfs needs to take the tests' temporary files (the suite's peak is about 140 MB). */
const TMPFS_MIN_FREE = 2 * 1024 ** 3;

/**
 * A fresh folder for the tests' temporary files, in memory when it can be: with
 * no TMPDIR of the user's, on a tmpfs /dev/shm with room to spare. The tests write
 * and flush thousands of small files (atomic saves, drafts, registries, seeded
 * catalogs, Chromium's profiles), and on a disk the kernel's file operations
 * and flushes took a tenth of the node phase. The code runs the same on either:
 * a test cannot tell a flush that reached a disk from one that did not.
 * Undefined to keep the system's temporary folder.
 */
function memoryTemp() {
  if (process.env.TMPDIR || process.platform !== 'linux') return undefined;
  try {
    const fs = statfsSync('/dev/shm');
    if (Number(fs.type) !== TMPFS_MAGIC || Number(fs.bavail) * Number(fs.bsize) < TMPFS_MIN_FREE) return undefined;
    return mkdtempSync('/dev/shm/skillbench-test-');
  } catch {
    return undefined;
  }
}

provision();
// Tests that need a real process spawn bin/skillbench.mjs, which runs this bundle.
await buildCli({ prune: true });

const extra = process.argv.slice(2);
// The whole suite: build the renderer once, beside the node tests (which leave some of
// the cores idle while they wait on processes and sockets). The `npm start` test waits
// for this build through the build's lock, and the e2e phase starts once it is done
// instead of building it again.
const rendererBuild = extra.length === 0 ? buildRendererInBackground() : undefined;
const phases = [
  ['--project', 'unit', '--project', 'unit-heap', '--project', 'integration'],
  ['--project', 'e2e'],
];
const temp = memoryTemp();
if (temp) {
  // Whatever a test left behind goes with the folder; an interrupt ends the run through here too.
  process.on('exit', () => rmSync(temp, { recursive: true, force: true }));
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(signal === 'SIGINT' ? 130 : 143));
}
const env = { ...process.env, NODE_LLAMA_CPP_SKIP_DOWNLOAD: 'true', ...(temp ? { TMPDIR: temp } : {}) };
const runs = [];
for (const projects of phases) {
  if (projects.includes('e2e') && rendererBuild) await rendererBuild;
  const results = join(tmpdir(), `skillbench-vitest-${process.pid}-${runs.length}.json`);
  const vitest = spawnSync(
    process.execPath,
    [
      'node_modules/vitest/vitest.mjs',
      'run',
      ...projects,
      // A filter given on the command line may match nothing in one of the phases.
      ...(extra.length > 0 ? ['--passWithNoTests'] : []),
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${results}`,
      ...extra,
    ],
    { stdio: 'inherit', env },
  );
  let report;
  if (existsSync(results)) {
    report = JSON.parse(readFileSync(results, 'utf8'));
    rmSync(results, { force: true });
  }
  runs.push({ report, exitCode: vitest.status ?? 1 });
}
console.log(combinedSummaryLine(runs));
process.exit(runs.find((r) => r.exitCode !== 0)?.exitCode ?? 0);
