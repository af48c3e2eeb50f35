/**
 * Watching a workspace's package folder for edits made outside the workbench
 * (an editor, `git pull`): chokidar with native events, or polling on a
 * network folder (NFS, SMB/CIFS, FUSE mounts such as sshfs, 9p) where native
 * events do not arrive. Changes are batched briefly and handed out with the
 * hash of the bytes now on disk.
 *
 * Node-only: uses node:fs and chokidar.
 */
import { watch as watchFolder, type FSWatcher as NodeWatcher } from 'node:fs';
import { readdir, realpath, stat, statfs } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { packagesFolder } from './discover';
import { hashText } from './drafts';
import { identityFromPath } from './identity';
import { isInside, readInside } from './confine';
import type { SkillId } from '../package/types';

/** One change of a watched file. */
export interface WorkspaceChange {
  kind: 'added' | 'changed' | 'removed';
  /** Relative to the workspace root, `/` separators. */
  path: string;
  skill?: SkillId;
  /** `sha256:<hex>` of the bytes on disk (absent for a removal or an unreadable file). */
  hash?: string;
}

/** Options of {@link watchWorkspace}. */
export interface WatchOptions {
  /** Poll instead of native events; default: poll when the folder is on a network file system. */
  polling?: boolean;
  /** Poll interval in milliseconds (default 1000). */
  intervalMs?: number;
  /** How long changes are gathered before one batch is delivered (default 50 ms). */
  batchMs?: number;
  /** Largest file hashed for a change (larger files are reported without a hash). */
  maxBytes?: number;
}

/** A running watcher. */
export interface WorkspaceWatcher {
  /** Whether the folder is polled rather than watched with native events. */
  readonly polling: boolean;
  close(): Promise<void>;
}

/** `f_type` magic numbers of network and FUSE file systems on Linux (statfs(2)). */
const NETWORK_FS_TYPES = new Set([
  0x6969, // NFS
  0x517b, // SMB
  0xff534d42, // CIFS
  0xfe534d42, // SMB2
  0x65735546, // FUSE (sshfs, rclone, ...)
  0x01021997, // 9p (WSL, VMs)
  0x564c, // NCP
  0x5346414f, // AFS
  0x00c36400, // Ceph
  0x013111a8, // IBRIX
]);

/** Whether `dir` is on a file system where native change events are unreliable. */
export async function isNetworkFolder(dir: string): Promise<boolean> {
  if (process.platform !== 'linux') return false;
  try {
    return NETWORK_FS_TYPES.has(Number((await statfs(dir)).type) >>> 0);
  } catch {
    return false;
  }
}

/**
 * Closes chokidar's gap on folders that appear while it watches: it reads a new
 * folder before it watches it, so a file renamed into it in between (the first
 * package of a new namespace, the first review request) is never reported. Each
 * new folder `accept` takes (and one of them found inside another) gets a watch
 * of its own first and is read after it; `onFile` gets every other name found
 * either way that chokidar does not track yet (names that are gone again too: the caller checks).
 * No watch is added when polling, which has no gap.
 * Returns what closes those watches.
 */
export function coverNewFolders(watcher: FSWatcher, options: { polling: boolean; accept: (dir: string) => boolean; onFile: (file: string) => void }): () => void {
  const own = new Map<string, NodeWatcher>();
  let closed = false;
  const found = (path: string): void => {
    if (closed) return;
    // A folder inside a new folder may have appeared in the same gap: it is covered the same way.
    if (options.accept(path)) cover(path);
    // A name chokidar already tracks is chokidar's to report (an edit stays a change, not an addition).
    else if (!watcher.getWatched()[dirname(path)]?.includes(basename(path))) options.onFile(path);
  };
  const cover = (dir: string): void => {
    if (!options.polling && !own.has(dir)) {
      try {
        const folder = watchFolder(dir, (_event, name) => name && found(join(dir, name.toString())));
        folder.on('error', () => undefined);
        own.set(dir, folder);
      } catch {
        // Gone again already: nothing to watch.
      }
    }
    void readdir(dir).then(
      (names) => {
        for (const name of names) found(join(dir, name));
      },
      () => undefined,
    );
  };
  watcher.on('addDir', (dir: string) => {
    if (!closed && options.accept(dir)) cover(dir);
  });
  watcher.on('unlinkDir', (dir: string) => {
    own.get(dir)?.close();
    own.delete(dir);
  });
  return () => {
    closed = true;
    for (const folder of own.values()) folder.close();
    own.clear();
  };
}

/**
 * Watches the package folder of `root` (see `packagesFolder`) and calls
 * `onChanges` with batches of changes. Resolves once the initial scan is done,
 * so every edit after it is reported.
 */
export async function watchWorkspace(
  root: string,
  onChanges: (changes: WorkspaceChange[]) => void,
  options: WatchOptions = {},
): Promise<WorkspaceWatcher> {
  const found = await packagesFolder(root);
  // A package folder that is a link leading out of the workspace is not watched (discovery reports it); the root is watched instead.
  const folder = isInside(await realpath(root), await realpath(found).catch(() => root)) ? found : root;
  const polling = options.polling ?? (await isNetworkFolder(folder));
  const batchMs = options.batchMs ?? 50;
  const maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
  const ignored = (path: string): boolean => relative(folder, path).split(sep).some((part) => part.startsWith('.'));
  const watcher: FSWatcher = watch(folder, {
    ignoreInitial: true,
    persistent: true,
    usePolling: polling,
    interval: options.intervalMs ?? 1000,
    binaryInterval: options.intervalMs ?? 1000,
    depth: 1,
    // A link is never followed: one leading out of the workspace must not report (or hash) what is there.
    followSymlinks: false,
    // Dotfiles: Finder's .DS_Store, editors' swap files, the temp files of atomic saves.
    ignored,
  });
  let pending = new Map<string, WorkspaceChange['kind']>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const flush = async (): Promise<void> => {
    timer = undefined;
    const batch = pending;
    pending = new Map();
    const changes: WorkspaceChange[] = [];
    for (const [file, kind] of batch) {
      const path = relative(root, file).split(sep).join('/');
      const change: WorkspaceChange = { kind, path };
      const id = identityFromPath(file);
      if (!id.problem) change.skill = id.id;
      if (kind !== 'removed') {
        try {
          // Confined: a link leading out of the workspace gives a change without a hash.
          change.hash = hashText(await readInside(root, path, maxBytes));
        } catch {
          // Removed again, or too big: the change is still reported, without a hash.
        }
      }
      changes.push(change);
    }
    if (!closed && changes.length > 0) onChanges(changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)));
  };

  const note = (kind: WorkspaceChange['kind']) => (file: string) => {
    if (closed) return;
    const before = pending.get(file);
    // A file removed and added again within one batch was replaced: a change.
    pending.set(file, before === 'removed' && kind === 'added' ? 'changed' : before === 'added' && kind === 'changed' ? 'added' : kind);
    timer ??= setTimeout(() => void flush(), batchMs);
  };
  watcher.on('add', note('added'));
  watcher.on('change', note('changed'));
  watcher.on('unlink', note('removed'));
  watcher.on('error', () => undefined);
  // A namespace folder that appears (the first package of a new namespace): its files, as chokidar reports them.
  const uncover = coverNewFolders(watcher, {
    polling,
    accept: (dir) => relative(folder, dir).split(sep).length === 1 && !ignored(dir),
    onFile: (file) => {
      if (ignored(file)) return;
      void stat(file).then(
        (info) => info.isFile() && !pending.has(file) && note('added')(file),
        () => undefined,
      );
    },
  });
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    polling,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      uncover();
      await watcher.close();
    },
  };
}
