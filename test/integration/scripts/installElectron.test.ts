/**
 * The project's postinstall (`scripts/install-electron.mjs`) fetches
 * Electron's binary where it can and never fails `npm install` where it
 * cannot: each outcome is one line on stderr and exit 0 (exit 1 only under
 * --strict, as `npm run install:electron` runs it).
 *
 * Nothing here touches the network. The real Electron installer runs against a
 * download host that refuses connections (a loopback port nothing listens
 * on); other outcomes use an Electron package folder of the test's own whose
 * install.js does what a real download would (writes the binary and
 * path.txt), hangs, or is absent, next to a copy of Electron's real index.js,
 * which is what says where the binary is.
 */
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SCRIPT = join(ROOT, 'scripts', 'install-electron.mjs');
const ELECTRON = join(ROOT, 'node_modules', 'electron');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the script as npm's postinstall does, in a minimal environment (PATH and a private HOME). */
function runScript(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const child = spawn(process.execPath, [SCRIPT, ...args], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: join(dir, 'home'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += String(c)));
  child.stderr.on('data', (c) => (stderr += String(c)));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** One line on stderr, nothing on stdout; returns the line. */
function oneLine(run: Run): string {
  expect(run.stdout).toBe('');
  const lines = run.stderr.split('\n');
  expect(lines, run.stderr).toHaveLength(2);
  expect(lines[1]).toBe('');
  return lines[0]!;
}

/** An Electron package folder: package.json, Electron's own index.js and, unless undefined, this install.js. */
async function electronPackage(name: string, installJs: string | undefined): Promise<string> {
  const folder = join(dir, name);
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, 'package.json'), JSON.stringify({ name: 'electron', version: '41.7.1', main: 'index.js' }));
  await copyFile(join(ELECTRON, 'index.js'), join(folder, 'index.js'));
  if (installJs !== undefined) await writeFile(join(folder, 'install.js'), installJs);
  return folder;
}

/** A loopback port that refuses connections: bound once to learn a free number, then closed. */
async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbench-install-electron-'));
  await mkdir(join(dir, 'home'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the postinstall that fetches Electron', () => {
  it('fetches nothing when ELECTRON_SKIP_BINARY_DOWNLOAD is set, says so in one line and exits 0', async () => {
    const folder = await electronPackage('skip', 'require("fs").writeFileSync(__dirname + "/ran", "");\n');
    const run = await runScript(['--electron', folder], { ELECTRON_SKIP_BINARY_DOWNLOAD: '1' });
    expect(run.code).toBe(0);
    expect(oneLine(run)).toBe(
      "skillbench: ELECTRON_SKIP_BINARY_DOWNLOAD is set, so Electron 41.7.1's binary was not fetched; npm start opens the workbench in the browser (unset it and run npm run install:electron for the desktop app)",
    );
    expect(await readdir(folder)).not.toContain('ran');
  });

  it("runs Electron's real installer and, when the download host is unreachable, reports why in one line and exits 0", async () => {
    const port = await refusedPort();
    const run = await runScript([], {
      ELECTRON_MIRROR: `http://user:secret-pass@127.0.0.1:${port}/electron/`,
      electron_config_cache: join(dir, 'electron-cache'),
      // Another platform's build, so the installer downloads even where this platform's binary is installed.
      npm_config_platform: process.platform === 'linux' ? 'win32' : 'linux',
    });
    expect(run.code).toBe(0);
    const line = oneLine(run);
    expect(line).toMatch(/^skillbench: could not fetch Electron \d+\.\d+\.\d+'s binary \(.*ECONNREFUSED 127\.0\.0\.1:\d+\)/);
    expect(line).toContain('so npm start opens the workbench in the browser; retry with npm run install:electron (see docs/desktop.md)');
    expect(line).not.toContain('secret-pass');
  });

  it('exits 1 on the same failure under --strict, as npm run install:electron runs it', async () => {
    const folder = await electronPackage('fails', 'console.error("HTTPError: Response code 404 (Not Found) for https://mirror.example/v41.7.1/electron.zip?token=abc");\nconsole.error("    at Request.<anonymous> (got/index.js:1:1)");\nprocess.exit(1);\n');
    const run = await runScript(['--strict', '--electron', folder]);
    expect(run.code).toBe(1);
    expect(oneLine(run)).toBe(
      "skillbench: could not fetch Electron 41.7.1's binary (HTTPError: Response code 404 (Not Found) for mirror.example), so npm start opens the workbench in the browser; retry with npm run install:electron (see docs/desktop.md)",
    );
  });

  it('exits 0 when there is no Electron package or installer to run (an install without dev dependencies)', async () => {
    const folder = await electronPackage('no-installer', undefined);
    for (const args of [['--electron', folder], ['--electron', join(dir, 'absent')]]) {
      const run = await runScript(args);
      expect(run.code).toBe(0);
      expect(oneLine(run)).toBe(
        'skillbench: Electron is not installed here (an install without dev dependencies), so there is no desktop binary to fetch; npm start opens the workbench in the browser',
      );
    }
  });

  it('reports the binary the installer put in place, and where it is', async () => {
    const folder = await electronPackage(
      'downloads',
      [
        "const fs = require('fs');",
        "fs.mkdirSync(__dirname + '/dist', { recursive: true });",
        "fs.writeFileSync(__dirname + '/dist/electron', '#!/bin/sh\\n', { mode: 0o755 });",
        "fs.writeFileSync(__dirname + '/path.txt', 'electron');",
      ].join('\n'),
    );
    const run = await runScript(['--strict', '--electron', folder]);
    expect(run.code).toBe(0);
    expect(oneLine(run)).toBe(`skillbench: Electron 41.7.1's binary is installed (${join(folder, 'dist', 'electron')}); npm start opens the desktop app`);
  });

  it('does not count an installer that exits 0 without a binary as a success', async () => {
    const folder = await electronPackage('no-binary', 'process.exit(0);\n');
    const run = await runScript(['--strict', '--electron', folder]);
    expect(run.code).toBe(1);
    expect(oneLine(run)).toMatch(/could not fetch Electron 41\.7\.1's binary \(the installer finished but left no binary\)/);
  });

  it('stops waiting on a download that gives no result within the time limit, and exits 0', async () => {
    const folder = await electronPackage('hangs', "require('fs').writeFileSync(__dirname + '/started', String(process.pid));\nsetInterval(() => {}, 1000);\n");
    const run = await runScript(['--timeout-ms', '500', '--electron', folder]);
    expect(run.code).toBe(0);
    expect(oneLine(run)).toMatch(/^skillbench: could not fetch Electron 41\.7\.1's binary \(no result within 0\.5 s\)/);
    // A loaded machine may not even have started it by then; if it did start, it is gone.
    const pid = Number(await readFile(join(folder, 'started'), 'utf8').catch(() => '0'));
    if (pid > 0) expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  });

  it('refuses a bad option with exit 2', async () => {
    const run = await runScript(['--timeout-ms', 'soon']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--timeout-ms');
  });
});
