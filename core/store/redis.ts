/**
 * The Redis/Valkey store adapter (ioredis): standalone, TLS, Sentinel and Cluster.
 *
 * Connection strings are described in `redisUrl.ts` and docs/redis-layout.md, the
 * key layout in `redisKeyspace.ts`, the atomic mutations in `redisScripts.ts`.
 * Publication and deletion are one Lua script each; reads take one round trip
 * each, and `listMetadata` / `resolveCandidates` take one round trip whatever the
 * number of skills or bindings. Connecting (standalone, Sentinel, Cluster options
 * and the ready wait) is `redisClient.ts`; ioredis failures are mapped to
 * `StoreError`s at this boundary by `redisErrors.ts`, and messages name the URL
 * with its password replaced by `***`.
 */
import { isAscii } from 'node:buffer';
import { resolveLimits } from '../package/index';
import type { SkillAuthoringLimits, SkillId, SkillManifest, SkillPackage } from '../package/types';
import { WorkbenchError } from '../errors';
import { deepFreeze } from '../frozen';
import { StoreError } from './errors';
import { verifiedManifest, verifiedResource } from './verify';
import { etagFor, parseEtagList } from './etag';
import { DEFAULT_ADMINISTRATION_LIMITS, checkDeleteRange, checkDeleteRequest, clampVersionQuery, pageVersions, protectionFor } from './history';
import { IDEMPOTENCY_RETENTION_MS, idempotencyKeyHash, replayIdempotent, type IdempotencyRecord } from './idempotency';
import { checkMetadataFilter, matchesFilter } from './listing';
import { auditAfterCommit, auditNotRecordedWarning, checkPublishPrecondition, preparePublication, type PreparedPublication } from './publication';
import { checkSkillId, compareSkillIds, isSlug } from './skillIds';
import { redisKeyspace, type RedisKeyspace } from './redisKeyspace';
import { checkDeployment, parseRedisUrl, type RedisConnectionConfig } from './redisUrl';
import { connectRedisClient, masterNodes, type RedisClient, type RedisClientOptions, type ScriptCommands } from './redisClient';
import { sanitized, toStoreError } from './redisErrors';
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

/** Options of {@link openRedisStore}: how to connect, plus the store's own limits, audit and deployment. */
export interface RedisStoreOptions extends RedisClientOptions {
  limits?: Partial<SkillAuthoringLimits>;
  adminLimits?: Partial<SkillAdministrationLimits>;
  /** Audit sink; defaults to {@link RedisStreamAuditSink} on the deployment's `…:audit` stream. */
  audit?: AuditSink;
  /** Deployment namespace; must agree with `?deployment=` when both are given. */
  deployment?: string;
  /** Approximate length the default audit stream is trimmed to (default 100000). */
  auditMaxLen?: number;
  /** Time source for `created_at` / `deleted_at`, for tests. */
  clock?: () => Date;
}

const DEFAULT_AUDIT_MAXLEN = 100_000;

type Client = RedisClient;

// ---------------------------------------------------------------------------
// Audit.

/**
 * The default audit sink: one XADD per event on the deployment's audit stream,
 * trimmed to about `maxLen` entries. Events are body-free by contract.
 */
export class RedisStreamAuditSink implements AuditSink {
  constructor(
    private readonly client: Client,
    private readonly key: string,
    private readonly maxLen: number = DEFAULT_AUDIT_MAXLEN,
  ) {}

  async record(event: AuditEvent): Promise<void> {
    await this.client.xadd(this.key, 'MAXLEN', '~', String(this.maxLen), '*', 'event', JSON.stringify(event));
  }
}

// ---------------------------------------------------------------------------
// Stored shapes.

interface StoredVersion {
  pkg: SkillPackage;
  manifest_hash: string;
  resource_hashes: Record<string, string>;
  created_at: string;
}

function pairsToMap(flat: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (!Array.isArray(flat)) return out;
  for (let i = 0; i + 1 < flat.length; i += 2) out.set(String(flat[i]), String(flat[i + 1]));
  return out;
}

const RESOURCE_FIELD = 'res:';
/** Revision fields besides resource bodies that every decode needs. */
const SKELETON_FIELDS = ['package', 'manifest_hash', 'resource_hashes', 'created_at'];

/** Revision hash fields of a prepared publication (the script adds `meta`). */
function versionFields(p: PreparedPublication, createdAt: string): string[] {
  // Resource bodies live in their own fields so getResource reads one body, not the package.
  const skeleton = { ...p.package, resources: p.package.resources.map((r) => ({ ...r, content: '' })) };
  const fields = [
    'package',
    JSON.stringify(skeleton),
    'manifest_hash',
    p.integrity.manifest_hash,
    'resource_hashes',
    JSON.stringify(p.integrity.resource_hashes),
    'created_at',
    createdAt,
  ];
  for (const r of p.package.resources) fields.push(`${RESOURCE_FIELD}${r.name}`, r.content);
  return fields;
}

/** JSON text of `value` without its closing brace, followed by `,"version":` for the script to complete. */
function jsonHeadWithVersion(value: Record<string, unknown>): string {
  const text = JSON.stringify(value);
  return `${text.slice(0, -1)},"version":`;
}

/**
 * Splits `etagFor(version, hash)` around the version number so the publish script
 * can build the ETag of the number it assigns. Checked against two probes, so a
 * change of the ETag format that this split cannot express fails loudly.
 */
function etagTemplate(manifestHash: string): [string, string] {
  const probe = 987654321;
  const sample = etagFor(probe, manifestHash);
  const at = sample.indexOf(String(probe));
  const head = sample.slice(0, at);
  const tail = sample.slice(at + String(probe).length);
  if (at < 0 || etagFor(12, manifestHash) !== `${head}12${tail}`) {
    throw new WorkbenchError('internal', 'the ETag format cannot be assembled by the Redis publish script');
  }
  return [head, tail];
}

/** The strong tags of an If-Match list, quoted as stored ETags are; weak tags never match. */
function strongTags(ifMatch: string): string {
  return (parseEtagList(ifMatch) ?? [])
    .filter((t) => !t.weak)
    .map((t) => `"${t.tag}"`)
    .join('\n');
}

function idOf(id: SkillId): SkillId {
  return { namespace: id.namespace, name: id.name };
}

function label(id: SkillId): string {
  return `${id.namespace}/${id.name}`;
}

// ---------------------------------------------------------------------------
// The store.

class RedisStore implements SkillStore {
  readonly description: string;
  readonly limits: SkillAuthoringLimits;
  private readonly adminLimits: SkillAdministrationLimits;
  private readonly audit: AuditSink;
  private readonly keys: RedisKeyspace;
  private readonly clock: () => Date;
  private closed: Promise<void> | undefined;
  /**
   * The last whole-catalog read: its bytes (HVALS's answer joined as one JSON
   * array) and its entries, parsed, deeply frozen and in skill-id order. A read
   * whose bytes are the same, byte for byte, serves these entries instead of
   * parsing and sorting them again; any change anywhere in the hash (a publish
   * by this process, another process or another host sharing the keyspace)
   * changes the bytes, so no version counter has to be kept by every writer.
   */
  private lastCatalog: { bytes: Buffer; entries: readonly SkillMetadata[] } | undefined;

  constructor(
    private readonly client: Client,
    private readonly config: RedisConnectionConfig,
    options: RedisStoreOptions,
  ) {
    this.keys = redisKeyspace(config.deployment);
    this.description = `${config.redacted.replace(/\?.*$/, '')} (${config.deployment})`;
    this.limits = resolveLimits(options.limits);
    this.adminLimits = { ...DEFAULT_ADMINISTRATION_LIMITS, ...options.adminLimits };
    this.audit = options.audit ?? new RedisStreamAuditSink(client, this.keys.audit, options.auditMaxLen);
    this.clock = options.clock ?? (() => new Date());
  }

  private get scripts(): ScriptCommands {
    return this.client as unknown as ScriptCommands;
  }

  /** Runs one Redis interaction, mapping its failure at the boundary. */
  private async run<T>(what: string, fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new StoreError('unavailable', `the Redis store ${this.description} is closed`);
    try {
      return await fn();
    } catch (error) {
      throw toStoreError(error, this.config.redacted, what);
    }
  }

  // --- runtime reads -------------------------------------------------------

  async listMetadata(filter?: MetadataFilter): Promise<SkillMetadata[]> {
    const checked = checkMetadataFilter(filter);
    // Buffers, not strings: the entries are decoded once, as one JSON array, below.
    const values = await this.run('listing the catalog', () => this.client.hvalsBuffer(this.keys.catalog));
    // Cheap necessary conditions on the raw bytes; the exact filter runs after parsing.
    const needles: Buffer[] = [];
    if (checked.namespace !== undefined) needles.push(Buffer.from(`"namespace":${JSON.stringify(checked.namespace)}`));
    if (checked.domain !== undefined) needles.push(Buffer.from(JSON.stringify(checked.domain)));
    if (checked.tag !== undefined) needles.push(Buffer.from(JSON.stringify(checked.tag)));
    if (needles.length === 0) {
      const entries = this.wholeCatalog(values);
      return checked.limit === undefined ? entries.slice() : entries.slice(0, checked.limit);
    }
    const picked = values.filter((v) => needles.every((n) => v.includes(n)));
    const out = this.parseCatalog(jsonArray(picked)).filter((e) => matchesFilter(e, checked)).sort(compareSkillIds);
    return checked.limit === undefined ? out : out.slice(0, checked.limit);
  }

  /** The whole catalog from HVALS's answer, in skill-id order (see {@link lastCatalog}). */
  private wholeCatalog(values: Buffer[]): readonly SkillMetadata[] {
    const bytes = jsonArray(values);
    const last = this.lastCatalog;
    if (last !== undefined && last.bytes.equals(bytes)) return last.entries;
    const entries = deepFreeze(this.parseCatalog(bytes).sort(compareSkillIds));
    this.lastCatalog = { bytes, entries };
    return entries;
  }

  /** Parses catalog entries joined by {@link jsonArray}: one decode and one parse for all of them. */
  private parseCatalog(bytes: Buffer): SkillMetadata[] {
    try {
      // A catalog that is all ASCII (the usual case) decodes as one-byte text, twice as fast as UTF-8.
      return JSON.parse(isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8')) as SkillMetadata[];
    } catch (error) {
      throw new StoreError('integrity_mismatch', `the catalog of ${this.description} holds a damaged entry`, { cause: sanitized(error) });
    }
  }

  async resolveCandidates(requests: CandidateRequest[]): Promise<CandidateResult[]> {
    type Plan = { request: CandidateRequest; catalogIndex: number; versionIndex?: number } | CandidateResult;
    const catalogFields = new Map<string, number>();
    const versionKeys = new Map<string, number>();
    const commands: string[][] = [];
    const plans: Plan[] = requests.map((request): Plan => {
      if (!isSlug(request?.namespace, this.limits.maxNameChars) || !isSlug(request?.name, this.limits.maxNameChars)) {
        return { status: 'invalid', request, reason: 'namespace and name must be lowercase slugs' };
      }
      const v = request.version;
      if (v !== 'published' && (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1)) {
        return { status: 'invalid', request, reason: "version must be 'published' or a positive integer" };
      }
      const field = label(request);
      let catalogIndex = catalogFields.get(field);
      if (catalogIndex === undefined) {
        catalogIndex = commands.push(['hget', this.keys.catalog, field]) - 1;
        catalogFields.set(field, catalogIndex);
      }
      if (v === 'published') return { request, catalogIndex };
      const key = this.keys.version(request, v);
      let versionIndex = versionKeys.get(key);
      if (versionIndex === undefined) {
        versionIndex = commands.push(['hget', key, 'meta']) - 1;
        versionKeys.set(key, versionIndex);
      }
      return { request, catalogIndex, versionIndex };
    });
    if (commands.length === 0) return plans as CandidateResult[];
    // One MULTI: one round trip and one consistent snapshot for every binding.
    const replies = await this.run('resolving candidates', async () => {
      const results = await this.client.multi(commands).exec();
      if (!results) throw new Error('Connection is closed (transaction aborted)');
      return results.map(([error, value]) => {
        if (error) throw error;
        return value as string | null;
      });
    });
    return plans.map((plan): CandidateResult => {
      if ('status' in plan) return plan;
      const { request } = plan;
      const current = parseMetadata(replies[plan.catalogIndex]);
      if (!current) return { status: 'not_found', request };
      if (plan.versionIndex === undefined) {
        return { status: 'found', request, version: current.version, manifest_hash: current.manifest_hash, metadata: current };
      }
      const pinned = parseMetadata(replies[plan.versionIndex]);
      if (!pinned) return { status: 'version_unavailable', request };
      return { status: 'found', request, version: pinned.version, manifest_hash: pinned.manifest_hash, metadata: pinned };
    });
  }

  async getManifest(ref: ManifestRef): Promise<SkillManifest> {
    checkSkillId(ref, this.limits);
    // The manifest carries resource hashes, not bodies: no resource body is read or hashed here.
    const stored = await this.readExact(ref, ref.version, []);
    return verifiedManifest(ref, { package: stored.pkg, resource_hashes: stored.resource_hashes });
  }

  async getResource(ref: ResourceRef): Promise<SkillResourceBody> {
    checkSkillId(ref.skill, this.limits);
    const stored = await this.readExact(ref.skill, ref.skill.version, [ref.name]);
    return verifiedResource(ref, { package: stored.pkg });
  }

  /**
   * One available revision with only the resource bodies named in `resources`
   * (the others stay empty). 404 for a missing skill, version or tombstone.
   */
  private async readExact(id: SkillId, version: number, resources: string[]): Promise<StoredVersion> {
    if (!Number.isSafeInteger(version) || version < 1) {
      throw new StoreError('invalid_request', `version must be a positive integer, got ${String(version)}`);
    }
    return (await this.readRevision(id, version, resources)).stored;
  }

  // --- revision reads ------------------------------------------------------

  async getPublished(id: SkillId): Promise<StoredRevision> {
    checkSkillId(id, this.limits);
    const read = await this.readRevision(id, 'published');
    return this.revision(id, read);
  }

  async getVersion(id: SkillId, version: number): Promise<StoredRevision> {
    checkSkillId(id, this.limits);
    if (!Number.isSafeInteger(version) || version < 1) {
      throw new StoreError('invalid_request', `version must be a positive integer, got ${String(version)}`);
    }
    return this.revision(id, await this.readRevision(id, version));
  }

  private revision(id: SkillId, read: { published: number; etag: string; version: number; stored: StoredVersion }): StoredRevision {
    return {
      namespace: id.namespace,
      name: id.name,
      version: read.version,
      etag: read.etag,
      package: read.stored.pkg,
      manifest_hash: read.stored.manifest_hash,
      resource_hashes: read.stored.resource_hashes,
      created_at: read.stored.created_at,
      published: read.version === read.published,
    };
  }

  /** Reads a revision and the skill's state in one script call; `resources` limits the bodies read (all when omitted). */
  private async readRevision(
    id: SkillId,
    version: number | 'published',
    resources?: string[],
  ): Promise<{ published: number; etag: string; version: number; stored: StoredVersion }> {
    const fields = resources === undefined ? [] : [...SKELETON_FIELDS, ...resources.map((r) => `${RESOURCE_FIELD}${r}`)];
    const reply = (await this.run(`reading ${label(id)}@${version}`, () =>
      this.scripts.skillReadRevision(this.keys.state(id), this.keys.tombstones(id), this.keys.versionPrefix(id), String(version), ...fields),
    )) as unknown[];
    const [status] = reply;
    if (status === 'missing') throw new StoreError('not_found', `skill ${label(id)} not found`);
    if (status === 'gone') {
      const [, , , last, deletedAt] = reply;
      if (version === 'published') {
        throw new StoreError('integrity_mismatch', `the published revision of ${label(id)} is missing from ${this.description}`);
      }
      if (deletedAt) throw new StoreError('not_found', `${label(id)} version ${version} was deleted`);
      if (version > Number(last)) throw new StoreError('not_found', `${label(id)} has no version ${version}`);
      throw new StoreError('integrity_mismatch', `stored revision ${label(id)}@${version} is missing`);
    }
    const [, published, etag, v, flat] = reply;
    const n = Number(v);
    return { published: Number(published), etag: String(etag), version: n, stored: this.decodeVersion(id, n, pairsToMap(flat), resources) };
  }

  private decodeVersion(id: SkillId, version: number, fields: Map<string, string>, wanted?: string[]): StoredVersion {
    try {
      const skeleton = JSON.parse(fields.get('package') ?? '') as SkillPackage;
      const resources = skeleton.resources.map((r) => {
        if (wanted !== undefined && !wanted.includes(r.name)) return r;
        const content = fields.get(`${RESOURCE_FIELD}${r.name}`);
        if (content === undefined) throw new Error(`resource '${r.name}' has no body`);
        return { ...r, content };
      });
      const hashes = JSON.parse(fields.get('resource_hashes') ?? '') as Record<string, string>;
      const manifestHash = fields.get('manifest_hash');
      const createdAt = fields.get('created_at');
      if (typeof manifestHash !== 'string' || typeof createdAt !== 'string' || typeof hashes !== 'object' || hashes === null) {
        throw new Error('missing fields');
      }
      return { pkg: { ...skeleton, resources }, manifest_hash: manifestHash, resource_hashes: hashes, created_at: createdAt };
    } catch (error) {
      throw new StoreError('integrity_mismatch', `stored revision ${label(id)}@${version} is damaged`, { cause: sanitized(error) });
    }
  }

  async listVersions(id: SkillId, query?: VersionQuery): Promise<VersionPage> {
    checkSkillId(id, this.limits);
    const { before, limit } = clampVersionQuery(query);
    const reply = (await this.run(`listing versions of ${label(id)}`, () =>
      this.scripts.skillHistory(
        this.keys.state(id),
        this.keys.history(id),
        this.keys.tombstones(id),
        before === undefined ? '+inf' : `(${before}`,
        String(limit + 1),
      ),
    )) as unknown[];
    if (reply[0] === 'missing') throw new StoreError('not_found', `skill ${label(id)} not found`);
    const published = Number(reply[1]);
    const rows = reply[2] as string[];
    const tombs = reply[3] as (string | null)[];
    const entries: VersionEntry[] = [];
    for (let i = 0; i + 1 < rows.length; i += 2) {
      let stored: Omit<VersionEntry, 'protection'>;
      try {
        stored = JSON.parse(rows[i]!) as Omit<VersionEntry, 'protection'>;
      } catch (error) {
        throw new StoreError('integrity_mismatch', `history of ${label(id)} holds a damaged entry`, { cause: sanitized(error) });
      }
      const deletedAt = tombs[i / 2];
      const entry: VersionEntry = {
        version: stored.version,
        status: deletedAt ? 'deleted' : 'available',
        created_at: stored.created_at,
        manifest_hash: stored.manifest_hash,
        change_reason: stored.change_reason,
      };
      if (deletedAt) entry.deleted_at = deletedAt;
      const protection = protectionFor(entry.version, published);
      if (protection !== undefined) entry.protection = protection;
      entries.push(entry);
    }
    // The script already applied `before` and read one extra entry to tell whether more remain.
    return pageVersions(entries, { limit });
  }

  // --- mutations -----------------------------------------------------------

  async publish(request: PublishRequest): Promise<PublishResult> {
    const p = await preparePublication(request, this.limits);
    const id = idOf(p.id);
    const now = this.clock();
    const createdAt = now.toISOString();
    const manifestHash = p.integrity.manifest_hash;
    const keyHashHex =
      p.idempotencyKey === undefined ? undefined : (await idempotencyKeyHash(id, p.idempotencyKey)).replace(/^sha256:/, '');
    const idemKey = keyHashHex === undefined ? this.keys.noIdempotency : this.keys.idempotency(id, keyHashHex);
    const [etagHead, etagTail] = etagTemplate(manifestHash);
    const stored: Omit<PublishResult, 'outcome' | 'version' | 'etag' | 'replayed'> = {
      namespace: id.namespace,
      name: id.name,
      manifest_hash: manifestHash,
      // Written before the audit runs; marked recorded once the sink succeeded.
      audit_recorded: false,
      warnings: [auditNotRecordedWarning()],
      validation: p.validation,
    };
    const args = (ignoreRecord: boolean): string[] => [
      this.keys.state(id),
      this.keys.catalog,
      this.keys.history(id),
      idemKey,
      label(id),
      this.keys.versionPrefix(id),
      keyHashHex === undefined ? '0' : '1',
      ignoreRecord ? '1' : '0',
      String(IDEMPOTENCY_RETENTION_MS),
      p.precondition.kind,
      p.precondition.kind === 'if-match' ? strongTags(p.precondition.etag) : '',
      manifestHash,
      createdAt,
      etagHead,
      etagTail,
      jsonHeadWithVersion({
        namespace: id.namespace,
        name: id.name,
        display_name: p.package.display_name,
        description: p.package.description,
        domains: p.package.domains,
        tags: p.package.tags,
        manifest_hash: manifestHash,
        updated_at: createdAt,
      }),
      jsonHeadWithVersion({
        status: 'available',
        created_at: createdAt,
        manifest_hash: manifestHash,
        change_reason: p.package.change_reason,
      }),
      p.fingerprint,
      JSON.stringify(stored),
      ...versionFields(p, createdAt),
    ];

    let reply = (await this.run(`publishing ${label(id)}`, () => this.scripts.skillPublish(...args(false)))) as unknown[];
    if (reply[0] === 'replay') {
      const replay = replayIdempotent(decodeRecord(reply[1]), p.fingerprint, now);
      if (replay) return replay;
      // Expired by this client's clock though Redis still kept it: treat as absent.
      reply = (await this.run(`publishing ${label(id)}`, () => this.scripts.skillPublish(...args(true)))) as unknown[];
    }
    if (reply[0] === 'precondition') {
      const current = reply[1];
      checkPublishPrecondition(p.precondition, typeof current === 'string' ? { etag: current } : undefined);
      throw new WorkbenchError('internal', `the publish script refused ${label(id)} although its precondition holds`);
    }
    if (reply[0] !== 'ok') throw new WorkbenchError('internal', `unexpected reply of the publish script for ${label(id)}`);
    const outcome = String(reply[1]) as PublishResult['outcome'];
    const version = Number(reply[2]);
    const etag = String(reply[3]);
    if (outcome !== 'same_content_noop' && etag !== etagFor(version, manifestHash)) {
      throw new WorkbenchError('internal', `the publish script built ETag ${etag} for ${label(id)}@${version}`);
    }

    const event: AuditEvent = {
      action: 'publish',
      namespace: id.namespace,
      name: id.name,
      outcome,
      versions: [version],
      manifest_hash: manifestHash,
      reason: p.package.change_reason,
      at: createdAt,
    };
    if (p.actor !== undefined) event.actor = p.actor;
    const audited = await auditAfterCommit(this.audit, event);
    const result: PublishResult = {
      namespace: id.namespace,
      name: id.name,
      outcome,
      version,
      etag,
      manifest_hash: manifestHash,
      ...audited,
      validation: p.validation,
      replayed: false,
    };
    if (keyHashHex !== undefined && audited.audit_recorded) {
      const update = JSON.stringify({ ...stored, ...audited });
      // The mutation and its reply are committed; failing to mark the record only makes a replay report the audit as missing.
      await this.run('recording the idempotent reply', () => this.scripts.skillIdempotencyAudited(idemKey, p.fingerprint, update)).catch(
        () => undefined,
      );
    }
    return result;
  }

  async deleteVersions(request: DeleteRequest): Promise<DeleteResult> {
    checkDeleteRequest(request, this.adminLimits);
    const id = idOf(request.id);
    const deletedAt = this.clock().toISOString();
    const reply = (await this.run(`deleting versions of ${label(id)}`, () =>
      this.scripts.skillDelete(
        this.keys.state(id),
        this.keys.tombstones(id),
        String(request.from),
        String(request.to),
        strongTags(request.ifMatch ?? ''),
        deletedAt,
        this.keys.versionPrefix(id),
      ),
    )) as unknown[];
    if (reply[0] === 'missing') throw new StoreError('not_found', `skill ${label(id)} not found`);
    if (reply[0] === 'refused') {
      checkDeleteRange(request, this.adminLimits, Number(reply[1]), String(reply[2]));
      throw new WorkbenchError('internal', `the delete script refused ${label(id)} although the range is allowed`);
    }
    if (reply[0] !== 'ok') throw new WorkbenchError('internal', `unexpected reply of the delete script for ${label(id)}`);
    const deleted = (reply[1] as unknown[]).map(Number);
    const already = (reply[2] as unknown[]).map(Number);
    const etag = String(reply[3]);
    const event: AuditEvent = {
      action: 'delete',
      namespace: id.namespace,
      name: id.name,
      outcome: deleted.length > 0 ? 'deleted' : 'noop',
      versions: deleted,
      reason: request.reason,
      at: deletedAt,
    };
    if (request.actor !== undefined) event.actor = request.actor;
    const audited = await auditAfterCommit(this.audit, event);
    return { namespace: id.namespace, name: id.name, deleted, already_deleted: already, etag, ...audited };
  }

  /**
   * Deployment namespaces that hold a catalog in this Redis (SCAN of
   * `truvag3:v1:*:catalog` on every master), sorted, at most `limit`.
   */
  async deployments(limit = 100): Promise<string[]> {
    const found = new Set<string>();
    const pattern = 'truvag3:v1:*:skills:{*:skills}:catalog';
    try {
      for (const node of masterNodes(this.client)) {
        let cursor = '0';
        do {
          const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
          cursor = next;
          for (const key of keys) {
            const match = /^truvag3:v1:([a-z0-9-]+):skills:\{/.exec(key);
            if (match?.[1]) found.add(match[1]);
          }
        } while (cursor !== '0' && found.size < limit);
      }
    } catch (error) {
      throw toStoreError(error, this.config.redacted, 'listing deployments');
    }
    return [...found].sort().slice(0, limit);
  }

  async close(): Promise<void> {
    this.closed ??= (async () => {
      try {
        await this.client.quit();
      } catch {
        // Already disconnected: nothing left to release.
      }
      this.client.disconnect();
    })();
    return this.closed;
  }
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/** `[v1,v2,...]` as the bytes of one JSON array, from JSON texts held in buffers. */
function jsonArray(values: Buffer[]): Buffer {
  const parts: Buffer[] = [OPEN];
  for (let i = 0; i < values.length; i++) {
    if (i > 0) parts.push(COMMA);
    parts.push(values[i]!);
  }
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

function parseMetadata(value: string | null | undefined): SkillMetadata | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const parsed = JSON.parse(value) as SkillMetadata;
    return typeof parsed === 'object' && parsed !== null && typeof parsed.version === 'number' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function decodeRecord(flat: unknown): IdempotencyRecord | undefined {
  const fields = pairsToMap(flat);
  try {
    const rest = JSON.parse(fields.get('result') ?? '') as Omit<PublishResult, 'outcome' | 'version' | 'etag' | 'replayed'>;
    return {
      fingerprint: fields.get('fingerprint') ?? '',
      created_at: fields.get('created_at') ?? '',
      result: {
        ...rest,
        outcome: fields.get('outcome') as PublishResult['outcome'],
        version: Number(fields.get('version')),
        etag: fields.get('etag') ?? '',
        replayed: false,
      },
    };
  } catch {
    // A damaged record cannot be replayed; the request proceeds as a new one.
    return undefined;
  }
}

/**
 * Opens the redis store named by `url` and resolves once the client is ready.
 *
 * `url` forms (see docs/redis-layout.md): `redis://[user:pass@]host:port[/0]`,
 * `rediss://…?ca=FILE&servername=NAME`, `redis+sentinel://[user:pass@]h1:p1,h2:p2/MASTER`,
 * `redis+cluster://[user:pass@]h1:p1,h2:p2`, each with `?deployment=NAME` (default
 * `default`), `connect_timeout=MS` and `command_timeout=MS`. Any DB but 0 is refused.
 *
 * Throws 400 `invalid_request` for a malformed URL or options, 503 `unavailable`
 * when the server cannot be reached, 401 `unauthorized` when it refuses the
 * credentials, 504 `timeout` when
 * it is not ready in time. Messages never contain the password.
 */
export async function openRedisStore(url: string, options: RedisStoreOptions = {}): Promise<SkillStore> {
  const config = parseRedisUrl(url);
  if (options.deployment !== undefined) {
    checkDeployment(options.deployment);
    if (url.includes('deployment=') && options.deployment !== config.deployment) {
      throw new StoreError(
        'invalid_request',
        `ambiguous deployment: ${config.redacted} names '${config.deployment}' but the options name '${options.deployment}'`,
      );
    }
    config.deployment = options.deployment;
  }
  const client = await connectRedisClient(config, options);
  return new RedisStore(client, config, options);
}

/**
 * The deployment namespaces a Redis store's server holds (see
 * `RedisStore.deployments`), or `undefined` when `store` is not a Redis store.
 */
export async function redisDeployments(store: SkillStore, limit = 100): Promise<string[] | undefined> {
  return store instanceof RedisStore ? store.deployments(limit) : undefined;
}
