#!/usr/bin/env node
// `npm test`: provision the system packages the tests need, run vitest, and end
// with one line `N passed, N failed` read from vitest's JSON reporter.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { summaryLine } from './testSummary.mjs';

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

provision();

const results = join(tmpdir(), `skillbench-vitest-${process.pid}.json`);
const vitest = spawnSync(
  process.execPath,
  ['node_modules/vitest/vitest.mjs', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${results}`, ...process.argv.slice(2)],
  { stdio: 'inherit', env: { ...process.env, NODE_LLAMA_CPP_SKIP_DOWNLOAD: 'true' } },
);

let report;
if (existsSync(results)) {
  report = JSON.parse(readFileSync(results, 'utf8'));
  rmSync(results, { force: true });
}
const code = vitest.status ?? 1;
console.log(summaryLine(report, code));
process.exit(code);
