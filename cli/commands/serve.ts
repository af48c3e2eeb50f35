/**
 * `skillbench serve`: the workbench in a browser. Builds the service and its
 * router, serves the built renderer and the API on one loopback port, prints
 * the URL with this launch's token, and stops cleanly on SIGINT or SIGTERM.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isLoopbackHost } from '../../core/admin/server';
import { WorkbenchError } from '../../core/errors';
import { Router } from '../../core/api/router';
import { createWorkbenchService } from '../../core/api/service';
import { createEvalsPort } from '../../evals/port';
import { parse } from '../args';
import { EXIT, UsageError } from '../exit';
import { type CliIo, say } from '../io';
import type { Command } from '../main';
import { untilSignal } from '../signals';
import { openBrowser } from '../web/open';
import { startWebHost } from '../web/host';
import { packageVersion } from '../version';

const usage = `Usage: skillbench serve [--port N] [--host ADDR] [--open] [--workspace DIR] [--token-env NAME] [--stall-timeout S]

Serves the workbench UI and its API on one port for a browser. The first line
on stdout is the address to open; it carries a one-time sign-in code that the
first page load spends for a session cookie (a reload keeps the session; the
used address signs in nothing else). SIGINT or SIGTERM stops the server,
closes every connection and exits 0.

  --port N      port to bind (default 0: a free port)
  --host ADDR   address to bind (default 127.0.0.1). Binding anything but a
                loopback address exposes the workbench to your network: with
                0.0.0.0 or ::, it answers at every address of this machine.
  --open        open the address in the browser ($BROWSER, or the system's)
  --workspace DIR
                the folder of skills/packages/<namespace>/<name>.json to edit,
                watched for outside edits (default: the example workspace
                shipped with Skillbench)
  --token-env NAME
                also accept the value of the environment variable NAME (at
                least 32 characters) as Authorization: Bearer, for scripts,
                for the whole launch; it never signs a browser in
  --stall-timeout S
                close a WebSocket whose client has left more than 8 MiB of
                answers unread for S seconds (default 30); the server starts
                none of that socket's calls meanwhile, so its memory stays
                bounded`;

/** The shortest token --token-env accepts: a script's credential for the whole launch must not be guessable. */
const MIN_API_TOKEN = 32;

/** The example workspace shipped with Skillbench (\`examples/\`, holding skills/packages/). */
export function exampleWorkspaceDir(): string {
  return fileURLToPath(new URL('../../examples/', import.meta.url));
}

/** The built renderer, next to the sources. */
export function rendererDir(): string {
  return fileURLToPath(new URL('../../dist/renderer/', import.meta.url));
}

/** The longest --stall-timeout: an hour. */
const MAX_STALL_SECONDS = 3600;

function stallArg(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = /^[0-9]+(\.[0-9]+)?$/.test(value) ? Number(value) : Number.NaN;
  if (!(seconds >= 1 && seconds <= MAX_STALL_SECONDS)) throw new UsageError(`--stall-timeout must be 1..${MAX_STALL_SECONDS} seconds, got '${value}'`);
  return Math.round(seconds * 1000);
}

function portArg(value: string | undefined): number {
  if (value === undefined) return 0;
  if (!/^[0-9]{1,5}$/.test(value) || Number(value) > 65535) throw new UsageError(`--port must be 0..65535, got '${value}'`);
  return Number(value);
}

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    port: { type: 'string' },
    host: { type: 'string' },
    open: { type: 'boolean' },
    workspace: { type: 'string' },
    'token-env': { type: 'string' },
    'stall-timeout': { type: 'string' },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const host = values.host ?? '127.0.0.1';
  if (host.trim().length === 0) throw new UsageError('--host must not be empty');
  const port = portArg(values.port);
  const stallMs = stallArg(values['stall-timeout']);
  if (values.workspace !== undefined && values.workspace.trim().length === 0) throw new UsageError('--workspace needs a folder');
  const workspaceDir = values.workspace === undefined ? exampleWorkspaceDir() : resolve(io.cwd, values.workspace);
  const tokenEnv = values['token-env'];
  const apiToken = tokenEnv === undefined ? undefined : io.env[tokenEnv];
  if (tokenEnv !== undefined && (apiToken === undefined || apiToken.length < MIN_API_TOKEN)) {
    throw new UsageError(`--token-env ${tokenEnv}: the environment variable must hold a token of at least ${MIN_API_TOKEN} characters`);
  }

  const service = createWorkbenchService({ host: 'browser', version: await packageVersion(), env: io.env, evals: createEvalsPort() });
  const router = new Router(service, {
    redact: service.redact,
    onInternalError: (method, error) => say(io, service.redact(`skillbench serve: internal error in ${method}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)),
  });
  try {
    const opened = await service.openWorkspace(workspaceDir);
    say(io, `skillbench serve: workspace ${opened.root} (${opened.entries.filter((e) => e.skill).length} packages${opened.polling ? ', polled for changes' : ''})`);
  } catch (error) {
    await service.close();
    say(io, `skillbench serve: ${error instanceof Error ? error.message : String(error)}`);
    return error instanceof WorkbenchError && error.code === 'not_found' ? EXIT.notFound : EXIT.usage;
  }
  let web;
  try {
    web = await startWebHost({ router, host, port, staticDir: rendererDir(), log: (line) => say(io, line), ...(apiToken !== undefined && { apiToken }), ...(stallMs !== undefined && { socketLimits: { stallMs } }) });
  } catch (error) {
    await service.close();
    const code = (error as { code?: unknown } | null)?.code;
    const why = code === 'EADDRINUSE' ? 'the port is already in use' : code === 'EACCES' ? 'permission denied' : code === 'EADDRNOTAVAIL' ? 'no such address on this machine' : String((error as Error).message);
    say(io, `skillbench serve: cannot listen on ${host}:${port}: ${why}`);
    return EXIT.unavailable;
  }
  const signals = untilSignal(() => void web.close());
  // The address is the user's key to this launch: printed whole on stdout (never to a log), masked on stderr.
  (io.verbatimStdout ?? io.stdout).write(`${web.url}\n`);
  if (!isLoopbackHost(host)) {
    const origins = web.networkOrigins();
    const shown = origins.length > 4 ? `${origins.slice(0, 4).join(', ')} and ${origins.length - 4} more` : origins.join(', ');
    say(io, `skillbench serve: warning: ${host} is not a loopback address: the workbench also answers at ${shown || 'this address'}, to anyone on your network who opens a sign-in address or holds a session`);
  }
  say(io, `skillbench serve: the workbench is at ${web.url} (Ctrl-C stops)`);
  if (values.open) {
    const opened = await openBrowser(web.url, io.env);
    if (!opened.ok) say(io, `skillbench serve: could not open a browser (${opened.why}): open the address above yourself`);
  }
  const signal = await signals.done;
  say(io, `skillbench serve: ${signal} received, stopping`);
  await web.close();
  await service.close();
  signals.dispose();
  return EXIT.ok;
}

/** The `serve` command. */
export const command: Command = { summary: 'Serve the workbench UI and its API to a browser', usage, run };
