/**
 * The WorkbenchApi service: the handlers of every method a host wires, over
 * core (stores, package model, models) and the evals port, plus the event hub
 * the transports forward. The composition roots (`skillbench serve`,
 * `electron/main.ts`, tests) build one service and hand it to a router.
 *
 * Node-only: opens stores and reads the environment.
 */
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { ConnectionManager } from '../connections/manager';
import { probeStore } from '../connections/open';
import type { SkillId } from '../package/types';
import { WorkbenchError } from '../errors';
import { describeProviders, safeParseModelSpec } from '../models/index';
import { createRedactor, redactMessage, redactValue, secretsFromEnv } from '../redact';
import { appDataDir } from '../store/connect';
import { advisorAnalyze } from './advisorMethods';
import { CatalogScans } from './catalogScan';
import { CatalogWatch } from './catalogWatch';
import type { AppInfo, ConnectionProfile, ConnectionState, ConnectionView, WorkbenchResults } from './contract';
import { EVENT_NAMES } from './contract';
import { toErrorData } from './errors';
import type { EvalsPort } from './evalsPort';
import { EventHub } from './events';
import { ConnectionPool, type ConnectionSource } from './pool';
import type { Handlers, RouterSource } from './router';
import { storeMethods } from './storeMethods';
import { reviewMethods } from './reviewMethods';
import { workspaceMethods } from './workspaceMethods';
import { interopMethods } from './interopMethods';
import type { WatchOptions } from '../workspace/watch';
import type { SignerSettings } from '../review/signer';

/** Name of the built-in profile of the embedded default registry. */
export const DEFAULT_CONNECTION = 'default';

/** Past this many skills changed between two watched rechecks, one event says "anything may have changed". */
const MAX_CHANGE_EVENTS = 20;

/** Options of {@link createWorkbenchService}. */
export interface WorkbenchServiceOptions {
  /** Which shell serves the UI. */
  host: AppInfo['host'];
  /** Skillbench's version, for `app.info`. */
  version: string;
  /** Environment: app-data folder, model keys and aliases. */
  env?: Record<string, string | undefined>;
  /** The app-data folder (default: `$SKILLBENCH_HOME` or the platform's). */
  dataDir?: string;
  /**
   * Profiles and how to open them (default: the saved profiles of the app-data
   * folder, with the built-in `default` registry). Saving, testing, importing
   * and exporting are served only with a {@link ConnectionManager}.
   */
  connections?: ConnectionSource;
  /** Who the session acts as in audit records (default: the OS user name). */
  actor?: string;
  /**
   * The signing key and allowed-signers file of this session's reviews (default:
   * `SKILLBENCH_SIGNING_KEY` / `SKILLBENCH_ALLOWED_SIGNERS`, else `git config
   * user.signingkey` / `gpg.ssh.allowedSignersFile` of the workspace).
   */
  signing?: SignerSettings;
  /** Close connections unused for this long (default 10 minutes). */
  idleMs?: number;
  /** The eval engine's implementation of the `evals.*` methods; without it they are not served. */
  evals?: EvalsPort;
  /** How the open workspace is watched (default: native events, polling on network folders). */
  watch?: WatchOptions;
}

/** A running service. */
export interface WorkbenchService extends RouterSource {
  readonly events: EventHub;
  /** Opens `dir` as the workspace, as `workspace.open` does (composition roots call it at start). */
  openWorkspace(dir: string): Promise<WorkbenchResults['workspace.open']>;
  /**
   * The host's redactor for messages (core/redact.ts): every secret of the
   * environment (by the same rules as the CLI), every saved connection secret
   * unsealed so far, URL credentials, and credential shapes. Routers, logs and
   * run records use it.
   */
  redact(text: string): string;
  /** Closes stores, watchers and runs. Idempotent. */
  close(): Promise<void>;
}

function platformOf(): AppInfo['platform'] {
  const p = process.platform;
  return p === 'darwin' || p === 'win32' || p === 'linux' ? p : 'other';
}

function defaultActor(env: Record<string, string | undefined>): string {
  try {
    return userInfo().username || env['USER'] || 'unknown';
  } catch {
    return env['USER'] ?? 'unknown';
  }
}

/** Builds the service. */
export function createWorkbenchService(options: WorkbenchServiceOptions): WorkbenchService {
  const env = options.env ?? process.env;
  const dataDir = options.dataDir ?? appDataDir(env);
  const events = new EventHub();
  const source = options.connections ?? new ConnectionManager({ dataDir, env });
  const manager = source instanceof ConnectionManager ? source : undefined;
  // The one redactor of core/redact.ts, as the CLI builds it: the environment's secrets, then the saved connections' as they are unsealed.
  const known = createRedactor(secretsFromEnv(env));
  const redact = (text: string): string => redactMessage(manager ? manager.redact(text) : text, known);
  // A connection's state carries the message of why it failed, which may quote a host's answer.
  const stateView = (state: ConnectionState): ConnectionState => redactValue(state, redact);
  const pool = new ConnectionPool(source, {
    onState: (name, state) => events.emit('connections.changed', { kind: 'state', name, state: stateView(state) }),
    ...(options.idleMs !== undefined && { idleMs: options.idleMs }),
  });
  const scans = new CatalogScans();
  const watch = new CatalogWatch();
  const actor = options.actor ?? defaultActor(env);
  const at = () => new Date().toISOString();

  const view = async (profile: ConnectionProfile): Promise<ConnectionView> => ({
    profile,
    secrets: await source.secretsPresence(profile.name),
    state: stateView(pool.state(profile.name)),
  });

  const workspace = workspaceMethods({ pool, events, draftsDir: join(dataDir, 'drafts'), ...(options.watch && { watch: options.watch }) });
  const stores = storeMethods({
    pool,
    scans,
    actor,
    resolveSource: workspace.resolveSource,
    // The first whole catalog a view reads is the watch's baseline, so another writer's change before the first recheck is still reported.
    wholeCatalogRead: async (connection, read) => {
      const ticket = watch.ticket();
      const entries = await read();
      watch.look(connection, entries, ticket);
      return entries;
    },
  });
  const publish = stores['publish.package']!;
  const deleteVersions = stores['delete.versions']!;
  const reviews = reviewMethods({
    pool,
    events,
    root: () => workspace.root(),
    env,
    runsDir: options.evals?.runsDir(dataDir) ?? join(dataDir, 'runs'),
    draft: (id) => workspace.draft(id),
    fallback: actor,
    ...(options.signing && { signing: options.signing }),
    ...(options.watch && { watch: options.watch }),
  });
  const openWorkspace = workspace.handlers['workspace.open']!;
  const closeWorkspace = workspace.handlers['workspace.close']!;
  const reviewPublish = reviews.handlers['reviews.publish']!;
  const getReview = reviews.handlers['reviews.get']!;

  /**
   * Tells every view of `connection` that a publication of this session changed
   * what its store holds. `by` is who the store's audit names: the signing
   * principal for a reviewed write, the session's actor otherwise.
   */
  const published = (connection: string, outcome: WorkbenchResults['publish.package'], by = actor) => {
    if (outcome.outcome === 'same_content_noop') return;
    watch.note(connection, outcome.skill, outcome.version, outcome.manifest_hash);
    events.emit('store.changed', { connection, kind: 'published', skill: outcome.skill, version: outcome.version, actor: by, at: at() });
  };
  /** The same for versions this session deleted. */
  const deleted = (connection: string, skill: SkillId, versions: number[], by = actor) => {
    if (versions.length > 0) events.emit('store.changed', { connection, kind: 'deleted', skill, versions, actor: by, at: at() });
  };

  const handlers: Handlers = {
    ...stores,
    ...workspace.handlers,
    ...interopMethods({ pool, root: () => workspace.root(), resolveSource: workspace.resolveSource, draft: (id) => workspace.draft(id) }),
    ...reviews.handlers,

    // The review list hears of requests that arrive in the open workspace (the CLI, git pull) as well as its own.
    'workspace.open': async (params, context) => {
      const opened = await openWorkspace(params, context);
      await reviews.watch(workspace.root());
      return opened;
    },
    'workspace.close': async (params, context) => {
      const closed = await closeWorkspace(params, context);
      await reviews.watch(null);
      return closed;
    },

    'publish.package': async (params, context) => {
      const result = await publish(params, context);
      published(params.connection, result);
      if (params.draft !== undefined) await workspace.published(params.draft, params.text, result);
      return result;
    },

    'reviews.publish': async (params, context) => {
      const result = await reviewPublish(params, context);
      const review = await getReview({ id: params.id }, context).catch(() => undefined);
      if (review) {
        // A reviewed write is made, and audited, as the principal of the key that carried it out, never as the OS user.
        const by = review.history.findLast((h) => h.action === 'published')?.actor ?? actor;
        if (result.outcome === 'deleted') deleted(review.connection, result.skill, result.deleted, by);
        else published(review.connection, result, by);
      }
      return result;
    },

    'delete.versions': async (params, context) => {
      const result = await deleteVersions(params, context);
      deleted(params.connection, params.skill, result.deleted);
      return result;
    },

    'connections.list': async () => ({
      connections: await Promise.all((await source.list()).map(view)),
      secret_protection: source.secretProtection,
    }),

    'connections.open': async (params) => {
      // An unknown profile is a failed call; a store that cannot be opened is a state of the connection.
      const profile = await source.get(params.name);
      try {
        if (params.check === true) await pool.use(params.name, (store, opened) => probeStore(store, opened));
        else await pool.open(params.name);
        if (params.check === true && params.watch === true) {
          const ticket = watch.ticket();
          const seen = watch.compare(params.name, await pool.use(params.name, (store) => store.listMetadata()), ticket);
          if (seen.kind === 'changes') {
            // Many changes at once (a sync) are one event: the views re-read everything of the connection anyway.
            if (seen.changes.length > MAX_CHANGE_EVENTS) events.emit('store.changed', { connection: params.name, kind: 'changed', at: at() });
            else for (const change of seen.changes) events.emit('store.changed', { connection: params.name, kind: 'changed', ...change, at: at() });
          }
        }
      } catch (error) {
        if (!(error instanceof WorkbenchError)) throw error;
      }
      return view(profile);
    },

    'connections.close': async (params) => ({ closed: await pool.close(params.name) }),

    ...(manager && connectionMethods(manager, pool, events, view, redact, watch)),

    'models.list': async () => ({ providers: await describeProviders({ env }) }),

    'models.check': async (params) => {
      // The spec is echoed, so a password typed into its URL is not.
      const spec = redact(params.spec);
      const parsed = safeParseModelSpec(params.spec);
      if (!parsed.success) return { spec, ok: false, isBaseline: false, error: toErrorData(parsed.error, { redact }) };
      return { spec, ok: true, isBaseline: parsed.output.kind === 'baseline' };
    },

    'advisor.analyze': advisorAnalyze(env),
  };

  if (options.evals) {
    Object.assign(
      handlers,
      options.evals.handlers({
        dataDir,
        env,
        useStore: (connection, fn) => pool.use(connection, (store) => fn(store, store.description)),
        workspace: () => workspace.root(),
        draft: (id) => workspace.draft(id),
        emit: (name, payload) => events.emit(name, payload),
        redact,
      }),
    );
  }

  handlers['app.info'] = async (): Promise<WorkbenchResults['app.info']> => ({
    version: options.version,
    host: options.host,
    methods: (Object.keys(handlers) as (keyof Handlers)[]).sort(),
    events: [...EVENT_NAMES],
    workspace: workspace.root(),
    platform: platformOf(),
  });

  let closing: Promise<void> | undefined;
  return {
    handlers,
    events,
    redact,
    subscribe: (listener) => events.subscribe(listener),
    async openWorkspace(dir) {
      return handlers['workspace.open']!({ dir }, { transport: 'direct' });
    },
    close() {
      closing ??= (async () => {
        await options.evals?.close();
        await reviews.close();
        await workspace.close();
        await pool.closeAll();
      })();
      return closing;
    },
  };
}

/** The methods that change saved profiles: they exist only over a {@link ConnectionManager}. */
function connectionMethods(manager: ConnectionManager, pool: ConnectionPool, events: EventHub, view: (profile: ConnectionProfile) => Promise<ConnectionView>, redact: (text: string) => string, watch: CatalogWatch): Handlers {
  return {
    'connections.save': async (params) => {
      const saved = await manager.save(params);
      // The next use opens the store with the new settings.
      if (params.previous_name !== undefined) await pool.forget(params.previous_name);
      await pool.forget(saved.name);
      // Another target is another catalog: the next watched check starts a new baseline.
      if (params.previous_name !== undefined) watch.forget(params.previous_name);
      watch.forget(saved.name);
      events.emit('connections.changed', { kind: 'saved', name: saved.name });
      return view(saved);
    },
    'connections.remove': async (params) => {
      await pool.forget(params.name);
      watch.forget(params.name);
      const removed = await manager.remove(params.name);
      if (removed) events.emit('connections.changed', { kind: 'removed', name: params.name });
      return { removed };
    },
    // The secrets under test are not saved yet, so the manager's redactor does not know them: they go by value.
    'connections.test': async (params) => {
      const typed = Object.values('secrets' in params ? (params.secrets ?? {}) : {}).filter((v): v is string => typeof v === 'string');
      const withTyped = createRedactor(typed);
      return redactValue(await manager.test(params), (text) => redact(withTyped(text)));
    },
    'connections.export': async (params) => manager.exportProfiles(params.names),
    'connections.import': async (params) => {
      const report = await manager.importProfiles(params.document, params.on_conflict);
      for (const name of report.replaced) await pool.forget(name);
      if (report.imported.length + report.replaced.length + report.renamed.length > 0) events.emit('connections.changed', { kind: 'imported' });
      return report;
    },
  };
}
