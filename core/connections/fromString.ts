/**
 * A connection string (`local:DIR`, `redis://…` in any topology, `http(s)://…`)
 * as the target of a saved profile, for `skillbench connection add`: the same
 * strings `--from`/`--to` take, so a connection that works typed out can be
 * saved under a name. A password in a Redis URL's user-info becomes the
 * profile's secret; it never enters the profile.
 *
 * Node-only: resolves a relative folder against the caller's working directory.
 */
import { resolve } from 'node:path';
import type { ConnectionTarget } from './types';
import { StoreError } from '../store/errors';
import { redactConnection } from '../store/connect';
import { parseRedisUrl } from '../store/redisUrl';
import type { ProfileSecrets } from './secrets';

/** A profile target with the secrets the string carried. */
export interface ParsedConnection {
  target: ConnectionTarget;
  secrets: ProfileSecrets;
}

/**
 * Turns a connection string into a profile target. Relative folders (a
 * `local:` registry, a Redis CA file) resolve against `cwd`, since a profile
 * outlives the folder it was made in. Throws `invalid_request` for an unknown
 * scheme or a malformed URL, naming it without its password.
 */
export function connectionTarget(text: string, cwd: string): ParsedConnection {
  const connection = text.trim();
  if (connection.startsWith('local:')) {
    const dir = connection.slice('local:'.length);
    if (dir.length === 0) throw new StoreError('invalid_request', "connection 'local:' needs a folder, e.g. local:./registry");
    return { target: { kind: 'local', dir: resolve(cwd, dir) }, secrets: {} };
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(connection)?.[1]?.toLowerCase();
  if (scheme !== undefined && /^rediss?(\+(sentinel|cluster))?$/.test(scheme)) {
    const c = parseRedisUrl(connection);
    const tls = c.tls ? { ...(c.caFile !== undefined && { ca_file: resolve(cwd, c.caFile) }), ...(c.servername !== undefined && { servername: c.servername }) } : undefined;
    return {
      target: {
        kind: 'redis',
        topology: c.topology,
        hosts: c.hosts.map((h) => ({ host: h.host, port: h.port })),
        ...(c.masterName !== undefined && { master_name: c.masterName }),
        ...(c.username !== undefined && { username: c.username }),
        deployment: c.deployment,
        ...(tls && { tls }),
        ...(c.connectTimeoutMs !== undefined && { connect_timeout_ms: c.connectTimeoutMs }),
        ...(c.commandTimeoutMs !== undefined && { command_timeout_ms: c.commandTimeoutMs }),
      },
      secrets: c.password !== undefined ? { password: c.password } : {},
    };
  }
  if (scheme === 'http' || scheme === 'https') {
    let url: URL;
    try {
      url = new URL(connection);
    } catch {
      throw new StoreError('invalid_request', `'${redactConnection(connection)}' is not a URL`);
    }
    if (url.username || url.password) {
      throw new StoreError('invalid_request', 'an admin API URL must not carry a user name or password: pass the token with --token-env NAME');
    }
    return { target: { kind: 'http', url: connection, auth: 'none' }, secrets: {} };
  }
  throw new StoreError('invalid_request', `unsupported connection '${redactConnection(connection)}': use local:<dir>, redis://host:port, rediss://…, redis+sentinel://…, redis+cluster://…, http(s)://host/api/v1/skills`);
}
