/**
 * An exclusive lock across processes as one file (`<dir>/lock`), taken back
 * from a holder that is gone: the lock file names its holder by pid, process
 * start time and boot id (core/fs/processIdentity), so a dead holder, a
 * zombie or a reused pid never keeps it. It serializes the read-modify-write
 * of files that several processes share: the embedded registry
 * (core/store/localLock.ts adds its repairs on top), the saved connections and
 * secrets, and the drafts of an app-data folder.
 *
 * A candidate lock file is written complete under a unique name and hard-linked
 * into place, so the link fails while someone holds the lock and a reader never
 * sees a half-written lock. See docs/local-layout.md, Locking.
 *
 * Node-only: uses node:fs and node:os.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { WorkbenchError } from '../errors';
import { isErrno } from './errno';
import { processGone, selfIdentity } from './processIdentity';

/** What a lock file records of its holder, plus what its user adds (`extra`). */
export interface LockInfo {
  pid: number;
  host: string;
  at: string;
  token: string;
  /** Start time of the holder process, where the system has `/proc`. */
  start?: string;
  /** The host's boot id, where available. */
  boot?: string;
  [extra: string]: unknown;
}

/** Options of {@link FileLock}. */
export interface FileLockOptions {
  /** Time source of the `at` field (default: now). */
  clock?: () => Date;
  /** How long {@link FileLock.acquire} waits before failing with `timeout`. */
  timeoutMs: number;
  /** Age after which a lock held by another host, or unreadable, counts as abandoned. */
  foreignStaleMs: number;
  /** The error a timed-out acquire throws (default: a `timeout` WorkbenchError); `holder` is the current lock's, when readable. */
  timeoutError?: (holder: LockInfo | undefined) => Error;
  /** Create the folder (with these permission bits) when it is missing; default: a missing folder is an error. */
  createDir?: { mode?: number };
}

/** A taken lock. */
export interface HeldLock {
  token: string;
  /**
   * Present when the lock was taken over from a holder that is gone: that
   * lock's record (undefined when it could not be parsed).
   */
  abandoned?: { info: LockInfo | undefined };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone (or never created): nothing to release.
  }
}

/** A lock file as read: its bytes, its parsed content (undefined when unreadable) and its age. */
interface LockFile {
  raw: string;
  info: LockInfo | undefined;
  mtimeMs: number;
}

/** The lock file `<dir>/lock`. The folder must exist, unless `createDir` is set. */
export class FileLock {
  readonly path: string;
  private readonly clock: () => Date;
  /** Whether this instance has removed the stale candidates it found (see {@link FileLock.run}). */
  private candidatesSwept = false;

  constructor(
    private readonly dir: string,
    private readonly options: FileLockOptions,
  ) {
    this.path = join(dir, 'lock');
    this.clock = options.clock ?? (() => new Date());
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
   * Takes the lock, recording `extra` in it. A lock whose holder is gone is
   * replaced under a short-lived takeover guard; `onTakeover` then says what
   * the new lock records beyond `extra` (for a user that hands work on), and
   * the result carries the abandoned lock's record.
   */
  async acquire(extra: Record<string, unknown> = {}, onTakeover?: (abandoned: LockInfo | undefined) => Record<string, unknown>): Promise<HeldLock> {
    const deadline = Date.now() + this.options.timeoutMs;
    let delay = 1;
    const candidate = this.writeCandidate(extra);
    try {
      for (;;) {
        try {
          linkSync(candidate.path, this.path);
          return { token: candidate.token };
        } catch (error) {
          if (!isErrno(error, 'EEXIST')) throw error;
        }
        const taken = this.tryTakeOver(candidate, extra, onTakeover);
        if (taken) return { token: candidate.token, abandoned: taken };
        if (Date.now() > deadline) {
          const holder = this.read(this.path)?.info;
          throw (
            this.options.timeoutError?.(holder) ??
            new WorkbenchError('timeout', `${this.path} is locked${holder ? ` by process ${holder.pid} on ${holder.host} since ${holder.at}` : ''}; try again`)
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

  /**
   * Runs `fn` holding the lock. Candidates that writers which are gone left
   * (killed between writing one and linking it) are removed first: after a
   * takeover, and on this instance's first run.
   */
  async run<T>(fn: () => Promise<T>, extra: Record<string, unknown> = {}): Promise<T> {
    const held = await this.acquire(extra);
    try {
      if (held.abandoned || !this.candidatesSwept) {
        this.candidatesSwept = true;
        await this.removeStaleCandidates();
      }
      return await fn();
    } finally {
      this.release(held.token);
    }
  }

  /** Removes lock candidate files left by processes that are gone. */
  async removeStaleCandidates(): Promise<void> {
    const names = await readdir(this.dir).catch((): string[] => []);
    for (const n of names) {
      const m = /^lock\.(\d+)\.[0-9a-f]+\.tmp$/.exec(n);
      if (m && processGone({ pid: Number(m[1]) })) await rm(join(this.dir, n), { force: true });
    }
  }

  private info(extra: Record<string, unknown>, token: string): LockInfo {
    return { ...extra, pid: process.pid, host: hostname(), at: this.clock().toISOString(), token, ...selfIdentity() };
  }

  private writeCandidate(extra: Record<string, unknown>): { path: string; token: string } {
    const token = randomBytes(12).toString('hex');
    const path = join(this.dir, `lock.${process.pid}.${token}.tmp`);
    const text = JSON.stringify(this.info(extra, token));
    // A private, uniquely named file: complete before it is linked into place, so no rename is needed.
    try {
      writeFileSync(path, text, { flag: 'wx', mode: 0o600 });
    } catch (error) {
      const create = this.options.createDir;
      if (!create || !isErrno(error, 'ENOENT')) throw error;
      // Only a change gets here: the first one creates the folder.
      mkdirSync(this.dir, { recursive: true, ...(create.mode !== undefined && { mode: create.mode }) });
      writeFileSync(path, text, { flag: 'wx', mode: 0o600 });
    }
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
   * Replaces an abandoned lock with ours (in one rename, under the guard
   * `lock.takeover`), recording what `onTakeover` adds, so a taker that dies
   * before finishing hands the same work on to the next one.
   */
  private tryTakeOver(
    candidate: { path: string; token: string },
    extra: Record<string, unknown>,
    onTakeover: ((abandoned: LockInfo | undefined) => Record<string, unknown>) | undefined,
  ): { info: LockInfo | undefined } | undefined {
    const current = this.read(this.path);
    if (!current || !this.isAbandoned(current.info, current.mtimeMs)) return undefined;
    const guardPath = join(this.dir, 'lock.takeover');
    const guard = this.writeCandidate({ takeover: true });
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
        // Our own private file, linked nowhere yet: rewritten in place, then renamed over the lock.
        writeFileSync(candidate.path, JSON.stringify({ ...this.info(extra, candidate.token), ...onTakeover?.(current.info) }));
        renameSync(candidate.path, this.path);
        return { info: current.info };
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
