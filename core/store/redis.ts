/**
 * The Redis/Valkey store adapter (ioredis): standalone, TLS, Sentinel and Cluster.
 *
 * Connection strings are described in `redisUrl.ts` and docs/redis-layout.md, the
 * key layout in `redisKeyspace.ts`, the atomic mutations in `redisScripts.ts`.
 * Publication and deletion are one Lua script each; reads take one round trip
 * each, and `listMetadata` / `resolveCandidates` take one round trip whatever the
 * number of skills or bindings. ioredis failures are mapped to `StoreError`s at
 * this boundary (`toStoreError`) and messages name the URL with its password
 * replaced by `***`.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis, type ClusterOptions, type NatMap, type RedisOptions } from 'ioredis';
import { resolveLimits } from '../package/index';
import type { SkillAuthoringLimits, SkillId, SkillManifest, SkillPackage } from '../package/types';
import { WorkbenchError } from '../errors';
import { StoreError } from './errors';
import { verifiedManifest, verifiedResource } from './verify';
import { etagFor, parseEtagList } from './etag';
import { DEFAULT_ADMINISTRATION_LIMITS, checkDeleteRange, checkDeleteRequest, clampVersionQuery, pageVersions, protectionFor } from './history';
import { IDEMPOTENCY_RETENTION_MS, idempotencyKeyHash, replayIdempotent, type IdempotencyRecord } from './idempotency';
import { checkMetadataFilter, matchesFilter } from './listing';
import { auditAfterCommit, auditNotRecordedWarning, checkPublishPrecondition, preparePublication, type PreparedPublication } from './publication';
import { checkSkillId, compareSkillIds, isSlug } from './skillIds';
import { redisKeyspace, type RedisKeyspace } from './redisKeyspace';
import { DELETE_LUA, HISTORY_LUA, IDEMPOTENCY_AUDITED_LUA, PUBLISH_LUA, READ_REVISION_LUA } from './redisScripts';
import { checkDeployment, parseRedisUrl, type RedisConnectionConfig } from './redisUrl';
import { plainRedisOnTlsPort } from './redisTlsProbe';
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

/** Options of {@link openRedisStore}. Values given here win over URL options only where noted. */
export interface RedisStoreOptions {
  limits?: Partial<SkillAuthoringLimits>;
  adminLimits?: Partial<SkillAdministrationLimits>;
  /** Audit sink; defaults to {@link RedisStreamAuditSink} on the deployment's `…:audit` stream. */
  audit?: AuditSink;
  /** Deployment namespace; must agree with `?deployment=` when both are given. */
  deployment?: string;
  /** Extra TLS options (e.g. `ca`, `cert`, `key`) for `rediss…` URLs, merged over `?ca=` / `?servername=`. */
  tls?: ConnectionOptions;
  /** Credentials of the Sentinel processes themselves (the URL's user:pass are the master's). */
  sentinels?: { username?: string; password?: string; tls?: boolean };
  /** Cluster options: address translation for nodes announced under other addresses. */
  cluster?: { natMap?: NatMap };
  /** TCP connect timeout in ms (default 5000; URL `connect_timeout`). */
  connectTimeoutMs?: number;
  /** Per-command timeout in ms (default 5000; URL `command_timeout`). */
  commandTimeoutMs?: number;
  /** Alias of `commandTimeoutMs` used by `openStore` (core/store/connect.ts). */
  timeoutMs?: number;
  /** Approximate length the default audit stream is trimmed to (default 100000). */
  auditMaxLen?: number;
  /** Base of a relative `?ca=` path (default: the process's working directory). */
  cwd?: string;
  /** Time source for `created_at` / `deleted_at`, for tests. */
  clock?: () => Date;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
const DEFAULT_COMMAND_TIMEOUT_MS = 5_000;
const DEFAULT_AUDIT_MAXLEN = 100_000;

type Client = Redis | Cluster;
type Reply = unknown;

/** Script commands registered with ioredis `defineCommand` (EVALSHA, EVAL on NOSCRIPT). */
interface ScriptCommands {
  skillPublish(...args: (string | number)[]): Promise<Reply>;
  skillDelete(...args: (string | number)[]): Promise<Reply>;
  skillReadRevision(...args: (string | number)[]): Promise<Reply>;
  skillHistory(...args: (string | number)[]): Promise<Reply>;
  skillIdempotencyAudited(...args: (string | number)[]): Promise<Reply>;
}

// ---------------------------------------------------------------------------
// Error mapping.

const UNAVAILABLE =
  /ECONNREFUSED|ECONNRESET|ECONNABORTED|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|Connection is closed|Stream isn't writeable|max retries per request|All sentinels are unreachable|Failed to refresh slots cache|None of startup nodes is available|CLUSTERDOWN|LOADING|MASTERDOWN|TRYAGAIN|READONLY|OOM |MOVED|ASK |closed|not connected/i;
const AUTH = /WRONGPASS|NOAUTH|invalid username-password|invalid password|AUTH failed|ERR AUTH/i;

/** A copy of an ioredis error without `command` (whose args may hold a password or a package). */
function sanitized(error: unknown): Error {
  const source = error instanceof Error ? error : new Error(String(error));
  const copy = new Error(source.message);
  copy.name = source.name;
  if (source.stack) copy.stack = source.stack;
  return copy;
}

/**
 * Maps an ioredis failure to the store taxonomy: connection loss → 503
 * `unavailable`, command timeout → 504 `timeout`, wrong or missing credentials →
 * 401 `unauthorized`, an ACL denial → 403 `forbidden`, each with an actionable
 * message; anything else (a script error) → `internal`.
 * `where` is the redacted URL; `what` the operation.
 */
export function toStoreError(error: unknown, where: string, what: string): WorkbenchError {
  if (error instanceof WorkbenchError) return error;
  let message = error instanceof Error ? error.message : String(error);
  // A cluster that cannot load its slot map says why only on the last node error.
  const lastNodeError = (error as { lastNodeError?: unknown } | null)?.lastNodeError;
  if (lastNodeError instanceof Error) message = `${message} (${lastNodeError.message})`;
  const cause = sanitized(error);
  if (/Command timed out/i.test(message)) {
    return new StoreError('timeout', `Redis at ${where} did not answer in time (${what})`, { cause });
  }
  if (AUTH.test(message)) {
    return new StoreError(
      'unauthorized',
      `Redis at ${where} refused the credentials (${message.split(' ')[0]}): check the user name and password of the connection`,
      { cause },
    );
  }
  const tlsCode = String((error as { code?: unknown } | null)?.code ?? '');
  if (/certificate|CERT_|SSL|TLS|handshake/i.test(message) || /^ERR_TLS|CERT|SSL/.test(tlsCode)) {
    return new StoreError(
      'unavailable',
      `the TLS connection to ${where} failed (${message}): check the server certificate, '?ca=' and '?servername='`,
      { cause },
    );
  }
  if (/NOPERM/.test(message)) {
    return new StoreError('forbidden', `the Redis user of ${where} lacks a permission the skill store needs (${what}): ${message}`, { cause });
  }
  if (UNAVAILABLE.test(message)) {
    return new StoreError('unavailable', `Redis at ${where} is unavailable (${what}): ${message}`, { cause });
  }
  return new WorkbenchError('internal', `Redis at ${where} failed unexpectedly (${what}): ${message}`, { cause });
}

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
    const picked = needles.length === 0 ? values : values.filter((v) => needles.every((n) => v.includes(n)));
    let entries: SkillMetadata[];
    try {
      // One decode and one parse for the whole catalog instead of one per entry.
      entries = JSON.parse(jsonArray(picked)) as SkillMetadata[];
    } catch (error) {
      throw new StoreError('integrity_mismatch', `the catalog of ${this.description} holds a damaged entry`, { cause: sanitized(error) });
    }
    const out = needles.length === 0 ? entries : entries.filter((e) => matchesFilter(e, checked));
    out.sort(compareSkillIds);
    return checked.limit === undefined ? out : out.slice(0, checked.limit);
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
    const nodes: Redis[] = this.client instanceof Cluster ? this.client.nodes('master') : [this.client];
    try {
      for (const node of nodes) {
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

/** `[v1,v2,...]` as one string, from JSON texts held in buffers. */
function jsonArray(values: Buffer[]): string {
  const parts: Buffer[] = [OPEN];
  for (let i = 0; i < values.length; i++) {
    if (i > 0) parts.push(COMMA);
    parts.push(values[i]!);
  }
  parts.push(CLOSE);
  return Buffer.concat(parts).toString('utf8');
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

// ---------------------------------------------------------------------------
// Connecting.

function defineScripts(client: Client): void {
  client.defineCommand('skillPublish', { numberOfKeys: 4, lua: PUBLISH_LUA });
  client.defineCommand('skillDelete', { numberOfKeys: 2, lua: DELETE_LUA });
  client.defineCommand('skillReadRevision', { numberOfKeys: 2, lua: READ_REVISION_LUA });
  client.defineCommand('skillHistory', { numberOfKeys: 3, lua: HISTORY_LUA });
  client.defineCommand('skillIdempotencyAudited', { numberOfKeys: 1, lua: IDEMPOTENCY_AUDITED_LUA });
}

function tlsOptions(config: RedisConnectionConfig, options: RedisStoreOptions): ConnectionOptions | undefined {
  const extra = options.tls;
  if (!config.tls) {
    if (extra) throw new StoreError('invalid_request', `TLS options need a rediss URL, got ${config.redacted}`);
    return undefined;
  }
  const tls: ConnectionOptions = {};
  if (config.caFile !== undefined) {
    try {
      tls.ca = readFileSync(resolve(options.cwd ?? process.cwd(), config.caFile));
    } catch (error) {
      throw new StoreError('invalid_request', `cannot read the CA file '${config.caFile}' of ${config.redacted}: ${(error as Error).message}`);
    }
  }
  if (config.servername !== undefined) tls.servername = config.servername;
  return { ...tls, ...extra };
}

function createClient(config: RedisConnectionConfig, options: RedisStoreOptions, state: { ready: boolean }): Client {
  const connectTimeout = options.connectTimeoutMs ?? config.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const commandTimeout = options.commandTimeoutMs ?? options.timeoutMs ?? config.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  // Fail the first connection at once (the caller gets a clear error); reconnect with back-off later.
  const retry = (times: number): number | null => (state.ready ? Math.min(50 * 2 ** Math.min(times, 6), 2_000) : null);
  const tls = tlsOptions(config, options);
  const common: RedisOptions = {
    db: 0,
    connectTimeout,
    commandTimeout,
    // A request in flight when the connection drops, or waiting through a failed
    // reconnect, fails at once with 503 instead of hanging until the command timeout.
    maxRetriesPerRequest: 0,
    // A mutation whose reply was lost must not be sent twice behind the caller's back.
    autoResendUnfulfilledCommands: false,
    enableReadyCheck: true,
  };
  if (config.username !== undefined) common.username = config.username;
  if (config.password !== undefined) common.password = config.password;
  if (tls) common.tls = tls;

  if (config.topology === 'cluster') {
    const clusterOptions: ClusterOptions = {
      lazyConnect: true,
      redisOptions: common,
      clusterRetryStrategy: retry,
      slotsRefreshTimeout: connectTimeout,
      enableReadyCheck: true,
    };
    if (options.cluster?.natMap) clusterOptions.natMap = options.cluster.natMap;
    return new Cluster(config.hosts, clusterOptions);
  }
  const redisOptions: RedisOptions = { ...common, lazyConnect: true, retryStrategy: retry };
  if (config.topology === 'sentinel') {
    redisOptions.sentinels = config.hosts;
    redisOptions.name = config.masterName ?? '';
    redisOptions.sentinelRetryStrategy = retry;
    if (options.sentinels?.username !== undefined) redisOptions.sentinelUsername = options.sentinels.username;
    if (options.sentinels?.password !== undefined) redisOptions.sentinelPassword = options.sentinels.password;
    if (options.sentinels?.tls) redisOptions.enableTLSForSentinelMode = true;
    if (tls) redisOptions.sentinelTLS = tls;
  } else {
    const [node] = config.hosts;
    redisOptions.host = node?.host ?? '127.0.0.1';
    redisOptions.port = node?.port ?? 6379;
  }
  return new Redis(redisOptions);
}

/** Resolves once the client is ready; rejects with a mapped error on its first `error` or `end`. */
function waitReady(client: Client, config: RedisConnectionConfig, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let lastError: unknown;
    let settled = false;
    const finish = (error?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('error', onError);
      client.off('end', onEnd);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onReady = () => finish();
    const onError = (error: unknown) => {
      lastError = error;
      finish(toStoreError(error, config.redacted, 'connecting'));
    };
    const onEnd = () =>
      finish(
        lastError === undefined
          ? new StoreError('unavailable', `cannot connect to Redis at ${config.redacted}: the connection closed`)
          : toStoreError(lastError, config.redacted, 'connecting'),
      );
    const timer = setTimeout(
      () => finish(new StoreError('timeout', `Redis at ${config.redacted} was not ready within ${timeoutMs} ms`)),
      timeoutMs,
    );
    client.on('ready', onReady);
    client.on('error', onError);
    client.on('end', onEnd);
    client.connect().catch(onError);
  });
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
  const state = { ready: false };
  const client = createClient(config, options, state);
  // ioredis emits 'error' on every failed reconnect; without a listener it would print.
  const ignore = () => undefined;
  client.on('error', ignore);
  defineScripts(client);
  const connectTimeout = options.connectTimeoutMs ?? config.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  try {
    const ready = waitReady(client, config, connectTimeout * 2);
    await Promise.race([ready, plainRedisOnTlsPort(config, ready, connectTimeout)]);
  } catch (error) {
    client.disconnect();
    throw error;
  }
  state.ready = true;
  return new RedisStore(client, config, options);
}

/**
 * The deployment namespaces a Redis store's server holds (see
 * `RedisStore.deployments`), or `undefined` when `store` is not a Redis store.
 */
export async function redisDeployments(store: SkillStore, limit = 100): Promise<string[] | undefined> {
  return store instanceof RedisStore ? store.deployments(limit) : undefined;
}
