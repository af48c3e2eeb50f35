/**
 * Opening the store of a profile with its secrets, and the guard every store
 * opened through a profile wears: a read-only profile refuses publish and
 * delete with 403 `forbidden`; a protected one (or one whose host enforces
 * approvals) refuses a publish or delete that does not come from an approved
 * review request (see {@link publishApproved}). The guard is a rail of this
 * client; the control is a host that enforces approvals and alone holds the
 * write credential (docs/review.md).
 *
 * Secrets go into the adapters' options or URL user-info only; every message
 * and description the adapters produce is already redacted.
 *
 * Node-only: opens sockets and files.
 */
import { readFile, stat } from 'node:fs/promises';
import { WorkbenchError } from '../errors';
import type { ConnectionProfile } from './types';
import { StoreError } from '../store/errors';
import { openLocalStore } from '../store/local';
import { openSeededStore } from '../store/seed';
import type { DeleteRequest, DeleteResult, PublishRequest, PublishResult, SkillStore } from '../store/types';
import { DEFAULT_PROFILE } from './profiles';
import type { ProfileSecrets } from './secrets';

/** Options of {@link openProfileStore}. */
export interface OpenProfileOptions {
  /** The app-data folder (the `default` profile's registry is seeded there). */
  dataDir: string;
  env?: Record<string, string | undefined>;
  /** Overrides the profile's own timeouts (connection tests use a short one). */
  timeoutMs?: number;
  /**
   * Whether a local profile's registry may be created when its folder holds
   * none: only a write passes true. By default a profile is opened for reads,
   * which never create anything (the built-in `default` registry is always
   * seeded).
   */
  create?: boolean;
}

async function readCa(path: string, profile: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    throw new StoreError('invalid_request', `connection '${profile}': cannot read the CA file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/**
 * Asks the store of `profile` one small read, so a caller learns whether it
 * still answers: a refusal such as `not_found` is an answer; a host that does
 * not answer, or a local folder that is gone, throws `unavailable` or `timeout`.
 */
export async function probeStore(store: SkillStore, profile: ConnectionProfile): Promise<void> {
  if (profile.target.kind === 'local' && profile.name !== DEFAULT_PROFILE) await expectFolder(profile, profile.target.dir);
  try {
    await store.getPublished(PROBE_ID);
  } catch (error) {
    if (error instanceof WorkbenchError && error.code === 'not_found') return;
    // The pool words a store that does not answer as said of the store (notAnswering), for the probe as for any read.
    throw error;
  }
}

/** The skill a probe asks for: any answer, even "not found", shows the store answers. */
const PROBE_ID = { namespace: 'skillbench', name: 'reachability-probe' };

/** Whether `error` says a local profile's registry does not exist (yet): nothing is published there. */
export function isAbsentRegistry(error: unknown): boolean {
  return error instanceof WorkbenchError && error.details?.['registry'] === 'absent';
}

/**
 * A read through a local profile whose folder is gone (moved, removed, a drive
 * not mounted) is `not_found`, as a `local:` connection string naming that
 * folder is (exit 5); `details.transport` is `folder_missing`, so the
 * connection still shows as offline: the folder may come back.
 */
export async function expectFolder(profile: ConnectionProfile, dir: string): Promise<void> {
  try {
    await stat(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    throw new StoreError('not_found', `connection '${profile.name}': the folder ${dir} does not exist (moved, removed, or on a drive that is not mounted); a publish through the connection creates it`, {
      details: { transport: 'folder_missing', registry: 'absent' },
    });
  }
}

/** The Redis connection string of a Redis profile, with the password in the user-info when one is saved. */
export function redisUrlOf(profile: ConnectionProfile, secrets: ProfileSecrets, timeoutMs?: number): string {
  const t = profile.target;
  if (t.kind !== 'redis') throw new WorkbenchError('internal', 'not a Redis profile');
  const scheme = `${t.tls ? 'rediss' : 'redis'}${t.topology === 'standalone' ? '' : `+${t.topology}`}`;
  const user = t.username !== undefined ? encodeURIComponent(t.username) : '';
  const pass = secrets.password !== undefined ? `:${encodeURIComponent(secrets.password)}` : '';
  const userinfo = user || pass ? `${user}${pass}@` : '';
  const hosts = t.hosts.map((h) => `${h.host}:${h.port}`).join(',');
  const path = t.topology === 'sentinel' ? `/${encodeURIComponent(t.master_name ?? '')}` : '';
  const query = new URLSearchParams({ deployment: t.deployment });
  const connect = timeoutMs ?? t.connect_timeout_ms;
  const command = timeoutMs ?? t.command_timeout_ms;
  if (connect !== undefined) query.set('connect_timeout', String(connect));
  if (command !== undefined) query.set('command_timeout', String(command));
  if (t.tls?.ca_file) query.set('ca', t.tls.ca_file);
  if (t.tls?.servername) query.set('servername', t.tls.servername);
  return `${scheme}://${userinfo}${hosts}${path}?${query.toString()}`;
}

/** Opens the store of `profile` with its secrets (unguarded; see {@link guardStore}). */
export async function openProfileStore(profile: ConnectionProfile, secrets: ProfileSecrets, options: OpenProfileOptions): Promise<SkillStore> {
  const t = profile.target;
  switch (t.kind) {
    case 'local': {
      if (profile.name === DEFAULT_PROFILE) {
        const { store } = await openSeededStore(undefined, { env: { ...options.env, SKILLBENCH_HOME: options.dataDir } });
        return store;
      }
      if (options.create !== true) await expectFolder(profile, t.dir);
      // A write creates the registry only once it passes the profile's guard and validation.
      return openLocalStore(t.dir, { create: options.create === true ? 'on-write' : false });
    }
    case 'redis': {
      const { openRedisStore } = await import('../store/redis');
      const sentinels = t.topology === 'sentinel' ? { ...(t.sentinel_username !== undefined && { username: t.sentinel_username }), ...(secrets.sentinel_password !== undefined && { password: secrets.sentinel_password }) } : undefined;
      return openRedisStore(redisUrlOf(profile, secrets, options.timeoutMs), { ...(sentinels && { sentinels }) });
    }
    case 'http': {
      const { openHttpStore } = await import('../store/http');
      const url = new URL(t.url);
      if (t.auth === 'basic') {
        url.username = encodeURIComponent(t.username ?? '');
        url.password = encodeURIComponent(secrets.password ?? '');
      }
      let headers: Record<string, string> | undefined;
      if (t.auth === 'headers' && secrets.headers !== undefined) {
        try {
          headers = JSON.parse(secrets.headers) as Record<string, string>;
        } catch {
          throw new WorkbenchError('secrets_locked', `connection '${profile.name}': its saved headers are damaged; enter them again`);
        }
      }
      let proxy: string | undefined;
      if (t.proxy) {
        const p = new URL(t.proxy);
        if (t.proxy_username) p.username = encodeURIComponent(t.proxy_username);
        if (secrets.proxy_password !== undefined) p.password = encodeURIComponent(secrets.proxy_password);
        proxy = p.toString();
      }
      const timeoutMs = options.timeoutMs ?? t.timeout_ms;
      return openHttpStore(url.toString(), {
        // An empty token keeps the process's SKILLBENCH_REGISTRY_TOKEN out of a profile that has none.
        token: t.auth === 'bearer' ? (secrets.token ?? '') : '',
        ...(headers && { headers }),
        ...(t.ca_file && { ca: await readCa(t.ca_file, profile.name) }),
        ...(proxy && { proxy }),
        ...(timeoutMs !== undefined && { timeoutMs }),
        ...(options.timeoutMs !== undefined && { retries: 0 }),
      });
    }
  }
}

const APPROVED = Symbol('write from an approved review request');

interface GuardedStore extends SkillStore {
  [APPROVED]?: { publish(request: PublishRequest): Promise<PublishResult>; deleteVersions(request: DeleteRequest): Promise<DeleteResult> };
}

/** The 403 of a write through a read-only profile. */
export function readOnlyError(profile: ConnectionProfile, action: 'publish' | 'delete'): StoreError {
  return new StoreError('forbidden', `connection '${profile.name}' is read-only: nothing can be ${action === 'publish' ? 'published' : 'deleted'} through it`, {
    details: { reason: 'read_only', connection: profile.name },
  });
}

/** Whether writes through `profile` go only through approved review requests (protected, or a host that enforces approvals). */
export function requiresApproval(profile: ConnectionProfile): boolean {
  return profile.protected || profile.enforces_approvals === true;
}

/** The 403 of a direct publish or delete through a protected profile (or one whose host enforces approvals). */
export function protectedError(profile: ConnectionProfile, action: 'publish' | 'delete' = 'publish'): StoreError {
  const what = profile.protected ? 'is protected' : 'names a host that enforces approvals';
  const how =
    action === 'publish'
      ? `publish through an approved review request (skillbench review create FILE --to ${profile.name})`
      : `deletes go through an approved review request (skillbench review create --delete NS/NAME --versions FROM-TO --reason TEXT --to ${profile.name})`;
  return new StoreError('forbidden', `connection '${profile.name}' ${what}: ${how}`, {
    details: { reason: 'protected', connection: profile.name },
  });
}

/**
 * Wraps `store` so writes honour the profile's flags: read-only refuses
 * publish and delete; protected (or a host that enforces approvals) refuses
 * both except through {@link publishApproved} and {@link deleteApproved}.
 * Reads pass through.
 */
export function guardStore(store: SkillStore, profile: ConnectionProfile): SkillStore {
  if (!profile.read_only && !requiresApproval(profile)) return store;
  const guarded: GuardedStore = {
    get description() {
      return store.description;
    },
    get limits() {
      return store.limits;
    },
    listMetadata: (filter) => store.listMetadata(filter),
    resolveCandidates: (requests) => store.resolveCandidates(requests),
    getManifest: (ref) => store.getManifest(ref),
    getResource: (ref) => store.getResource(ref),
    getPublished: (id) => store.getPublished(id),
    getVersion: (id, version) => store.getVersion(id, version),
    listVersions: (id, query) => store.listVersions(id, query),
    async publish() {
      throw profile.read_only ? readOnlyError(profile, 'publish') : protectedError(profile, 'publish');
    },
    async deleteVersions() {
      throw profile.read_only ? readOnlyError(profile, 'delete') : protectedError(profile, 'delete');
    },
    close: () => store.close(),
  };
  if (!profile.read_only) guarded[APPROVED] = { publish: (request) => store.publish(request), deleteVersions: (request) => store.deleteVersions(request) };
  return guarded;
}

/**
 * Publishes through `store` on behalf of an approved review request: the one
 * way past a protected profile's guard (never past a read-only one). Only the
 * review module calls it, after checking the approval's signatures and the bytes.
 */
export function publishApproved(store: SkillStore, request: PublishRequest): Promise<PublishResult> {
  const bypass = (store as GuardedStore)[APPROVED];
  return bypass ? bypass.publish(request) : store.publish(request);
}

/** Deletes through `store` on behalf of an approved deletion request (see {@link publishApproved}). */
export function deleteApproved(store: SkillStore, request: DeleteRequest): Promise<DeleteResult> {
  const bypass = (store as GuardedStore)[APPROVED];
  return bypass ? bypass.deleteVersions(request) : store.deleteVersions(request);
}
