/**
 * `skillbench registry serve`: the V1 admin API over any store, for curl sessions,
 * CI and other V1 clients. Thin: parse, open the store, mount core/admin, wait for
 * a signal, stop.
 */
import { createAdminHandler } from '../../core/admin/handler';
import {
  bearerTokenAuthenticator,
  createAdminServer,
  isLoopbackHost,
  listenerUrl,
  loopbackHostNames,
  stopServer,
} from '../../core/admin/server';
import type { AdminLogger } from '../../core/admin/types';
import { closeSharedDispatcher } from '../../core/models/index';
import { ADMIN_BASE_PATH } from '../../core/store/httpWire';
import type { SkillStore } from '../../core/store/types';
import { checkAdvisorFlags, openAdvisor, type AdvisorFlags, type OpenAdvisor } from '../advisor';
import { parse } from '../args';
import { EXIT, UsageError } from '../exit';
import { type CliIo, jsonFormat, say } from '../io';
import type { Command } from '../main';
import { untilSignal } from '../signals';
import { guardingProfileOf, openCliStore, reportFailure } from '../store';
import { access, constants } from 'node:fs/promises';
import { resolve } from 'node:path';
import { checkApprovalPatterns } from '../../core/admin/approval';
import { normalizeBaseUrl } from '../../core/connections/identity';
import { ConnectionManager, isProfileName } from '../../core/connections/manager';
import { requiresApproval } from '../../core/connections/open';
import { WorkbenchError } from '../../core/errors';
import { appDataDir } from '../../core/store/connect';

const DEFAULT_PORT = 8787;

const usage = `Usage: skillbench registry serve [--store CONN] [--host ADDR] [--port N]
                                [--token T | --token-env NAME] [--advisor MODEL] [--json]
                                [--require-approval NS_GLOB... --allowed-signers FILE [--registry-url URL]]

Serves the V1 admin API (${ADMIN_BASE_PATH}) over a store. The first line on
stdout is the base URL (with --json: {"url", "store"}); requests are logged on
stderr without bodies or credentials. SIGINT or SIGTERM stops the server, then
closes the store, and exits 0.

  --store CONN      local:DIR, redis://..., http(s)://.../api/v1/skills
                    (default: the local registry in the app-data folder)
  --host ADDR       address to bind (default 127.0.0.1). A loopback listener
                    only answers requests addressed to a loopback host name.
  --port N          port to bind (default ${DEFAULT_PORT}; 0 picks a free port)
  --token T         require Authorization: Bearer T (visible in the process list:
                    prefer --token-env)
  --token-env NAME  read the token from the environment variable NAME
  --json            print {"url", "store"} as the first line instead of the URL

  --require-approval NS_GLOB  refuse a publish or delete of a matching skill (403
                    approval_required) unless it carries a signed approval
                    (X-Skillbench-Approval, see docs/admin-api.md) that verifies
                    against --allowed-signers, is not the author's own, and binds
                    the skill, the If-Match ETag, the body's SHA-256 and this
                    host. NS_GLOB is a namespace (travel), a glob (prod-*, *) or
                    namespace/name (travel/currency-*); repeat it for several
  --allowed-signers FILE      this host's allowed-signers file (git's
                    gpg.ssh.allowedSignersFile format); never a client's
  --registry-url URL          the base URL clients reach this host at, which their
                    approvals name (default: the URL printed at start)

  --advisor MODEL                   serve POST .../{namespace}/{name}/analyze with the
                                    default authoring advisor on MODEL (guide 5.3;
                                    without it the route does not exist)
  --advisor-reasoning-effort E      low (default), medium, high or none
  --advisor-guidance-file F         additional advisor guidance (at most 4,096 bytes
                                    and 512 estimated tokens)
  --advisor-max-output-tokens N     output ceiling of one advisor call (default 1024)
  --advisor-timeout MS              per-attempt model timeout (default 120000)`;

function portArg(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PORT;
  if (!/^[0-9]{1,5}$/.test(value) || Number(value) > 65535) throw new UsageError(`--port must be 0..65535, got '${value}'`);
  return Number(value);
}

function tokenArg(values: { token?: string; 'token-env'?: string }, io: CliIo): string | undefined {
  if (values.token !== undefined && values['token-env'] !== undefined) {
    throw new UsageError('use either --token or --token-env, not both');
  }
  if (values.token !== undefined) {
    if (values.token.length === 0) throw new UsageError('--token must not be empty');
    return values.token;
  }
  const name = values['token-env'];
  if (name === undefined) return undefined;
  const token = io.env[name];
  if (token === undefined || token.length === 0) throw new UsageError(`--token-env ${name}: the environment variable is unset or empty`);
  return token;
}

function advisorFlagsOf(values: Record<string, string | boolean | undefined>): AdvisorFlags | undefined {
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const model = text('advisor');
  const others = ['advisor-reasoning-effort', 'advisor-guidance-file', 'advisor-max-output-tokens', 'advisor-timeout'].filter((f) => text(f) !== undefined);
  if (model === undefined) {
    if (others.length > 0) throw new UsageError(`--${others[0]} needs --advisor MODEL`);
    return undefined;
  }
  const flags: AdvisorFlags = { model };
  const reasoningEffort = text('advisor-reasoning-effort');
  const guidanceFile = text('advisor-guidance-file');
  const maxOutputTokens = text('advisor-max-output-tokens');
  const timeout = text('advisor-timeout');
  if (reasoningEffort !== undefined) flags.reasoningEffort = reasoningEffort;
  if (guidanceFile !== undefined) flags.guidanceFile = guidanceFile;
  if (maxOutputTokens !== undefined) flags.maxOutputTokens = maxOutputTokens;
  if (timeout !== undefined) flags.timeout = timeout;
  checkAdvisorFlags(flags, 'advisor-');
  return flags;
}

function stderrLogger(io: CliIo): AdminLogger {
  return {
    request: (e) => say(io, `${e.method} ${e.route} ${e.status} ${e.duration_ms}ms${e.code ? ` ${e.code}` : ''}`),
    diagnostic: (code, message) => say(io, `diagnostic ${code}: ${message}`),
  };
}


async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    store: { type: 'string' },
    host: { type: 'string' },
    port: { type: 'string' },
    token: { type: 'string' },
    'token-env': { type: 'string' },
    json: { type: 'boolean' },
    advisor: { type: 'string' },
    'advisor-reasoning-effort': { type: 'string' },
    'advisor-guidance-file': { type: 'string' },
    'advisor-max-output-tokens': { type: 'string' },
    'advisor-timeout': { type: 'string' },
    'require-approval': { type: 'string', multiple: true },
    'allowed-signers': { type: 'string' },
    'registry-url': { type: 'string' },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const patterns = values['require-approval'] ?? [];
  if (patterns.length > 0 && values['allowed-signers'] === undefined) throw new UsageError('--require-approval needs --allowed-signers FILE: the keys whose approvals this host accepts');
  if (patterns.length === 0 && (values['allowed-signers'] !== undefined || values['registry-url'] !== undefined)) throw new UsageError('--allowed-signers and --registry-url go with --require-approval');
  try {
    checkApprovalPatterns(patterns);
  } catch (error) {
    throw new UsageError(`--require-approval: ${(error as Error).message}`);
  }
  let registryUrl: string | undefined;
  if (values['registry-url'] !== undefined) {
    try {
      registryUrl = normalizeBaseUrl(values['registry-url']);
    } catch {
      throw new UsageError(`--registry-url '${values['registry-url']}' is not a URL`);
    }
  }
  const allowedSigners = values['allowed-signers'] === undefined ? undefined : resolve(io.cwd, values['allowed-signers']);
  if (allowedSigners !== undefined) {
    try {
      await access(allowedSigners, constants.R_OK);
    } catch {
      throw new UsageError(`--allowed-signers ${values['allowed-signers']}: the file cannot be read`);
    }
  }
  const advisorFlags = advisorFlagsOf({ ...values, 'require-approval': undefined });
  const host = values.host ?? '127.0.0.1';
  if (host.trim().length === 0) throw new UsageError('--host must not be empty');
  const port = portArg(values.port);
  const token = tokenArg(values, io);
  const json = values.json === true;
  const loopback = isLoopbackHost(host);

  let advisor: OpenAdvisor | undefined;
  if (advisorFlags) advisor = await openAdvisor(advisorFlags, io, 'advisor-');
  let store: SkillStore;
  try {
    // A protected store is served only by a host that enforces approvals: the host is then the control.
    const guard = values.store !== undefined && isProfileName(values.store.trim()) ? await new ConnectionManager({ dataDir: appDataDir(io.env), env: io.env }).get(values.store.trim()) : await guardingProfileOf(values.store, io);
    if (guard && requiresApproval(guard) && patterns.length === 0) {
      throw new WorkbenchError('forbidden', `${values.store ?? 'the default registry'} is the store of the protected connection '${guard.name}': serve it with --require-approval NS_GLOB --allowed-signers FILE, or not at all`, {
        details: { reason: 'protected', connection: guard.name },
      });
    }
    // The host accepts publications: it may create the registry it serves.
    store = await openCliStore(values.store, io, { create: true, asHost: patterns.length > 0 });
  } catch (error) {
    await advisor?.close();
    return reportFailure(io, 'registry serve', error, { json });
  }

  let actualPort = port;
  const handler = createAdminHandler({
    store,
    ...(allowedSigners !== undefined && {
      approval: { patterns, allowedSigners, env: io.env, registry: () => registryUrl ?? normalizeBaseUrl(listenerUrl(host, actualPort, ADMIN_BASE_PATH)) },
    }),
    logger: stderrLogger(io),
    ...(token !== undefined ? { authenticate: bearerTokenAuthenticator(token) } : {}),
    ...(loopback ? { allowedHosts: loopbackHostNames(host) } : {}),
    ...(advisor && { advisor: advisor.advisor }),
  });
  const server = createAdminServer(handler);
  const signals = untilSignal(() => server.closeAllConnections());
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host.replace(/^\[(.*)\]$/, '$1'), () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    signals.dispose();
    await store.close();
    await advisor?.close();
    const code = (error as { code?: unknown } | null)?.code;
    const why = code === 'EADDRINUSE' ? 'the port is already in use' : code === 'EACCES' ? 'permission denied' : String((error as Error).message);
    say(io, `skillbench registry serve: cannot listen on ${host}:${port}: ${why}`);
    return EXIT.unavailable;
  }
  const address = server.address();
  actualPort = typeof address === 'object' && address ? address.port : port;
  const url = listenerUrl(host, actualPort, ADMIN_BASE_PATH);
  if (json) io.stdout.write(`${JSON.stringify({ format: jsonFormat('registry-serve'), url, store: store.description })}\n`);
  else io.stdout.write(`${url}\n`);
  if (!loopback && token === undefined) {
    say(io, `skillbench registry serve: warning: ${host} is not a loopback address and no token is set: anyone who can reach it can publish and delete`);
  }
  say(io, `skillbench registry serve: serving ${store.description} at ${url}${token !== undefined ? ' (bearer token required)' : ''}; Ctrl-C stops`);
  if (patterns.length > 0) {
    say(io, `skillbench registry serve: publishes and deletes of ${patterns.join(', ')} need an approval signed by a key of ${values['allowed-signers']} other than the author's, for ${registryUrl ?? url}`);
  }
  if (advisor) say(io, `skillbench registry serve: POST ${ADMIN_BASE_PATH}/{namespace}/{name}/analyze answers with the authoring advisor on ${advisor.model.spec}`);

  const signal = await signals.done;
  say(io, `skillbench registry serve: ${signal} received, stopping`);
  await stopServer(server);
  signals.dispose();
  await store.close();
  await advisor?.close();
  await closeSharedDispatcher();
  return EXIT.ok;
}

/** The `registry serve` command. */
export const command: Command = { summary: 'Serve the V1 admin API over a store', usage, run };
