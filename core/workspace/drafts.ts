/**
 * Autosaved drafts under the app-data folder (`<app-data>/drafts/`): one JSON
 * file per draft, replaced atomically and flushed on every save, so a draft
 * survives a crash or a kill of the workbench and is offered back when it
 * starts again. A draft that was opened but never saved lives in memory only:
 * opening a package for editing writes nothing.
 *
 * A draft knows where it comes from (a stored revision with its version and
 * ETag, or a workspace file with the hash of the bytes it was read from) and
 * the hash of its base text, so it can tell whether it has unsaved edits.
 *
 * Several processes may share the drafts folder (two `serve` instances on one
 * app-data folder). Every saved draft carries a revision, and a save or
 * discard is a compare-and-swap under the folder's lock: it names the revision
 * its text was based on, and when another process saved the draft since, it
 * is refused as a `conflict` (`details.reason: draft_changed`) instead of
 * replacing the other process's text.
 *
 * Node-only: uses node:fs.
 */
import { createHash } from 'node:crypto';
import { fstatSync, statSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { WorkbenchError } from '../errors';
import type { SkillId } from '../package/types';
import { isTemporaryName, removeStaleTemporaries, writeFileAtomic } from '../fs/atomic';
import { FileLock } from '../fs/fileLock';
import { fileKey } from '../fs/fileKey';
import { processGone, selfIdentity, type ProcessMark } from '../fs/processIdentity';
import { readFileBounded } from './read';

/** Where a draft comes from. */
export type DraftSource =
  | { kind: 'store'; connection: string; skill: SkillId; base: { version: number; etag: string; manifest_hash: string } | null }
  | { kind: 'file'; path: string; skill?: SkillId; base_hash: string | null };

/** One draft as it is kept on disk. */
export interface DraftRecord {
  format: 1;
  id: string;
  origin: DraftSource;
  /** The workspace folder a file draft belongs to (absolute). */
  root?: string;
  text: string;
  /** `sha256:<hex>` of the text the draft started from; null for a draft of something new. */
  base_text_hash: string | null;
  updated_at: string;
  /** How many times the draft was saved (absent: never, or by a version that did not count). */
  revision?: number;
  /** The process that saved this revision (pid, and where known its start time and the boot id). */
  writer?: ProcessMark;
}

/** How many saved drafts a store keeps parsed (see DraftStore.known): the ones being edited. */
const KNOWN_DRAFTS = 16;

/** Largest draft file read back (a package text is bounded far below). */
const MAX_DRAFT_BYTES = 64 * 1024 * 1024;

/** `sha256:<hex>` of the UTF-8 bytes of `text` (or of raw bytes). */
export function hashText(text: string | Uint8Array): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

/** The id of the draft of a stored skill on a connection. */
export function storeDraftId(connection: string, skill: SkillId): string {
  return `store:${connection}:${skill.namespace}/${skill.name}`;
}

/** The id of the draft of a workspace file (the folder is part of it: two workspaces never share drafts). */
export function fileDraftId(root: string, path: string): string {
  return `file:${hashText(root).slice('sha256:'.length, 'sha256:'.length + 12)}:${path}`;
}

/** Whether a draft differs from its base. */
export function isDirty(record: DraftRecord): boolean {
  return record.base_text_hash === null || hashText(record.text) !== record.base_text_hash;
}

function isRecord(value: unknown): value is DraftRecord {
  const r = value as Partial<DraftRecord> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    r.format === 1 &&
    typeof r.id === 'string' &&
    typeof r.text === 'string' &&
    typeof r.updated_at === 'string' &&
    typeof r.origin === 'object' &&
    r.origin !== null &&
    (r.base_text_hash === null || typeof r.base_text_hash === 'string') &&
    (r.revision === undefined || Number.isSafeInteger(r.revision)) &&
    (r.writer === undefined || (typeof r.writer === 'object' && r.writer !== null && Number.isSafeInteger(r.writer.pid)))
  );
}

/** This process, as a draft's `writer` names it. */
const WRITER: ProcessMark = { pid: process.pid, ...selfIdentity() };

function isSelf(mark: ProcessMark): boolean {
  return mark.pid === WRITER.pid && mark.start === WRITER.start && mark.boot === WRITER.boot;
}

/** The revision of a draft as saved (0: never saved). */
export function revisionOf(record: DraftRecord | undefined): number {
  return record?.revision ?? 0;
}

/** The drafts of one app-data folder. */
export class DraftStore {
  private readonly memory = new Map<string, DraftRecord>();
  private readonly chains = new Map<string, Promise<unknown>>();
  /** The revision of each draft this process last handed to an editor or saved: what its next save is based on. */
  private readonly shown = new Map<string, number>();
  private readonly lock: FileLock;
  /**
   * The saved drafts last read or written here, with their file's identity then
   * ({@link fileKey}): a save reads its draft back only when another process
   * replaced the file since. The most recent {@link KNOWN_DRAFTS} are kept.
   */
  private readonly known = new Map<string, { key: string; record: DraftRecord | undefined }>();

  /** `dir` is the drafts folder; it is created on the first save, never by a read. */
  constructor(readonly dir: string) {
    this.lock = new FileLock(dir, {
      timeoutMs: 30_000,
      foreignStaleMs: 60_000,
      createDir: {},
      timeoutError: (holder) => new WorkbenchError('timeout', `the drafts are being saved by another Skillbench process${holder ? ` (pid ${holder.pid})` : ''}; try again`),
    });
  }

  private fileOf(id: string): string {
    return join(this.dir, `${createHash('sha256').update(id).digest('hex').slice(0, 40)}.json`);
  }

  /** Runs `fn` after every earlier write of the same draft, so saves land in call order. */
  private serial<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.chains.get(id) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const settled = run.catch(() => undefined);
    this.chains.set(id, settled);
    void settled.then(() => {
      if (this.chains.get(id) === settled) this.chains.delete(id);
    });
    return run;
  }

  private async readFile(file: string): Promise<DraftRecord | undefined> {
    let bytes: Uint8Array;
    try {
      bytes = await readFileBounded(file, MAX_DRAFT_BYTES, 'draft');
    } catch (error) {
      if (error instanceof WorkbenchError && error.code === 'not_found') return undefined;
      throw error;
    }
    try {
      const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
      return isRecord(value) ? value : undefined;
    } catch {
      // Saves replace files atomically, so this is a file someone else damaged: not a draft.
      return undefined;
    }
  }

  /**
   * The draft `id`: the one in memory (opened, not yet saved) or the saved one;
   * undefined when there is none. A draft saved since it was opened here (by
   * another process) replaces the one held in memory.
   */
  async get(id: string): Promise<DraftRecord | undefined> {
    return this.newest(id, await this.readSaved(id));
  }

  /** The held draft `id` unless `saved` is newer; a held draft a save overtook is dropped. */
  private newest(id: string, saved: DraftRecord | undefined): DraftRecord | undefined {
    const held = this.memory.get(id);
    if (held && (!saved || revisionOf(saved) <= revisionOf(held))) return held;
    if (held) this.memory.delete(id);
    return saved;
  }

  /** Holds a draft that was opened but not saved yet (nothing is written). */
  hold(record: DraftRecord): void {
    this.memory.set(record.id, record);
  }

  /**
   * Records that `record` was handed to an editor: the next save of it from
   * this process is based on its revision (see {@link DraftStore.save}).
   */
  shownAt(record: DraftRecord): void {
    this.shown.set(record.id, revisionOf(record));
  }

  /** The revision the editors of this process last got of draft `id` (undefined: none got it here). */
  shownRevision(id: string): number | undefined {
    return this.shown.get(id);
  }

  /**
   * Saves a draft atomically and durably; resolves once it is on the disk. The
   * save is based on revision `base`: when the saved draft is at another
   * revision, another process saved it since, and the save is refused with
   * `conflict`, writing nothing. Without `base` (an editor of this process was
   * never shown the draft), the record's own revision is the base, and a
   * revision saved by another process that is still running is a conflict too:
   * this process has not loaded that window's text. A revision left by a
   * process that has ended (this server before a restart) is built on.
   */
  save(record: DraftRecord, base?: number): Promise<DraftRecord> {
    return this.serial(record.id, () => this.locked(async () => this.commit(record, await this.readSaved(record.id), base)));
  }

  /**
   * Saves `change` of the draft `id` (the held or the saved one, whichever
   * {@link DraftStore.get} would give) as {@link DraftStore.save} does, reading
   * the draft once, under the lock: what an autosave does. Undefined when there
   * is no such draft; nothing is created then.
   */
  edit(id: string, change: (record: DraftRecord) => DraftRecord, base?: number): Promise<DraftRecord | undefined> {
    return this.serial(id, async () => {
      // Nothing held and no folder: nothing saved either, and taking the lock would create the folder.
      if (!this.memory.has(id) && !isFolder(this.dir)) return undefined;
      return this.locked(async () => {
        const onDisk = await this.readSaved(id);
        const record = this.newest(id, onDisk);
        return record && this.commit(change(record), onDisk, base);
      });
    });
  }

  /** The saved draft `id`, read from its file (undefined: none), or as kept while the file is unchanged. */
  private async readSaved(id: string): Promise<DraftRecord | undefined> {
    const file = this.fileOf(id);
    let key: string;
    try {
      // One system call, not a thread-pool round trip: a save holds the lock meanwhile.
      key = fileKey(statSync(file, { bigint: true }));
    } catch (error) {
      this.known.delete(id);
      if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
      // Not a readable file: the read says why, with the draft's name.
      return this.readFile(file).then((record) => (record?.id === id ? record : undefined));
    }
    const kept = this.known.get(id);
    if (kept?.key === key) return kept.record;
    // Taken before the read: a file replaced in between has another key, and is read again next time.
    const record = await this.readFile(file);
    const saved = record?.id === id ? record : undefined;
    this.remember(id, key, saved);
    return saved;
  }

  private remember(id: string, key: string, record: DraftRecord | undefined): void {
    this.known.delete(id);
    this.known.set(id, { key, record });
    if (this.known.size > KNOWN_DRAFTS) this.known.delete(this.known.keys().next().value!);
  }

  /** The compare-and-swap of a save, under the lock: `onDisk` is the saved draft as just read. */
  private async commit(record: DraftRecord, onDisk: DraftRecord | undefined, base: number | undefined): Promise<DraftRecord> {
    const expected = base ?? revisionOf(record);
    if (revisionOf(onDisk) !== expected) throw draftChanged(record.id, onDisk, 'saved');
    if (base === undefined && onDisk?.writer && !isSelf(onDisk.writer) && !processGone(onDisk.writer)) throw draftChanged(record.id, onDisk, 'saved');
    const saved: DraftRecord = { ...record, revision: expected + 1, writer: WRITER };
    let key: string | undefined;
    this.known.delete(record.id);
    await writeFileAtomic(this.fileOf(record.id), `${JSON.stringify(saved)}\n`, { mkdirs: true, written: (fd) => void (key = fileKey(fstatSync(fd, { bigint: true }))) });
    // The rename keeps the inode, size and modification time: this is the key the saved file has.
    if (key !== undefined) this.remember(record.id, key, saved);
    this.memory.delete(record.id);
    this.shown.set(record.id, expected + 1);
    return saved;
  }

  /**
   * Forgets a draft (memory and disk); true when there was one. With `base`,
   * a draft another process saved since that revision is not removed (`conflict`).
   */
  discard(id: string, base?: number): Promise<boolean> {
    return this.serial(id, async () => {
      const file = this.fileOf(id);
      const forget = async (): Promise<boolean> => {
        const current = await this.readFile(file);
        const saved = current?.id === id;
        if (saved && base !== undefined && revisionOf(current) !== base) throw draftChanged(id, current, 'discarded');
        if (saved) await rm(file, { force: true });
        this.known.delete(id);
        const held = this.memory.delete(id);
        this.shown.delete(id);
        return held || saved;
      };
      // Nothing saved: nothing to guard (and no lock file to create in a folder that may not exist).
      return (await this.readFile(file))?.id === id ? this.locked(forget) : forget();
    });
  }

  /** Runs `fn` under the drafts folder's lock (the folder is created when missing: only writes get here). */
  private locked<T>(fn: () => Promise<T>): Promise<T> {
    return this.lock.run(fn);
  }

  /**
   * Removes what processes killed mid-save left in the folder: half-written
   * drafts and lock candidates whose writer is gone (a live writer's are kept).
   */
  async sweep(): Promise<void> {
    await removeStaleTemporaries(this.dir);
    await this.lock.removeStaleCandidates();
  }

  /** Every draft: the saved ones (including those a crash left behind) and the ones only opened. */
  async list(): Promise<DraftRecord[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') names = [];
      else throw new WorkbenchError('unavailable', `cannot read the drafts folder: ${(error as Error).message}`, { cause: error });
    }
    const byId = new Map<string, DraftRecord>();
    for (const name of names.sort()) {
      if (isTemporaryName(name) || !name.endsWith('.json')) continue;
      const record = await this.readFile(join(this.dir, name));
      if (record && this.fileOf(record.id) === join(this.dir, name)) byId.set(record.id, record);
    }
    for (const id of [...this.memory.keys()]) {
      const record = this.newest(id, byId.get(id));
      if (record) byId.set(id, record);
    }
    return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}

/** Whether `path` is a folder (false when it is missing); one system call, no thread-pool round trip. */
function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return false;
    throw error;
  }
}

/** The 409 of a save or discard based on a revision another process has replaced. */
function draftChanged(id: string, current: DraftRecord | undefined, action: 'saved' | 'discarded'): WorkbenchError {
  const when = current ? ` (at ${current.updated_at})` : '';
  const what = current ? `was saved by another Skillbench window${when}` : 'was discarded by another Skillbench window';
  return new WorkbenchError(
    'conflict',
    `the draft ${what} since this one loaded it: nothing was ${action}. Reload the draft to see that text (copy your edits first), then edit again.`,
    { details: { reason: 'draft_changed', id, revision: revisionOf(current), ...(current && { updated_at: current.updated_at }) } },
  );
}
