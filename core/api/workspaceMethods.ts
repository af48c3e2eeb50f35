/**
 * The workspace and drafts methods: one open workspace folder (watched for
 * edits made elsewhere), atomic saves guarded by the hash an edit started
 * from, autosaved drafts that survive a crash, and opening a published skill
 * for editing (its draft records the base version and ETag that publish sends
 * as If-Match).
 *
 * Node-only: files and watchers.
 */
import { readdir, stat, realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { WorkbenchError } from '../errors';
import type { SkillId } from '../package/types';
import { skillKey } from '../package/types';
import { isStoreError } from '../store/errors';
import { removeStaleTemporaries } from '../fs/atomic';
import { MAX_PROJECT_CONFIG_BYTES, PROJECT_CONFIG_FILE, parseProjectConfig } from '../workspace/projectConfig';
import { isInside, readInside, writeInside } from '../workspace/confine';
import { discoverPackages, packagesFolder } from '../workspace/discover';
import { DraftStore, fileDraftId, hashText, isDirty, revisionOf, storeDraftId, type DraftRecord } from '../workspace/drafts';
import { identityFromPath } from '../workspace/identity';
import { watchWorkspace, type WatchOptions, type WorkspaceWatcher } from '../workspace/watch';
import type { DraftView, WorkspaceEntry, WorkspaceFile, WorkspaceView } from './contract';
import type { EventHub } from './events';
import type { ConnectionPool } from './pool';
import type { Handlers } from './router';
import { normalizedOrThrow, packageText, type SourceResolver } from './storeMethods';

/** Largest workspace file read or hashed (the package text schema's bound). */
export const MAX_WORKSPACE_FILE_BYTES = 16 * 1024 * 1024;

/** The text a skill the store does not have yet starts from. */
export const NEW_PACKAGE_TEXT = `${JSON.stringify(
  {
    display_name: '',
    description: '',
    domains: [],
    tags: [],
    planning_instructions: [],
    response_instructions: [],
    tool_hints: [],
    resources: [],
    activation_examples: { should_activate: [], should_not_activate: [] },
    change_reason: 'First version',
  },
  null,
  2,
)}\n`;

/** A failed write as the user can act on it (the file, and the system's reason in words). */
function writeFailure(error: unknown, what: string, file?: string): WorkbenchError {
  if (error instanceof WorkbenchError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const why =
    code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'ENOSPC' ? 'the disk is full' : code === 'EROFS' ? 'the folder is read-only' : code === 'ENOTDIR' ? 'a part of the path is a file, not a folder' : code === 'EISDIR' ? 'it is a folder' : String((error as Error)?.message ?? error);
  return new WorkbenchError(code === 'ENOTDIR' || code === 'EISDIR' ? 'invalid_request' : 'unavailable', `cannot save ${what}: ${why}; nothing was changed`, {
    cause: error,
    ...(file !== undefined && { details: { file } }),
  });
}

/** The answer for a draft id that names no draft. */
function missingDraft(id: string): WorkbenchError {
  return new WorkbenchError('not_found', `no draft '${id}': it was discarded, or never opened`, { details: { pointer: '/id' } });
}

/** Removes what killed writers left in the package folders of `root` (hidden temporary files of dead processes). */
async function sweepWorkspace(root: string): Promise<void> {
  const folder = await packagesFolder(root);
  // Never in a folder a link leads to outside the workspace.
  if (!isInside(root, await realpath(folder).catch(() => root))) return;
  await removeStaleTemporaries(folder);
  const namespaces = await readdir(folder, { withFileTypes: true }).catch(() => []);
  for (const ns of namespaces) {
    if (ns.isDirectory() && !ns.name.startsWith('.')) await removeStaleTemporaries(join(folder, ns.name));
  }
}

/** What the workspace methods need. */
export interface WorkspaceMethodsOptions {
  pool: ConnectionPool;
  events: EventHub;
  /** The drafts folder (`<app-data>/drafts`). */
  draftsDir: string;
  /** How the folder is watched (tests shorten the batch; polling is forced for network folders). */
  watch?: WatchOptions;
}

/** The workspace and drafts part of the service. */
export interface WorkspaceMethods {
  handlers: Handlers;
  /** Reads `draft` and `file` package sources for diff and merge. */
  resolveSource: SourceResolver;
  /** The open workspace folder, or null. */
  root(): string | null;
  /** A draft's text and identity (undefined when there is no such draft, or it has no identity yet). */
  draft(id: string): Promise<{ skill: SkillId; text: string; path?: string } | undefined>;
  /** Rebases a store draft on the revision just published from it. */
  published(draftId: string, text: string, result: { version: number; etag: string; manifest_hash: string }): Promise<void>;
  /** Stops the watcher. */
  close(): Promise<void>;
}

interface OpenWorkspace {
  root: string;
  watcher: WorkspaceWatcher;
}

/** Builds the workspace and drafts handlers. */
export function workspaceMethods(options: WorkspaceMethodsOptions): WorkspaceMethods {
  const { pool, events } = options;
  const drafts = new DraftStore(options.draftsDir);
  const swept = drafts.sweep();
  let current: OpenWorkspace | undefined;
  const saving = new Map<string, Promise<unknown>>();

  const requireWorkspace = (): OpenWorkspace => {
    if (!current) throw new WorkbenchError('not_found', 'no workspace is open: open a folder first', { details: { reason: 'no_workspace' } });
    return current;
  };

  const fileOf = (ws: OpenWorkspace, path: string): string => join(ws.root, ...path.split('/'));

  /** The bytes of a workspace file (confined to the workspace: see core/workspace/confine), or undefined when it does not exist. */
  const readBytes = async (ws: OpenWorkspace, path: string): Promise<Uint8Array | undefined> => {
    try {
      return await readInside(ws.root, path, MAX_WORKSPACE_FILE_BYTES);
    } catch (error) {
      if (error instanceof WorkbenchError && error.code === 'not_found') return undefined;
      if (error instanceof WorkbenchError) throw new WorkbenchError(error.code, error.message, { details: { ...error.details, file: path } });
      throw error;
    }
  };

  const readFile = async (ws: OpenWorkspace, path: string): Promise<WorkspaceFile> => {
    const bytes = await readBytes(ws, path);
    if (!bytes) throw new WorkbenchError('not_found', `${path}: no such file in the workspace`, { details: { file: path } });
    const mtime = await stat(fileOf(ws, path)).then((s) => s.mtime.toISOString(), () => new Date().toISOString());
    return { path, text: new TextDecoder().decode(bytes), hash: hashText(bytes), mtime };
  };

  const diskHash = async (ws: OpenWorkspace, path: string): Promise<string | null> => {
    const bytes = await readBytes(ws, path);
    return bytes ? hashText(bytes) : null;
  };

  /** The hash of the file a draft of the open workspace comes from, as on the disk now (null: removed); undefined for other drafts. */
  const diskState = (record: DraftRecord): Promise<string | null> | undefined =>
    record.origin.kind === 'file' && current && record.root === current.root ? diskHash(current, record.origin.path) : undefined;

  /**
   * A draft as the contract shows it, with a disk conflict when its file changed
   * underneath. `disk` is that file's {@link diskState}, when the caller started
   * reading it already.
   */
  const view = async (record: DraftRecord, conflict?: DraftView['conflict'], disk = diskState(record)): Promise<DraftView> => {
    const out: DraftView = { id: record.id, origin: record.origin, text: record.text, dirty: isDirty(record), updated_at: record.updated_at };
    if (conflict) out.conflict = conflict;
    else if (disk && record.origin.kind === 'file') {
      const hash = await disk;
      if (hash !== record.origin.base_hash) {
        out.conflict = {
          kind: 'disk',
          message: hash === null ? `${record.origin.path} was removed from the disk since this draft was opened` : `${record.origin.path} changed on the disk since this draft was opened`,
          ...(hash !== null && { hash }),
        };
      }
    }
    return out;
  };

  /**
   * Keeps a draft after its base moved: saved when it has edits, otherwise only held
   * (nothing left to recover). `record` is as just read: both are compare-and-swaps
   * on its revision, so a draft another process saved meanwhile is never lost.
   */
  const keep = async (record: DraftRecord): Promise<void> => {
    if (isDirty(record)) await drafts.save(record, revisionOf(record));
    else {
      await drafts.discard(record.id, revisionOf(record));
      drafts.hold({ ...record, revision: 0 });
    }
  };

  /** A draft handed to an editor: its next save from here is based on the revision shown. */
  const shown = async (record: DraftRecord, conflict?: DraftView['conflict']): Promise<DraftView> => {
    drafts.shownAt(record);
    return view(record, conflict);
  };

  const visibleDrafts = async (): Promise<DraftRecord[]> =>
    (await drafts.list()).filter((r) => r.origin.kind === 'store' || (current !== undefined && r.root === current.root));

  const workspaceView = async (ws: OpenWorkspace): Promise<WorkspaceView> => {
    const dirty = new Map<string, string>();
    for (const r of await drafts.list()) {
      if (r.origin.kind === 'file' && r.root === ws.root && isDirty(r)) dirty.set(r.origin.path, r.id);
    }
    const entries: WorkspaceEntry[] = (await discoverPackages(ws.root)).map((f) => {
      const entry: WorkspaceEntry = { path: f.path };
      if (f.id) entry.skill = f.id;
      if (f.problem) entry.problem = { code: f.problem.code, message: f.problem.message };
      const draft = dirty.get(f.path);
      if (draft) entry.draft = draft;
      return entry;
    });
    return { root: ws.root, entries, polling: ws.watcher.polling };
  };

  const onChanges = async (ws: OpenWorkspace, changes: Parameters<Parameters<typeof watchWorkspace>[1]>[0]): Promise<void> => {
    if (current !== ws) return;
    events.emit('workspace.changed', { root: ws.root, changes });
    for (const change of changes) {
      const record = await drafts.get(fileDraftId(ws.root, change.path)).catch(() => undefined);
      if (!record || record.origin.kind !== 'file' || !isDirty(record)) continue;
      const hash = change.hash ?? null;
      if (hash === record.origin.base_hash) continue;
      events.emit('drafts.changed', { kind: 'conflict', id: record.id, draft: await view(record) });
    }
  };

  const closeWorkspace = async (): Promise<boolean> => {
    const ws = current;
    current = undefined;
    if (!ws) return false;
    await ws.watcher.close();
    return true;
  };

  /** Runs `fn` after every earlier save of the same file. */
  const serial = <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const run = (saving.get(key) ?? Promise.resolve()).then(fn, fn);
    const settled = run.catch(() => undefined);
    saving.set(key, settled);
    void settled.then(() => {
      if (saving.get(key) === settled) saving.delete(key);
    });
    return run;
  };

  const requireDraft = async (id: string): Promise<DraftRecord> => {
    const record = await drafts.get(id);
    if (!record) throw missingDraft(id);
    return record;
  };

  const handlers: Handlers = {
    'workspace.open': async (params) => {
      const dir = resolve(params.dir);
      let info;
      try {
        info = await stat(dir);
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        throw new WorkbenchError(code === 'ENOENT' ? 'not_found' : 'invalid_request', `cannot open ${dir} as the workspace: ${code === 'ENOENT' ? 'no such folder' : (error as Error).message}`, { details: { pointer: '/dir' } });
      }
      if (!info.isDirectory()) throw new WorkbenchError('invalid_request', `cannot open ${dir} as the workspace: it is a file, not a folder`, { details: { pointer: '/dir' } });
      const root = await realpath(dir);
      await closeWorkspace();
      await sweepWorkspace(root);
      const holder: { ws?: OpenWorkspace } = {};
      const watcher = await watchWorkspace(root, (changes) => void (holder.ws && onChanges(holder.ws, changes)), options.watch);
      const ws: OpenWorkspace = { root, watcher };
      holder.ws = ws;
      if (current) await closeWorkspace();
      current = ws;
      return workspaceView(ws);
    },

    'workspace.list': async () => (current ? workspaceView(current) : null),

    'workspace.read': async (params) => readFile(requireWorkspace(), params.path),

    'workspace.projectConfig': async () => {
      const ws = requireWorkspace();
      let bytes: Uint8Array;
      try {
        bytes = await readInside(ws.root, PROJECT_CONFIG_FILE, MAX_PROJECT_CONFIG_BYTES);
      } catch (error) {
        if (error instanceof WorkbenchError && error.code === 'not_found') return null;
        // Too large, a link leading out, not a regular file: the defaults do not apply, and the setup says why.
        if (error instanceof WorkbenchError) return { file: PROJECT_CONFIG_FILE, problem: { message: `${PROJECT_CONFIG_FILE}: ${error.message}`, pointer: '/' } };
        throw error;
      }
      try {
        return { file: PROJECT_CONFIG_FILE, config: parseProjectConfig(PROJECT_CONFIG_FILE, bytes) };
      } catch (error) {
        if (error instanceof WorkbenchError && error.details?.['reason'] === 'project_config') {
          return { file: PROJECT_CONFIG_FILE, problem: { message: error.message, pointer: String(error.details['pointer']) } };
        }
        throw error;
      }
    },

    'workspace.save': async (params) => {
      const ws = requireWorkspace();
      return serial(`${ws.root}\n${params.path}`, async () => {
        const hash = hashText(params.text);
        const onDisk = await diskHash(ws, params.path);
        if (onDisk !== params.base_hash && onDisk !== hash) {
          const what = onDisk === null ? 'was removed from the disk' : params.base_hash === null ? 'already exists on the disk' : 'changed on the disk';
          throw new WorkbenchError('conflict', `${params.path} ${what} since this edit started: nothing was written. Reload it (or compare and merge), then save again.`, {
            details: { file: params.path, reason: 'changed_on_disk', base_hash: params.base_hash, disk_hash: onDisk },
          });
        }
        if (onDisk !== hash) {
          try {
            // Only package files below skills/packages, never through a link out of the workspace.
            await writeInside(ws.root, params.path, params.text, { mkdirs: true });
          } catch (error) {
            throw writeFailure(error, params.path, params.path);
          }
        }
        const id = fileDraftId(ws.root, params.path);
        const record = await drafts.get(id);
        if (record && record.origin.kind === 'file') {
          const rebased: DraftRecord = { ...record, origin: { ...record.origin, base_hash: hash }, base_text_hash: hash };
          await keep(rebased);
          events.emit('drafts.changed', { kind: 'rebased', id, draft: await view(rebased) });
        }
        return readFile(ws, params.path);
      });
    },

    'workspace.close': async () => ({ closed: await closeWorkspace() }),

    'drafts.list': async () => {
      await swept;
      return { drafts: await Promise.all((await visibleDrafts()).map((r) => view(r))) };
    },

    // A reload: the editor now holds this revision, and saves on top of it.
    'drafts.get': async (params) => shown(await requireDraft(params.id)),

    'drafts.save': async (params) => {
      // The file's disk state is read while the draft is written and flushed: both wait on the disk, neither on the other.
      let disk: Promise<string | null> | undefined;
      const edited = (record: DraftRecord): DraftRecord => {
        disk = diskState(record);
        disk?.catch(() => undefined);
        return { ...record, text: params.text, updated_at: new Date().toISOString() };
      };
      // Based on what this process's editor was shown, not on what is on the disk now: another window's save in between is a conflict.
      const saved = await drafts.edit(params.id, edited, drafts.shownRevision(params.id)).catch((error: unknown) => {
        throw writeFailure(error, 'the draft');
      });
      if (!saved) throw missingDraft(params.id);
      const draft = await view(saved, undefined, disk);
      events.emit('drafts.changed', { kind: 'saved', id: saved.id, draft });
      return draft;
    },

    'drafts.discard': async (params) => {
      const discarded = await drafts.discard(params.id, drafts.shownRevision(params.id));
      if (discarded) events.emit('drafts.changed', { kind: 'discarded', id: params.id });
      return { discarded };
    },

    'drafts.openFile': async (params) => {
      const ws = requireWorkspace();
      const id = fileDraftId(ws.root, params.path);
      const existing = await drafts.get(id);
      if (existing) return shown(existing);
      const file = await readFile(ws, params.path);
      const identity = identityFromPath(params.path);
      const record: DraftRecord = {
        format: 1,
        id,
        origin: { kind: 'file', path: params.path, ...(!identity.problem && { skill: identity.id }), base_hash: file.hash },
        root: ws.root,
        text: file.text,
        base_text_hash: hashText(file.text),
        updated_at: new Date().toISOString(),
      };
      drafts.hold(record);
      return shown(record);
    },

    'packages.open': async (params) => {
      const id = storeDraftId(params.connection, params.skill);
      return pool.use(params.connection, async (store) => {
        let published;
        try {
          published = await store.getPublished(params.skill);
        } catch (error) {
          if (!isStoreError(error, 'not_found')) throw error;
        }
        const existing = await drafts.get(id);
        if (existing && existing.origin.kind === 'store') {
          const base = existing.origin.base;
          if (published && base?.etag !== published.etag) {
            return shown(existing, {
              kind: 'published',
              message: `${skillKey(params.skill)} is at v${published.version} now; this draft is based on ${base ? `v${base.version}` : 'nothing (a new skill)'}. Merge before publishing.`,
              version: published.version,
              etag: published.etag,
            });
          }
          return shown(existing);
        }
        const text = published ? packageText(published.package) : NEW_PACKAGE_TEXT;
        const record: DraftRecord = {
          format: 1,
          id,
          origin: {
            kind: 'store',
            connection: params.connection,
            skill: params.skill,
            base: published ? { version: published.version, etag: published.etag, manifest_hash: published.manifest_hash } : null,
          },
          text,
          base_text_hash: published ? hashText(text) : null,
          updated_at: new Date().toISOString(),
        };
        drafts.hold(record);
        return shown(record);
      });
    },
  };

  const resolveSource: SourceResolver = async (source, limits) => {
    if (source.kind === 'draft') {
      const record = await requireDraft(source.draft);
      const skill: SkillId | undefined = record.origin.skill;
      const pkg = normalizedOrThrow(record.text, skill, limits, 'the draft');
      return { label: 'draft', text: packageText(pkg), package: pkg };
    }
    const file = await readFile(requireWorkspace(), source.path);
    const identity = identityFromPath(source.path);
    const pkg = normalizedOrThrow(file.text, identity.problem ? undefined : identity.id, limits, source.path);
    return { label: source.path, text: packageText(pkg), package: pkg };
  };

  return {
    handlers,
    resolveSource,
    root: () => current?.root ?? null,
    async draft(id) {
      const record = await drafts.get(id);
      const skill = record?.origin.skill;
      if (!record || !skill) return undefined;
      return { skill, text: record.text, ...(record.origin.kind === 'file' && { path: record.origin.path }) };
    },
    async published(draftId, text, result) {
      // The publication is committed: an autosave that lands between this read and the rebase is
      // rebased in its turn (the rebase depends only on what was published), never a failed publish.
      for (let attempt = 1; ; attempt++) {
        const record = await drafts.get(draftId);
        if (!record || record.origin.kind !== 'store') return;
        const rebased: DraftRecord = {
          ...record,
          origin: { ...record.origin, base: { version: result.version, etag: result.etag, manifest_hash: result.manifest_hash } },
          base_text_hash: hashText(text),
        };
        try {
          await keep(rebased);
        } catch (error) {
          if (attempt < 5 && error instanceof WorkbenchError && error.code === 'conflict' && error.details?.['reason'] === 'draft_changed') continue;
          throw error;
        }
        events.emit('drafts.changed', { kind: 'rebased', id: draftId, draft: await view(rebased) });
        return;
      }
    },
    close: async () => {
      await closeWorkspace();
    },
  };
}
