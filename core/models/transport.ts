/**
 * The HTTP transport of every hosted provider: undici's `fetch` over one shared
 * dispatcher, so connections are pooled and kept alive across providers, calls
 * and clients, with bounded connect/headers/body timeouts, an optional proxy and
 * an optional extra certificate authority.
 */
import { rootCertificates } from 'node:tls';
import { Agent, EnvHttpProxyAgent, ProxyAgent, fetch as undiciFetch, type Dispatcher } from 'undici';

/** Transport settings; every field is optional. */
export interface TransportOptions {
  /** TCP + TLS connect timeout (default 10 s). */
  connectTimeoutMs?: number;
  /** Time to the response headers (default 120 s; the per-attempt timeout is usually shorter). */
  headersTimeoutMs?: number;
  /** Idle time between body chunks (default 120 s). */
  bodyTimeoutMs?: number;
  /** How long an idle pooled connection is kept (default 30 s). */
  keepAliveTimeoutMs?: number;
  /** Proxy for every request, e.g. `http://proxy:3128` (may carry credentials; never logged). */
  proxyUrl?: string;
  /** Extra trusted CA certificates (PEM), added to the system roots, e.g. for a TLS-inspecting proxy. */
  ca?: string | string[];
}

/** A `fetch` with the signature the AI SDK providers take. */
export type FetchFunction = typeof globalThis.fetch;

/**
 * Creates a dispatcher. Without `proxyUrl`, the standard proxy variables of
 * `env` (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`, any case) are honoured.
 */
export function createDispatcher(
  options: TransportOptions = {},
  env: Readonly<Record<string, string | undefined>> = process.env,
): Dispatcher {
  const ca = options.ca === undefined ? undefined : [...rootCertificates, ...(Array.isArray(options.ca) ? options.ca : [options.ca])];
  const connect = { timeout: options.connectTimeoutMs ?? 10_000, ...(ca && { ca }) };
  const common = {
    connect,
    headersTimeout: options.headersTimeoutMs ?? 120_000,
    bodyTimeout: options.bodyTimeoutMs ?? 120_000,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000,
    keepAliveMaxTimeout: Math.max(options.keepAliveTimeoutMs ?? 30_000, 60_000),
  };
  if (options.proxyUrl) {
    return new ProxyAgent({ ...common, uri: options.proxyUrl, ...(ca && { requestTls: { ca }, proxyTls: { ca } }) });
  }
  const httpsProxy = env['HTTPS_PROXY'] ?? env['https_proxy'];
  const httpProxy = env['HTTP_PROXY'] ?? env['http_proxy'];
  if (httpsProxy || httpProxy) {
    const noProxy = env['NO_PROXY'] ?? env['no_proxy'];
    return new EnvHttpProxyAgent({
      ...common,
      ...(httpProxy && { httpProxy }),
      ...(httpsProxy && { httpsProxy }),
      ...(noProxy !== undefined && { noProxy }),
      ...(ca && { requestTls: { ca }, proxyTls: { ca } }),
    });
  }
  return new Agent(common);
}

let shared: Dispatcher | undefined;

/** The process-wide dispatcher (created on first use from `process.env`). */
export function sharedDispatcher(): Dispatcher {
  shared ??= createDispatcher();
  return shared;
}

/** Closes the process-wide dispatcher, e.g. before the CLI exits; the next call creates a fresh one. */
export async function closeSharedDispatcher(): Promise<void> {
  const current = shared;
  shared = undefined;
  await current?.close();
}

/** A `fetch` that sends through `dispatcher`. */
export function fetchVia(dispatcher: Dispatcher): FetchFunction {
  const viaDispatcher = (input: Parameters<FetchFunction>[0], init?: RequestInit) =>
    undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher });
  // undici's Request/Response types are structurally the platform's, declared separately.
  return viaDispatcher as unknown as FetchFunction;
}
