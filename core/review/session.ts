/**
 * The one opening of the `skillbench review` commands and the `reviews.*`
 * methods: where requests live, how this session signs and verifies
 * (`signer.ts`), and what a request's connection is: always a saved profile,
 * whose store identity the statements bind.
 *
 * Node-only.
 */
import { WorkbenchError } from '../errors';
import type { ConnectionProfile } from '../connections/types';
import { registryIdentity } from '../connections/identity';
import { isProfileName } from '../connections/manager';
import type { ReviewContext } from './request';
import { resolveSigner, type SignerSettings } from './signer';

/**
 * The registry identity of a request's connection, which must be the name of
 * a saved profile: a connection string in a request file is refused (403)
 * before anything is opened, so a credential only ever goes to the host its
 * profile names.
 */
export function profileRegistry(get: (name: string) => Promise<ConnectionProfile>): (connection: string) => Promise<string> {
  return async (connection) => {
    if (typeof connection !== 'string' || !isProfileName(connection)) {
      throw new WorkbenchError('forbidden', `the request's connection '${String(connection).slice(0, 80)}' is not a saved connection name: a request names a saved profile, so credentials only go to the host it names`, {
        details: { reason: 'connection_not_profile' },
      });
    }
    return registryIdentity(await get(connection));
  };
}

/** How {@link reviewContext} sets up a session. */
export interface ReviewSessionOptions {
  env: Record<string, string | undefined>;
  /** An explicit signing key and allowed-signers file (flags, the host's settings): they win over the environment and git. */
  settings?: SignerSettings;
  /** The saved profile of a name (404 when there is none). */
  profile: (name: string) => Promise<ConnectionProfile>;
  /** Who the history names for a publish when the session has no key of its own. */
  fallbackActor?: string;
}

/**
 * The context of a review action in the workspace at `root` (404
 * `no_workspace` when none is open): the root, the signer read from the
 * settings, the environment and git config of the workspace, and the
 * connection resolver.
 */
export function reviewContext(root: string | null, options: ReviewSessionOptions): ReviewContext {
  if (!root) throw new WorkbenchError('not_found', 'no workspace is open: reviews live in its skills/reviews folder', { details: { reason: 'no_workspace' } });
  return {
    root,
    signer: resolveSigner(root, options.env, options.settings),
    registry: profileRegistry(options.profile),
    ...(options.fallbackActor !== undefined && { fallbackActor: options.fallbackActor }),
  };
}
