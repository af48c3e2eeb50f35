/**
 * The real `skillbench serve` binary for tests, as a user or a script meets
 * it: the address it prints on its first line (with its one-time sign-in
 * code), and a session traded for that code the way a script does
 * (`POST /auth/session`), to call the API with `Authorization: Bearer`.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startCli, type CliRun } from './cli';
import { frame, openRawWebSocket, textFrame } from './rawWebSocket';

/** A running `skillbench serve`. */
export interface Served {
  child: ChildProcess;
  done: Promise<CliRun>;
  /** The address it printed (its code is spent once {@link signIn} ran). */
  url: URL;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
}

/** Starts `skillbench serve ...args`; resolves once it printed its address. */
export async function startServe(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<Served> {
  const run = startCli(['serve', ...args], { cwd: options.cwd, ...(options.env && { env: options.env }) });
  let stderr = '';
  run.child.stderr!.on('data', (c) => (stderr += String(c)));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (c: Buffer) => {
      out += String(c);
      const newline = out.indexOf('\n');
      if (newline >= 0) {
        run.child.stdout!.off('data', onData);
        resolve(out.slice(0, newline).trim());
      }
    };
    run.child.stdout!.on('data', onData);
    void run.done.then((r) => reject(new Error(`serve exited early (${r.code}): ${r.stderr}`)), reject);
  });
  return { ...run, url: new URL(url), stderr: () => stderr };
}

/** Spends the sign-in code of `address` for a session, as a script does; returns the bearer token. */
export async function signIn(address: URL | string): Promise<string> {
  const url = new URL(address);
  const res = await fetch(new URL('/auth/session', url.origin), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token: url.searchParams.get('token') }),
  });
  const body = (await res.json()) as { ok: boolean; result?: { session: string }; error?: { message: string } };
  if (!body.ok || !body.result) throw new Error(`sign-in refused (${res.status}): ${body.error?.message}`);
  return body.result.session;
}

/** What an API call over HTTP answers: `result` when `ok`, else `error`. */
export type ApiEnvelope<T> =
  | { ok: true; result: T; error?: undefined }
  | { ok: false; result?: undefined; error: { code: string; message: string; details?: Record<string, unknown> } };

/** Calls a WorkbenchApi method over HTTP with a bearer session; resolves with the envelope. */
export async function callApi<T = Record<string, unknown>>(origin: string, session: string, method: string, params: unknown = {}): Promise<ApiEnvelope<T>> {
  const res = await fetch(`${origin}/api/${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${session}` },
    body: JSON.stringify(params),
  });
  return (await res.json()) as ApiEnvelope<T>;
}

/** Resident and peak resident memory of a process, in bytes (Linux `/proc/<pid>/status`). */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** The workspace path of the package {@link largeWorkspace} writes. */
export const LARGE_PACKAGE = 'skills/packages/bulk/large.json';

/** Writes a workspace at `dir` holding one package file of `bytes` bytes at {@link LARGE_PACKAGE}. */
export async function largeWorkspace(dir: string, bytes: number): Promise<void> {
  await mkdir(join(dir, 'skills', 'packages', 'bulk'), { recursive: true });
  const [head, tail] = ['{"description": "', '", "notes": "a large file"}'];
  await writeFile(join(dir, LARGE_PACKAGE), `${head}${'x'.repeat(bytes - head.length - tail.length)}${tail}`);
}

/**
 * A client that never reads: opens a WebSocket to `served`, pipelines `calls`
 * reads of {@link LARGE_PACKAGE}, and resolves once the server has cut it
 * (the client, not reading, learns that on its next write). Resolves with the
 * server's memory before and after.
 */
export async function nonReadingClient(served: Served, session: string, calls: number): Promise<{ idle: { rss: number; peak: number }; after: { rss: number; peak: number } }> {
  const idle = memoryOf(served.child.pid!);
  const raw = await openRawWebSocket(Number(served.url.port), { Authorization: `Bearer ${session}`, Origin: served.url.origin }, { read: false });
  raw.write(Buffer.concat(Array.from({ length: calls }, (_, i) => textFrame(JSON.stringify({ id: i, method: 'workspace.read', params: { path: LARGE_PACKAGE } })))));
  await new Promise<void>((resolve) => {
    const probe = setInterval(() => {
      if (raw.socket.destroyed) {
        clearInterval(probe);
        resolve();
      } else raw.write(frame({ opcode: 9 }));
    }, 500);
  });
  return { idle, after: memoryOf(served.child.pid!) };
}
