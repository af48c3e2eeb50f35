/**
 * The Redis store's client: ioredis options for a standalone server, a Sentinel
 * set or a Cluster, built from a parsed connection URL; the store's Lua scripts
 * registered as commands; and a connect that resolves once the client is ready or
 * fails with a mapped store error. The store (`redis.ts`) only issues commands.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis, type ClusterOptions, type NatMap, type RedisOptions } from 'ioredis';
import { StoreError } from './errors';
import { toStoreError } from './redisErrors';
import { DELETE_LUA, HISTORY_LUA, IDEMPOTENCY_AUDITED_LUA, PUBLISH_LUA, READ_REVISION_LUA } from './redisScripts';
import type { RedisConnectionConfig } from './redisUrl';
import { plainRedisOnTlsPort } from './redisTlsProbe';

/** How the client connects; values given here win over URL options only where noted. */
export interface RedisClientOptions {
  /** Extra TLS options (e.g. `ca`, `cert`, `key`) for `rediss…` URLs, merged over `?ca=` / `?servername=`. */
  tls?: ConnectionOptions;
  /** Credentials of the Sentinel processes themselves (the URL's user:pass are the master's). */
  sentinels?: { username?: string; password?: string; tls?: boolean };
  /** Cluster options: address translation for nodes announced under other addresses. */
  cluster?: { natMap?: NatMap };
  /** TCP connect timeout in ms (default 5000; URL `connect_timeout`). */
  connectTimeoutMs?: number;
  /** Per-command timeout in ms (default 5000; URL `command_timeout`). */
  commandTimeoutMs?: number;
  /** Alias of `commandTimeoutMs` used by `openStore` (core/store/connect.ts). */
  timeoutMs?: number;
  /** Base of a relative `?ca=` path (default: the process's working directory). */
  cwd?: string;
}

/** A connected client: one server (standalone or the Sentinel set's master) or a Cluster. */
export type RedisClient = Redis | Cluster;

type Reply = unknown;

/** Script commands registered with ioredis `defineCommand` (EVALSHA, EVAL on NOSCRIPT). */
export interface ScriptCommands {
  skillPublish(...args: (string | number)[]): Promise<Reply>;
  skillDelete(...args: (string | number)[]): Promise<Reply>;
  skillReadRevision(...args: (string | number)[]): Promise<Reply>;
  skillHistory(...args: (string | number)[]): Promise<Reply>;
  skillIdempotencyAudited(...args: (string | number)[]): Promise<Reply>;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
const DEFAULT_COMMAND_TIMEOUT_MS = 5_000;

function defineScripts(client: RedisClient): void {
  client.defineCommand('skillPublish', { numberOfKeys: 4, lua: PUBLISH_LUA });
  client.defineCommand('skillDelete', { numberOfKeys: 2, lua: DELETE_LUA });
  client.defineCommand('skillReadRevision', { numberOfKeys: 2, lua: READ_REVISION_LUA });
  client.defineCommand('skillHistory', { numberOfKeys: 3, lua: HISTORY_LUA });
  client.defineCommand('skillIdempotencyAudited', { numberOfKeys: 1, lua: IDEMPOTENCY_AUDITED_LUA });
}

function tlsOptions(config: RedisConnectionConfig, options: RedisClientOptions): ConnectionOptions | undefined {
  const extra = options.tls;
  if (!config.tls) {
    if (extra) throw new StoreError('invalid_request', `TLS options need a rediss URL, got ${config.redacted}`);
    return undefined;
  }
  const tls: ConnectionOptions = {};
  if (config.caFile !== undefined) {
    try {
      tls.ca = readFileSync(resolve(options.cwd ?? process.cwd(), config.caFile));
    } catch (error) {
      throw new StoreError('invalid_request', `cannot read the CA file '${config.caFile}' of ${config.redacted}: ${(error as Error).message}`);
    }
  }
  if (config.servername !== undefined) tls.servername = config.servername;
  return { ...tls, ...extra };
}

function createClient(config: RedisConnectionConfig, options: RedisClientOptions, state: { ready: boolean }): RedisClient {
  const connectTimeout = options.connectTimeoutMs ?? config.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const commandTimeout = options.commandTimeoutMs ?? options.timeoutMs ?? config.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  // Fail the first connection at once (the caller gets a clear error); reconnect with back-off later.
  const retry = (times: number): number | null => (state.ready ? Math.min(50 * 2 ** Math.min(times, 6), 2_000) : null);
  const tls = tlsOptions(config, options);
  const common: RedisOptions = {
    db: 0,
    connectTimeout,
    commandTimeout,
    // A request in flight when the connection drops, or waiting through a failed
    // reconnect, fails at once with 503 instead of hanging until the command timeout.
    maxRetriesPerRequest: 0,
    // A mutation whose reply was lost must not be sent twice behind the caller's back.
    autoResendUnfulfilledCommands: false,
    enableReadyCheck: true,
  };
  if (config.username !== undefined) common.username = config.username;
  if (config.password !== undefined) common.password = config.password;
  if (tls) common.tls = tls;

  if (config.topology === 'cluster') {
    const clusterOptions: ClusterOptions = {
      lazyConnect: true,
      redisOptions: common,
      clusterRetryStrategy: retry,
      slotsRefreshTimeout: connectTimeout,
      enableReadyCheck: true,
    };
    if (options.cluster?.natMap) clusterOptions.natMap = options.cluster.natMap;
    return new Cluster(config.hosts, clusterOptions);
  }
  const redisOptions: RedisOptions = { ...common, lazyConnect: true, retryStrategy: retry };
  if (config.topology === 'sentinel') {
    redisOptions.sentinels = config.hosts;
    redisOptions.name = config.masterName ?? '';
    redisOptions.sentinelRetryStrategy = retry;
    if (options.sentinels?.username !== undefined) redisOptions.sentinelUsername = options.sentinels.username;
    if (options.sentinels?.password !== undefined) redisOptions.sentinelPassword = options.sentinels.password;
    if (options.sentinels?.tls) redisOptions.enableTLSForSentinelMode = true;
    if (tls) redisOptions.sentinelTLS = tls;
  } else {
    const [node] = config.hosts;
    redisOptions.host = node?.host ?? '127.0.0.1';
    redisOptions.port = node?.port ?? 6379;
  }
  return new Redis(redisOptions);
}

/** Resolves once the client is ready; rejects with a mapped error on its first `error` or `end`. */
function waitReady(client: RedisClient, config: RedisConnectionConfig, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let lastError: unknown;
    let settled = false;
    const finish = (error?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('error', onError);
      client.off('end', onEnd);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onReady = () => finish();
    const onError = (error: unknown) => {
      lastError = error;
      finish(toStoreError(error, config.redacted, 'connecting'));
    };
    const onEnd = () =>
      finish(
        lastError === undefined
          ? new StoreError('unavailable', `cannot connect to Redis at ${config.redacted}: the connection closed`)
          : toStoreError(lastError, config.redacted, 'connecting'),
      );
    const timer = setTimeout(
      () => finish(new StoreError('timeout', `Redis at ${config.redacted} was not ready within ${timeoutMs} ms`)),
      timeoutMs,
    );
    client.on('ready', onReady);
    client.on('error', onError);
    client.on('end', onEnd);
    client.connect().catch(onError);
  });
}

/**
 * A standalone client pointed at one node of a Redis Cluster reaches only the
 * slots that node serves (a deployment on another node answers MOVED), so it is
 * refused at connect with the URL that works. A server that does not answer
 * `INFO cluster` (the command renamed or denied) is not judged by it.
 */
async function refuseClusterNode(client: Redis, config: RedisConnectionConfig): Promise<void> {
  let info: string;
  try {
    info = await client.info('cluster');
  } catch {
    return;
  }
  if (!/^cluster_enabled:1\s*$/m.test(info)) return;
  const scheme = config.tls ? 'rediss+cluster' : 'redis+cluster';
  throw new StoreError(
    'invalid_request',
    `Redis at ${config.redacted} is a node of a Redis Cluster: connect with ${scheme}://host:port (any of its nodes, or several separated by commas), so the client follows the cluster's slots; a standalone connection reaches only this node's`,
    { details: { reason: 'cluster_node' } },
  );
}

/** The servers that hold data: every master of a Cluster, or the one server. */
export function masterNodes(client: RedisClient): Redis[] {
  return client instanceof Cluster ? client.nodes('master') : [client];
}

/**
 * Connects a client for `config` and resolves once it is ready, with the store's
 * scripts registered. The first connection fails at once with a mapped error (503
 * `unavailable`, 401 `unauthorized`, 504 `timeout`, or a plain-Redis-on-a-TLS-port
 * hint); once ready, a dropped connection is retried with back-off.
 */
export async function connectRedisClient(config: RedisConnectionConfig, options: RedisClientOptions): Promise<RedisClient> {
  const state = { ready: false };
  const client = createClient(config, options, state);
  // ioredis emits 'error' on every failed reconnect; without a listener it would print.
  const ignore = () => undefined;
  client.on('error', ignore);
  defineScripts(client);
  const connectTimeout = options.connectTimeoutMs ?? config.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  try {
    const ready = waitReady(client, config, connectTimeout * 2);
    await Promise.race([ready, plainRedisOnTlsPort(config, ready, connectTimeout)]);
    if (config.topology === 'standalone') await refuseClusterNode(client as Redis, config);
  } catch (error) {
    client.disconnect();
    throw error;
  }
  state.ready = true;
  return client;
}
