/**
 * Saved connection profiles and their live state.
 *
 * Isomorphic: no `node:` imports (the renderer and the preload import it).
 */
import { z } from 'zod';
import type { ConnectionProfile, ConnectionTestResult, ImportReport, ProfilesExport, SecretProtection, SecretsPresence } from '../../connections/types';
import { profileInputSchema } from '../../connections/types';
import { connectionNameSchema } from './common';
import type { WorkbenchErrorData } from './errors';
import { empty, method } from './internal';

export {
  HEADER_NAME,
  isPortableAbsolutePath,
  profileInputSchema,
  profileSchemaFor,
  secretsInputSchema,
  type ConnectionProfile,
  type ConnectionTarget,
  type ConnectionTestCause,
  type ConnectionTestResult,
  type ImportReport,
  type ProfileEnvironment,
  type ProfileInput,
  type ProfilesExport,
  type SecretName,
  type SecretProtection,
  type SecretsPresence,
} from '../../connections/types';

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

const onConflict = z.enum(['skip', 'replace', 'rename']).default('skip');

/** This domain's methods of {@link METHODS}, with their parameter schemas. */
export const connectionMethods = {
  /** Every profile (`default` first) with its saved-secret names and live state. */
  'connections.list': method<{ connections: ConnectionView[]; secret_protection: SecretProtection }>()(empty),
  /** Tests a saved profile (by name) or unsaved form values; saves nothing. */
  'connections.test': method<ConnectionTestResult>()(
    z.union([
      z.strictObject({ name: connectionNameSchema }),
      z.strictObject({ profile: profileInputSchema, secrets: z.record(z.string(), z.unknown()).optional() }),
    ]),
  ),
  /**
   * Creates, updates (`previous_name` = its name) or renames a profile. `secrets`
   * patches: a value sets, null removes, an absent key keeps.
   */
  'connections.save': method<ConnectionView>()(
    z.strictObject({
      profile: profileInputSchema,
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
