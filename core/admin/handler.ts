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
 *
 * The parts live beside it: `routes.ts` (route table, query, host names),
 * `body.ts` (media type, bounded body reading), `preconditions.ts` (If-Match,
 * If-None-Match), `httpErrors.ts` (statuses, generic 503/504 bodies, time budget)
 * and `advisorInput.ts` (what the advisor is given).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { redactUrls } from '../redact';
import { packageJsonSchema, validatePackage } from '../package/index';
import type { SkillId } from '../package/types';
import { StoreError } from '../store/errors';
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
import { DEFAULT_ADMINISTRATION_LIMITS, checkDeleteRequest } from '../store/history';
import { checkIdempotencyKey } from '../store/idempotency';
import { checkSkillId, isSlug } from '../store/skillIds';
import type { MetadataFilter, SkillAdministrationLimits, SkillStore, VersionQuery } from '../store/types';
import { analyzePackage } from '../advisor/analyze';
import { validationOf } from './advisorInput';
import { ClientGone, hasBody, header, readPackageBytes, requireJson, type BodySource } from './body';
import { HttpFailure, errorReply, withinBudget, type Reply } from './httpErrors';
import { deleteIfMatch, publishPrecondition } from './preconditions';
import { absoluteFormHost, hostName, matchRoute, parseQuery, positiveInt, splitTarget, type Route } from './routes';
import type { AdminLogger, AuthoringAdvisor } from './types';

export { markAwaitingContinue } from './body';

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

/** The state of one request while it is handled. */
interface Context extends BodySource {
  route: Route;
  query: string;
  signal: AbortSignal;
}

/** Longest advisor failure quoted to a client: a cause, not a dump. */
const MAX_CAUSE_CHARS = 300;

/** The advisor's failure in one line, bounded. */
function advisorCause(error: unknown): string {
  const text = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim() || 'no message';
  return text.length > MAX_CAUSE_CHARS ? `${text.slice(0, MAX_CAUSE_CHARS)}…` : text;
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

  const routes: Record<Route['name'], (ctx: Context) => Promise<Reply>> = {
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
        // Named with its cause ("no API key; set OPENAI_API_KEY"): the store is fine, and a generic
        // "store unavailable" would send the operator to the wrong place. Model errors carry no key.
        const who = advisor.name ? `the authoring advisor (${advisor.name})` : 'the authoring advisor';
        throw new HttpFailure(503, 'unavailable', `${who} is unavailable: ${advisorCause(error)}; deterministic validation still applies`, { 'Retry-After': '1' });
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

  async function deleteRange(ctx: Context, id: SkillId, from: number, to: number): Promise<Reply> {
    const rawReason = header(ctx.req, ADMIN_HEADERS.auditReason);
    const reason = rawReason === undefined ? undefined : decodeHeaderText(rawReason).trim();
    const ifMatch = deleteIfMatch(ctx.req);
    const actor = actorOf(ctx.req);
    const request = {
      id,
      from,
      to,
      ...(ifMatch !== undefined ? { ifMatch } : {}),
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
