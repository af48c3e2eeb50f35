/**
 * Small files of the app-data folder (profiles, sealed secrets): bounded
 * reads that never create anything, the options of their atomic replacements
 * (core/fs/atomic: a temp file in the same folder, fsync, rename, fsync of the
 * folder), private to the user, so a crash leaves either the old file or the
 * new one, never a torn one; and the queue their read-modify-writes run in,
 * serialized within the process and, through the folder's lock file, across
 * processes (two `serve` instances on one app-data folder).
 *
 * Node-only: uses node:fs.
 */
import { WorkbenchError } from '../errors';
import type { AtomicWriteOptions } from '../fs/atomic';
import { FileLock } from '../fs/fileLock';
import { readFileBounded } from '../workspace/read';

/** Reads a UTF-8 file of at most `maxBytes`, or returns `undefined` when it does not exist. */
export async function readSmallFile(path: string, maxBytes: number, label: string): Promise<string | undefined> {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(await readFileBounded(path, maxBytes, label));
  } catch (error) {
    if (error instanceof WorkbenchError && error.code === 'not_found') return undefined;
    if (error instanceof TypeError) throw new WorkbenchError('invalid_request', `${label} is not UTF-8 text`);
    throw error;
  }
}

/**
 * How the app-data folder's files are written with `writeFileAtomic` (core/fs):
 * the file exactly 0600 whatever the umask, its folder created 0700 when missing.
 */
export const PRIVATE_FILE: AtomicWriteOptions = { mode: 0o600, mkdirs: true, dirMode: 0o700 };

/** Runs async jobs one after another (one writer per file within a process). */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(job: () => Promise<T>): Promise<T> {
    const next = this.tail.then(job, job);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/** How long a change of the app-data folder waits for another process's change to finish. */
const SHARED_LOCK_TIMEOUT_MS = 30_000;

/**
 * Read-modify-writes of the files in one app-data folder: one at a time in this
 * process (a promise chain) and across processes (the folder's `lock` file,
 * core/fs/fileLock, taken back from a holder that died). The folder is created
 * 0700 by the first change, never by a read.
 */
export class SharedFileQueue {
  private readonly queue = new SerialQueue();
  private readonly lock: FileLock;

  /** `what` names the files in a timeout message, e.g. "the saved connections". */
  constructor(dir: string, what: string) {
    this.lock = new FileLock(dir, {
      timeoutMs: SHARED_LOCK_TIMEOUT_MS,
      foreignStaleMs: 60_000,
      createDir: { mode: 0o700 },
      timeoutError: (holder) =>
        new WorkbenchError('timeout', `${what} are being changed by another Skillbench process${holder ? ` (pid ${holder.pid})` : ''}; try again`),
    });
  }

  run<T>(job: () => Promise<T>): Promise<T> {
    return this.queue.run(() => this.lock.run(job));
  }
}
