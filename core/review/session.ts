/**
 * Who acts on publication requests and where they live: the one opening of
 * the `skillbench review` commands and the `reviews.*` methods.
 *
 * Node-only: asks git for the identity.
 */
import { execFileSync } from 'node:child_process';
import { WorkbenchError } from '../errors';
import type { ReviewContext } from './request';

/** `SKILLBENCH_USER`, else `Name <email>` from `git config` in `root`, else undefined. */
export function actorIdentity(root: string, env: Record<string, string | undefined>): string | undefined {
  const explicit = env['SKILLBENCH_USER']?.trim();
  if (explicit) return explicit;
  const git = (key: string): string => {
    try {
      return execFileSync('git', ['config', '--get', key], { cwd: root, encoding: 'utf8', timeout: 5_000, stdio: ['ignore', 'pipe', 'ignore'], env: env as NodeJS.ProcessEnv }).trim();
    } catch {
      return '';
    }
  };
  const name = git('user.name');
  const email = git('user.email');
  if (!name && !email) return undefined;
  return name && email ? `${name} <${email}>` : name || email;
}

/** How {@link reviewContext} names the one who acts. */
export interface ReviewActorOptions {
  env: Record<string, string | undefined>;
  /** An identity set by the host (settings); wins over the environment and git. */
  reviewer?: string;
  /** Used when neither settings, `SKILLBENCH_USER` nor git name anyone; without it that is a usage error. */
  fallback?: string;
}

/**
 * The context of a review action in the workspace at `root` (null when no
 * workspace is open: 404 `no_workspace`): the root and who acts, from
 * settings, else `SKILLBENCH_USER`, else git config, else the fallback.
 */
export function reviewContext(root: string | null, options: ReviewActorOptions): ReviewContext {
  if (!root) throw new WorkbenchError('not_found', 'no workspace is open: reviews live in its skills/reviews folder', { details: { reason: 'no_workspace' } });
  const actor = options.reviewer ?? actorIdentity(root, options.env) ?? options.fallback;
  if (actor === undefined) throw new WorkbenchError('usage', 'who is acting? set git config user.name and user.email, or SKILLBENCH_USER');
  return { root, actor };
}
