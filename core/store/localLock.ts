/**
 * The registry lock of the embedded registry (see docs/local-layout.md, Locking):
 * one lock file serializes mutations across processes; a lock whose holder is gone
 * is taken over, and the taker inherits the repairs the dead holder left.
 *
 * A holder is named by pid, process start time and boot id (core/fs/processIdentity),
 * so a zombie or a reused pid does not keep an abandoned lock alive.
 *
 * Node-only: uses node:fs and node:os.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { processGone, selfIdentity } from '../fs/processIdentity';
import { StoreError } from './errors';
import { unlinkQuietly } from './localFiles';
import { isErrno } from '../fs/errno';

interface LockInfo {
  pid: number;
  host: string;
  at: string;
  token: string;
  /** `namespace/name` being mutated, so a taker of an abandoned lock knows what to repair. */
  skill?: string;
  /**
   * Start time of the holder process (field 22 of `/proc/<pid>/stat`), where the
   * system has `/proc`: with the pid it names the process, so a pid reused by
   * another process is not mistaken for the holder.
   */
  start?: string;
  /** The host's boot id (`/proc/sys/kernel/random/boot_id`), where available. */
  boot?: string;
  /**
   * Repairs inherited from abandoned locks and not known to be finished: skills as
   * `namespace/name`, and `*` for a rebuild of the whole catalog. A taker that dies
   * before finishing hands them on to the next taker.
   */
  repair?: string[];
}

/** The `repair` entry that asks for the whole catalog to be rebuilt from the skills' states. */
export const REBUILD_ALL = '*';

/** What an abandoned lock leaves to repair: its own skill, what it had inherited, or everything when unreadable. */
function pendingRepairs(info: LockInfo | undefined): string[] {
  if (!info || typeof info.pid !== 'number') return [REBUILD_ALL];
  const out = new Set<string>();
  if (Array.isArray(info.repair)) for (const r of info.repair) if (typeof r === 'string') out.add(r);
  if (typeof info.skill === 'string') out.add(info.skill);
  else out.add(REBUILD_ALL);
  return [...out];
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A lock file as read: its bytes, its parsed content (undefined when unreadable) and its age. */
interface LockFile {
  raw: string;
  info: LockInfo | undefined;
  mtimeMs: number;
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
  readonly path: string;

  constructor(
    private readonly dir: string,
    private readonly options: RegistryLockOptions,
  ) {
    this.path = join(dir, 'lock');
  }

  /** Whether a lock is present and its holder is gone. Cheap when there is none (one failed read). */
  isAbandonedNow(): boolean {
    let current: LockFile | undefined;
    try {
      current = this.read(this.path);
    } catch {
      current = undefined;
    }
    return current !== undefined && this.isAbandoned(current.info, current.mtimeMs);
  }

  /**
   * Takes the registry lock. The lock file is linked into place fully written, so a
   * reader never sees it half-written. A lock whose holder is gone is replaced under
   * a short-lived takeover guard; the caller then runs the repairs it hands on.
   */
  async acquire(skill: string): Promise<{ token: string; repairs?: string[] }> {
    const deadline = Date.now() + this.options.timeoutMs;
    let delay = 1;
    const candidate = this.writeCandidate(skill);
    try {
      for (;;) {
        try {
          linkSync(candidate.path, this.path);
          return { token: candidate.token };
        } catch (error) {
          if (!isErrno(error, 'EEXIST')) throw error;
        }
        const taken = this.tryTakeOver(candidate.path, skill, candidate.token);
        if (taken) return { token: candidate.token, repairs: taken.repairs };
        if (Date.now() > deadline) {
          const holder = this.read(this.path)?.info;
          throw new StoreError(
            'timeout',
            `the local registry is locked${holder ? ` by process ${holder.pid} on ${holder.host} since ${holder.at}` : ''}; try again`,
          );
        }
        await sleep(delay + Math.random() * delay);
        delay = Math.min(delay * 2, 50);
      }
    } finally {
      unlinkQuietly(candidate.path);
    }
  }

  /** Releases the lock taken with `token`; never removes a lock someone else took over. */
  release(token: string): void {
    let raw: string;
    try {
      raw = readFileSync(this.path, 'utf8');
    } catch {
      return;
    }
    if (raw.includes(`"token":"${token}"`)) unlinkQuietly(this.path);
  }

  /** Removes lock candidate files left by processes that are gone. */
  async removeStaleCandidates(): Promise<void> {
    const names = await readdir(this.dir).catch((): string[] => []);
    for (const n of names) {
      const m = /^lock\.(\d+)\.[0-9a-f]+\.tmp$/.exec(n);
      if (m && processGone({ pid: Number(m[1]) })) await rm(join(this.dir, n), { force: true });
    }
  }

  private info(skill: string, token: string): LockInfo {
    return { pid: process.pid, host: hostname(), at: this.options.clock().toISOString(), token, skill, ...selfIdentity() };
  }

  private writeCandidate(skill: string): { path: string; token: string } {
    const token = randomBytes(12).toString('hex');
    const path = join(this.dir, `lock.${process.pid}.${token}.tmp`);
    // A private, uniquely named file: complete before it is linked into place, so no rename is needed.
    writeFileSync(path, JSON.stringify(this.info(skill, token)), { flag: 'wx' });
    return { path, token };
  }

  private isAbandoned(info: LockInfo | undefined, mtimeMs: number): boolean {
    if (!info || typeof info.pid !== 'number') {
      // Lock files are linked into place complete; an unreadable one is foreign or damaged.
      return Date.now() - mtimeMs > this.options.foreignStaleMs;
    }
    if (info.host === hostname()) return processGone(info);
    return Date.now() - Date.parse(info.at) > this.options.foreignStaleMs;
  }

  /**
   * Replaces an abandoned lock with ours. Our lock carries the abandoned lock's
   * pending repairs (its skill and what it had inherited), so if we die before
   * finishing them the next taker still knows what to repair.
   */
  private tryTakeOver(candidatePath: string, skill: string, token: string): { repairs: string[] } | undefined {
    const current = this.read(this.path);
    if (!current || !this.isAbandoned(current.info, current.mtimeMs)) return undefined;
    const guardPath = join(this.dir, 'lock.takeover');
    const guard = this.writeCandidate('takeover');
    try {
      try {
        linkSync(guard.path, guardPath);
      } catch (error) {
        if (!isErrno(error, 'EEXIST')) throw error;
        // A guard left by a process that died inside the takeover itself.
        const g = this.read(guardPath);
        if (g && this.isAbandoned(g.info, g.mtimeMs)) unlinkQuietly(guardPath);
        return undefined;
      }
      try {
        // Still the same abandoned lock? Then replace it with ours in one rename.
        const again = this.read(this.path);
        if (!again || again.raw !== current.raw) return undefined;
        const repairs = pendingRepairs(current.info);
        // Our own private file, linked nowhere yet: rewritten in place, then renamed over the lock.
        writeFileSync(candidatePath, JSON.stringify({ ...this.info(skill, token), repair: repairs }));
        renameSync(candidatePath, this.path);
        return { repairs };
      } finally {
        unlinkQuietly(guardPath);
      }
    } finally {
      unlinkQuietly(guard.path);
    }
  }

  private read(path: string): LockFile | undefined {
    try {
      const raw = readFileSync(path, 'utf8');
      const s = statSync(path);
      let info: LockInfo | undefined;
      try {
        info = JSON.parse(raw) as LockInfo;
      } catch {
        info = undefined;
      }
      return { raw, info, mtimeMs: s.mtimeMs };
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return undefined;
      throw error;
    }
  }
}
