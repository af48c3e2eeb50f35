/**
 * Redis/Valkey connection strings of the redis store (docs/redis-layout.md):
 *
 * - standalone: `redis://[user:pass@]host:port[/0][?options]`
 * - TLS:        `rediss://...` (also `rediss+sentinel://`, `rediss+cluster://`)
 * - Sentinel:   `redis+sentinel://[user:pass@]host1:port1,host2:port2/MASTER[/0][?options]`
 * - Cluster:    `redis+cluster://[user:pass@]host1:port1,host2:port2[/0][?options]`
 *
 * Options: `deployment` (slug, default `default`), `connect_timeout` and
 * `command_timeout` (milliseconds), and with TLS `ca` (PEM file) and `servername`.
 * Unknown or repeated options are rejected so a typo never silently changes the
 * keyspace. Only DB 0 is accepted: the guide's adapter keeps every role in DB 0,
 * and Redis Cluster has no other database.
 *
 * Pure string handling: no I/O, so the parser is unit-tested without a server.
 */
import { StoreError } from './errors';

/** Topology selected by the URL scheme. */
export type RedisTopology = 'standalone' | 'sentinel' | 'cluster';

/** One `host:port` of a URL. */
export interface RedisHostPort {
  host: string;
  port: number;
}

/** A parsed connection string. Holds the password: never log or print it; use {@link redactRedisUrl}. */
export interface RedisConnectionConfig {
  topology: RedisTopology;
  tls: boolean;
  /** One node for standalone; the seed nodes (cluster) or sentinels (sentinel). */
  hosts: RedisHostPort[];
  /** Sentinel master group name. */
  masterName?: string;
  username?: string;
  password?: string;
  /** Key namespace of the deployment (a slug). */
  deployment: string;
  connectTimeoutMs?: number;
  commandTimeoutMs?: number;
  /** Path of a PEM file with the CA to trust (TLS only). */
  caFile?: string;
  /** TLS server name (SNI and certificate check) when it differs from the host. */
  servername?: string;
  /** The URL with the password replaced by `***`: safe for messages and logs. */
  redacted: string;
}

/** Default deployment namespace (guide section 17: "the default deployment is default"). */
export const DEFAULT_DEPLOYMENT = 'default';

/** Longest accepted deployment namespace. */
export const MAX_DEPLOYMENT_CHARS = 64;

const DEPLOYMENT = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

const SCHEMES: Record<string, { topology: RedisTopology; tls: boolean }> = {
  redis: { topology: 'standalone', tls: false },
  rediss: { topology: 'standalone', tls: true },
  'redis+sentinel': { topology: 'sentinel', tls: false },
  'rediss+sentinel': { topology: 'sentinel', tls: true },
  'redis+cluster': { topology: 'cluster', tls: false },
  'rediss+cluster': { topology: 'cluster', tls: true },
};

const OPTIONS = new Set(['deployment', 'connect_timeout', 'command_timeout', 'ca', 'servername']);

/** Throws 400 unless `name` is a valid deployment namespace (lowercase slug, at most 64 characters). */
export function checkDeployment(name: string): string {
  if (typeof name !== 'string' || name.length > MAX_DEPLOYMENT_CHARS || !DEPLOYMENT.test(name)) {
    throw new StoreError(
      'invalid_request',
      `invalid deployment ${JSON.stringify(name)}: use a lowercase slug of letters, digits and internal hyphens, at most ${MAX_DEPLOYMENT_CHARS} characters`,
    );
  }
  return name;
}

/**
 * Replaces the password of a connection string with `***` (and drops nothing
 * else), tolerating strings that do not parse. Use it for every message that
 * names a URL.
 */
export function redactRedisUrl(url: string): string {
  const schemeEnd = url.indexOf('://');
  if (schemeEnd < 0) return url.replace(/:[^:@/]*@/, ':***@');
  const authorityStart = schemeEnd + 3;
  const rest = url.slice(authorityStart);
  const pathStart = rest.search(/[/?#]/);
  const authority = pathStart < 0 ? rest : rest.slice(0, pathStart);
  // The last `@` ends the userinfo: a password may itself contain `@`.
  const at = authority.lastIndexOf('@');
  if (at < 0) return url;
  const userinfo = authority.slice(0, at);
  const colon = userinfo.indexOf(':');
  const safeUser = colon < 0 ? userinfo : `${userinfo.slice(0, colon)}:***`;
  return `${url.slice(0, authorityStart)}${safeUser}${rest.slice(at)}`;
}

function bad(url: string, message: string): StoreError {
  return new StoreError('invalid_request', `invalid Redis connection string ${redactRedisUrl(url)}: ${message}`);
}

function decode(url: string, part: string, what: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw bad(url, `${what} has a malformed %-escape`);
  }
}

function parseHostPort(url: string, text: string): RedisHostPort {
  let host: string;
  let portText: string | undefined;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) throw bad(url, `unterminated IPv6 address in '${text}'`);
    host = text.slice(1, close);
    const after = text.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) throw bad(url, `unexpected text after the IPv6 address in '${text}'`);
    portText = after === '' ? undefined : after.slice(1);
  } else {
    const colon = text.lastIndexOf(':');
    host = colon < 0 ? text : text.slice(0, colon);
    portText = colon < 0 ? undefined : text.slice(colon + 1);
    if (host.includes(':')) throw bad(url, `write IPv6 addresses in brackets, e.g. [::1]:6379`);
  }
  if (host === '' || /[\s/?#@,[\]]/.test(host)) throw bad(url, `invalid host '${host}'`);
  if (portText === undefined || portText === '') return { host, port: 6379 };
  if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) {
    throw bad(url, `invalid port '${portText}' (expected 1-65535)`);
  }
  return { host, port: Number(portText) };
}

function parseMs(url: string, name: string, value: string): number {
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1) throw bad(url, `${name} must be a positive number of milliseconds, got '${value}'`);
  return Number(value);
}

function checkDbSegment(url: string, segment: string): void {
  if (segment === '' || segment === '0') return;
  if (/^\d+$/.test(segment)) {
    throw bad(url, `database ${segment} is not supported: the skill store always uses DB 0 (remove '/${segment}')`);
  }
  throw bad(url, `unexpected path '/${segment}'`);
}

/**
 * Parses a connection string into a {@link RedisConnectionConfig}, or throws 400
 * `invalid_request` with a message that names the (redacted) URL and the problem.
 */
export function parseRedisUrl(url: string): RedisConnectionConfig {
  if (typeof url !== 'string') throw new StoreError('invalid_request', 'the Redis connection string must be a string');
  const match = /^([a-z+]+):\/\/([^/?#]*)(\/[^?#]*)?(\?[^#]*)?$/i.exec(url.trim());
  if (!match) {
    throw bad(url, 'expected redis://[user:pass@]host:port[/0][?deployment=NAME] (or rediss://, redis+sentinel://, redis+cluster://)');
  }
  const scheme = match[1]!.toLowerCase();
  const kind = SCHEMES[scheme];
  if (!kind) throw bad(url, `unknown scheme '${scheme}://' (use ${Object.keys(SCHEMES).map((s) => `${s}://`).join(', ')})`);
  const authority = match[2] ?? '';
  const path = match[3] ?? '';
  const query = match[4] ?? '';

  let username: string | undefined;
  let password: string | undefined;
  let hostsText = authority;
  const at = authority.lastIndexOf('@');
  if (at >= 0) {
    const userinfo = authority.slice(0, at);
    hostsText = authority.slice(at + 1);
    const colon = userinfo.indexOf(':');
    const user = decode(url, colon < 0 ? userinfo : userinfo.slice(0, colon), 'the user name');
    const pass = colon < 0 ? undefined : decode(url, userinfo.slice(colon + 1), 'the password');
    // `redis://:pass@host` is the classic requirepass form (no ACL user).
    if (user !== '') username = user;
    if (pass !== undefined && pass !== '') password = pass;
    if (colon < 0 && user !== '') {
      throw bad(url, "a user name needs a password ('user:pass@'); for a password alone write ':pass@'");
    }
  }
  if (hostsText === '') throw bad(url, 'missing host');
  const hostParts = hostsText.split(',');
  if (kind.topology === 'standalone' && hostParts.length > 1) {
    throw bad(url, 'several hosts need redis+sentinel:// or redis+cluster://');
  }
  const hosts = hostParts.map((part) => parseHostPort(url, part));

  const segments = path === '' ? [] : path.slice(1).split('/');
  let masterName: string | undefined;
  if (kind.topology === 'sentinel') {
    const [name, db, ...extra] = segments;
    if (name === undefined || name === '') throw bad(url, 'missing master name: redis+sentinel://host:port,.../MASTERNAME');
    masterName = decode(url, name, 'the master name');
    if (extra.length > 0) throw bad(url, `unexpected path '${path}'`);
    checkDbSegment(url, db ?? '');
  } else {
    const [db, ...extra] = segments;
    if (extra.length > 0) throw bad(url, `unexpected path '${path}'`);
    checkDbSegment(url, db ?? '');
  }

  const config: RedisConnectionConfig = {
    topology: kind.topology,
    tls: kind.tls,
    hosts,
    deployment: DEFAULT_DEPLOYMENT,
    redacted: redactRedisUrl(url.trim()),
  };
  if (masterName !== undefined) config.masterName = masterName;
  if (username !== undefined) config.username = username;
  if (password !== undefined) config.password = password;

  const seen = new Set<string>();
  for (const pair of query.replace(/^\?/, '').split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decode(url, eq < 0 ? pair : pair.slice(0, eq), 'an option name');
    const value = decode(url, eq < 0 ? '' : pair.slice(eq + 1).replace(/\+/g, ' '), `option '${name}'`);
    if (!OPTIONS.has(name)) throw bad(url, `unknown option '${name}' (known: ${[...OPTIONS].join(', ')})`);
    if (seen.has(name)) throw bad(url, `option '${name}' is repeated`);
    seen.add(name);
    switch (name) {
      case 'deployment':
        try {
          config.deployment = checkDeployment(value);
        } catch (error) {
          throw bad(url, (error as Error).message);
        }
        break;
      case 'connect_timeout':
        config.connectTimeoutMs = parseMs(url, name, value);
        break;
      case 'command_timeout':
        config.commandTimeoutMs = parseMs(url, name, value);
        break;
      case 'ca':
      case 'servername':
        if (!kind.tls) throw bad(url, `option '${name}' needs TLS (use the rediss scheme)`);
        if (value === '') throw bad(url, `option '${name}' needs a value`);
        if (name === 'ca') config.caFile = value;
        else config.servername = value;
        break;
    }
  }
  return config;
}
