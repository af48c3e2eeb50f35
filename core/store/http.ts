/**
 * The HTTP store: the whole {@link SkillStore} contract against any V1 admin API
 * host (our `skillbench registry serve` or a TruvaG3 Registry Viewer), over undici.
 *
 * - Statuses map back to `StoreError` codes (a 502 is an integrity failure only when
 *   the body says so; from a proxy it is `unavailable`); 422 keeps its findings.
 * - Responses are read tolerantly: unknown fields are ignored, known ones defaulted.
 * - Retries follow `httpRetry.ts`: GETs and keyed PUTs after transient failures,
 *   DELETEs only when the host certainly did nothing, unkeyed PUTs only when the
 *   connection could not be made.
 * - `getManifest`/`getResource` read the exact version and verify its hashes here,
 *   so a host or proxy cannot hand the runtime unverified content.
 * - `resolveCandidates` round trips: one list request per distinct namespace among
 *   the valid bindings, plus one exact read per numeric binding that is not the
 *   published revision, plus one published read per identity the list did not show
 *   (to tell "absent" from "list truncated by the host"). Reads run 8 at a time.
 * - The token and extra headers never appear in errors, descriptions or logs, even
 *   when a host reflects them in its error message.
 * - Only 2xx answers are success. A redirect is an error naming its (redacted)
 *   target; it is never followed, so the token never goes to another address.
 *
 * The actor of a publication cannot be proven by a client: it is sent only when
 * `actorHeader` is configured, and a host uses it only if its own attribution
 * middleware chooses to trust that header.
 */
import { Agent, ProxyAgent, request, type Dispatcher } from 'undici';
import { createRedactor, redactAuthText, redactUrl, redactValue, type Redactor } from '../redact';
import { resolveLimits } from '../package/index';
import type { SkillAuthoringLimits, SkillId, SkillManifest } from '../package/types';
import { STORE_ERROR_STATUS, StoreError, storeErrorCodeForStatus, type StoreErrorCode } from './errors';
import {
  ADMIN_HEADERS,
  JSON_MEDIA_TYPE,
  decodeDeleteResponse,
  decodeErrorBody,
  decodeListResponse,
  decodePublishResponse,
  decodeRevision,
  decodeSchemaLimits,
  decodeVersionPage,
  encodeHeaderText,
  isWireObject,
  type WireJson,
} from './httpWire';
import { parseRetryAfter } from '../retry';
import { mayRetry, retryDelayMs, type AttemptFailure, type RetryMode } from './httpRetry';
import { checkPublishRequest } from './publication';
import { checkSkillId } from './skillIds';
import { verifiedManifest, verifiedResource } from './verify';
import type {
  CandidateRequest,
  CandidateResult,
  DeleteRequest,
  DeleteResult,
  ManifestRef,
  MetadataFilter,
  PublishRequest,
  PublishResult,
  ResourceRef,
  SkillMetadata,
  SkillResourceBody,
  SkillStore,
  StoredRevision,
  VersionPage,
  VersionQuery,
} from './types';

/** Options of {@link openHttpStore}. */
export interface HttpStoreOptions {
  /** Bearer token; defaults to the `SKILLBENCH_REGISTRY_TOKEN` variable of `env`. */
  token?: string;
  /** Environment the default token is read from (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Extra request headers (e.g. a gateway's own credential). Never logged. */
  headers?: Record<string, string>;
  /** Extra trusted CA certificates (PEM) for `https://` hosts. */
  ca?: string | Buffer | Array<string | Buffer>;
  /** HTTP(S) proxy URL. */
  proxy?: string;
  /** Time budget of one attempt, in milliseconds (default 10 s). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 2). */
  retries?: number;
  /** A ready undici dispatcher; `ca` and `proxy` are then ignored and `close()` leaves it open. */
  dispatcher?: Dispatcher;
  /** Header carrying `PublishRequest.actor`/`DeleteRequest.actor`; unset: the actor is not sent. */
  actorHeader?: string;
  /** Authoring limits used for client-side checks when the host's schema does not state them. */
  limits?: Partial<SkillAuthoringLimits>;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_RETRIES = 2;
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
const READ_CONCURRENCY = 8;
const TOKEN_ENV = 'SKILLBENCH_REGISTRY_TOKEN';

const CONNECT_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND', 'UND_ERR_CONNECT_TIMEOUT', 'EADDRNOTAVAIL']);
// The only abort signal the client passes is its own per-attempt timeout.
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT', 'UND_ERR_ABORTED', 'ABORT_ERR']);

interface CallOptions {
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  mode: RetryMode;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: unknown;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function headerValue(headers: Answer['headers'], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[v.length - 1] : v;
}

function errorCodeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    // Happy-eyeballs connects fail with an AggregateError of per-address errors.
    const inner = (current as { errors?: unknown[] }).errors?.[0];
    current = inner ?? (current as { cause?: unknown }).cause;
  }
  return undefined;
}

class HttpStore implements SkillStore {
  readonly description: string;
  limits: SkillAuthoringLimits;
  private readonly base: URL;
  private readonly headers: Record<string, string>;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly actorHeader: string | undefined;
  private closed = false;

  /** Removes this client's credentials from text a host wrote. */
  private readonly redact: Redactor;

  constructor(base: URL, options: HttpStoreOptions, auth: string | undefined, secrets: string[] = []) {
    this.base = base;
    this.redact = createRedactor([...secrets, ...(auth === undefined ? [] : [auth, auth.replace(/^\S+\s+/, '')]), ...Object.values(options.headers ?? {})]);
    this.description = `${base.origin}${base.pathname}`;
    this.limits = resolveLimits(options.limits);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retries = Math.max(0, options.retries ?? DEFAULT_RETRIES);
    this.actorHeader = options.actorHeader?.toLowerCase();
    this.headers = { accept: JSON_MEDIA_TYPE };
    for (const [k, v] of Object.entries(options.headers ?? {})) this.headers[k.toLowerCase()] = v;
    if (auth !== undefined) this.headers['authorization'] = auth;
    if (options.dispatcher) {
      this.dispatcher = options.dispatcher;
      this.ownsDispatcher = false;
    } else {
      const connect = options.ca !== undefined ? { ca: options.ca } : undefined;
      this.dispatcher = options.proxy
        ? new ProxyAgent({ uri: options.proxy, ...(connect ? { requestTls: connect } : {}) })
        : new Agent(connect ? { connect } : {});
      this.ownsDispatcher = true;
    }
  }

  // --- transport -------------------------------------------------------------

  private url(path: string, query?: CallOptions['query']): URL {
    const url = new URL(this.base.href);
    url.pathname = `${this.base.pathname.replace(/\/+$/, '')}${path}`;
    url.search = '';
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  private skillPath(id: SkillId, suffix = ''): string {
    checkSkillId(id, this.limits);
    return `/${encodeURIComponent(id.namespace)}/${encodeURIComponent(id.name)}${suffix}`;
  }

  /** One request with retries; resolves with any HTTP answer, rejects only with a `StoreError`. */
  private async call(method: string, path: string, options: CallOptions): Promise<Answer> {
    if (this.closed) throw new StoreError('unavailable', `the connection to ${this.description} is closed`);
    const url = this.url(path, options.query);
    const what = `${method} ${this.description}${path}`;
    for (let attempt = 0; ; attempt++) {
      let failure: AttemptFailure;
      let retryAfter: number | undefined;
      let lastError: StoreError;
      try {
        const answer = await this.attempt(method, url, options);
        if (answer.status >= 200 && answer.status < 300) return answer;
        failure = { kind: 'status', status: answer.status };
        retryAfter = parseRetryAfter({ 'retry-after': headerValue(answer.headers, ADMIN_HEADERS.retryAfter) });
        lastError = errorFromAnswer(answer, what, (text) => redactAuthText(this.redact(text)));
      } catch (error) {
        if (error instanceof StoreError) throw error;
        const code = errorCodeOf(error);
        failure = code !== undefined && CONNECT_CODES.has(code) ? { kind: 'connect' } : { kind: 'ambiguous' };
        lastError = transportError(error, what, this.timeoutMs);
      }
      if (attempt >= this.retries || !mayRetry(options.mode, failure)) throw lastError;
      const delay = retryDelayMs(attempt + 1, retryAfter);
      if (delay === undefined) throw lastError;
      await sleep(delay);
    }
  }

  private async attempt(method: string, url: URL, options: CallOptions): Promise<Answer> {
    const headers: Record<string, string> = { ...this.headers, ...options.headers };
    if (options.body !== undefined) headers['content-type'] = `${JSON_MEDIA_TYPE}; charset=utf-8`;
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        method: method as Dispatcher.HttpMethod,
        headers,
        body: options.body,
        dispatcher: this.dispatcher,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code === 'UND_ERR_INVALID_ARG') {
        // A header or argument undici refuses (say, a newline in a header value): our caller's mistake.
        throw new StoreError('invalid_request', `request not sent: ${(error as Error).message}`);
      }
      throw error;
    }
    if (response.statusCode >= 300 && response.statusCode < 400) {
      // Never followed: the Authorization header would go with it.
      await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      const location = headerValue(response.headers, 'location');
      const target = location === undefined ? 'no Location given' : `to ${redactUrl(this.redact(location.slice(0, 500)))}`;
      throw new StoreError(
        'unavailable',
        `${method} ${this.description}: the host answered ${response.statusCode}, a redirect (${target}); redirects are not followed: connect to the admin API's own address`,
        { details: { status: response.statusCode, ...(location !== undefined && { location: redactUrl(this.redact(location.slice(0, 500))) }) } },
      );
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_RESPONSE_BYTES) {
        response.body.destroy();
        throw new StoreError('unavailable', `${method} ${url.pathname}: the response exceeds ${MAX_RESPONSE_BYTES} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    let json: unknown = undefined;
    if (text.length > 0) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    }
    if (response.statusCode < 400 && response.statusCode !== 204 && json === undefined && method !== 'HEAD') {
      throw new StoreError('unavailable', `${method} ${this.description}: the host answered ${response.statusCode} without a JSON body; is this a V1 admin API?`);
    }
    return { status: response.statusCode, headers: response.headers, json };
  }

  private async getJson(path: string, query?: CallOptions['query']): Promise<WireJson> {
    const answer = await this.call('GET', path, { mode: 'read', ...(query ? { query } : {}) });
    return isWireObject(answer.json) ? answer.json : { items: answer.json };
  }

  // --- revision reads ----------------------------------------------------------

  private revisionOf(id: SkillId, answer: Answer, defaults: { etag: string | undefined; published: boolean }, what: string): StoredRevision {
    const revision = decodeRevision(id, isWireObject(answer.json) ? answer.json : {}, defaults);
    if (!revision) throw new StoreError('unavailable', `${what}: the host's answer has no package or version`);
    return revision;
  }

  async getPublished(id: SkillId): Promise<StoredRevision> {
    const path = this.skillPath(id);
    const answer = await this.call('GET', path, { mode: 'read' });
    // The published read is the published revision unless the host says otherwise.
    return this.revisionOf(id, answer, { etag: headerValue(answer.headers, ADMIN_HEADERS.etag), published: true }, `GET ${path}`);
  }

  async getVersion(id: SkillId, version: number): Promise<StoredRevision> {
    const path = this.skillPath(id, `/versions/${positive(version, 'version')}`);
    const answer = await this.call('GET', path, { mode: 'read' });
    return this.revisionOf(id, answer, { etag: undefined, published: false }, `GET ${path}`);
  }

  async listVersions(id: SkillId, query?: VersionQuery): Promise<VersionPage> {
    const body = await this.getJson(this.skillPath(id, '/versions'), { before: query?.before, limit: query?.limit });
    return decodeVersionPage(body);
  }

  // --- runtime reads -----------------------------------------------------------

  async listMetadata(filter?: MetadataFilter): Promise<SkillMetadata[]> {
    const body = await this.getJson('', { namespace: filter?.namespace, domain: filter?.domain, tag: filter?.tag, limit: filter?.limit });
    return decodeListResponse(body);
  }

  async resolveCandidates(requests: CandidateRequest[]): Promise<CandidateResult[]> {
    const results: Array<CandidateResult | undefined> = requests.map((request) => {
      if (!isValidId(request, this.limits.maxNameChars)) {
        return { status: 'invalid', request, reason: 'namespace and name must be lowercase slugs' };
      }
      const v = request.version;
      if (v !== 'published' && (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1)) {
        return { status: 'invalid', request, reason: "version must be 'published' or a positive integer" };
      }
      return undefined;
    });
    const pending = requests.filter((_, i) => results[i] === undefined);
    if (pending.length === 0) return results as CandidateResult[];

    // One catalog read per namespace gives every published tuple at once.
    const namespaces = [...new Set(pending.map((r) => r.namespace))];
    const catalog = new Map<string, SkillMetadata>();
    await forEachLimited(namespaces, READ_CONCURRENCY, async (namespace) => {
      for (const m of await this.listMetadata({ namespace })) catalog.set(`${m.namespace}/${m.name}`, m);
    });

    // Identities the list did not show: confirm with one published read each.
    const confirmed = new Map<string, Promise<SkillMetadata | undefined>>();
    const publishedOf = (id: SkillId): Promise<SkillMetadata | undefined> => {
      const key = `${id.namespace}/${id.name}`;
      const known = catalog.get(key);
      if (known) return Promise.resolve(known);
      let p = confirmed.get(key);
      if (!p) {
        p = this.getPublished(id).then(
          (r) => revisionMetadata(r),
          (error: unknown) => {
            if (error instanceof StoreError && error.code === 'not_found') return undefined;
            throw error;
          },
        );
        confirmed.set(key, p);
      }
      return p;
    };

    const indexes = results.map((r, i) => (r === undefined ? i : -1)).filter((i) => i >= 0);
    await forEachLimited(indexes, READ_CONCURRENCY, async (i) => {
      const request = requests[i] as CandidateRequest;
      const id = { namespace: request.namespace, name: request.name };
      const published = await publishedOf(id);
      if (!published) {
        results[i] = { status: 'not_found', request };
        return;
      }
      const v = request.version;
      if (v === 'published' || v === published.version) {
        results[i] = { status: 'found', request, version: published.version, manifest_hash: published.manifest_hash, metadata: published };
        return;
      }
      try {
        const revision = await this.getVersion(id, v);
        results[i] = { status: 'found', request, version: v, manifest_hash: revision.manifest_hash, metadata: revisionMetadata(revision) };
      } catch (error) {
        if (error instanceof StoreError && (error.code === 'not_found' || error.code === 'integrity_mismatch')) {
          results[i] = { status: 'version_unavailable', request };
          return;
        }
        throw error;
      }
    });
    return results as CandidateResult[];
  }

  async getManifest(ref: ManifestRef): Promise<SkillManifest> {
    return verifiedManifest(ref, await this.getVersion(ref, ref.version));
  }

  async getResource(ref: ResourceRef): Promise<SkillResourceBody> {
    return verifiedResource(ref, await this.getVersion(ref.skill, ref.skill.version));
  }

  // --- mutations ---------------------------------------------------------------

  async publish(request: PublishRequest): Promise<PublishResult> {
    // The state-free checks every store applies, before any byte is sent.
    const path = this.skillPath(request.id);
    const precondition = checkPublishRequest(request, this.limits);
    const body = typeof request.body === 'string' || request.body instanceof Uint8Array ? request.body : JSON.stringify(request.body ?? null);
    const headers: Record<string, string> =
      precondition.kind === 'create' ? { [ADMIN_HEADERS.ifNoneMatch]: '*' } : { [ADMIN_HEADERS.ifMatch]: precondition.etag };
    if (request.idempotencyKey !== undefined) headers[ADMIN_HEADERS.idempotencyKey] = request.idempotencyKey;
    if (request.approval !== undefined) headers[ADMIN_HEADERS.approval] = request.approval;
    this.addActor(headers, request.actor);
    const answer = await this.call('PUT', path, { headers, body, mode: request.idempotencyKey !== undefined ? 'keyed' : 'unkeyed' });
    const result = decodePublishResponse(request.id, isWireObject(answer.json) ? answer.json : {}, answer.status, headerValue(answer.headers, ADMIN_HEADERS.etag));
    if (!result) throw new StoreError('unavailable', `PUT ${path}: the host's answer has no version or ETag`);
    return result;
  }

  async deleteVersions(request: DeleteRequest): Promise<DeleteResult> {
    const from = positive(request.from, 'from');
    const to = positive(request.to, 'to');
    const path = this.skillPath(request.id, from === to ? `/versions/${from}` : '/versions');
    const headers: Record<string, string> = {};
    if (request.ifMatch !== undefined) headers[ADMIN_HEADERS.ifMatch] = request.ifMatch;
    if (request.reason !== undefined) {
      // eslint-disable-next-line no-control-regex
      if (/[\u0000-\u001f\u007f]/.test(request.reason)) {
        throw new StoreError('invalid_request', 'the audit reason must not contain control characters such as line breaks');
      }
      headers[ADMIN_HEADERS.auditReason] = encodeHeaderText(request.reason);
    }
    if (request.approval !== undefined) headers[ADMIN_HEADERS.approval] = request.approval;
    this.addActor(headers, request.actor);
    const answer = await this.call('DELETE', path, {
      headers,
      mode: 'delete',
      ...(from === to ? {} : { query: { from, to } }),
    });
    return decodeDeleteResponse(request.id, isWireObject(answer.json) ? answer.json : {}, headerValue(answer.headers, ADMIN_HEADERS.etag));
  }

  private addActor(headers: Record<string, string>, actor: string | undefined): void {
    if (this.actorHeader === undefined || actor === undefined) return;
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(actor)) throw new StoreError('invalid_request', 'the actor must not contain control characters');
    headers[this.actorHeader] = encodeHeaderText(actor);
  }

  /** Reads the host's schema once: proves the URL is a V1 admin API and learns its limits. */
  async probe(): Promise<void> {
    let answer: Answer;
    try {
      answer = await this.call('GET', '/schema', { mode: 'read' });
    } catch (error) {
      if (error instanceof StoreError && error.code === 'not_found') {
        throw new StoreError(
          'not_found',
          `no V1 admin API at ${this.description}: GET …/schema answered 404; the URL must end with the mount path, e.g. /api/v1/skills`,
        );
      }
      throw error;
    }
    const learned = decodeSchemaLimits(answer.json);
    this.limits = { ...this.limits, ...learned };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsDispatcher) await this.dispatcher.close().catch(() => undefined);
  }
}

function positive(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new StoreError('invalid_request', `${what} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

function isValidId(id: SkillId, maxChars: number): boolean {
  try {
    checkSkillId(id, { maxNameChars: maxChars });
    return true;
  } catch {
    return false;
  }
}

function revisionMetadata(r: StoredRevision): SkillMetadata {
  return {
    namespace: r.namespace,
    name: r.name,
    display_name: r.package.display_name,
    description: r.package.description,
    domains: r.package.domains,
    tags: r.package.tags,
    version: r.version,
    manifest_hash: r.manifest_hash,
    updated_at: r.created_at,
  };
}

async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  });
  await Promise.all(workers);
}

/** The store error code of a non-2xx answer: the body's code when its status agrees, else the status's. */
function codeOf(bodyCode: string | undefined, status: number): StoreErrorCode {
  if (bodyCode !== undefined && bodyCode in STORE_ERROR_STATUS && STORE_ERROR_STATUS[bodyCode as StoreErrorCode] === status) return bodyCode as StoreErrorCode;
  // A gateway's 502 says nothing about our content.
  if (status === 502) return 'unavailable';
  const code = storeErrorCodeForStatus(status);
  if (code !== undefined) return code;
  if (status === 408) return 'timeout';
  if (status >= 500 || status === 429) return 'unavailable';
  return 'invalid_request';
}

/** The error of a non-2xx answer; `clean` removes credentials from what the host wrote. */
function errorFromAnswer(answer: Answer, what: string, clean: (text: string) => string): StoreError {
  const { status } = answer;
  const decoded = decodeErrorBody(answer.json, (bodyCode) => codeOf(bodyCode, status) === 'validation_failed');
  const code = codeOf(decoded.code, status);
  let { message } = decoded;
  const { details } = decoded;
  if (code === 'unauthorized') {
    message = `the host refused the credentials (HTTP 401): check the token or headers of the connection${message ? `; it said: ${message}` : ''}`;
  } else if (code === 'forbidden') {
    message = `the host refused the request (HTTP 403): the credentials are valid but lack the permission${message ? `; it said: ${message}` : ''}`;
  }
  const text = clean(message || `HTTP ${status}`);
  const safeDetails = details ? redactValue(details, clean) : undefined;
  return new StoreError(code, code === 'unavailable' ? `${what}: ${text}` : text, safeDetails ? { details: safeDetails } : undefined);
}

function transportError(error: unknown, what: string, timeoutMs: number): StoreError {
  const code = errorCodeOf(error);
  const name = (error as { name?: unknown } | null)?.name;
  if ((code !== undefined && TIMEOUT_CODES.has(code)) || name === 'TimeoutError') {
    return new StoreError('timeout', `${what}: no answer within ${timeoutMs} ms`, { cause: error, details: { transport: code ?? 'timeout' } });
  }
  const reason =
    code === 'ECONNREFUSED'
      ? 'connection refused; is the server running?'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'host name not found'
        : code?.startsWith('ERR_TLS') || code?.includes('CERT')
          ? `TLS failure (${code}); pass the host's CA certificate`
          : `connection failed (${code ?? 'network error'})`;
  return new StoreError('unavailable', `${what}: ${reason}`, { cause: error, details: { transport: code ?? 'network' } });
}

/**
 * Opens a store over a V1 admin API at `url` (ending with its mount path, e.g.
 * `http://127.0.0.1:8080/api/v1/skills`). Reads `GET …/schema` once to check the
 * host and learn its limits. Credentials in the URL's user-info become Basic auth
 * and are removed from the description.
 */
export async function openHttpStore(url: string, options: HttpStoreOptions = {}): Promise<SkillStore> {
  let base: URL;
  try {
    base = new URL(url);
  } catch {
    throw new StoreError('invalid_request', 'invalid admin API URL: expected http(s)://host[:port]/…/api/v1/skills');
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new StoreError('invalid_request', `invalid admin API URL scheme ${base.protocol}: use http:// or https://`);
  }
  if (base.search || base.hash) throw new StoreError('invalid_request', 'the admin API URL must not carry a query or fragment');
  let auth: string | undefined;
  const secrets: string[] = [];
  if (base.password) secrets.push(base.password, decodeURIComponent(base.password));
  const token = options.token ?? (options.env ?? process.env)[TOKEN_ENV];
  if (token !== undefined && token.length > 0) auth = `Bearer ${token}`;
  else if (base.username || base.password) {
    auth = `Basic ${Buffer.from(`${decodeURIComponent(base.username)}:${decodeURIComponent(base.password)}`).toString('base64')}`;
  }
  base.username = '';
  base.password = '';
  const store = new HttpStore(base, options, auth, secrets);
  try {
    await store.probe();
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
