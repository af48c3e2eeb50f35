/**
 * Connection strings (ARCHITECTURE.md section 3): `local:<dir>`, `redis://…` /
 * `rediss://…` (also `redis+sentinel://…`, `redis+cluster://…`) and `http://…` /
 * `https://…`. Adapters other than the embedded
 * registry load lazily so a local command never pays for ioredis or undici.
 */
import { homedir } from 'node:os';
import { join, resolve, win32 } from 'node:path';
import type { SkillAuthoringLimits } from '../package/types';
import { StoreError } from './errors';
import { openLocalStore } from './local';
import type { AuditSink, SkillAdministrationLimits, SkillStore } from './types';

/** Options every adapter understands; adapters ignore what does not apply to them. */
export interface OpenStoreOptions {
  limits?: Partial<SkillAuthoringLimits>;
  adminLimits?: Partial<SkillAdministrationLimits>;
  audit?: AuditSink;
  /** Base of a relative `local:` path (default: the process's working directory). */
  cwd?: string;
  /** The command's environment (default `process.env`): the admin API adapter reads its token from it. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Request or command timeout of network adapters, in milliseconds. */
  timeoutMs?: number;
  /**
   * Whether a `local:` connection may create its registry (default true). Read
   * paths pass false: a missing registry is then `not_found` and nothing is created.
   */
  create?: boolean;
}

/**
 * Opens the store a connection string names. `local:DIR` resolves DIR against
 * `options.cwd`. Unknown schemes and malformed strings are 400 `invalid_request`.
 */
export async function openStore(connection: string, options: OpenStoreOptions = {}): Promise<SkillStore> {
  const text = connection.trim();
  if (text.startsWith('local:')) {
    const dir = text.slice('local:'.length);
    if (dir.length === 0) throw new StoreError('invalid_request', "connection 'local:' needs a folder, e.g. local:./registry");
    const local: Parameters<typeof openLocalStore>[1] = {};
    if (options.limits) local.limits = options.limits;
    if (options.adminLimits) local.adminLimits = options.adminLimits;
    if (options.audit) local.audit = options.audit;
    if (options.create !== undefined) local.create = options.create;
    return openLocalStore(resolve(options.cwd ?? process.cwd(), dir), local);
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
  // Adapters load on demand so a local-only command never pays for ioredis or undici.
  if (scheme !== undefined && /^rediss?(\+(sentinel|cluster))?$/.test(scheme)) {
    const { openRedisStore } = await import('./redis');
    return openRedisStore(text, options);
  }
  if (scheme === 'http' || scheme === 'https') {
    const { openHttpStore } = await import('./http');
    const { limits, timeoutMs, env } = options;
    return openHttpStore(text, { ...(limits && { limits }), ...(timeoutMs !== undefined && { timeoutMs }), ...(env && { env }) });
  }
  throw new StoreError(
    'invalid_request',
    `unsupported connection '${redactConnection(text)}': use local:<dir>, redis://host:port, rediss://…, http(s)://host/api/v1/skills`,
  );
}

/**
 * The per-user app-data folder: `$SKILLBENCH_HOME` when set, else the platform's
 * convention (XDG on Linux, Application Support on macOS, %APPDATA% on Windows).
 */
export function appDataDir(
  env: Record<string, string | undefined> = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  const explicit = env['SKILLBENCH_HOME'];
  if (explicit) return explicit;
  if (platform === 'win32') {
    return win32.join(env['APPDATA'] ?? win32.join(home, 'AppData', 'Roaming'), 'Skillbench');
  }
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'Skillbench');
  const xdg = env['XDG_DATA_HOME'];
  return join(xdg && xdg.startsWith('/') ? xdg : join(home, '.local', 'share'), 'skillbench');
}

/** The default connection: the embedded registry in the app-data folder. */
export function defaultConnection(
  env: Record<string, string | undefined> = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  const base = appDataDir(env, platform, home);
  return `local:${platform === 'win32' ? win32.join(base, 'registry') : join(base, 'registry')}`;
}

const SECRET_PARAM = /^(pass(word)?|pwd|token|secret|api[-_]?key|key|auth(orization)?|access[-_]?token|sentinel[-_]?password)$/i;

/**
 * A connection string safe to display: passwords in the user-info part and
 * secret-looking query parameters become `***`. Usernames and hosts stay.
 */
export function redactConnection(connection: string): string {
  if (connection.startsWith('local:')) return connection;
  let url: URL;
  try {
    url = new URL(connection);
  } catch {
    // Not a URL: still hide anything that looks like user-info.
    return connection.replace(/\/\/[^/@]*@/, '//***@');
  }
  if (url.password) url.password = '***';
  else if (url.username && !url.password && /^rediss?(\+(sentinel|cluster))?:$/.test(url.protocol)) {
    // `redis://secret@host` passes the password alone as the user-info.
    url.username = '***';
  }
  for (const key of [...url.searchParams.keys()]) {
    if (SECRET_PARAM.test(key)) url.searchParams.set(key, '***');
  }
  return url.toString().replace(/%2A%2A%2A/g, '***');
}
