/**
 * Which process wrote a file: a pid alone does not say it, since a pid is reused
 * once its process is gone and a zombie (dead but not yet reaped) still answers
 * `kill(pid, 0)`. Where the system has `/proc`, a process is named by its pid, its
 * start time and the host's boot id; elsewhere only the pid can be checked.
 * Used by the local registry's lock and by the sweep of abandoned temporary files.
 *
 * Node-only: uses node:fs.
 */
import { readFileSync, statSync } from 'node:fs';
import { isErrno } from './errno';

/** How a writer named itself: its pid and, where known, its start time and the host's boot id. */
export interface ProcessMark {
  pid: number;
  /** Start time of the process (field 22 of `/proc/<pid>/stat`, clock ticks since boot). */
  start?: unknown;
  /** The host's boot id (`/proc/sys/kernel/random/boot_id`). */
  boot?: unknown;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return isErrno(error, 'EPERM');
  }
}

const HAS_PROC = (() => {
  try {
    statSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
})();

/** State letter and start time of a process from `/proc/<pid>/stat`; `'absent'` when there is no such process. */
function procStat(pid: number): { state: string; start: string } | 'absent' | undefined {
  if (!HAS_PROC || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (error) {
    return isErrno(error, 'ENOENT', 'ESRCH') ? 'absent' : undefined;
  }
  // `pid (comm) state ...`: comm may hold spaces and parentheses, so split after the last `)`.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const start = fields[19];
  return state !== undefined && start !== undefined ? { state, start } : undefined;
}

function bootId(): string | undefined {
  if (!HAS_PROC) return undefined;
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

let ownIdentity: { start?: string; boot?: string } | undefined;

/** This process's start time and the host's boot id, where the system tells them. */
export function selfIdentity(): { start?: string; boot?: string } {
  if (ownIdentity) return ownIdentity;
  const identity: { start?: string; boot?: string } = {};
  const stat = procStat(process.pid);
  if (stat !== undefined && stat !== 'absent') identity.start = stat.start;
  const boot = bootId();
  if (boot !== undefined) identity.boot = boot;
  ownIdentity = identity;
  return identity;
}

/**
 * Whether the process a mark names on this host is gone: no such pid, a zombie
 * (`kill(pid, 0)` still succeeds on it), a pid now used by a process that started
 * at another time, or a mark from before a reboot. Without `/proc` only the pid
 * can be checked.
 */
export function processGone(mark: ProcessMark): boolean {
  const self = selfIdentity();
  if (typeof mark.boot === 'string' && self.boot !== undefined && mark.boot !== self.boot) return true;
  const stat = procStat(mark.pid);
  if (stat === 'absent') return true;
  if (stat === undefined) return !pidAlive(mark.pid);
  if (stat.state === 'Z' || stat.state === 'X' || stat.state === 'x') return true;
  return typeof mark.start === 'string' && mark.start !== stat.start;
}
