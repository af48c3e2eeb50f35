/**
 * Runs the real `skillbench` binary as a child process, the way a user does:
 * a clean environment (PATH plus what the test passes), its own working
 * directory and app-data folder, stdout and stderr captured.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The CLI entry point. */
export const BIN = fileURLToPath(new URL('../../bin/skillbench.mjs', import.meta.url));

/** A finished run. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Where and with what the binary runs. */
export interface CliOptions {
  cwd: string;
  /** Added to a minimal environment of PATH only (no keys or tokens leak in from the caller). */
  env?: Record<string, string>;
}

/** Starts `skillbench ...args`; `done` resolves when it exits. */
export function startCli(args: string[], options: CliOptions): { child: ChildProcess; done: Promise<CliRun> } {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    env: { PATH: process.env['PATH'] ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c) => (stdout += String(c)));
  child.stderr!.on('data', (c) => (stderr += String(c)));
  const done = new Promise<CliRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { child, done };
}

/** Runs `skillbench ...args` to completion. */
export function runCli(args: string[], options: CliOptions): Promise<CliRun> {
  return startCli(args, options).done;
}
