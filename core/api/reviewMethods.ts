/**
 * The `reviews.*` methods over the publication requests of the open
 * workspace (`core/review/request.ts`). Requests and approvals are signed
 * with the session's SSH key (settings, else `SKILLBENCH_SIGNING_KEY`, else
 * `git config user.signingkey`) and verified against the allowed signers;
 * carrying a request out goes through the connection pool, by the saved
 * profile the request names and no other way, so a protected connection's
 * guard lets only a request with a standing approval through.
 *
 * Requests that arrive on disk (the CLI, another workbench, `git pull`) are
 * announced as `reviews.changed`, as are the changes made here.
 *
 * Node-only: reads and writes workspace files, spawns ssh-keygen.
 */
import { isAbsentRegistry } from '../connections/open';
import { WorkbenchError } from '../errors';
import type { SkillStore } from '../store/types';
import { resolveLimits } from '../package/index';
import type { SkillId } from '../package/types';
import {
  absentStore,
  approveRequest,
  carryOutRequest,
  commentRequest,
  createDeleteRequest,
  createRequest,
  inspectRequest,
  isStale,
  listRequests,
  readRequest,
  rejectRequest,
  summaryOf,
  viewOf,
  type CreateRequestOptions,
  type ReviewContext,
  type ReviewFile,
} from '../review/request';
import { reviewContext } from '../review/session';
import { allowedSignersOf, sessionPrincipal, type SignerSettings } from '../review/signer';
import { watchReviews, type ReviewsWatcher } from '../review/watch';
import type { WatchOptions } from '../workspace/watch';
import type { EventHub } from './events';
import type { ConnectionPool } from './pool';
import type { Handlers } from './router';
import { publishOutcome } from './publishOutcome';

/** What the review methods need. */
export interface ReviewMethodsOptions {
  pool: ConnectionPool;
  events: EventHub;
  /** The open workspace root, or null. */
  root: () => string | null;
  /** The signing key and allowed signers of this session; default `SKILLBENCH_SIGNING_KEY` / `SKILLBENCH_ALLOWED_SIGNERS`, else git config of the workspace. */
  signing?: SignerSettings;
  env: Record<string, string | undefined>;
  /** Who the history names for a publish when the session has no key in the allowed signers. */
  fallback: string;
  /** The folder of the eval runs (`evals.*` record there): where `eval_run` is looked up. */
  runsDir: string;
  /** A draft's identity, autosaved text and the workspace file it edits; undefined when there is no such draft. */
  draft?: (id: string) => Promise<{ skill: SkillId; text: string; path?: string } | undefined>;
  /** How the requests folder is watched (default: native events, polling on network folders). */
  watch?: WatchOptions;
}

/** The review methods, and the watcher of the open workspace's requests folder. */
export interface ReviewMethods {
  handlers: Handlers;
  /** Watches the requests folder of `root` (null: stops watching); call when the workspace changes. */
  watch(root: string | null): Promise<void>;
  close(): Promise<void>;
}

/** The handlers of the review methods. */
export function reviewMethods(options: ReviewMethodsOptions): ReviewMethods {
  const { pool, events } = options;
  const drafts = options.draft;
  const context = (): ReviewContext => ({
    ...reviewContext(options.root(), {
      env: options.env,
      profile: (name) => pool.profileOf(name),
      fallbackActor: options.fallback,
      ...(options.signing && { settings: options.signing }),
    }),
    ...(drafts && { drafts: async (id: string) => (await drafts(id))?.text }),
  });
  /** A draft as a request records it; 404 when this host holds no such draft (or it has no identity yet). */
  const draftOf = async (id: string): Promise<NonNullable<CreateRequestOptions['draft']>> => {
    if (!drafts) throw new WorkbenchError('not_implemented', 'this host keeps no drafts: file the request from a workspace file');
    const found = await drafts(id);
    if (!found) throw new WorkbenchError('not_found', `no draft '${id}' with a skill identity: it was discarded, or never opened`, { details: { pointer: '/source/draft' } });
    return { id, skill: found.skill, text: found.text, ...(found.path !== undefined && { file: found.path }) };
  };
  const view = async (ctx: ReviewContext, doc: ReviewFile) => {
    const limits = resolveLimits();
    return viewOf(doc, await isStale(ctx.root, doc, limits, ctx.drafts), await sessionPrincipal(ctx.signer), await inspectRequest(ctx, doc, limits));
  };
  const changed = (doc: ReviewFile) => events.emit('reviews.changed', { id: doc.id, status: doc.status });

  let watcher: { root: string; watcher: ReviewsWatcher } | undefined;
  const watch = async (root: string | null): Promise<void> => {
    if (watcher?.root === root) return;
    const previous = watcher;
    watcher = undefined;
    await previous?.watcher.close();
    if (root === null) return;
    const started = await watchReviews(
      root,
      (ids) => {
        for (const id of ids) {
          void readRequest(root, id).then(
            (doc) => events.emit('reviews.changed', { id, status: doc.status }),
            () => events.emit('reviews.changed', { id, status: null }),
          );
        }
      },
      options.watch,
    );
    if (options.root() !== root) await started.close();
    else watcher = { root, watcher: started };
  };

  const handlers: Handlers = {
    'reviews.list': async (params) => {
      const ctx = context();
      const found = await listRequests(ctx.root, resolveLimits(), params.status, ctx.drafts);
      return { reviews: found.map(({ doc, stale }) => summaryOf(doc, stale)) };
    },
    'reviews.get': async (params) => {
      const ctx = context();
      return view(ctx, await readRequest(ctx.root, params.id));
    },
    'reviews.signer': async () => {
      const ctx = context();
      const { signer } = ctx;
      const principal = await sessionPrincipal(signer);
      let problem: string | undefined;
      if (!signer.key) problem = 'No signing key: set git config user.signingkey to your SSH key (gpg.format ssh), or SKILLBENCH_SIGNING_KEY';
      else if (principal === null) {
        try {
          await allowedSignersOf(signer);
          problem = `Your key (${signer.keySource}) cannot sign, or is not in the allowed signers file (${signer.allowedSignersSource})`;
        } catch (error) {
          problem = error instanceof WorkbenchError ? error.message : String(error);
        }
      }
      return { principal, key_source: signer.keySource ?? null, allowed_signers_source: signer.allowedSignersSource ?? null, ...(problem !== undefined && { problem }) };
    },
    'reviews.create': async (params) => {
      const ctx = context();
      const source = params.source;
      // A request names a saved profile: checked before anything is opened.
      await ctx.registry(params.connection);
      const note = params.note;
      const create = (store: Pick<SkillStore, 'limits' | 'getPublished'>): Promise<ReviewFile> => {
        if (source.kind === 'delete') {
          return createDeleteRequest(ctx, { skill: source.skill, from: source.from, to: source.to, reason: source.reason, connection: params.connection, store, note });
        }
        return (source.kind === 'draft' ? draftOf(source.draft) : Promise.resolve(undefined)).then((draft) =>
          createRequest(ctx, {
            ...(draft ? { draft } : { file: (source as { path: string }).path }),
            connection: params.connection,
            store,
            note,
            ...(params.eval_run !== undefined && { evalRun: { run: params.eval_run, places: [{ dir: options.runsDir, where: 'the runs folder' }] } }),
          }),
        );
      };
      const doc = await pool.use(params.connection, create).catch((error: unknown) => {
        if (!isAbsentRegistry(error) || source.kind === 'delete') throw error;
        return create(absentStore(params.connection));
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
      // Only a saved profile's store is ever opened for a request: a connection string in the file is refused here.
      await ctx.registry(doc.connection);
      try {
        const { request, outcome } = await pool.use(doc.connection, (store) => carryOutRequest(ctx, doc.id, store, { idempotencyKey: params.idempotency_key }), {
          create: (profile) => !profile.read_only && doc.action !== 'delete',
        });
        changed(request);
        if (outcome.kind === 'publish') return publishOutcome(outcome.result);
        const r = outcome.result;
        return { skill: { namespace: r.namespace, name: r.name }, outcome: 'deleted' as const, deleted: r.deleted, already_deleted: r.already_deleted, etag: r.etag, audit_recorded: r.audit_recorded, warnings: r.warnings };
      } catch (error) {
        if (error instanceof WorkbenchError && (error.code === 'precondition_failed' || error.code === 'forbidden')) {
          const now = await readRequest(ctx.root, doc.id).catch(() => doc);
          events.emit('reviews.changed', { id: doc.id, status: now.status });
        }
        throw error;
      }
    },
  };
  return {
    handlers,
    watch,
    async close() {
      const current = watcher;
      watcher = undefined;
      await current?.watcher.close();
    },
  };
}
