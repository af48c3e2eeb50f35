/**
 * The reference V1 admin API host (guide sections 5 and 11) over any {@link SkillStore}.
 * docs/admin-api.md is the wire reference; the decisions this project took where
 * the guide is silent are marked there and summed up here:
 *
 * - a known path with a wrong method is 405 with `Allow`; unknown paths, and
 *   `analyze` without an advisor, are 404 (the route does not exist);
 * - a PUT carrying both `If-None-Match: *` and `If-Match` is 400 (a malformed
 *   request, not a missing precondition); neither is 428;
 * - checks run cheapest first and never read a body they are going to reject:
 *   host, credentials, route, method, identity, query, media type (415), headers
 *   (400/428), declared length (413), then the body, streamed and cut off at the
 *   package limit (413);
 * - 201 answers a creation (also when replayed), 200 a new revision or a no-op;
 * - failures of the store itself (503/5xx) get a generic message: a store's own
 *   message may name files or hosts of the server.
 *
 * Logs are body-free: method, route template, status, duration and error code.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { redactUrls } from '../redact';
import { performance } from 'node:perf_hooks';
import { WorkbenchError } from '../errors';
import { packageJsonSchema, validatePackage } from '../package/index';
import type { SkillId, ValidationResult } from '../package/types';
import { STORE_ERROR_STATUS, StoreError, type StoreErrorCode } from '../store/errors';
import {
  ADMIN_BASE_PATH,
  ADMIN_HEADERS,
  decodeHeaderText,
  type WireAnalyzeResponse,
  type WireDeleteResponse,
  type WireListResponse,
  type WirePublishResponse,
  type WireValidateResponse,
  type WireVersionPage,
} from '../store/httpWire';
import {
  DEFAULT_ADMINISTRATION_LIMITS,
  checkDeleteRequest,
  checkIdempotencyKey,
  checkSkillId,
  isSlug,
  parseEtagList,
} from '../store/publication';
import type { MetadataFilter, Precondition, SkillAdministrationLimits, SkillStore, VersionQuery } from '../store/types';
import { analyzePackage } from '../advisor/analyze';
import type { AdminLogger, AuthoringAdvisor } from './types';

/** Dependencies of {@link createAdminHandler}. */
export interface AdminHandlerDeps {
  store: SkillStore;
  /** Administration limits the host enforces before the store (default: 100-version deletion ranges). */
  limits?: Partial<SkillAdministrationLimits>;
  /** Optional AI advisor; without it `POST …/analyze` does not exist (404). */
  advisor?: AuthoringAdvisor;
  /**
   * Trusted audit actor for a request, derived from context the host's own
   * middleware established (never from a raw client header unless the host vouches
   * for it). Invalid values (empty, over 256 characters, control characters) are
   * dropped with an `attribution_invalid` diagnostic.
   */
  attribution?: (req: IncomingMessage) => string | undefined;
  /** Authentication of the host; a request it refuses gets 401 with a Bearer challenge. */
  authenticate?: (req: IncomingMessage) => boolean;
  /**
   * Host names (without port) the Host header may carry; anything else is 403.
   * Set it for a loopback listener so a web page cannot reach it through DNS rebinding.
   */
  allowedHosts?: readonly string[];
  logger?: AdminLogger;
  /** Mount path (default `/api/v1/skills`). */
  basePath?: string;
  /** Time budget of one store or advisor call before the request answers 504 (default 30 s). */
  requestTimeoutMs?: number;
}

/** A node:http request listener. */
export type AdminHandler = (req: IncomingMessage, res: ServerResponse) => void;

const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_ACTOR_CHARS = 256;
const MAX_AUDIT_REASON_BYTES = 1024;
const POSITIVE_INT = /^[1-9][0-9]{0,15}$/;

/** Requests whose `Expect: 100-continue` has not been answered yet (see `server.ts`). */
const awaitingContinue = new WeakSet<IncomingMessage>();

/**
 * Marks a request that arrived through the server's `checkContinue` event: the
 * handler sends `100 Continue` only once it has decided to read the body, so a
 * client announcing an oversized body is refused before it sends a byte of it.
 */
export function markAwaitingContinue(req: IncomingMessage): void {
  awaitingContinue.add(req);
}

/** A failure of the HTTP layer itself (statuses outside the store taxonomy, or extra headers). */
class HttpFailure extends WorkbenchError {
  constructor(
    readonly status: number,
    code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(code, message);
    this.name = 'HttpFailure';
  }
}

/** The client went away while we were reading its body: nothing to answer. */
class ClientGone extends Error {}

type RouteName = 'list' | 'schema' | 'skill' | 'validate' | 'analyze' | 'versions' | 'version';

interface Route {
  name: RouteName;
  /** The route template for logs, without method. */
  template: string;
  methods: readonly string[];
  id?: SkillId;
  /** The raw `{version}` segment. */
  version?: string;
}

interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

interface Context {
  req: IncomingMessage;
  res: ServerResponse;
  route: Route;
  query: string;
  signal: AbortSignal;
  bodyConsumed: boolean;
}

function splitTarget(target: string): { path: string; query: string } {
  let raw = target;
  // Absolute-form targets (sent to proxies) still name our path.
  if (/^https?:\/\//i.test(raw)) {
    try {
      const url = new URL(raw);
      raw = `${url.pathname}${url.search}`;
    } catch {
      raw = '/';
    }
  }
  const q = raw.indexOf('?');
  return q < 0 ? { path: raw, query: '' } : { path: raw.slice(0, q), query: raw.slice(q + 1) };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    // Left encoded: identity validation then rejects it with 400.
    return segment;
  }
}

function matchRoute(path: string, base: string, hasAdvisor: boolean): Route | undefined {
  if (path === base) return { name: 'list', template: base, methods: ['GET', 'HEAD'] };
  if (!path.startsWith(`${base}/`)) return undefined;
  const parts = path.slice(base.length + 1).split('/');
  if (parts.some((p) => p.length === 0)) return undefined;
  if (parts.length === 1) {
    return parts[0] === 'schema' ? { name: 'schema', template: `${base}/schema`, methods: ['GET', 'HEAD'] } : undefined;
  }
  const [ns, name, action, version] = parts.map(decodeSegment);
  const id = { namespace: ns ?? '', name: name ?? '' };
  const skill = `${base}/{namespace}/{name}`;
  if (parts.length === 2) return { name: 'skill', template: skill, methods: ['GET', 'HEAD', 'PUT'], id };
  if (parts.length === 3 && action === 'validate') return { name: 'validate', template: `${skill}/validate`, methods: ['POST'], id };
  if (parts.length === 3 && action === 'analyze' && hasAdvisor) {
    return { name: 'analyze', template: `${skill}/analyze`, methods: ['POST'], id };
  }
  if (parts.length === 3 && action === 'versions') {
    return { name: 'versions', template: `${skill}/versions`, methods: ['GET', 'HEAD', 'DELETE'], id };
  }
  if (parts.length === 4 && action === 'versions') {
    return { name: 'version', template: `${skill}/versions/{version}`, methods: ['GET', 'HEAD', 'DELETE'], id, version: version ?? '' };
  }
  return undefined;
}

/**
 * Strict query parsing (guide section 11): only `allowed` names, each at most once,
 * never empty. Anything else is 400.
 */
function parseQuery(raw: string, allowed: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  if (raw.length === 0) return out;
  for (const [key, value] of new URLSearchParams(raw)) {
    if (!allowed.includes(key)) {
      const hint = allowed.length === 0 ? 'this route takes no query parameters' : `allowed: ${allowed.join(', ')}`;
      throw new StoreError('invalid_request', `unknown query parameter ${JSON.stringify(key)} (${hint})`, { details: { parameter: key } });
    }
    if (out.has(key)) {
      throw new StoreError('invalid_request', `query parameter ${JSON.stringify(key)} is repeated`, { details: { parameter: key } });
    }
    if (value.length === 0) {
      throw new StoreError('invalid_request', `query parameter ${JSON.stringify(key)} is empty`, { details: { parameter: key } });
    }
    out.set(key, value);
  }
  return out;
}

function positiveInt(value: string, what: string): number {
  const n = Number(value);
  if (!POSITIVE_INT.test(value) || !Number.isSafeInteger(n)) {
    throw new StoreError('invalid_request', `${what} must be a positive integer, got ${JSON.stringify(value)}`, { details: { parameter: what } });
  }
  return n;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  if (Array.isArray(value)) return value.join(', ');
  return value;
}

/** `application/json`, optionally with `charset=utf-8` and nothing else; 415 otherwise. */
function requireJson(req: IncomingMessage): void {
  const raw = header(req, 'content-type');
  const [type, ...params] = (raw ?? '').split(';').map((p) => p.trim().toLowerCase());
  const paramsOk = params.every((p) => p.replace(/\s+/g, '') === 'charset=utf-8' || p.replace(/\s+/g, '') === 'charset="utf-8"');
  if (type !== 'application/json' || !paramsOk || params.length > 1) {
    throw new StoreError(
      'unsupported_media_type',
      `Content-Type must be application/json (optionally with charset=utf-8), got ${raw === undefined ? 'none' : JSON.stringify(raw)}`,
    );
  }
}

function hasBody(req: IncomingMessage): boolean {
  const length = header(req, 'content-length');
  return header(req, 'transfer-encoding') !== undefined || (length !== undefined && length.trim() !== '0');
}

/**
 * Reads the body up to `max` bytes. A declared length above `max` is refused before
 * reading anything; a streamed body is cut off as soon as it passes `max`.
 */
function readBody(ctx: Context, max: number): Promise<Buffer> {
  const { req, res } = ctx;
  const tooLarge = (bytes: string) =>
    new StoreError('payload_too_large', `the request body is ${bytes}, above the package limit of ${max} bytes`, {
      details: { limit: max },
    });
  const declared = header(req, 'content-length');
  if (declared !== undefined && Number(declared) > max) return Promise.reject(tooLarge(`${declared} bytes`));
  if (awaitingContinue.has(req)) {
    awaitingContinue.delete(req);
    res.writeContinue();
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onGone);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        cleanup();
        // Stop pulling bytes; the reply closes the connection instead of draining it.
        req.pause();
        reject(tooLarge(`more than ${max} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      ctx.bodyConsumed = true;
      resolve(Buffer.concat(chunks, size));
    };
    const onGone = () => {
      cleanup();
      reject(new ClientGone());
    };
    const onClose = () => {
      if (!req.complete) onGone();
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onGone);
    req.on('close', onClose);
  });
}

/**
 * The package body as received. Bytes, not text: decoding (UTF-8 errors, a byte
 * order mark) is part of validation and reported as findings with positions.
 */
async function readPackageBytes(ctx: Context, max: number): Promise<Uint8Array> {
  const bytes = await readBody(ctx, max);
  if (bytes.length === 0) throw new StoreError('invalid_request', 'the request body is empty: send the complete JSON package');
  return bytes;
}

/** Runs a store or advisor call within the time budget; 504 `timeout` when it runs out. */
async function withinBudget<T>(ms: number, parent: AbortSignal, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort(new Error('timeout'));
      reject(new StoreError('timeout', `the operation did not complete within ${ms} ms; it may still complete: read before retrying a change`));
    }, ms);
  });
  try {
    return await Promise.race([fn(controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
    parent.removeEventListener('abort', onAbort);
  }
}

function validationOf(result: { valid: boolean; errors: ValidationResult['errors']; warnings: ValidationResult['warnings']; metrics: ValidationResult['metrics'] }): ValidationResult {
  return { valid: result.valid, errors: result.errors, warnings: result.warnings, metrics: result.metrics };
}

/** `host[:port]` or `[v6]:port` exactly; anything after the name but a numeric port makes it no host at all. */
const HOST_HEADER = /^(?:\[([0-9a-f:.]+)\]|([a-z0-9._-]+))(?::(\d{1,5}))?$/;

/** The host name of a Host header (or of an absolute-form target's authority), or undefined when it is malformed. */
function hostName(hostHeader: string | undefined): string | undefined {
  if (hostHeader === undefined) return undefined;
  const match = HOST_HEADER.exec(hostHeader.trim().toLowerCase());
  if (!match) return undefined;
  return match[1] ?? match[2];
}

/** The authority of an absolute-form request target (`GET http://host/...`), or undefined for origin-form. */
function absoluteFormHost(target: string): string | null | undefined {
  if (target.startsWith('/') || target === '*') return undefined;
  const match = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(target);
  if (!match) return null;
  const authority = match[1] ?? '';
  // User-info has no place in a request target.
  if (authority.includes('@')) return null;
  return hostName(authority) ?? null;
}

/**
 * The answer to a failure. `detail` is the store's own message when the body
 * carries a generic one instead (it may name a Redis URL, a lock holder's pid or
 * host); it goes only to the server's log.
 */
function errorReply(error: unknown): Reply & { code: string; detail?: string } {
  if (error instanceof HttpFailure) {
    return { status: error.status, code: error.code, body: { error: { code: error.code, message: error.message } }, headers: error.headers };
  }
  if (error instanceof StoreError || (error instanceof WorkbenchError && error.code in STORE_ERROR_STATUS)) {
    const code = error.code as StoreErrorCode;
    const status = STORE_ERROR_STATUS[code];
    const headers: Record<string, string> = {};
    let message = error.message;
    let details = error.details;
    // The host's own backend refusing the host's credentials is not the client's fault: 503.
    if (code === 'unauthorized') return errorReply(new StoreError('unavailable', error.message));
    if (code === 'unavailable') {
      headers['Retry-After'] = '1';
      message = 'the skill store is temporarily unavailable; retry shortly';
      details = undefined;
    } else if (code === 'timeout') {
      message = 'the operation did not complete in time; it may still complete: read before retrying a change';
      details = undefined;
    }
    const body = details === undefined ? { error: { code, message } } : { error: { code, message, details } };
    return { status, code, body, headers, ...(message !== error.message && { detail: error.message }) };
  }
  return {
    status: 500,
    code: 'internal_error',
    body: { error: { code: 'internal_error', message: 'the server failed to handle the request' } },
  };
}

/**
 * Creates the request listener of the V1 admin API. Mount it on a `node:http`
 * server (preferably through `createAdminServer`, which also wires `Expect:
 * 100-continue`) or call it from a host's own router for paths under `basePath`.
 */
export function createAdminHandler(deps: AdminHandlerDeps): AdminHandler {
  const store = deps.store;
  const base = (deps.basePath ?? ADMIN_BASE_PATH).replace(/\/+$/, '');
  const timeoutMs = deps.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  const adminLimits: SkillAdministrationLimits = { ...DEFAULT_ADMINISTRATION_LIMITS, ...deps.limits };
  const allowedHosts = deps.allowedHosts?.map((h) => h.toLowerCase());
  const logger = deps.logger;

  const actorOf = (req: IncomingMessage): string | undefined => {
    if (!deps.attribution) return undefined;
    let actor: string | undefined;
    try {
      actor = deps.attribution(req);
    } catch {
      logger?.diagnostic?.('attribution_invalid', 'the attribution callback failed; the audit actor is omitted');
      return undefined;
    }
    if (actor === undefined) return undefined;
    const trimmed = typeof actor === 'string' ? actor.trim() : '';
    // eslint-disable-next-line no-control-regex
    if (trimmed.length === 0 || trimmed.length > MAX_ACTOR_CHARS || /[\u0000-\u001f\u007f]/.test(trimmed)) {
      logger?.diagnostic?.('attribution_invalid', 'the attribution callback returned an invalid actor; the audit actor is omitted');
      return undefined;
    }
    return trimmed;
  };

  const budget = <T>(ctx: Context, fn: (signal: AbortSignal) => Promise<T>) => withinBudget(timeoutMs, ctx.signal, fn);

  const skillId = (ctx: Context): SkillId => {
    const id = ctx.route.id ?? { namespace: '', name: '' };
    checkSkillId(id, store.limits);
    return id;
  };

  async function validateBody(ctx: Context) {
    const id = skillId(ctx);
    parseQuery(ctx.query, []);
    requireJson(ctx.req);
    const bytes = await readPackageBytes(ctx, store.limits.maxPackageBytes);
    const result = validatePackage(bytes, { id, limits: store.limits });
    return { id, result, validation: validationOf(result) };
  }

  const routes: Record<RouteName, (ctx: Context) => Promise<Reply>> = {
    async schema(ctx) {
      parseQuery(ctx.query, []);
      // `x-limits` (an annotation validators ignore) lets clients check sizes before sending.
      return { status: 200, body: { ...packageJsonSchema(store.limits), 'x-limits': store.limits } };
    },

    async validate(ctx) {
      const { result, validation } = await validateBody(ctx);
      const body: WireValidateResponse = { normalized: result.normalized ?? null, validation };
      return { status: 200, body };
    },

    async analyze(ctx) {
      const { id, result } = await validateBody(ctx);
      const advisor = deps.advisor!;
      let body: WireAnalyzeResponse;
      try {
        body = await budget(ctx, (signal) => analyzePackage({ id, check: result, advisor, limits: store.limits, signal }));
      } catch (error) {
        if (error instanceof StoreError && error.code === 'timeout') throw error;
        throw new StoreError('unavailable', 'the authoring advisor is unavailable; deterministic validation still applies', { cause: error });
      }
      return { status: 200, body };
    },

    async list(ctx) {
      const q = parseQuery(ctx.query, ['namespace', 'domain', 'tag', 'limit']);
      const filter: MetadataFilter = {};
      for (const key of ['namespace', 'domain', 'tag'] as const) {
        const value = q.get(key);
        if (value === undefined) continue;
        if (!isSlug(value, store.limits.maxNameChars)) {
          throw new StoreError('invalid_request', `invalid ${key} filter ${JSON.stringify(value)}: expected a lowercase slug`, { details: { parameter: key } });
        }
        filter[key] = value;
      }
      const limit = q.get('limit');
      if (limit !== undefined) filter.limit = positiveInt(limit, 'limit');
      const skills = await budget(ctx, () => store.listMetadata(filter));
      const body: WireListResponse = { skills };
      return { status: 200, body };
    },

    async skill(ctx) {
      const id = skillId(ctx);
      parseQuery(ctx.query, []);
      if (ctx.req.method !== 'PUT') {
        const revision = await budget(ctx, () => store.getPublished(id));
        return { status: 200, body: revision, headers: { ETag: revision.etag } };
      }
      requireJson(ctx.req);
      const idempotencyKey = header(ctx.req, ADMIN_HEADERS.idempotencyKey);
      checkIdempotencyKey(idempotencyKey);
      const precondition = publishPrecondition(ctx.req);
      const bytes = await readPackageBytes(ctx, store.limits.maxPackageBytes);
      const actor = actorOf(ctx.req);
      const result = await budget(ctx, () =>
        store.publish({ id, body: bytes, precondition, ...(idempotencyKey !== undefined ? { idempotencyKey } : {}), ...(actor !== undefined ? { actor } : {}) }),
      );
      const body: WirePublishResponse = {
        outcome: result.outcome,
        namespace: result.namespace,
        name: result.name,
        version: result.version,
        etag: result.etag,
        manifest_hash: result.manifest_hash,
        audit_recorded: result.audit_recorded,
        warnings: result.warnings,
        validation: { valid: true, errors: [], warnings: result.validation.warnings, metrics: result.validation.metrics },
        replayed: result.replayed,
      };
      const headers: Record<string, string> = { ETag: result.etag };
      if (result.outcome === 'created') {
        headers['Location'] = `${base}/${id.namespace}/${id.name}/versions/${result.version}`;
      }
      return { status: result.outcome === 'created' ? 201 : 200, body, headers };
    },

    async versions(ctx) {
      const id = skillId(ctx);
      if (ctx.req.method === 'DELETE') {
        const q = parseQuery(ctx.query, ['from', 'to']);
        const from = q.get('from');
        const to = q.get('to');
        if (from === undefined || to === undefined) {
          throw new StoreError('invalid_request', 'deleting a range needs both from and to: …/versions?from=N&to=M');
        }
        return deleteRange(ctx, id, positiveInt(from, 'from'), positiveInt(to, 'to'));
      }
      const q = parseQuery(ctx.query, ['before', 'limit']);
      const query: VersionQuery = {};
      const before = q.get('before');
      const limit = q.get('limit');
      if (before !== undefined) query.before = positiveInt(before, 'before');
      if (limit !== undefined) query.limit = positiveInt(limit, 'limit');
      const page = await budget(ctx, () => store.listVersions(id, query));
      const body: WireVersionPage = { namespace: id.namespace, name: id.name, versions: page.versions, next_before: page.next_before };
      return { status: 200, body };
    },

    async version(ctx) {
      const id = skillId(ctx);
      parseQuery(ctx.query, []);
      const n = positiveInt(ctx.route.version ?? '', 'version');
      if (ctx.req.method === 'DELETE') return deleteRange(ctx, id, n, n);
      const revision = await budget(ctx, () => store.getVersion(id, n));
      return { status: 200, body: revision };
    },
  };

  function publishPrecondition(req: IncomingMessage): Precondition {
    const ifNoneMatch = header(req, ADMIN_HEADERS.ifNoneMatch)?.trim();
    const ifMatch = header(req, ADMIN_HEADERS.ifMatch)?.trim();
    if (ifNoneMatch !== undefined && ifMatch !== undefined) {
      throw new StoreError('invalid_request', 'send exactly one precondition: If-None-Match: * to create, or If-Match with the current ETag to update');
    }
    if (ifNoneMatch !== undefined) {
      if (ifNoneMatch !== '*') {
        throw new StoreError('invalid_request', 'If-None-Match must be * (create only when the skill does not exist yet)');
      }
      return { kind: 'create' };
    }
    if (ifMatch !== undefined) {
      if (ifMatch === '*') throw new StoreError('invalid_request', 'If-Match must carry the current ETag, not *');
      if (parseEtagList(ifMatch) === undefined) {
        throw new StoreError('invalid_request', 'malformed If-Match value: expected a quoted entity tag such as "v3-…"');
      }
      return { kind: 'if-match', etag: ifMatch };
    }
    throw new StoreError(
      'precondition_required',
      'publishing requires a precondition: If-None-Match: * to create the skill, or If-Match with its current ETag to update it',
    );
  }

  async function deleteRange(ctx: Context, id: SkillId, from: number, to: number): Promise<Reply> {
    const rawReason = header(ctx.req, ADMIN_HEADERS.auditReason);
    const reason = rawReason === undefined ? undefined : decodeHeaderText(rawReason).trim();
    const ifMatch = header(ctx.req, ADMIN_HEADERS.ifMatch)?.trim();
    const actor = actorOf(ctx.req);
    const request = {
      id,
      from,
      to,
      ...(ifMatch !== undefined && ifMatch.length > 0 ? { ifMatch } : {}),
      ...(reason !== undefined ? { reason } : {}),
      ...(actor !== undefined ? { actor } : {}),
    };
    // The state-free checks in the store's own order, so every adapter behind us answers alike.
    checkDeleteRequest(request, adminLimits);
    // eslint-disable-next-line no-control-regex
    if (reason !== undefined && (Buffer.byteLength(reason, 'utf8') > MAX_AUDIT_REASON_BYTES || /[\u0000-\u001f\u007f]/.test(reason))) {
      throw new StoreError('invalid_request', `X-Audit-Reason must be at most ${MAX_AUDIT_REASON_BYTES} UTF-8 bytes without control characters`);
    }
    const result = await budget(ctx, () => store.deleteVersions(request));
    const body: WireDeleteResponse = {
      namespace: result.namespace,
      name: result.name,
      deleted: result.deleted,
      already_deleted: result.already_deleted,
      etag: result.etag,
      audit_recorded: result.audit_recorded,
      warnings: result.warnings,
    };
    return { status: 200, body, headers: { ETag: result.etag } };
  }

  function send(ctx: Context, reply: Reply): void {
    const { res } = ctx;
    if (res.headersSent || res.destroyed) return;
    const text = JSON.stringify(reply.body);
    res.statusCode = reply.status;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(text));
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
    // A body we did not read is not drained: close the connection instead.
    if (hasBody(ctx.req) && !ctx.bodyConsumed) res.setHeader('Connection', 'close');
    res.end(ctx.req.method === 'HEAD' ? undefined : text);
  }

  async function handle(req: IncomingMessage, res: ServerResponse, state: { route: string; code?: string }): Promise<void> {
    const controller = new AbortController();
    res.once('close', () => controller.abort(new Error('client closed')));
    const { path, query } = splitTarget(req.url ?? '/');
    const route = matchRoute(path, base, deps.advisor !== undefined);
    const method = req.method ?? 'GET';
    state.route = route ? `${method} ${route.template}` : `${method} (unmatched)`;
    const ctx: Context = {
      req,
      res,
      route: route ?? { name: 'list', template: '(unmatched)', methods: [] },
      query,
      signal: controller.signal,
      bodyConsumed: false,
    };
    try {
      if (allowedHosts !== undefined) {
        const host = hostName(header(req, 'host'));
        // An absolute-form target names the host the request is for, whatever the Host header says.
        const target = absoluteFormHost(req.url ?? '/');
        if (host === undefined || !allowedHosts.includes(host) || target === null || (target !== undefined && !allowedHosts.includes(target))) {
          throw new HttpFailure(403, 'host_not_allowed', 'this server only answers requests addressed to its own host name');
        }
      }
      if (deps.authenticate && !deps.authenticate(req)) {
        const presented = header(req, 'authorization') !== undefined;
        throw new HttpFailure(401, 'unauthorized', 'this server requires Authorization: Bearer <token>', {
          'WWW-Authenticate': presented ? 'Bearer realm="skillbench", error="invalid_token"' : 'Bearer realm="skillbench"',
        });
      }
      if (!route) throw new HttpFailure(404, 'not_found', `no such route: ${method} ${path.length > 200 ? `${path.slice(0, 200)}…` : path}`);
      if (!route.methods.includes(method)) {
        throw new HttpFailure(405, 'method_not_allowed', `${method} is not allowed here; allowed: ${route.methods.join(', ')}`, {
          Allow: route.methods.join(', '),
        });
      }
      const reply = await routes[route.name](ctx);
      send(ctx, reply);
    } catch (error) {
      if (error instanceof ClientGone) {
        state.code = 'client_closed';
        return;
      }
      const reply = errorReply(error);
      state.code = reply.code;
      if (reply.detail !== undefined && logger?.diagnostic) {
        try {
          logger.diagnostic(`store_${reply.code}`, redactUrls(reply.detail));
        } catch {
          // A failing logger must not take the server down.
        }
      }
      send(ctx, reply);
    }
  }

  return (req, res) => {
    const started = performance.now();
    const state: { route: string; code?: string } = { route: `${req.method ?? 'GET'} (unmatched)` };
    res.once('close', () => {
      if (!logger) return;
      const entry = {
        method: req.method ?? 'GET',
        route: state.route.slice(state.route.indexOf(' ') + 1),
        status: res.writableFinished ? res.statusCode : 499,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
        ...(state.code !== undefined ? { code: state.code } : {}),
      };
      try {
        logger.request(entry);
      } catch {
        // A failing logger must not take the server down.
      }
    });
    handle(req, res, state).catch(() => {
      // handle() answers every error itself; this only guards against a broken socket.
      if (!res.headersSent && !res.destroyed) {
        res.statusCode = 500;
        res.end();
      }
    });
  };
}
