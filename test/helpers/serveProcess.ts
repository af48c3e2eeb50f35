/**
 * A real `skillbench serve` process for tests that need several servers at
 * once (two instances on one app-data folder): spawned explicitly from the
 * binary, its printed address read from stdout, its API called over HTTP with
 * the address's token, stopped with SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN } from './cli';

/** A running server. */
export interface ServeProcess {
  child: ChildProcess;
  url: URL;
  /** Calls an API method; resolves with the envelope (`ok` and `result`, or `error`). */
  call<T = unknown>(method: string, params: unknown): Promise<{ ok: true; result: T } | { ok: false; error: { code: string; message: string; details?: Record<string, unknown> } }>;
  /** Stops the server (SIGTERM) and resolves with its exit code and stderr. */
  stop(): Promise<{ code: number | null; stderr: string }>;
}

/** Starts `skillbench serve ...args` in `cwd` with `env` added to PATH alone. */
export async function startServe(args: string[], options: { cwd: string; env: Record<string, string> }): Promise<ServeProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], {
    cwd: options.cwd,
    env: { PATH: process.env['PATH'] ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += String(c)));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const url = await new Promise<URL>((resolve, reject) => {
    child.stdout!.on('data', (c) => {
      stdout += String(c);
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n') && line) resolve(new URL(line));
    });
    void exited.then((code) => reject(new Error(`serve exited early (${code}): ${stderr}`)));
  });
  const token = url.searchParams.get('token') ?? '';
  return {
    child,
    url,
    async call(method, params) {
      const res = await fetch(`${url.origin}/api/${method}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify(params),
      });
      return (await res.json()) as never;
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return { code: await exited, stderr };
    },
  };
}
