/**
 * The workspace boundary, on real paths: every read and write the workbench
 * makes in a workspace folder on someone's behalf (the API's workspace and
 * drafts methods, review requests, the watcher) resolves the path beneath the
 * workspace's real root, and no symbolic link may lead out of it, neither the
 * file itself nor a folder above it. The final component is opened without
 * following a link (O_NOFOLLOW) and the opened descriptor is checked against
 * the place that was resolved (its `/proc/self/fd` path on Linux, its device
 * and inode elsewhere), so a link swapped in between the check and the open is
 * refused too.
 *
 * Writes go further: the workbench writes only what it owns, package files
 * below a `skills/packages` folder (and review requests through their own
 * module), never a hidden file or folder such as `.git/hooks/pre-commit`,
 * `.git/config` or `.env`, whatever the path given.
 *
 * Node-only: uses node:fs.
 */
import { constants as fsConstants, readlinkSync } from 'node:fs';
import { lstat, mkdir, open, realpath, stat, type FileHandle } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { WorkbenchError } from '../errors';
import { writeFileAtomic, type AtomicWriteOptions } from '../fs/atomic';
import { fileSystemRefusal, readHandleBounded } from './read';

/** Why a path is refused, in `details.reason`. */
export type ConfinementReason = 'outside_workspace' | 'not_owned' | 'hidden' | 'invalid_path';

function refused(rel: string, reason: ConfinementReason, why: string): WorkbenchError {
  return new WorkbenchError(reason === 'invalid_path' ? 'invalid_request' : 'forbidden', `${rel}: ${why}`, { details: { file: rel, reason } });
}

/**
 * Checks a workspace-relative path as the API takes it (`/` separators, no
 * `..`, not absolute, no NUL, no hidden component) and returns its parts.
 * Messages name the path as given, never an absolute one.
 */
export function workspaceParts(rel: string): string[] {
  const shown = rel.replace(/\0/g, '\\0').slice(0, 300);
  if (rel.includes('\0')) throw refused(shown, 'invalid_path', 'a path cannot hold a NUL byte');
  if (rel.length === 0 || rel.startsWith('/') || /^[a-zA-Z]:/.test(rel) || rel.includes('\\')) {
    throw refused(shown, 'invalid_path', 'not a path relative to the workspace with / separators');
  }
  const parts = rel.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.length === 0 || parts.includes('..')) throw refused(shown, 'invalid_path', 'not a path inside the workspace (no ..)');
  if (parts.some((p) => p.startsWith('.'))) throw refused(shown, 'hidden', 'hidden files and folders (.git, .env, …) are not the workbench’s to read or write');
  return parts;
}

/** Whether the real path `real` is `root` or below it (both real, absolute). */
export function isInside(root: string, real: string): boolean {
  const r = relative(root, real);
  return r === '' || (!r.startsWith(`..${sep}`) && r !== '..' && !r.startsWith(sep) && !/^[a-zA-Z]:/.test(r));
}

/** The real path of the workspace root (where a link to it leads). */
export async function realRoot(root: string): Promise<string> {
  return realpath(root);
}

/**
 * The real path of the existing file or folder `rel` beneath `root`, refused
 * (`forbidden`, `outside_workspace`) when a link on the way leads out of the
 * workspace. Throws `not_found` when it does not exist (a link to nothing
 * included).
 */
export async function resolveInside(root: string, rel: string): Promise<string> {
  const parts = workspaceParts(rel);
  const base = await realRoot(root);
  let real: string;
  try {
    real = await realpath(join(base, ...parts));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new WorkbenchError('not_found', `${rel}: no such file in the workspace`, { details: { file: rel } });
    if (code === 'ELOOP') throw refused(rel, 'outside_workspace', 'a loop of symbolic links');
    throw fileSystemRefusal(error, rel, { file: rel });
  }
  if (!isInside(base, real)) throw refused(rel, 'outside_workspace', 'a symbolic link leads out of the workspace: it is not followed');
  // A link inside the workspace may still land on a hidden file (.git/config): the same rule applies where it lands.
  const landed = relative(base, real);
  if (landed !== '' && landed.split(sep).some((p) => p.startsWith('.'))) throw refused(rel, 'hidden', 'a symbolic link leads to a hidden file or folder of the workspace');
  return real;
}

/**
 * Refuses (`forbidden`, `outside_workspace`) an absolute path below `root` that
 * a symbolic link leads out of the workspace; `label` names it in the message.
 * For paths the engine opens itself (an eval's package and extra-cases files).
 */
export async function expectInside(root: string, path: string, label: string): Promise<void> {
  const [base, real] = await Promise.all([
    realRoot(root),
    realpath(path).catch((error: unknown) => {
      throw fileSystemRefusal(error, label, { file: label });
    }),
  ]);
  if (!isInside(base, real)) throw refused(label, 'outside_workspace', 'a symbolic link leads out of the workspace: it is not followed');
}

/**
 * Checks that the open descriptor `handle` is the file at the real path `real`:
 * on Linux its `/proc/self/fd` link names that path; elsewhere its device and
 * inode are those of `real` now. Refuses a file swapped for a link (or moved)
 * between the resolution and the open.
 */
async function expectOpened(handle: FileHandle, real: string, rel: string): Promise<void> {
  if (process.platform === 'linux') {
    try {
      if (readlinkSync(`/proc/self/fd/${handle.fd}`) === real) return;
      throw refused(rel, 'outside_workspace', 'the file changed while it was being opened (a link was swapped in): it is not read');
    } catch (error) {
      if (error instanceof WorkbenchError) throw error;
      // No /proc: the inode check below.
    }
  }
  const [opened, there] = await Promise.all([handle.stat(), stat(real).catch(() => undefined)]);
  if (!there || opened.dev !== there.dev || opened.ino !== there.ino) {
    throw refused(rel, 'outside_workspace', 'the file changed while it was being opened (a link was swapped in): it is not read');
  }
}

/**
 * Reads at most `maxBytes` of the workspace file `rel` (see `readFileBounded`
 * for the bounds and the refusals of folders, FIFOs and devices), confined to
 * the workspace: resolved on real paths, opened with O_NOFOLLOW, the
 * descriptor checked against the resolved place.
 */
export async function readInside(root: string, rel: string, maxBytes: number): Promise<Uint8Array> {
  const real = await resolveInside(root, rel);
  let handle: FileHandle;
  try {
    // O_NONBLOCK: a FIFO is refused at once instead of waiting for a writer.
    handle = await open(real, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) | (fsConstants.O_NOFOLLOW ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new WorkbenchError('not_found', `${rel}: no such file in the workspace`, { details: { file: rel } });
    if (code === 'ELOOP') throw refused(rel, 'outside_workspace', 'the file was replaced by a symbolic link while it was being opened: it is not followed');
    throw fileSystemRefusal(error, rel, { file: rel });
  }
  try {
    await expectOpened(handle, real, rel);
    return await readHandleBounded(handle, maxBytes, rel);
  } finally {
    await handle.close();
  }
}

/** Whether `parts` (a workspace-relative path) name a package file the workbench owns: `*.json` below a `skills/packages` folder. */
function ownedPackagePath(absolute: string[]): boolean {
  for (let i = absolute.length - 3; i >= 0; i--) {
    if (absolute[i] === 'skills' && absolute[i + 1] === 'packages') {
      const below = absolute.slice(i + 2);
      return below.length >= 1 && below.every((p) => !p.startsWith('.')) && below[below.length - 1]!.endsWith('.json');
    }
  }
  return false;
}

/**
 * The real place to write the workspace file `rel`, creating its missing
 * folders when `mkdirs` is set: every existing folder on the way must resolve
 * inside the workspace, and an existing file is written where it really is (a
 * link to a file elsewhere in the workspace is written through). Throws
 * `forbidden` when a link leads out, or when `owned` refuses the real place.
 */
async function placeInside(root: string, rel: string, options: { mkdirs: boolean; dirMode?: number | undefined; owned: (real: string[]) => boolean; what: string }): Promise<string> {
  const parts = workspaceParts(rel);
  const base = await realRoot(root);
  // Judged on the path as named before anything is created, and again where it really lands.
  if (!options.owned([...base.split(sep), ...parts])) throw refused(rel, 'not_owned', `the workbench writes only ${options.what}`);
  let dir = base;
  for (const part of parts.slice(0, -1)) {
    const next = join(dir, part);
    let info;
    try {
      info = await lstat(next);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !options.mkdirs) throw fileSystemRefusal(error, rel, { file: rel });
      // mkdir never follows a link: a link put here meanwhile fails with EEXIST.
      await mkdir(next, options.dirMode === undefined ? undefined : { mode: options.dirMode });
      dir = next;
      continue;
    }
    if (info.isSymbolicLink()) {
      const real = await realpath(next);
      if (!isInside(base, real)) throw refused(rel, 'outside_workspace', 'a folder on its way is a symbolic link leading out of the workspace: nothing is written');
      dir = real;
    } else if (info.isDirectory()) dir = next;
    else throw new WorkbenchError('invalid_request', `${rel}: a part of the path is a file, not a folder`, { details: { file: rel } });
  }
  const name = parts[parts.length - 1]!;
  let target = join(dir, name);
  const existing = await lstat(target).catch(() => undefined);
  if (existing?.isSymbolicLink()) {
    const real = await realpath(target).catch(() => undefined);
    if (real === undefined || !isInside(base, real)) throw refused(rel, 'outside_workspace', 'it is a symbolic link leading out of the workspace (or to nothing): nothing is written');
    target = real;
  }
  const inWorkspace = relative(base, target).split(sep);
  if (inWorkspace.some((p) => p.startsWith('.'))) throw refused(rel, 'hidden', 'hidden files and folders (.git, .env, …) are not the workbench’s to write');
  if (!options.owned(target.split(sep))) throw refused(rel, 'not_owned', `the workbench writes only ${options.what}`);
  return target;
}

/** Options of {@link writeInside}. */
export interface ConfinedWriteOptions extends Pick<AtomicWriteOptions, 'mode' | 'dirMode' | 'durable'> {
  /** Create missing folders on the way (inside the workspace only). */
  mkdirs?: boolean;
  /**
   * Whether the workbench may write the file at this real place (its path split
   * on the separator); default: package files (`*.json` below `skills/packages`).
   */
  owned?: (real: string[]) => boolean;
  /** How the refusal of `owned` names what may be written. */
  what?: string;
}

/**
 * Replaces the workspace file `rel` atomically (core/fs/atomic), confined to
 * the workspace and to what the workbench owns (see the module comment). The
 * temporary file is created exclusively (never through a link) in the real
 * folder resolved, and its descriptor is checked to be there before a byte is
 * written.
 */
export async function writeInside(root: string, rel: string, content: string | Uint8Array, options: ConfinedWriteOptions = {}): Promise<void> {
  const target = await placeInside(root, rel, {
    mkdirs: options.mkdirs === true,
    dirMode: options.dirMode,
    owned: options.owned ?? ownedPackagePath,
    what: options.what ?? 'package files (*.json below skills/packages)',
  });
  const { mode, durable } = options;
  await writeFileAtomic(target, content, {
    ...(mode !== undefined && { mode }),
    ...(durable !== undefined && { durable }),
    checkOpened: (fd, tmp) => {
      if (process.platform !== 'linux') return;
      let where: string | undefined;
      try {
        where = readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return;
      }
      if (where !== tmp) throw refused(rel, 'outside_workspace', 'a folder on its way was replaced while it was being written: nothing is written');
    },
  });
}
