/**
 * Watching a workspace's `skills/reviews/` for requests that arrive or change
 * outside this session (the CLI, another workbench, `git pull`), so the review
 * list refreshes on an event instead of a timer. The folder may not exist yet:
 * the workspace root is watched two levels deep, everything but
 * `skills/reviews/*.json` ignored. Polled on network folders, as the package
 * watcher is.
 *
 * Node-only: uses chokidar.
 */
import { basename, join, relative, sep } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { coverNewFolders, isNetworkFolder, type WatchOptions } from '../workspace/watch';

/** A running watcher of the requests folder. */
export interface ReviewsWatcher {
  close(): Promise<void>;
}

const REQUEST_FILE = /^([A-Za-z0-9._-]{1,128})\.json$/;

/**
 * Calls `onChange` with the ids of requests added, changed or removed under
 * `root/skills/reviews`, batched briefly. Resolves once the initial scan is done.
 */
export async function watchReviews(root: string, onChange: (ids: string[]) => void, options: WatchOptions = {}): Promise<ReviewsWatcher> {
  const polling = options.polling ?? (await isNetworkFolder(root));
  const ignored = (path: string): boolean => {
    const rel = relative(root, path);
    if (rel === '') return false;
    const parts = rel.split(sep);
    if (parts[0] !== 'skills') return true;
    if (parts.length === 1) return false;
    if (parts[1] !== 'reviews') return true;
    if (parts.length === 2) return false;
    // Request files only: not the temp files of atomic writes, not sub-folders.
    return parts.length > 3 || !REQUEST_FILE.test(parts[2]!);
  };
  const watcher: FSWatcher = watch(root, {
    ignoreInitial: true,
    persistent: true,
    usePolling: polling,
    interval: options.intervalMs ?? 1000,
    depth: 2,
    ignored,
  });
  let pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const note = (file: string) => {
    const id = REQUEST_FILE.exec(basename(file))?.[1];
    if (closed || id === undefined || ignored(file)) return;
    pending.add(id);
    timer ??= setTimeout(() => {
      timer = undefined;
      const ids = [...pending].sort();
      pending = new Set();
      if (!closed && ids.length > 0) onChange(ids);
    }, options.batchMs ?? 50);
  };
  watcher.on('add', note);
  watcher.on('change', note);
  watcher.on('unlink', note);
  // A folder that appears (the first request of a workspace): its requests, as chokidar reports them.
  const skills = join(root, 'skills');
  const reviews = join(skills, 'reviews');
  const uncover = coverNewFolders(watcher, { polling, accept: (dir) => dir === skills || dir === reviews, onFile: note });
  watcher.on('error', () => undefined);
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      uncover();
      await watcher.close();
    },
  };
}
