/**
 * A real `skillbench registry serve` child that guards a namespace with signed
 * approvals: the host the review tests publish through, started on a free port.
 */
import type { ChildProcess } from 'node:child_process';
import { startCli, type CliRun } from './cli';

/** A running approval-enforcing host: its base URL, its stderr log so far, and its end. */
export interface RegistryHost {
  child: ChildProcess;
  url: string;
  log(): string;
  done: Promise<CliRun>;
}

/**
 * Starts `registry serve --store local:DIR --require-approval NS --allowed-signers FILE`
 * with `token` as its write token, and resolves once it prints its URL (rejecting
 * if it exits first).
 */
export async function startRegistryHost(options: { dir: string; namespace: string; allowedSigners: string; token: string; cwd: string; home: string }): Promise<RegistryHost> {
  const started = startCli(['registry', 'serve', '--store', `local:${options.dir}`, '--port', '0', '--token-env', 'HOST_TOKEN', '--require-approval', options.namespace, '--allowed-signers', options.allowedSigners], {
    cwd: options.cwd,
    env: { HOST_TOKEN: options.token, SKILLBENCH_HOME: options.home },
  });
  let log = '';
  started.child.stderr!.on('data', (c) => (log += String(c)));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    started.child.stdout!.on('data', (c) => {
      out += String(c);
      if (out.includes('\n')) resolve(out.split('\n')[0]!.trim());
    });
    void started.done.then((run) => reject(new Error(`registry serve exited ${run.code}: ${run.stderr}`)));
  });
  return { child: started.child, url, log: () => log, done: started.done };
}
