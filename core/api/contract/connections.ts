/**
 * Saved connection profiles and their live state.
 *
 * Isomorphic: no `node:` imports (the renderer and the preload import it).
 */
import { z } from 'zod';
import { connectionNameSchema } from './common';
import type { WorkbenchErrorData } from './errors';
import { empty, method, slug } from './internal';

/** How a profile is shown: an environment label (e.g. `production`) and its colour (`#rrggbb`). */
export interface ProfileEnvironment {
  label: string;
  colour: string;
}

/**
 * Where a profile points. Paths are absolute; URLs carry no credentials
 * (secrets are saved separately and never cross the API).
 */
export type ConnectionTarget =
  | { kind: 'local'; dir: string }
  | {
      kind: 'redis';
      topology: 'standalone' | 'sentinel' | 'cluster';
      hosts: { host: string; port: number }[];
      master_name?: string;
      username?: string;
      deployment: string;
      tls?: { ca_file?: string; servername?: string };
      sentinel_username?: string;
      connect_timeout_ms?: number;
      command_timeout_ms?: number;
    }
  | {
      kind: 'http';
      url: string;
      auth: 'none' | 'bearer' | 'basic' | 'headers';
      username?: string;
      header_names?: string[];
      ca_file?: string;
      proxy?: string;
      proxy_username?: string;
      timeout_ms?: number;
    };

/** A saved connection profile: never a secret in it. */
export interface ConnectionProfile {
  name: string;
  label: string;
  environment: ProfileEnvironment | null;
  /** Every write through this profile is refused. */
  read_only: boolean;
  /** Publishes and deletes only through approved review requests (a rail of this client). */
  protected: boolean;
  /**
   * The host behind this profile enforces approvals itself (`skillbench registry
   * serve --require-approval`): writes go only through approved review requests,
   * which carry their signed attestation. Absent means false.
   */
  enforces_approvals?: boolean;
  target: ConnectionTarget;
  created_at: string;
  updated_at: string;
}

/** Names of the secret kinds a profile can have. */
export type SecretName = 'password' | 'sentinel_password' | 'token' | 'headers' | 'proxy_password';

/** Which secrets a profile has saved: names only, never values. */
export type SecretsPresence = Partial<Record<SecretName, boolean>>;

/** How saved secrets are protected at rest. */
export type SecretProtection = 'os-keychain' | 'key' | 'file-permissions';

/** The live state of a connection in this session. */
export interface ConnectionState {
  /**
   * `closed`: not opened yet; `open`: the store answered; `offline`: it does
   * not answer (an unreachable host, a local folder that is gone) or stopped
   * answering; `error`: it could not be opened as it is (refused credentials,
   * no registry in the folder yet). Opening never creates a store.
   */
  status: 'closed' | 'opening' | 'open' | 'offline' | 'error';
  /** Secret-free description of the store (e.g. `redis://127.0.0.1:6379 (default)`). */
  description?: string;
  /** Why it is `offline` or `error`. */
  error?: WorkbenchErrorData;
  /** When the state last changed (ISO-8601). */
  since: string;
}

/** One connection as the sidebar shows it. */
export interface ConnectionView {
  profile: ConnectionProfile;
  secrets: SecretsPresence;
  state: ConnectionState;
}

/** Why a connection test failed. */
export type ConnectionTestCause =
  | 'refused'
  | 'dns'
  | 'tls'
  | 'auth'
  | 'forbidden'
  | 'wrong_base_url'
  | 'not_admin_api'
  | 'wrong_deployment'
  | 'wrong_master'
  | 'wrong_topology'
  | 'timeout'
  | 'not_a_registry'
  | 'invalid'
  | 'unavailable';

/** The outcome of a connection test; never a secret in it. */
export interface ConnectionTestResult {
  ok: boolean;
  cause?: ConnectionTestCause;
  /** One sentence a user can act on. */
  message: string;
  description: string;
  skills?: number;
  deployments?: string[];
  suggested_url?: string;
  created_on_first_write?: boolean;
}

/** An exported set of profiles: no secrets, portable between machines. */
export interface ProfilesExport {
  format: 'skillbench.connections/v1';
  exported_at?: string;
  profiles: (Omit<ConnectionProfile, 'created_at' | 'updated_at' | 'label'> & { label?: string; created_at?: string; updated_at?: string })[];
}

/** What an import did, profile by profile. */
export interface ImportReport {
  imported: string[];
  replaced: string[];
  skipped: string[];
  renamed: { from: string; to: string }[];
}

const onConflict = z.enum(['skip', 'replace', 'rename']).default('skip');
export const catalogFilter = z.strictObject({ namespace: slug('a namespace').optional(), domain: slug('a domain').optional(), tag: slug('a tag').optional() });

/** This domain's methods of {@link METHODS}, with their parameter schemas. */
export const connectionMethods = {
  /** Every profile (`default` first) with its saved-secret names and live state. */
  'connections.list': method<{ connections: ConnectionView[]; secret_protection: SecretProtection }>()(empty),
  /** Tests a saved profile (by name) or unsaved form values; saves nothing. */
  'connections.test': method<ConnectionTestResult>()(
    z.union([
      z.strictObject({ name: connectionNameSchema }),
      z.strictObject({ profile: z.record(z.string(), z.unknown()), secrets: z.record(z.string(), z.unknown()).optional() }),
    ]),
  ),
  /**
   * Creates, updates (`previous_name` = its name) or renames a profile. `secrets`
   * patches: a value sets, null removes, an absent key keeps.
   */
  'connections.save': method<ConnectionView>()(
    z.strictObject({
      profile: z.record(z.string(), z.unknown()),
      previous_name: connectionNameSchema.optional(),
      secrets: z.record(z.string(), z.unknown()).optional(),
      /** The saved profile's name, typed to confirm switching `protected` or `enforces_approvals` off. */
      confirm_unprotect: connectionNameSchema.optional(),
    }),
  ),
  'connections.remove': method<{ removed: boolean }>()(z.strictObject({ name: connectionNameSchema })),
  /**
   * Opens (or reuses) the store of a profile; several stay open at once.
   * Opening reads and never creates a store. With `check`, an open store is
   * asked one small read, so a store that stopped answering reads `offline`.
   */
  /**
   * With `watch` as well, the check also compares the store's catalog with the
   * one the last watched check saw, and emits `store.changed` for every skill
   * another writer published, replaced or removed in between.
   */
  'connections.open': method<ConnectionView>()(z.strictObject({ name: connectionNameSchema, check: z.boolean().optional(), watch: z.boolean().optional() })),
  'connections.close': method<{ closed: boolean }>()(z.strictObject({ name: connectionNameSchema })),
  /** Profiles without secrets, as a portable document. */
  'connections.export': method<ProfilesExport>()(z.strictObject({ names: z.array(connectionNameSchema).max(1000).optional() })),
  'connections.import': method<ImportReport>()(z.strictObject({ document: z.unknown(), on_conflict: onConflict })),
} as const;
