/**
 * Which store a connection names, whatever way it is written: the identity a
 * review statement binds (so an approval for staging cannot be replayed on
 * production), and the saved profile a typed connection string stands for (so
 * typing `local:/srv/prod` instead of `prod` is no way around prod's guard).
 *
 * - An admin API host is its base URL: scheme, host (lower-case), port unless
 *   the default, and path without trailing slashes; never credentials or a query.
 * - A Redis store is its deployment on its nodes:
 *   `redis+<topology>://<host:port,… sorted>[/<master>]#<deployment>`. Two
 *   connections name the same deployment when topology and deployment agree
 *   and they share a node (a cluster or Sentinel set may be listed partly).
 * - An embedded registry is its folder after resolving symbolic links, on this
 *   machine: `local://<host name><real path>`. A path alone would name a
 *   different registry on every machine.
 *
 * Node-only: resolves paths on disk.
 */
import { readlink, realpath } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { ConnectionProfile, ConnectionTarget } from './types';
import { parseRedisUrl, type RedisHostPort } from '../store/redisUrl';

/** A store as identities compare it. */
export type StoreIdentity =
  | { kind: 'http'; url: string }
  | { kind: 'redis'; topology: string; hosts: string[]; master: string | undefined; deployment: string }
  | { kind: 'local'; host: string; dir: string };

/**
 * The real path of `dir`; for a folder that does not exist yet (a registry not
 * created), its nearest existing ancestor's real path joined with the rest,
 * following a symbolic link that points at a folder not created yet too.
 */
async function realDir(dir: string, depth = 0): Promise<string> {
  const absolute = resolve(dir);
  try {
    return await realpath(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if ((code !== 'ENOENT' && code !== 'ENOTDIR') || depth > 40) throw error;
    const link = await readlink(absolute).catch(() => undefined);
    if (link !== undefined) return realDir(resolve(dirname(absolute), link), depth + 1);
    const parent = dirname(absolute);
    if (parent === absolute) return absolute;
    return join(await realDir(parent, depth + 1), basename(absolute));
  }
}

/** An admin API base URL as identities compare it. */
export function normalizeBaseUrl(text: string): string {
  const url = new URL(text);
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${url.host.toLowerCase()}${path}`;
}

function hostKey(h: RedisHostPort | { host: string; port: number }): string {
  const host = h.host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return `${host === 'localhost' ? '127.0.0.1' : host}:${h.port}`;
}

/** The identity of a profile's target (`dataDir`'s registry for the built-in default). */
export async function targetIdentity(target: ConnectionTarget): Promise<StoreIdentity> {
  switch (target.kind) {
    case 'local':
      return { kind: 'local', host: hostname().toLowerCase(), dir: await realDir(target.dir) };
    case 'redis':
      return {
        kind: 'redis',
        topology: `${target.tls ? 'rediss' : 'redis'}${target.topology === 'standalone' ? '' : `+${target.topology}`}`,
        hosts: [...new Set(target.hosts.map(hostKey))].sort(),
        master: target.master_name,
        deployment: target.deployment,
      };
    case 'http':
      return { kind: 'http', url: normalizeBaseUrl(target.url) };
  }
}

/**
 * The identity of a connection string (`local:DIR` resolved against `cwd`,
 * `redis…://`, `http(s)://`), or undefined for one that is not well formed
 * (opening it fails on its own with the reason).
 */
export async function connectionIdentity(connection: string, cwd: string): Promise<StoreIdentity | undefined> {
  const text = connection.trim();
  if (text.startsWith('local:')) {
    const dir = text.slice('local:'.length);
    return dir ? { kind: 'local', host: hostname().toLowerCase(), dir: await realDir(resolve(cwd, dir)) } : undefined;
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
  try {
    if (scheme === 'http' || scheme === 'https') return { kind: 'http', url: normalizeBaseUrl(text) };
    if (scheme !== undefined && /^rediss?(\+(sentinel|cluster))?$/.test(scheme)) {
      const config = parseRedisUrl(text);
      return {
        kind: 'redis',
        topology: `${config.tls ? 'rediss' : 'redis'}${config.topology === 'standalone' ? '' : `+${config.topology}`}`,
        hosts: [...new Set(config.hosts.map(hostKey))].sort(),
        master: config.masterName,
        deployment: config.deployment,
      };
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** The text a review statement binds: see the module comment. */
export function identityText(identity: StoreIdentity): string {
  switch (identity.kind) {
    case 'http':
      return identity.url;
    case 'redis':
      return `${identity.topology}://${identity.hosts.join(',')}${identity.master !== undefined ? `/${encodeURIComponent(identity.master)}` : ''}#${identity.deployment}`;
    case 'local':
      return `local://${identity.host}${encodeURI(identity.dir.split('\\').join('/').replace(/^([^/])/, '/$1'))}`;
  }
}

/** The identity a review statement binds for `profile`. */
export async function registryIdentity(profile: ConnectionProfile): Promise<string> {
  return identityText(await targetIdentity(profile.target));
}

/** Whether two identities name the same store (a Redis deployment: same topology and deployment, and a shared node). */
export function sameStore(a: StoreIdentity, b: StoreIdentity): boolean {
  if (a.kind === 'http' && b.kind === 'http') return a.url === b.url;
  if (a.kind === 'local' && b.kind === 'local') return a.host === b.host && a.dir === b.dir;
  if (a.kind === 'redis' && b.kind === 'redis') {
    if (a.deployment !== b.deployment || a.master !== b.master || a.topology.replace(/^rediss/, 'redis') !== b.topology.replace(/^rediss/, 'redis')) return false;
    return a.hosts.some((h) => b.hosts.includes(h));
  }
  return false;
}

/**
 * The guarded profile (protected, or on a host that enforces approvals) that
 * names the same store as `connection`, if any; read-only profiles count too.
 * Unguarded profiles are not looked for: they add no rule to follow.
 */
export async function guardingProfile(connection: string, cwd: string, profiles: readonly ConnectionProfile[]): Promise<ConnectionProfile | undefined> {
  const guarded = profiles.filter((p) => p.protected || p.read_only || p.enforces_approvals === true);
  if (guarded.length === 0) return undefined;
  const target = await connectionIdentity(connection, cwd);
  if (!target) return undefined;
  for (const profile of guarded) {
    if (sameStore(await targetIdentity(profile.target), target)) return profile;
  }
  return undefined;
}
