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
 * Node-only: uses node:fs.
 */
import { createHash } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { WorkbenchError } from '../errors';
import type { SkillId } from '../package/types';
import { isTemporaryName, writeFileAtomic } from '../fs/atomic';
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
}

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
    (r.base_text_hash === null || typeof r.base_text_hash === 'string')
  );
}

/** The drafts of one app-data folder. */
export class DraftStore {
  private readonly memory = new Map<string, DraftRecord>();
  private readonly chains = new Map<string, Promise<unknown>>();

  /** `dir` is the drafts folder; it is created on the first save, never by a read. */
  constructor(readonly dir: string) {}

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

  /** The draft `id`: the one in memory (opened, not yet saved) or the saved one; undefined when there is none. */
  async get(id: string): Promise<DraftRecord | undefined> {
    const held = this.memory.get(id);
    if (held) return held;
    const record = await this.readFile(this.fileOf(id));
    return record?.id === id ? record : undefined;
  }

  /** Holds a draft that was opened but not saved yet (nothing is written). */
  hold(record: DraftRecord): void {
    this.memory.set(record.id, record);
  }

  /** Saves a draft atomically and durably; resolves once it is on the disk. */
  save(record: DraftRecord): Promise<DraftRecord> {
    return this.serial(record.id, async () => {
      await writeFileAtomic(this.fileOf(record.id), `${JSON.stringify(record)}\n`, { mkdirs: true });
      this.memory.delete(record.id);
      return record;
    });
  }

  /** Forgets a draft (memory and disk); true when there was one. */
  discard(id: string): Promise<boolean> {
    return this.serial(id, async () => {
      const held = this.memory.delete(id);
      const file = this.fileOf(id);
      const saved = (await this.readFile(file))?.id === id;
      if (saved) await rm(file, { force: true });
      return held || saved;
    });
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
    for (const [id, record] of this.memory) byId.set(id, record);
    return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}
