/**
 * The `reviews.*` methods over the publication requests of the open
 * workspace (`core/review/request.ts`). Publishing goes through the
 * connection pool, so a protected connection's guard lets only an approved,
 * unchanged request through.
 *
 * Node-only: reads and writes workspace files.
 */
import { isAbsentRegistry } from '../connections/open';
import { WorkbenchError } from '../errors';
import { StoreError } from '../store/errors';
import type { SkillStore } from '../store/types';
import { resolveLimits } from '../package/index';
import type { SkillId } from '../package/types';
import {
  approveRequest,
  commentRequest,
  createRequest,
  isStale,
  listRequests,
  publishRequest,
  readRequest,
  rejectRequest,
  summaryOf,
  viewOf,
  type CreateRequestOptions,
  type ReviewContext,
  type ReviewFile,
} from '../review/request';
import { reviewContext } from '../review/session';
import type { EventHub } from './events';
import type { ConnectionPool } from './pool';
import type { Handlers } from './router';
import { publishOutcome } from './storeMethods';

/** What the review methods need. */
export interface ReviewMethodsOptions {
  pool: ConnectionPool;
  events: EventHub;
  /** The open workspace root, or null. */
  root: () => string | null;
  /** The reviewer identity of this session; default `SKILLBENCH_USER`, else git config of the workspace, else `fallback`. */
  reviewer?: string;
  env: Record<string, string | undefined>;
  fallback: string;
  /** The folder of the eval runs (`evals.*` record there): where `eval_run` is looked up. */
  runsDir: string;
  /** A draft's identity, autosaved text and the workspace file it edits; undefined when there is no such draft. */
  draft?: (id: string) => Promise<{ skill: SkillId; text: string; path?: string } | undefined>;
}

/** The handlers of the review methods. */
export function reviewMethods(options: ReviewMethodsOptions): Handlers {
  const { pool, events } = options;
  const drafts = options.draft;
  const context = (): ReviewContext => ({
    ...reviewContext(options.root(), { env: options.env, fallback: options.fallback, ...(options.reviewer !== undefined && { reviewer: options.reviewer }) }),
    ...(drafts && { drafts: async (id: string) => (await drafts(id))?.text }),
  });
  /** A draft as a request records it; 404 when this host holds no such draft (or it has no identity yet). */
  const draftOf = async (id: string): Promise<NonNullable<CreateRequestOptions['draft']>> => {
    if (!drafts) throw new WorkbenchError('not_implemented', 'this host keeps no drafts: file the request from a workspace file');
    const found = await drafts(id);
    if (!found) throw new WorkbenchError('not_found', `no draft '${id}' with a skill identity: it was discarded, or never opened`, { details: { pointer: '/source/draft' } });
    return { id, skill: found.skill, text: found.text, ...(found.path !== undefined && { file: found.path }) };
  };
  const view = async (ctx: ReviewContext, doc: ReviewFile) => viewOf(doc, await isStale(ctx.root, doc, resolveLimits(), ctx.drafts), ctx.actor);
  const changed = (doc: ReviewFile) => events.emit('reviews.changed', { id: doc.id, status: doc.status });

  return {
    'reviews.list': async (params) => {
      const ctx = context();
      const found = await listRequests(ctx.root, resolveLimits(), params.status, ctx.drafts);
      return { reviews: found.map(({ doc, stale }) => summaryOf(doc, stale)) };
    },
    'reviews.get': async (params) => {
      const ctx = context();
      return view(ctx, await readRequest(ctx.root, params.id));
    },
    'reviews.create': async (params) => {
      const ctx = context();
      const source = params.source;
      const input = source.kind === 'draft' ? { draft: await draftOf(source.draft) } : { file: source.path };
      const create = (store: Pick<SkillStore, 'limits' | 'getPublished'>) =>
        createRequest(ctx, {
          ...input,
          connection: params.connection,
          store,
          note: params.note,
          ...(params.eval_run !== undefined && { evalRun: { run: params.eval_run, places: [{ dir: options.runsDir, where: 'the runs folder' }] } }),
        });
      const doc = await pool.use(params.connection, create).catch((error: unknown) => {
        // A local registry that does not exist yet has nothing published: the request's base is none,
        // and the approved publish creates the registry. Filing the request creates nothing.
        if (!isAbsentRegistry(error)) throw error;
        return create({
          limits: resolveLimits(),
          getPublished: async () => {
            throw new StoreError('not_found', `${params.connection} has no registry yet`);
          },
        });
      });
      changed(doc);
      return view(ctx, doc);
    },
    'reviews.approve': async (params) => {
      const ctx = context();
      const doc = await approveRequest(ctx, params.id, params.comment);
      changed(doc);
      return view(ctx, doc);
    },
    'reviews.reject': async (params) => {
      const ctx = context();
      const doc = await rejectRequest(ctx, params.id, params.comment, 'rejected');
      changed(doc);
      return view(ctx, doc);
    },
    'reviews.requestChanges': async (params) => {
      const ctx = context();
      const doc = await rejectRequest(ctx, params.id, params.comment, 'changes_requested');
      changed(doc);
      return view(ctx, doc);
    },
    'reviews.comment': async (params) => {
      const ctx = context();
      const doc = await commentRequest(ctx, params.id, params.pointer, params.text);
      changed(doc);
      return view(ctx, doc);
    },
    'reviews.publish': async (params) => {
      const ctx = context();
      const doc = await readRequest(ctx.root, params.id);
      try {
        const { request, result } = await pool.use(doc.connection, (store) => publishRequest(ctx, doc.id, store, { idempotencyKey: params.idempotency_key }), { create: (profile) => !profile.read_only });
        changed(request);
        return publishOutcome(result);
      } catch (error) {
        if (error instanceof WorkbenchError && error.code === 'precondition_failed') events.emit('reviews.changed', { id: doc.id, status: 'stale' });
        throw error;
      }
    },
  };
}
