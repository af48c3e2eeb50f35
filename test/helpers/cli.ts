/**
 * Running `skillbench` in tests, two ways:
 *
 * - {@link runCli}: in this process, through `main(argv, io)` with the test's
 *   working directory, a clean environment (PATH plus what the test passes) and
 *   captured stdout and stderr: exactly what the binary prints and returns for
 *   the same command line, without a process start per run. Commands take their
 *   environment and folder from the io only, so runs do not leak into each other.
 * - {@link startCli} / {@link runCliProcess}: the real binary (`bin/skillbench.mjs`,
 *   running the built bundle) as a child process, for what only a process has:
 *   signals, being killed, a server that runs until stopped, its own exit code.
 *
 * `SKILLBENCH_TEST_CLI=process` makes runCli spawn the binary too, to check that
 * every in-process assertion holds for the real process as well.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { CliIo } from '../../cli/io';

/** The CLI entry point. */
export const BIN = fileURLToPath(new URL('../../bin/skillbench.mjs', import.meta.url));

/** A finished run. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Where and with what the command runs. */
export interface CliOptions {
  cwd: string;
  /** Added to a minimal environment of PATH only (no keys or tokens leak in from the caller). */
  env?: Record<string, string>;
}

function environment(options: CliOptions): Record<string, string> {
  return { PATH: process.env['PATH'] ?? '', ...options.env };
}

/** Starts the real binary, `skillbench ...args`, as a child process; `done` resolves when it exits. */
export function startCli(args: string[], options: CliOptions): { child: ChildProcess; done: Promise<CliRun> } {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    env: environment(options),
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

/** Runs the real binary, `skillbench ...args`, as a child process to completion. */
export function runCliProcess(args: string[], options: CliOptions): Promise<CliRun> {
  return startCli(args, options).done;
}

/** A stream that keeps what is written to it; it accepts each write at once, as a pipe with room does. */
function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: unknown, _encoding, callback) {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      callback();
    },
  });
  return { stream, text: () => chunks.join('') };
}

/**
 * Runs `skillbench ...args` in this process and returns what the binary would:
 * its exit code, stdout and stderr. stderr is not a terminal, as for a child
 * process with piped output. An error escaping `main` ends the run as it ends
 * the binary: exit 1 with the error on stderr.
 */
export async function runCli(args: string[], options: CliOptions): Promise<CliRun> {
  if (process.env['SKILLBENCH_TEST_CLI'] === 'process') return runCliProcess(args, options);
  const { main } = await import('../../cli/main');
  const stdout = capture();
  const stderr = capture();
  const io: CliIo = { stdout: stdout.stream, stderr: stderr.stream, cwd: options.cwd, env: environment(options), isTTY: false };
  let code: number;
  try {
    code = await main(args, io);
  } catch (error) {
    stderr.stream.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    code = 1;
  }
  // The redacting streams main wraps around these hand each write on within a few ticks.
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}
