/**
 * The embedded registry: a directory on the local disk implementing {@link SkillStore}.
 * It is the default connection. The layout and the crash-safety rules are described
 * in docs/local-layout.md; in short:
 *
 * - every file is replaced atomically (temp file, fsync, rename, fsync of the folder);
 * - the commit point of a mutation is the rename of the skill's `state.json`; immutable
 *   version files are written and flushed before it, so reads (which always start at
 *   `state.json`) never see uncommitted data;
 * - mutations of one registry are serialized across processes by an exclusive lock
 *   file and inside a process by a promise chain; a lock left by a dead process is
 *   taken over and the skill it was mutating is repaired first.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  constants as fsConstants,
  fdatasync as fdatasyncCallback,
  fsync as fsyncCallback,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { mkdir, open, readFile, readdir, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { resolveLimits, sameVersionedContent } from '../package/index';
import type { SkillAuthoringLimits, SkillId, SkillManifest, SkillPackage } from '../package/types';
import { verifiedManifest, verifiedResource } from './verify';
import { StoreError, isStoreError } from './errors';
import {
  DEFAULT_ADMINISTRATION_LIMITS,
  auditAfterCommit,
  auditNotRecordedWarning,
  checkDeleteRange,
  checkDeleteRequest,
  checkMetadataFilter,
  checkPublishPrecondition,
  checkSkillId,
  compareSkillIds,
  etagFor,
  idempotencyConflict,
  idempotencyKeyHash,
  isSlug,
  matchesFilter,
  pageVersions,
  preparePublication,
  protectionFor,
  replayIdempotent,
  type IdempotencyRecord,
  type PreparedPublication,
} from './publication';
import type {
  AuditEvent,
  AuditSink,
  CandidateRequest,
  CandidateResult,
  DeleteRequest,
  DeleteResult,
  ManifestRef,
  MetadataFilter,
  PublishRequest,
  PublishResult,
  ResourceRef,
  SkillAdministrationLimits,
  SkillMetadata,
  SkillResourceBody,
  SkillStore,
  StoredRevision,
  VersionEntry,
  VersionPage,
  VersionQuery,
} from './types';

/** Options of {@link openLocalStore}. */
export interface LocalStoreOptions {
  limits?: Partial<SkillAuthoringLimits>;
  adminLimits?: Partial<SkillAdministrationLimits>;
  /** Audit sink; defaults to appending JSON lines to `<dir>/audit.jsonl`. */
  audit?: AuditSink;
  /** Time source, for tests. */
  clock?: () => Date;
  /** How long a mutation waits for the registry lock before failing with `timeout` (default 30 s). */
  lockTimeoutMs?: number;
  /** Age after which a lock held by another host counts as abandoned (default 60 s). */
  foreignLockStaleMs?: number;
  /**
   * Flush every write to the disk before acknowledging it (default true). `false`
   * keeps atomicity and crash safety against a dying process but not against power
   * loss: for throwaway registries such as test and bench fixtures.
   */
  durable?: boolean;
  /**
   * Create the registry when the folder holds none (default true). `false` opens
   * only an existing registry and fails with `not_found` otherwise, touching nothing:
   * what read-only commands use, so a mistyped path never creates a registry.
   */
  create?: boolean;
  /**
   * Called at the points where a crash leaves work to repair, for crash tests that
   * kill the process there: `after-commit` (a publication's `state.json` is committed,
   * its catalog entry not yet written) and `repair` (a taker of an abandoned lock is
   * repairing, nothing rewritten yet).
   */
  crashPoint?: (point: LocalCrashPoint) => void;
}

/** Where {@link LocalStoreOptions.crashPoint} is called. */
export type LocalCrashPoint = 'after-commit' | 'repair';

const FORMAT = 1;
const MARKER = 'registry.json';
const CATALOG_SHARD_HEX = 2;

/** One history entry of `state.json`; tombstones keep their metadata. */
interface HistoryEntry {
  version: number;
  created_at: string;
  manifest_hash: string;
  change_reason: string;
  status: 'available' | 'deleted';
  deleted_at?: string;
  /** Hash of the Idempotency-Key that created this revision, for replay after a crash. */
  key_hash?: string;
  fingerprint?: string;
}

/** `skills/<ns>/<name>/state.json`: the committed state of one skill. */
interface SkillState {
  format: number;
  namespace: string;
  name: string;
  published: number;
  next_version: number;
  etag: string;
  created_at: string;
  /** Catalog entry of the published revision. */
  metadata: SkillMetadata;
  history: HistoryEntry[];
}

/** `skills/<ns>/<name>/versions/<n>.json`: one immutable revision. */
interface VersionFile {
  format: number;
  namespace: string;
  name: string;
  version: number;
  created_at: string;
  manifest_hash: string;
  resource_hashes: Record<string, string>;
  package: SkillPackage;
}

interface CatalogShard {
  format: number;
  skills: Record<string, SkillMetadata>;
}

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
const REBUILD_ALL = '*';

// ---------------------------------------------------------------------------
// File primitives.

function isErrno(error: unknown, ...codes: string[]): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && codes.includes(code);
}

// Inside the registry lock, small metadata operations are synchronous system calls:
// each asynchronous one costs a thread-pool round trip, and a publication makes
// dozens of them. Only the flushes (milliseconds each) go through the thread pool.
const fsyncAsync = promisify(fsyncCallback);
const fdatasyncAsync = promisify(fdatasyncCallback);

async function fsyncDir(dir: string): Promise<void> {
  let fd: number | undefined;
  try {
    fd = openSync(dir, fsConstants.O_RDONLY);
    await fsyncAsync(fd);
  } catch (error) {
    // Some platforms (Windows) cannot open or flush a directory; the rename is still atomic there.
    if (!isErrno(error, 'EISDIR', 'EPERM', 'EACCES', 'EINVAL', 'EBADF')) throw error;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Writes `path` so readers see either the old or the new bytes, never a torn file. */
async function writeAtomic(path: string, data: string, durable = true): Promise<void> {
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeFileSync(fd, data);
    if (durable) await fsyncAsync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  if (durable) await fsyncDir(dirname(path));
}

/** Identity of one version of a file: writers always rename a new inode into place. */
function catalogKey(s: { ino: bigint; size: bigint; mtimeNs: bigint }): string {
  return `${s.ino}:${s.size}:${s.mtimeNs}`;
}

/**
 * Reads a whole file with the identity of exactly the bytes read (fstat on the same
 * descriptor), in four system calls: open, fstat, read, close.
 */
async function readWithKey(path: string): Promise<{ key: string; text: string }> {
  const handle = await open(path, 'r');
  try {
    const s = await handle.stat({ bigint: true });
    const size = Number(s.size);
    const buffer = Buffer.allocUnsafe(size);
    let offset = 0;
    while (offset < size) {
      const { bytesRead } = await handle.read(buffer, offset, size - offset, offset);
      if (bytesRead === 0) break;
      offset += bytesRead;
    }
    return { key: catalogKey(s), text: buffer.toString('utf8', 0, offset) };
  } finally {
    await handle.close();
  }
}

/** Reads a small JSON file synchronously (under the lock); `undefined` when absent. */
function readJsonSync<T>(path: string): T | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (isErrno(error, 'ENOENT', 'ENOTDIR')) return undefined;
    throw error;
  }
  return JSON.parse(text) as T;
}

async function readJson<T>(path: string): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (isErrno(error, 'ENOENT', 'ENOTDIR')) return undefined;
    throw error;
  }
  return JSON.parse(text) as T;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
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

let ownIdentity: { start?: string; boot?: string } | undefined;

/** This process's start time and the host's boot id, where the system tells them. */
function selfIdentity(): { start?: string; boot?: string } {
  if (ownIdentity) return ownIdentity;
  const identity: { start?: string; boot?: string } = {};
  const stat = procStat(process.pid);
  if (stat !== undefined && stat !== 'absent') identity.start = stat.start;
  const boot = bootId();
  if (boot !== undefined) identity.boot = boot;
  ownIdentity = identity;
  return identity;
}

function bootId(): string | undefined {
  if (!HAS_PROC) return undefined;
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the process a lock names on this host is gone: no such pid, a zombie
 * (dead but not yet reaped: `kill(pid, 0)` still succeeds on it), a pid now used by
 * a process that started at another time, or a lock from before a reboot. Without
 * `/proc` only the pid can be checked.
 */
function holderGone(holder: { pid: number; start?: unknown; boot?: unknown }): boolean {
  const self = selfIdentity();
  if (typeof holder.boot === 'string' && self.boot !== undefined && holder.boot !== self.boot) return true;
  const stat = procStat(holder.pid);
  if (stat === 'absent') return true;
  if (stat === undefined) return !pidAlive(holder.pid);
  if (stat.state === 'Z' || stat.state === 'X' || stat.state === 'x') return true;
  return typeof holder.start === 'string' && holder.start !== stat.start;
}

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

/** In-process serialization of mutations, per registry folder. */
const processChains = new Map<string, Promise<unknown>>();

function toStoreError(error: unknown, what: string): StoreError {
  if (error instanceof StoreError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new StoreError('unavailable', `local registry: ${what} failed: ${message}`, { cause: error });
}

// ---------------------------------------------------------------------------
// The store.

class LocalStore implements SkillStore {
  readonly description: string;
  readonly limits: SkillAuthoringLimits;
  private readonly adminLimits: SkillAdministrationLimits;
  private readonly audit: AuditSink;
  private readonly clock: () => Date;
  private readonly lockTimeoutMs: number;
  private readonly foreignLockStaleMs: number;
  private readonly durable: boolean;
  private readonly crashPoint: (point: LocalCrashPoint) => void;
  private readonly catalogCache = new Map<string, { key: string; shard: CatalogShard }>();
  private closed = false;

  constructor(
    readonly dir: string,
    options: LocalStoreOptions,
  ) {
    this.description = `local:${dir}`;
    this.limits = resolveLimits(options.limits);
    this.adminLimits = { ...DEFAULT_ADMINISTRATION_LIMITS, ...options.adminLimits };
    this.audit = options.audit ?? new JsonlAuditSink(join(dir, 'audit.jsonl'), options.durable ?? true);
    this.clock = options.clock ?? (() => new Date());
    this.lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
    this.foreignLockStaleMs = options.foreignLockStaleMs ?? 60_000;
    this.durable = options.durable ?? true;
    this.crashPoint = options.crashPoint ?? (() => undefined);
  }

  // --- paths -------------------------------------------------------------

  private skillDir(id: SkillId): string {
    return join(this.dir, 'skills', id.namespace, id.name);
  }
  private statePath(id: SkillId): string {
    return join(this.skillDir(id), 'state.json');
  }
  private versionPath(id: SkillId, version: number): string {
    return join(this.skillDir(id), 'versions', `${version}.json`);
  }
  private idempotencyPath(id: SkillId, keyHash: string): string {
    return join(this.skillDir(id), 'idempotency', `${keyHash.replace(/^sha256:/, '')}.json`);
  }
  private catalogPath(id: SkillId): string {
    const shard = createHash('sha256').update(`${id.namespace}/${id.name}`).digest('hex').slice(0, CATALOG_SHARD_HEX);
    return join(this.dir, 'catalog', `${shard}.json`);
  }

  // --- reads ---------------------------------------------------------------

  private async readState(id: SkillId): Promise<SkillState | undefined> {
    try {
      return await readJson<SkillState>(this.statePath(id));
    } catch (error) {
      throw toStoreError(error, `reading the state of ${id.namespace}/${id.name}`);
    }
  }

  /** The committed state, read synchronously: only for use under the registry lock. */
  private readStateLocked(id: SkillId): SkillState | undefined {
    try {
      return readJsonSync<SkillState>(this.statePath(id));
    } catch (error) {
      throw toStoreError(error, `reading the state of ${id.namespace}/${id.name}`);
    }
  }

  private async requireState(id: SkillId): Promise<SkillState> {
    const state = await this.readState(id);
    if (!state) throw new StoreError('not_found', `skill ${id.namespace}/${id.name} not found`);
    return state;
  }

  /** Reads a committed revision; a file that cannot be parsed is an integrity failure, not a crash. */
  private async readVersion(id: SkillId, version: number): Promise<VersionFile> {
    let file: VersionFile | undefined;
    try {
      file = await readJson<VersionFile>(this.versionPath(id, version));
    } catch (error) {
      if (error instanceof SyntaxError) {
        throw new StoreError('integrity_mismatch', `stored revision ${id.namespace}/${id.name}@${version} is damaged`, { cause: error });
      }
      throw toStoreError(error, `reading ${id.namespace}/${id.name}@${version}`);
    }
    if (!file || typeof file.package !== 'object' || file.package === null) {
      throw new StoreError('integrity_mismatch', `stored revision ${id.namespace}/${id.name}@${version} is missing or damaged`);
    }
    return file;
  }

  private static availableEntry(state: SkillState, version: number): HistoryEntry | undefined {
    const entry = state.history.find((e) => e.version === version);
    return entry && entry.status === 'available' ? entry : undefined;
  }

  private async requireAvailable(id: SkillId, version: number): Promise<{ state: SkillState; entry: HistoryEntry }> {
    if (!Number.isSafeInteger(version) || version < 1) {
      throw new StoreError('invalid_request', `version must be a positive integer, got ${String(version)}`);
    }
    const state = await this.requireState(id);
    const entry = state.history.find((e) => e.version === version);
    if (!entry) throw new StoreError('not_found', `${id.namespace}/${id.name} has no version ${version}`);
    if (entry.status === 'deleted') throw new StoreError('not_found', `${id.namespace}/${id.name} version ${version} was deleted`);
    return { state, entry };
  }

  private revision(state: SkillState, file: VersionFile): StoredRevision {
    return {
      namespace: state.namespace,
      name: state.name,
      version: file.version,
      etag: state.etag,
      package: file.package,
      manifest_hash: file.manifest_hash,
      resource_hashes: file.resource_hashes,
      created_at: file.created_at,
      published: file.version === state.published,
    };
  }

  async getPublished(id: SkillId): Promise<StoredRevision> {
    checkSkillId(id, this.limits);
    const state = await this.requireState(id);
    return this.revision(state, await this.readVersion(id, state.published));
  }

  async getVersion(id: SkillId, version: number): Promise<StoredRevision> {
    checkSkillId(id, this.limits);
    const { state } = await this.requireAvailable(id, version);
    return this.revision(state, await this.readVersion(id, version));
  }

  async listVersions(id: SkillId, query?: VersionQuery): Promise<VersionPage> {
    checkSkillId(id, this.limits);
    const state = await this.requireState(id);
    const entries: VersionEntry[] = state.history.map((e) => {
      const entry: VersionEntry = {
        version: e.version,
        status: e.status,
        created_at: e.created_at,
        manifest_hash: e.manifest_hash,
        change_reason: e.change_reason,
      };
      if (e.deleted_at !== undefined) entry.deleted_at = e.deleted_at;
      const protection = protectionFor(e.version, state.published);
      if (protection !== undefined) entry.protection = protection;
      return entry;
    });
    return pageVersions(entries, query);
  }

  async listMetadata(filter?: MetadataFilter): Promise<SkillMetadata[]> {
    const checked = checkMetadataFilter(filter);
    // The catalog is written just after a commit; a writer that died in between left its lock behind.
    await this.recoverAbandoned();
    const out: SkillMetadata[] = [];
    for (const shard of await this.readCatalog()) {
      for (const entry of Object.values(shard.skills)) {
        if (matchesFilter(entry, checked)) out.push(entry);
      }
    }
    out.sort(compareSkillIds);
    return checked.limit === undefined ? out : out.slice(0, checked.limit);
  }

  /**
   * Reads every catalog shard. Parsed shards are kept while the file's identity
   * (inode, size, mtime) is unchanged: writers always rename a new file into place.
   */
  private async readCatalog(): Promise<CatalogShard[]> {
    const dir = join(this.dir, 'catalog');
    let names: string[];
    try {
      names = (await readdir(dir)).filter((n) => n.endsWith('.json'));
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return [];
      throw toStoreError(error, 'listing the catalog');
    }
    return Promise.all(
      names.map(async (n) => {
        const path = join(dir, n);
        try {
          const cached = this.catalogCache.get(path);
          if (cached && cached.key === catalogKey(await stat(path, { bigint: true }))) return cached.shard;
          const { key, text } = await readWithKey(path);
          const shard = JSON.parse(text) as CatalogShard;
          this.catalogCache.set(path, { key, shard });
          return shard;
        } catch (error) {
          if (isErrno(error, 'ENOENT')) return { format: FORMAT, skills: {} };
          throw toStoreError(error, 'reading the catalog');
        }
      }),
    );
  }

  async resolveCandidates(requests: CandidateRequest[]): Promise<CandidateResult[]> {
    const states = new Map<string, Promise<SkillState | undefined>>();
    return Promise.all(
      requests.map(async (request): Promise<CandidateResult> => {
        if (!isSlug(request?.namespace, this.limits.maxNameChars) || !isSlug(request?.name, this.limits.maxNameChars)) {
          return { status: 'invalid', request, reason: 'namespace and name must be lowercase slugs' };
        }
        const v = request.version;
        if (v !== 'published' && (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1)) {
          return { status: 'invalid', request, reason: "version must be 'published' or a positive integer" };
        }
        const key = `${request.namespace}/${request.name}`;
        let pending = states.get(key);
        if (!pending) {
          pending = this.readState(request);
          states.set(key, pending);
        }
        const state = await pending;
        if (!state) return { status: 'not_found', request };
        if (v === 'published') {
          return { status: 'found', request, version: state.published, manifest_hash: state.metadata.manifest_hash, metadata: state.metadata };
        }
        const entry = LocalStore.availableEntry(state, v);
        if (!entry) return { status: 'version_unavailable', request };
        if (v === state.published) {
          return { status: 'found', request, version: v, manifest_hash: entry.manifest_hash, metadata: state.metadata };
        }
        // A pinned older revision is described by its own catalog fields.
        let file: VersionFile;
        try {
          file = await this.readVersion(request, v);
        } catch (error) {
          if (isStoreError(error, 'integrity_mismatch')) return { status: 'version_unavailable', request };
          throw error;
        }
        return { status: 'found', request, version: v, manifest_hash: entry.manifest_hash, metadata: metadataOf(state, file) };
      }),
    );
  }

  async getManifest(ref: ManifestRef): Promise<SkillManifest> {
    checkSkillId(ref, this.limits);
    await this.requireAvailable(ref, ref.version);
    return verifiedManifest(ref, await this.readVersion(ref, ref.version));
  }

  async getResource(ref: ResourceRef): Promise<SkillResourceBody> {
    checkSkillId(ref.skill, this.limits);
    await this.requireAvailable(ref.skill, ref.skill.version);
    return verifiedResource(ref, await this.readVersion(ref.skill, ref.skill.version));
  }

  // --- mutations -----------------------------------------------------------

  async publish(request: PublishRequest): Promise<PublishResult> {
    const prepared = await preparePublication(request, this.limits);
    return this.mutate(prepared.id, () => this.publishLocked(prepared));
  }

  private async publishLocked(p: PreparedPublication): Promise<PublishResult> {
    const { id } = p;
    const now = this.clock();
    const state = this.readStateLocked(id);
    const keyHash = p.idempotencyKey === undefined ? undefined : await idempotencyKeyHash(id, p.idempotencyKey);
    if (keyHash !== undefined) {
      const replay = this.replay(id, state, keyHash, p, now);
      if (replay) return replay;
    }
    checkPublishPrecondition(p.precondition, state);

    if (state) {
      let current: VersionFile | undefined;
      try {
        current = readJsonSync<VersionFile>(this.versionPath(id, state.published));
      } catch {
        // A damaged published file never equals new content: publishing repairs it.
        current = undefined;
      }
      if (current?.package && sameVersionedContent(current.package, p.package)) {
        const outcome = await auditAfterCommit(this.audit, auditEvent(p, 'same_content_noop', [state.published], now, state.metadata.manifest_hash));
        const result: PublishResult = {
          namespace: id.namespace,
          name: id.name,
          outcome: 'same_content_noop',
          version: state.published,
          etag: state.etag,
          manifest_hash: state.metadata.manifest_hash,
          ...outcome,
          validation: p.validation,
          replayed: false,
        };
        await this.recordIdempotency(id, keyHash, p, result, now);
        return result;
      }
    }

    const version = state ? state.next_version : 1;
    const createdAt = now.toISOString();
    const manifestHash = p.integrity.manifest_hash;
    const file: VersionFile = {
      format: FORMAT,
      namespace: id.namespace,
      name: id.name,
      version,
      created_at: createdAt,
      manifest_hash: manifestHash,
      resource_hashes: p.integrity.resource_hashes,
      package: p.package,
    };
    const versionsDir = join(this.skillDir(id), 'versions');
    if (!state) mkdirSync(versionsDir, { recursive: true });
    if (!state && this.durable) {
      // A new skill: make its folders' entries durable before anything points at them.
      await fsyncDir(join(this.dir, 'skills', id.namespace));
      await fsyncDir(join(this.dir, 'skills'));
    }
    // Not yet referenced by state.json: a leftover from a crash is simply overwritten.
    await writeAtomic(this.versionPath(id, version), JSON.stringify(file), this.durable);

    const entry: HistoryEntry = {
      version,
      created_at: createdAt,
      manifest_hash: manifestHash,
      change_reason: p.package.change_reason,
      status: 'available',
    };
    if (keyHash !== undefined) {
      entry.key_hash = keyHash;
      entry.fingerprint = p.fingerprint;
    }
    const metadata: SkillMetadata = {
      namespace: id.namespace,
      name: id.name,
      display_name: p.package.display_name,
      description: p.package.description,
      domains: p.package.domains,
      tags: p.package.tags,
      version,
      manifest_hash: manifestHash,
      updated_at: createdAt,
    };
    const next: SkillState = {
      format: FORMAT,
      namespace: id.namespace,
      name: id.name,
      published: version,
      next_version: version + 1,
      etag: etagFor(version, manifestHash),
      created_at: state?.created_at ?? createdAt,
      metadata,
      history: [...(state?.history ?? []), entry],
    };
    // The commit point.
    await writeAtomic(this.statePath(id), JSON.stringify(next), this.durable);
    this.crashPoint('after-commit');
    // Both follow the commit and are independent: their flushes overlap.
    const [outcome] = await Promise.all([
      auditAfterCommit(this.audit, auditEvent(p, version === 1 ? 'created' : 'published', [version], now, manifestHash)),
      this.updateCatalog(id, metadata),
    ]);
    const result: PublishResult = {
      namespace: id.namespace,
      name: id.name,
      outcome: version === 1 ? 'created' : 'published',
      version,
      etag: next.etag,
      manifest_hash: manifestHash,
      ...outcome,
      validation: p.validation,
      replayed: false,
    };
    await this.recordIdempotency(id, keyHash, p, result, now);
    return result;
  }

  private replay(
    id: SkillId,
    state: SkillState | undefined,
    keyHash: string,
    p: PreparedPublication,
    now: Date,
  ): PublishResult | undefined {
    let record: IdempotencyRecord | undefined;
    try {
      record = readJsonSync<IdempotencyRecord>(this.idempotencyPath(id, keyHash));
    } catch {
      // A record lost or torn by a crash: fall back to the committed history below.
      record = undefined;
    }
    const replayed = replayIdempotent(record, p.fingerprint, now);
    if (replayed) return replayed;
    // The revision committed but its record was not written (crash): rebuild the reply.
    const entry = state?.history.find((e) => e.key_hash === keyHash);
    if (!state || !entry) return undefined;
    if (entry.fingerprint !== p.fingerprint) throw idempotencyConflict();
    return {
      namespace: id.namespace,
      name: id.name,
      outcome: entry.version === 1 ? 'created' : 'published',
      version: entry.version,
      etag: etagFor(entry.version, entry.manifest_hash),
      manifest_hash: entry.manifest_hash,
      // Whether the audit event was delivered before the crash is unknown: say so.
      audit_recorded: false,
      warnings: [auditNotRecordedWarning()],
      validation: p.validation,
      replayed: true,
    };
  }

  private async recordIdempotency(
    id: SkillId,
    keyHash: string | undefined,
    p: PreparedPublication,
    result: PublishResult,
    now: Date,
  ): Promise<void> {
    if (keyHash === undefined) return;
    const record: IdempotencyRecord = { fingerprint: p.fingerprint, result, created_at: now.toISOString() };
    const path = this.idempotencyPath(id, keyHash);
    const text = JSON.stringify(record);
    // Neither flushed nor renamed: a record lost or torn by a crash reads as absent,
    // and the committed history (key hash per revision) still answers the replay.
    try {
      writeFileSync(path, text);
    } catch (error) {
      if (!isErrno(error, 'ENOENT')) throw error;
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    }
  }

  private async updateCatalog(id: SkillId, metadata: SkillMetadata | undefined): Promise<void> {
    const path = this.catalogPath(id);
    let shard: CatalogShard | undefined;
    try {
      shard = readJsonSync<CatalogShard>(path);
    } catch {
      shard = undefined;
    }
    const skills = { ...(shard?.skills ?? {}) };
    const key = `${id.namespace}/${id.name}`;
    if (metadata) skills[key] = metadata;
    else delete skills[key];
    await writeAtomic(path, JSON.stringify({ format: FORMAT, skills }), this.durable);
  }

  async deleteVersions(request: DeleteRequest): Promise<DeleteResult> {
    checkDeleteRequest(request, this.adminLimits);
    const id = { namespace: request.id.namespace, name: request.id.name };
    return this.mutate(id, async () => {
      const now = this.clock();
      const state = this.readStateLocked(id);
      if (!state) throw new StoreError('not_found', `skill ${id.namespace}/${id.name} not found`);
      const versions = checkDeleteRange(request, this.adminLimits, state.published, state.etag);
      const deleted: number[] = [];
      const already: number[] = [];
      const history = state.history.map((e) => ({ ...e }));
      for (const v of versions) {
        const entry = history.find((e) => e.version === v);
        if (!entry || entry.status === 'deleted') {
          already.push(v);
          continue;
        }
        entry.status = 'deleted';
        entry.deleted_at = now.toISOString();
        deleted.push(v);
      }
      if (deleted.length > 0) {
        await writeAtomic(this.statePath(id), JSON.stringify({ ...state, history }), this.durable);
        // After the commit the files are unreachable; a failure here only leaves garbage.
        await Promise.all(deleted.map((v) => rm(this.versionPath(id, v), { force: true }).catch(() => undefined)));
      }
      const event: AuditEvent = {
        action: 'delete',
        namespace: id.namespace,
        name: id.name,
        outcome: deleted.length > 0 ? 'deleted' : 'noop',
        versions: deleted,
        reason: request.reason,
        at: now.toISOString(),
      };
      if (request.actor !== undefined) event.actor = request.actor;
      const outcome = await auditAfterCommit(this.audit, event);
      return { namespace: id.namespace, name: id.name, deleted, already_deleted: already, etag: state.etag, ...outcome };
    });
  }

  // --- locking -------------------------------------------------------------

  /**
   * Repairs after a writer that died holding the lock, if there is one. Cheap when
   * there is no lock file (one failed stat); a live holder is left alone.
   */
  async recoverAbandoned(): Promise<void> {
    let current;
    try {
      current = this.readLock(this.lockPath());
    } catch {
      current = undefined;
    }
    if (!current || !this.isAbandoned(current.info, current.mtimeMs)) return;
    await this.mutate(undefined, async () => undefined);
  }

  /** Runs `fn` holding the in-process chain and the cross-process registry lock. */
  private async mutate<T>(id: SkillId | undefined, fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new StoreError('unavailable', 'the local registry is closed');
    const what = id ? `${id.namespace}/${id.name}` : 'recovery';
    const previous = processChains.get(this.dir) ?? Promise.resolve();
    const run = previous.then(async () => {
      const lock = await this.acquireLock(what);
      try {
        if (lock.repairs !== undefined) await this.repair(lock.repairs);
        return await fn();
      } catch (error) {
        throw toStoreError(error, `changing ${what}`);
      } finally {
        this.releaseLock(lock.token);
      }
    });
    const settled = run.catch(() => undefined);
    processChains.set(this.dir, settled);
    void settled.then(() => {
      if (processChains.get(this.dir) === settled) processChains.delete(this.dir);
    });
    return run;
  }

  private lockPath(): string {
    return join(this.dir, 'lock');
  }

  private writeLockCandidate(skill: string): { path: string; token: string } {
    const token = randomBytes(12).toString('hex');
    const info: LockInfo = { pid: process.pid, host: hostname(), at: this.clock().toISOString(), token, skill, ...selfIdentity() };
    const path = join(this.dir, `lock.${process.pid}.${token}.tmp`);
    // A private, uniquely named file: complete before it is linked into place, so no rename is needed.
    writeFileSync(path, JSON.stringify(info), { flag: 'wx' });
    return { path, token };
  }

  private isAbandoned(info: LockInfo | undefined, mtimeMs: number): boolean {
    if (!info || typeof info.pid !== 'number') {
      // Lock files are linked into place complete; an unreadable one is foreign or damaged.
      return Date.now() - mtimeMs > this.foreignLockStaleMs;
    }
    if (info.host === hostname()) return holderGone(info);
    return Date.now() - Date.parse(info.at) > this.foreignLockStaleMs;
  }

  /**
   * Takes the registry lock. The lock file is linked into place fully written, so a
   * reader never sees it half-written. A lock whose holder is gone is replaced under
   * a short-lived takeover guard; the caller then runs the repairs it hands on.
   */
  private async acquireLock(skill: string): Promise<{ token: string; repairs?: string[] }> {
    const lockPath = this.lockPath();
    const deadline = Date.now() + this.lockTimeoutMs;
    let delay = 1;
    const candidate = this.writeLockCandidate(skill);
    try {
      for (;;) {
        try {
          linkSync(candidate.path, lockPath);
          return { token: candidate.token };
        } catch (error) {
          if (!isErrno(error, 'EEXIST')) throw error;
        }
        const taken = this.tryTakeOver(candidate.path, skill, candidate.token);
        if (taken) return { token: candidate.token, repairs: taken.repairs };
        if (Date.now() > deadline) {
          const holder = this.readLock(lockPath)?.info;
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

  /**
   * Replaces an abandoned lock with ours. Our lock carries the abandoned lock's
   * pending repairs (its skill and what it had inherited), so if we die before
   * finishing them the next taker still knows what to repair.
   */
  private tryTakeOver(candidatePath: string, skill: string, token: string): { repairs: string[] } | undefined {
    const lockPath = this.lockPath();
    const current = this.readLock(lockPath);
    if (!current || !this.isAbandoned(current.info, current.mtimeMs)) return undefined;
    const guardPath = join(this.dir, 'lock.takeover');
    const guard = this.writeLockCandidate('takeover');
    try {
      try {
        linkSync(guard.path, guardPath);
      } catch (error) {
        if (!isErrno(error, 'EEXIST')) throw error;
        // A guard left by a process that died inside the takeover itself.
        const g = this.readLock(guardPath);
        if (g && this.isAbandoned(g.info, g.mtimeMs)) unlinkQuietly(guardPath);
        return undefined;
      }
      try {
        // Still the same abandoned lock? Then replace it with ours in one rename.
        const again = this.readLock(lockPath);
        if (!again || again.raw !== current.raw) return undefined;
        const repairs = pendingRepairs(current.info);
        const info: LockInfo = { pid: process.pid, host: hostname(), at: this.clock().toISOString(), token, skill, ...selfIdentity(), repair: repairs };
        // Our own private file, linked nowhere yet: rewritten in place, then renamed over the lock.
        writeFileSync(candidatePath, JSON.stringify(info));
        renameSync(candidatePath, lockPath);
        return { repairs };
      } finally {
        unlinkQuietly(guardPath);
      }
    } finally {
      unlinkQuietly(guard.path);
    }
  }

  private readLock(path: string): { raw: string; info: LockInfo | undefined; mtimeMs: number } | undefined {
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

  private releaseLock(token: string): void {
    let raw: string;
    try {
      raw = readFileSync(this.lockPath(), 'utf8');
    } catch {
      return;
    }
    // Never remove a lock someone else took over.
    if (raw.includes(`"token":"${token}"`)) unlinkQuietly(this.lockPath());
  }

  /**
   * Runs the repairs an abandoned lock handed on: each named skill is brought back
   * to its committed state, and `*` (a lock whose work could not be read) rebuilds
   * the whole catalog from the skills' committed states.
   */
  private async repair(repairs: string[]): Promise<void> {
    await this.removeStaleLockTemps();
    await removeTemps(join(this.dir, 'catalog'));
    this.crashPoint('repair');
    for (const skill of repairs) {
      if (skill !== REBUILD_ALL) await this.repairSkill(skill);
    }
    if (repairs.includes(REBUILD_ALL)) await this.rebuildCatalog();
  }

  /**
   * Brings one skill back to its committed state after a process died while
   * mutating it: drops temp files and uncommitted or deleted version files, and
   * rewrites its catalog entry from its published revision.
   */
  private async repairSkill(skill: string): Promise<void> {
    const [namespace, name, ...rest] = skill.split('/');
    if (rest.length > 0 || !isSlug(namespace) || !isSlug(name)) return;
    const id = { namespace, name };
    const dir = this.skillDir(id);
    await removeTemps(dir);
    await removeTemps(join(dir, 'idempotency'));
    const state = await this.readState(id).catch(() => undefined);
    const versionsDir = join(dir, 'versions');
    const files = await readdir(versionsDir).catch((): string[] => []);
    for (const f of files) {
      const m = /^(\d+)\.json(\.tmp)?$/.exec(f);
      if (!m) continue;
      const v = Number(m[1]);
      const committed = state !== undefined && v < state.next_version && LocalStore.availableEntry(state, v) !== undefined;
      if (m[2] !== undefined || !committed) await rm(join(versionsDir, f), { force: true });
    }
    await this.updateCatalog(id, state && (await this.catalogEntry(id, state)));
  }

  /** The catalog entry of a skill, from its published revision itself (the state's copy if that cannot be read). */
  private async catalogEntry(id: SkillId, state: SkillState): Promise<SkillMetadata> {
    try {
      const file = await this.readVersion(id, state.published);
      if (file.version === state.published) return metadataOf(state, file);
    } catch {
      // A damaged revision: the state's own copy of the entry is the best there is.
    }
    return state.metadata;
  }

  /** Rewrites every catalog shard from the committed states of all skills. */
  private async rebuildCatalog(): Promise<void> {
    const shards = new Map<string, Record<string, SkillMetadata>>();
    const skillsDir = join(this.dir, 'skills');
    for (const namespace of await readdir(skillsDir).catch((): string[] => [])) {
      if (!isSlug(namespace)) continue;
      for (const name of await readdir(join(skillsDir, namespace)).catch((): string[] => [])) {
        if (!isSlug(name)) continue;
        const id = { namespace, name };
        const state = await this.readState(id).catch(() => undefined);
        if (!state) continue;
        const path = this.catalogPath(id);
        const skills = shards.get(path) ?? {};
        skills[`${namespace}/${name}`] = await this.catalogEntry(id, state);
        shards.set(path, skills);
      }
    }
    const catalogDir = join(this.dir, 'catalog');
    for (const n of await readdir(catalogDir).catch((): string[] => [])) {
      const path = join(catalogDir, n);
      if (n.endsWith('.json') && !shards.has(path)) shards.set(path, {});
    }
    for (const [path, skills] of shards) await writeAtomic(path, JSON.stringify({ format: FORMAT, skills }), this.durable);
  }

  private async removeStaleLockTemps(): Promise<void> {
    const names = await readdir(this.dir).catch((): string[] => []);
    for (const n of names) {
      const m = /^lock\.(\d+)\.[0-9a-f]+\.tmp$/.exec(n);
      if (m && holderGone({ pid: Number(m[1]) })) await rm(join(this.dir, n), { force: true });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone (or never created): nothing to release.
  }
}

async function removeTemps(dir: string): Promise<void> {
  const names = await readdir(dir).catch((): string[] => []);
  await Promise.all(names.filter((n) => n.endsWith('.tmp')).map((n) => rm(join(dir, n), { force: true })));
}

function metadataOf(state: SkillState, file: VersionFile): SkillMetadata {
  return {
    namespace: state.namespace,
    name: state.name,
    display_name: file.package.display_name,
    description: file.package.description,
    domains: file.package.domains,
    tags: file.package.tags,
    version: file.version,
    manifest_hash: file.manifest_hash,
    updated_at: file.created_at,
  };
}

function auditEvent(p: PreparedPublication, outcome: string, versions: number[], now: Date, manifestHash: string): AuditEvent {
  const event: AuditEvent = {
    action: 'publish',
    namespace: p.id.namespace,
    name: p.id.name,
    outcome,
    versions,
    manifest_hash: manifestHash,
    reason: p.package.change_reason,
    at: now.toISOString(),
  };
  if (p.actor !== undefined) event.actor = p.actor;
  return event;
}

/** The default audit sink of a local registry: one JSON line per event, flushed to disk. */
export class JsonlAuditSink implements AuditSink {
  constructor(
    private readonly path: string,
    private readonly durable = true,
  ) {}

  async record(event: AuditEvent): Promise<void> {
    const fd = openSync(this.path, 'a');
    try {
      writeFileSync(fd, `${JSON.stringify(event)}\n`);
      if (this.durable) await fdatasyncAsync(fd);
    } finally {
      closeSync(fd);
    }
  }
}

/**
 * Creates the registry marker without a lock: written complete under a unique
 * name, then linked into place, so two processes creating one registry at once
 * both succeed and neither ever sees a partial marker.
 */
async function createMarker(root: string): Promise<void> {
  const tmp = join(root, `${MARKER}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx');
  try {
    writeFileSync(fd, JSON.stringify({ kind: 'skillbench-local-registry', format: FORMAT }));
    await fsyncAsync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, join(root, MARKER));
  } catch (error) {
    if (!isErrno(error, 'EEXIST')) throw error;
  } finally {
    unlinkQuietly(tmp);
  }
  await fsyncDir(root);
}

/**
 * Opens (creating when needed, unless `options.create` is false) the embedded
 * registry in `dir`. A non-empty folder that is not a registry is refused, so a
 * mistyped path never scatters files.
 */
export async function openLocalStore(dir: string, options: LocalStoreOptions = {}): Promise<SkillStore> {
  const root = resolve(dir);
  try {
    const readMarker = () =>
      readJson<{ format?: unknown; kind?: unknown }>(join(root, MARKER)).catch((error: unknown) => {
        if (error instanceof SyntaxError) return { format: undefined, kind: 'damaged' };
        throw error;
      });
    let marker = await readMarker();
    if (!marker && options.create === false) {
      throw new StoreError('not_found', `no Skillbench registry at ${root} (no ${MARKER}); publishing to it creates one`);
    }
    if (!marker) {
      let entries: string[] = [];
      try {
        entries = await readdir(root);
      } catch (error) {
        if (!isErrno(error, 'ENOENT')) throw error;
      }
      // Another process may be creating the registry right now: its marker's temp
      // file, or the marker it has just renamed into place, is no foreign content.
      const foreign = entries.filter((n) => !(n.startsWith(`${MARKER}.`) && n.endsWith('.tmp')));
      if (foreign.length > 0) {
        marker = await readMarker();
        if (!marker) throw new StoreError('invalid_request', `${root} is not empty and is not a Skillbench registry (no ${MARKER})`);
      } else {
        await mkdir(root, { recursive: true });
        await createMarker(root);
        marker = await readMarker();
      }
    }
    if (marker?.kind !== 'skillbench-local-registry' || marker.format !== FORMAT) {
      throw new StoreError('invalid_request', `${root} holds an unsupported registry format (${JSON.stringify(marker?.format)})`);
    }
    await mkdir(join(root, 'skills'), { recursive: true });
    await mkdir(join(root, 'catalog'), { recursive: true });
  } catch (error) {
    throw toStoreError(error, `opening ${root}`);
  }
  const store = new LocalStore(root, options);
  await store.recoverAbandoned();
  return store;
}
