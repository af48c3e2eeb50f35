/**
 * The registry lock of the embedded registry (see docs/local-layout.md, Locking):
 * one lock file (core/fs/fileLock.ts) serializes mutations across processes; a lock
 * whose holder is gone is taken over, and the taker inherits the repairs the dead
 * holder left.
 *
 * Node-only: uses node:fs.
 */
import { FileLock, type LockInfo } from '../fs/fileLock';
import { StoreError } from './errors';

/** The `repair` entry that asks for the whole catalog to be rebuilt from the skills' states. */
export const REBUILD_ALL = '*';

/**
 * What an abandoned lock leaves to repair: its own skill (`skill`, the
 * `namespace/name` it was mutating), what it had inherited (`repair`), and
 * everything when it is unreadable. A taker that dies before finishing hands
 * them on to the next taker.
 */
function pendingRepairs(info: LockInfo | undefined): string[] {
  if (!info || typeof info.pid !== 'number') return [REBUILD_ALL];
  const out = new Set<string>();
  if (Array.isArray(info['repair'])) for (const r of info['repair']) if (typeof r === 'string') out.add(r);
  if (typeof info['skill'] === 'string') out.add(info['skill']);
  else out.add(REBUILD_ALL);
  return [...out];
}

/** Options of {@link RegistryLock}. */
export interface RegistryLockOptions {
  /** Time source of the `at` field. */
  clock: () => Date;
  /** How long {@link RegistryLock.acquire} waits before failing with `timeout`. */
  timeoutMs: number;
  /** Age after which a lock held by another host, or unreadable, counts as abandoned. */
  foreignStaleMs: number;
}

/** The lock file `<dir>/lock` of one registry. */
export class RegistryLock {
  private readonly lock: FileLock;

  constructor(dir: string, options: RegistryLockOptions) {
    this.lock = new FileLock(dir, {
      ...options,
      timeoutError: (holder) =>
        new StoreError('timeout', `the local registry is locked${holder ? ` by process ${holder.pid} on ${holder.host} since ${holder.at}` : ''}; try again`),
    });
  }

  /** The lock file's path. */
  get path(): string {
    return this.lock.path;
  }

  /** Whether a lock is present and its holder is gone. Cheap when there is none (one failed read). */
  isAbandonedNow(): boolean {
    return this.lock.isAbandonedNow();
  }

  /**
   * Takes the registry lock for a mutation of `skill`. A lock whose holder is gone
   * is taken over; the caller then runs the repairs it hands on (`repairs`).
   */
  async acquire(skill: string): Promise<{ token: string; repairs?: string[] }> {
    const held = await this.lock.acquire({ skill }, (abandoned) => ({ repair: pendingRepairs(abandoned) }));
    return held.abandoned ? { token: held.token, repairs: pendingRepairs(held.abandoned.info) } : { token: held.token };
  }

  /** Releases the lock taken with `token`; never removes a lock someone else took over. */
  release(token: string): void {
    this.lock.release(token);
  }

  /** Removes lock candidate files left by processes that are gone. */
  removeStaleCandidates(): Promise<void> {
    return this.lock.removeStaleCandidates();
  }
}
