/**
 * The embedded registry: a directory on the local disk implementing {@link SkillStore}.
 * It is the default connection. The layout and the crash-safety rules are described
 * in docs/local-layout.md; in short:
 *
 * - every file is replaced atomically by core/fs/atomic.ts (temp file, fsync, rename,
 *   fsync of the folder);
 * - the commit point of a mutation is the rename of the skill's `state.json`; immutable
 *   version files are written and flushed before it, so reads (which always start at
 *   `state.json`) never see uncommitted data;
 * - mutations of one registry are serialized across processes by an exclusive lock
 *   file and inside a process by a promise chain; a lock left by a dead process is
 *   taken over and the skill it was mutating is repaired first.
 *
 * Its parts: file primitives (`localFiles.ts`), the stored shapes (`localState.ts`),
 * the lock (`localLock.ts`), the catalog (`localCatalog.ts`), Idempotency-Key records
 * (`localIdempotency.ts`) and the audit trail (`localAudit.ts`).
 */
import { mkdirSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { computeIntegrity, resolveLimits, sameVersionedContent } from '../package/index';
import type { PackageIntegrity, SkillAuthoringLimits, SkillId, SkillManifest } from '../package/types';
import { verifiedManifest, verifiedResource } from './verify';
import { StoreError, isStoreError } from './errors';
import { JsonlAuditSink, publishAuditEvent } from './localAudit';
import { LocalCatalog } from './localCatalog';
import { fsyncDir, writeFileAtomic } from '../fs/atomic';
import { isErrno } from '../fs/errno';
import { createOnce, readJson, readJsonSync, removeTemps } from './localFiles';
import { idempotencyPath, replayPublication, writeIdempotencyRecord } from './localIdempotency';
import { REBUILD_ALL, RegistryLock } from './localLock';
import { FORMAT, availableEntry, metadataOf, type HistoryEntry, type SkillState, type VersionFile } from './localState';
import { etagFor } from './etag';
import { DEFAULT_ADMINISTRATION_LIMITS, checkDeleteRange, checkDeleteRequest, pageVersions, protectionFor } from './history';
import { idempotencyKeyHash, type IdempotencyRecord } from './idempotency';
import { checkMetadataFilter, matchesFilter } from './listing';
import { auditAfterCommit, checkPublishPrecondition, preparePublication, type PreparedPublication } from './publication';
import { checkSkillId, compareSkillIds, isSlug } from './skillIds';
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
   * `'on-write'` is for a command that means to write: the registry reads as empty
   * and is created by the first publish that passes validation, never by a refused one.
   */
  create?: boolean | 'on-write';
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

export { JsonlAuditSink } from './localAudit';

const MARKER = 'registry.json';

/** In-process serialization of mutations, per registry folder. */
const processChains = new Map<string, Promise<unknown>>();

function toStoreError(error: unknown, what: string): StoreError {
  if (error instanceof StoreError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new StoreError('unavailable', `local registry: ${what} failed: ${message}`, { cause: error });
}

/** The manifest hash recorded for the published revision of `state`. */
function publishedHash(state: SkillState): string {
  return state.history.find((e) => e.version === state.published)?.manifest_hash ?? state.metadata.manifest_hash;
}

/** Whether `error` (or its cause) says the registry cannot be written: a read-only disk, no permission. */
function isReadOnly(error: unknown): boolean {
  for (let e: unknown = error, i = 0; e && i < 4; e = (e as { cause?: unknown }).cause, i++) {
    if (isErrno(e, 'EROFS', 'EACCES', 'EPERM')) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------
// The store.

class LocalStore implements SkillStore {
  readonly description: string;
  readonly limits: SkillAuthoringLimits;
  private readonly adminLimits: SkillAdministrationLimits;
  private readonly audit: AuditSink;
  private readonly clock: () => Date;
  private readonly durable: boolean;
  private readonly crashPoint: (point: LocalCrashPoint) => void;
  private readonly catalog: LocalCatalog;
  private readonly lock: RegistryLock;
  private closed = false;

  /** Whether the registry exists on disk; false only for a store opened `'on-write'` before its first publish. */
  private present: boolean;
  private creating: Promise<boolean> | undefined;

  constructor(
    readonly dir: string,
    options: LocalStoreOptions,
    present = true,
  ) {
    this.present = present;
    this.description = `local:${dir}`;
    this.limits = resolveLimits(options.limits);
    this.adminLimits = { ...DEFAULT_ADMINISTRATION_LIMITS, ...options.adminLimits };
    this.audit = options.audit ?? new JsonlAuditSink(join(dir, 'audit.jsonl'), options.durable ?? true);
    this.clock = options.clock ?? (() => new Date());
    this.durable = options.durable ?? true;
    this.crashPoint = options.crashPoint ?? (() => undefined);
    this.catalog = new LocalCatalog(dir, this.durable);
    this.lock = new RegistryLock(dir, {
      clock: this.clock,
      timeoutMs: options.lockTimeoutMs ?? 30_000,
      foreignStaleMs: options.foreignLockStaleMs ?? 60_000,
    });
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

  /**
   * Reads a committed revision and verifies it against the manifest hash its
   * history entry recorded at publication (`expected`): the resource bodies must
   * hash to the resource hashes, and the manifest to `expected`. A file that is
   * missing, does not parse, or was changed on disk is `integrity_mismatch` naming
   * the file: a damaged registry is never served as if it were sound.
   */
  private async readVersion(id: SkillId, version: number, expected: string): Promise<VersionFile> {
    const path = this.versionPath(id, version);
    const what = `stored revision ${id.namespace}/${id.name}@${version}`;
    const damaged = (why: string, extra: Record<string, unknown> = {}, cause?: unknown) =>
      new StoreError('integrity_mismatch', `${what} does not verify: ${path} ${why}; publish a corrected revision, or restore the registry from a copy`, {
        details: { file: path, expected, ...extra },
        ...(cause !== undefined && { cause }),
      });
    let file: VersionFile | undefined;
    try {
      file = await readJson<VersionFile>(path);
    } catch (error) {
      if (error instanceof SyntaxError) throw damaged('is not JSON', {}, error);
      throw toStoreError(error, `reading ${id.namespace}/${id.name}@${version}`);
    }
    if (!file) throw damaged('is missing');
    if (typeof file.package !== 'object' || file.package === null || file.version !== version || file.namespace !== id.namespace || file.name !== id.name) {
      throw damaged('is not the revision it should hold');
    }
    let observed: PackageIntegrity;
    try {
      observed = await computeIntegrity(file.package);
    } catch (error) {
      throw damaged('does not hold a well-formed package', {}, error);
    }
    const storedHashes = file.resource_hashes ?? {};
    const sameResources =
      Object.keys(storedHashes).length === Object.keys(observed.resource_hashes).length &&
      Object.entries(observed.resource_hashes).every(([name, hash]) => storedHashes[name] === hash);
    if (observed.manifest_hash !== expected || file.manifest_hash !== expected || !sameResources) {
      throw damaged('does not match the manifest hash recorded when it was published (it was changed or damaged on disk)', { observed: observed.manifest_hash });
    }
    return file;
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
    return this.revision(state, await this.readVersion(id, state.published, publishedHash(state)));
  }

  async getVersion(id: SkillId, version: number): Promise<StoredRevision> {
    checkSkillId(id, this.limits);
    const { state, entry } = await this.requireAvailable(id, version);
    return this.revision(state, await this.readVersion(id, version, entry.manifest_hash));
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
    for (const entry of await this.catalogEntries()) {
      if (matchesFilter(entry, checked)) out.push(entry);
    }
    out.sort(compareSkillIds);
    return checked.limit === undefined ? out : out.slice(0, checked.limit);
  }

  /**
   * Every catalog entry. A damaged catalog (a shard or the index missing or not
   * parsing) is never served: it is rebuilt from the committed states under the
   * lock, or, where the registry cannot be written (a read-only disk), the
   * entries are built from the states in memory.
   */
  private async catalogEntries(): Promise<SkillMetadata[]> {
    if (!this.present) return [];
    const listing = await this.catalog.entries();
    if (listing.entries) return listing.entries;
    try {
      await this.mutate(undefined, async () => {
        // Another process may have rebuilt it while this one waited for the lock.
        if ((await this.catalog.entries()).damage !== undefined) await this.rebuildCatalog();
      });
    } catch (error) {
      if (!isReadOnly(error)) throw error;
      return this.entriesFromStates();
    }
    const rebuilt = await this.catalog.entries();
    if (rebuilt.entries) return rebuilt.entries;
    throw new StoreError('unavailable', `local registry ${this.dir}: ${rebuilt.damage}, and rebuilding the catalog did not repair it`);
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
        const entry = availableEntry(state, v);
        if (!entry) return { status: 'version_unavailable', request };
        if (v === state.published) {
          return { status: 'found', request, version: v, manifest_hash: entry.manifest_hash, metadata: state.metadata };
        }
        // A pinned older revision is described by its own catalog fields.
        let file: VersionFile;
        try {
          file = await this.readVersion(request, v, entry.manifest_hash);
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
    const { entry } = await this.requireAvailable(ref, ref.version);
    return verifiedManifest(ref, await this.readVersion(ref, ref.version, entry.manifest_hash));
  }

  async getResource(ref: ResourceRef): Promise<SkillResourceBody> {
    checkSkillId(ref.skill, this.limits);
    const { entry } = await this.requireAvailable(ref.skill, ref.skill.version);
    return verifiedResource(ref, await this.readVersion(ref.skill, ref.skill.version, entry.manifest_hash));
  }

  // --- mutations -----------------------------------------------------------

  async publish(request: PublishRequest): Promise<PublishResult> {
    const prepared = await preparePublication(request, this.limits);
    // Only a publication that passed validation creates the registry of a store opened 'on-write'.
    await this.registryReady(true);
    return this.mutate(prepared.id, () => this.publishLocked(prepared));
  }

  private async publishLocked(p: PreparedPublication): Promise<PublishResult> {
    const { id } = p;
    const now = this.clock();
    const state = this.readStateLocked(id);
    const keyHash = p.idempotencyKey === undefined ? undefined : await idempotencyKeyHash(id, p.idempotencyKey);
    if (keyHash !== undefined) {
      const replay = replayPublication(id, idempotencyPath(this.skillDir(id), keyHash), state, keyHash, p, now);
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
        const outcome = await auditAfterCommit(this.audit, publishAuditEvent(p, 'same_content_noop', [state.published], now, state.metadata.manifest_hash));
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
    await writeFileAtomic(this.versionPath(id, version), JSON.stringify(file), { durable: this.durable });

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
    await writeFileAtomic(this.statePath(id), JSON.stringify(next), { durable: this.durable });
    this.crashPoint('after-commit');
    // Both follow the commit and are independent: their flushes overlap.
    const [outcome] = await Promise.all([
      auditAfterCommit(this.audit, publishAuditEvent(p, version === 1 ? 'created' : 'published', [version], now, manifestHash)),
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

  private async recordIdempotency(
    id: SkillId,
    keyHash: string | undefined,
    p: PreparedPublication,
    result: PublishResult,
    now: Date,
  ): Promise<void> {
    if (keyHash === undefined) return;
    const record: IdempotencyRecord = { fingerprint: p.fingerprint, result, created_at: now.toISOString() };
    writeIdempotencyRecord(idempotencyPath(this.skillDir(id), keyHash), record);
  }

  async deleteVersions(request: DeleteRequest): Promise<DeleteResult> {
    checkDeleteRequest(request, this.adminLimits);
    const id = { namespace: request.id.namespace, name: request.id.name };
    if (!(await this.registryReady(false))) throw new StoreError('not_found', `skill ${id.namespace}/${id.name} not found`);
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
        await writeFileAtomic(this.statePath(id), JSON.stringify({ ...state, history }), { durable: this.durable });
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

  /**
   * Whether the registry exists, creating it when `create` is true. A store opened
   * `'on-write'` looks again each time (another process may have created it since).
   */
  private async registryReady(create: boolean): Promise<boolean> {
    if (this.present) return true;
    if (this.closed) throw new StoreError('unavailable', 'the local registry is closed');
    this.creating ??= prepareRegistry(this.dir, create ? 'now' : 'check').finally(() => {
      this.creating = undefined;
    });
    try {
      this.present = (await this.creating) || this.present;
    } catch (error) {
      throw toStoreError(error, `creating the registry in ${this.dir}`);
    }
    return this.present || (create && this.registryReady(true));
  }

  // --- locking -------------------------------------------------------------

  /**
   * Repairs after a writer that died holding the lock, if there is one. Cheap when
   * there is no lock file (one failed read); a live holder is left alone.
   */
  async recoverAbandoned(): Promise<void> {
    if (!this.present || !this.lock.isAbandonedNow()) return;
    await this.mutate(undefined, async () => undefined);
  }

  /** Runs `fn` holding the in-process chain and the cross-process registry lock. */
  private async mutate<T>(id: SkillId | undefined, fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new StoreError('unavailable', 'the local registry is closed');
    const what = id ? `${id.namespace}/${id.name}` : 'recovery';
    const previous = processChains.get(this.dir) ?? Promise.resolve();
    const run = previous.then(async () => {
      const lock = await this.lock.acquire(what);
      try {
        if (lock.repairs !== undefined) await this.repair(lock.repairs);
        return await fn();
      } catch (error) {
        throw toStoreError(error, `changing ${what}`);
      } finally {
        this.lock.release(lock.token);
      }
    });
    const settled = run.catch(() => undefined);
    processChains.set(this.dir, settled);
    void settled.then(() => {
      if (processChains.get(this.dir) === settled) processChains.delete(this.dir);
    });
    return run;
  }

  /**
   * Runs the repairs an abandoned lock handed on: each named skill is brought back
   * to its committed state, and `*` (a lock whose work could not be read) rebuilds
   * the whole catalog from the skills' committed states.
   */
  private async repair(repairs: string[]): Promise<void> {
    await this.lock.removeStaleCandidates();
    await this.catalog.removeTemps();
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
    await removeTemps(versionsDir);
    const files = await readdir(versionsDir).catch((): string[] => []);
    for (const f of files) {
      const m = /^(\d+)\.json$/.exec(f);
      if (!m) continue;
      const v = Number(m[1]);
      const committed = state !== undefined && v < state.next_version && availableEntry(state, v) !== undefined;
      if (!committed) await rm(join(versionsDir, f), { force: true });
    }
    await this.updateCatalog(id, state && (await this.catalogEntry(id, state)));
  }

  /** Writes the catalog entry of `id`, or rebuilds the whole catalog when it is damaged; only under the lock. */
  private async updateCatalog(id: SkillId, metadata: SkillMetadata | undefined): Promise<void> {
    if (!(await this.catalog.update(id, metadata))) await this.rebuildCatalog();
  }

  /** The catalog entry of a skill, from its published revision itself (the state's copy if that cannot be read). */
  private async catalogEntry(id: SkillId, state: SkillState): Promise<SkillMetadata> {
    try {
      return metadataOf(state, await this.readVersion(id, state.published, publishedHash(state)));
    } catch {
      // A damaged revision: the state's own copy of the entry is the best there is.
    }
    return state.metadata;
  }

  /** Rewrites the whole catalog from the committed states of all skills. */
  private async rebuildCatalog(): Promise<void> {
    await this.catalog.replaceAll(await this.entriesFromStates());
  }

  /** The catalog entries the committed states of all skills describe (read only). */
  private async entriesFromStates(): Promise<SkillMetadata[]> {
    const entries: SkillMetadata[] = [];
    const skillsDir = join(this.dir, 'skills');
    for (const namespace of await readdir(skillsDir).catch((): string[] => [])) {
      if (!isSlug(namespace)) continue;
      for (const name of await readdir(join(skillsDir, namespace)).catch((): string[] => [])) {
        if (!isSlug(name)) continue;
        const id = { namespace, name };
        const state = await this.readState(id).catch(() => undefined);
        if (state) entries.push(await this.catalogEntry(id, state));
      }
    }
    return entries.sort(compareSkillIds);
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/**
 * Finds the registry in `root`, or creates it when `create` says so. Returns
 * whether a registry is there. A missing registry is `not_found` when it may
 * not be created (`never`), and is left absent with `check`, which still
 * refuses a non-empty folder that is not a registry, so a write is refused
 * before it would create anything.
 */
async function prepareRegistry(root: string, create: 'now' | 'check' | 'never'): Promise<boolean> {
  const readMarker = () =>
    readJson<{ format?: unknown; kind?: unknown }>(join(root, MARKER)).catch((error: unknown) => {
      if (error instanceof SyntaxError) return { format: undefined, kind: 'damaged' };
      throw error;
    });
  let marker = await readMarker();
  if (!marker && create === 'never') {
    throw new StoreError('not_found', `no Skillbench registry at ${root} (no ${MARKER}); publishing to it creates one`, { details: { registry: 'absent' } });
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
      if (create === 'check') return false;
      await mkdir(root, { recursive: true });
      await createOnce(join(root, MARKER), JSON.stringify({ kind: 'skillbench-local-registry', format: FORMAT }));
      await mkdir(join(root, 'catalog'), { recursive: true });
      // A new registry has an empty catalog index; a registry without one has a catalog to rebuild.
      await new LocalCatalog(root, true).createIndex();
      marker = await readMarker();
    }
  }
  if (marker?.kind !== 'skillbench-local-registry' || marker.format !== FORMAT) {
    throw new StoreError('invalid_request', `${root} holds an unsupported registry format (${JSON.stringify(marker?.format)})`);
  }
  await mkdir(join(root, 'skills'), { recursive: true });
  await mkdir(join(root, 'catalog'), { recursive: true });
  return true;
}

/**
 * Opens the embedded registry in `dir`. `options.create` says what happens
 * when the folder holds none: `true` (the default) creates it now, `false`
 * fails with `not_found` and touches nothing, and `'on-write'` opens it as an
 * empty registry and creates it on the first publish that passes validation,
 * so a refused or invalid write leaves nothing behind. A non-empty folder that
 * is not a registry is refused, so a mistyped path never scatters files.
 */
export async function openLocalStore(dir: string, options: LocalStoreOptions = {}): Promise<SkillStore> {
  const root = resolve(dir);
  const mode = options.create === false ? 'never' : options.create === 'on-write' ? 'check' : 'now';
  let present: boolean;
  try {
    present = await prepareRegistry(root, mode);
  } catch (error) {
    throw toStoreError(error, `opening ${root}`);
  }
  const store = new LocalStore(root, options, present);
  await store.recoverAbandoned();
  return store;
}
