/**
 * The methods over stores: catalog pages, package reads, the registry's
 * verdict, semantic diffs and three-way merges, conditional publication,
 * history and guarded deletion. Every store call goes through the connection
 * pool, so the live state of each connection follows what it answers.
 *
 * Node-only: stores hold sockets and files.
 */
import { protectedError, readOnlyError, requiresApproval } from '../connections/open';
import { WorkbenchError } from '../errors';
import { diffPackages, mergePackages, packageJsonSchema, resolveLimits, validatePackage } from '../package/index';
import type { SkillAuthoringLimits, SkillId, SkillPackage } from '../package/types';
import { skillKey } from '../package/types';
import { isStoreError } from '../store/errors';
import { publishConditional } from '../store/publication';
import type { SkillMetadata, SkillStore, StoredRevision } from '../store/types';
import type { CatalogScans } from './catalogScan';
import type {
  ConnectionProfile,
  DeletePreview,
  PackageRevision,
  PublishConflict,
  ResolvedPackage,
  WorkbenchParsedParams,
} from './contract';
import type { ConnectionPool } from './pool';
import { publishOutcome } from './publishOutcome';
import type { Handlers } from './router';

/** A package as the editor shows it: pretty JSON in the package's field order, with a final newline. */
export function packageText(pkg: SkillPackage): string {
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

/** A stored revision as the contract carries it. */
export function revisionView(revision: StoredRevision): PackageRevision {
  return {
    skill: { namespace: revision.namespace, name: revision.name },
    version: revision.version,
    etag: revision.etag,
    manifest_hash: revision.manifest_hash,
    created_at: revision.created_at,
    published: revision.published,
    package: revision.package,
    text: packageText(revision.package),
  };
}

type Source = WorkbenchParsedParams['diff.packages']['before'];

/** Resolves the sources the store methods can read themselves; drafts and files come from `resolveOther`. */
export type SourceResolver = (source: Exclude<Source, { kind: 'text' } | { kind: 'stored' }>, limits: SkillAuthoringLimits) => Promise<ResolvedPackage>;

/** What the store methods need. */
export interface StoreMethodsOptions {
  pool: ConnectionPool;
  scans: CatalogScans;
  /** Who the session acts as, recorded by stores in their audit events. */
  actor: string;
  /** Drafts and workspace files, once those modules are wired. */
  resolveSource?: SourceResolver;
  /**
   * Told of every fresh, unfiltered catalog read (`catalog.page` with cursor
   * null): the whole catalog a view now shows. `read` wraps the store read so
   * the callee can note what happened around it (the catalog watch's ticket).
   */
  wholeCatalogRead?: (connection: string, read: () => Promise<SkillMetadata[]>) => Promise<SkillMetadata[]>;
}

/**
 * The refusal of a write through a read-only profile, or of a direct publish
 * or delete through a protected one (or one whose host enforces approvals):
 * those go through approved review requests.
 */
function checkWritable(profile: ConnectionProfile, action: 'publish' | 'delete'): void {
  if (profile.read_only) throw readOnlyError(profile, action);
  if (requiresApproval(profile)) throw protectedError(profile, action);
}

/** Validates `text` into a normalized package, or throws the 422 with located findings. */
export function normalizedOrThrow(text: string, id: SkillId | undefined, limits: SkillAuthoringLimits, label: string): SkillPackage {
  const check = validatePackage(text, { ...(id && { id }), limits });
  if (!check.valid || !check.normalized) {
    const count = check.errors.length;
    throw new WorkbenchError('validation_failed', `${label} is not a valid package: ${count} error${count === 1 ? '' : 's'}`, {
      details: { errors: check.errors, warnings: check.warnings },
    });
  }
  return check.normalized;
}

/** How a stored revision is named in a diff: the connection as people know it (its label), and the version. */
function versionLabel(connection: string, revision: StoredRevision): string {
  return `${connection} v${revision.version}${revision.published ? ' (published)' : ''}`;
}

function confirmationFor(id: SkillId, from: number, to: number): string {
  return from === to ? `${skillKey(id)}@v${from}` : `${skillKey(id)}@v${from}-v${to}`;
}

/** Reads the published revision, or `undefined` when the skill does not exist. */
async function publishedOrUndefined(store: SkillStore, id: SkillId): Promise<StoredRevision | undefined> {
  try {
    return await store.getPublished(id);
  } catch (error) {
    if (isStoreError(error, 'not_found')) return undefined;
    throw error;
  }
}

/** The handlers of the store methods. */
export function storeMethods(options: StoreMethodsOptions): Handlers {
  const { pool, scans, actor } = options;
  const wholeRead = options.wholeCatalogRead ?? ((_connection: string, read: () => Promise<SkillMetadata[]>) => read());

  const resolve = async (source: Source, limits: SkillAuthoringLimits, role: string): Promise<ResolvedPackage> => {
    switch (source.kind) {
      case 'text': {
        const label = source.label ?? role;
        const pkg = normalizedOrThrow(source.text, undefined, limits, label);
        return { label, text: packageText(pkg), package: pkg };
      }
      case 'stored':
        return pool.use(source.connection, async (store, profile) => {
          const revision = source.version === 'published' ? await store.getPublished(source.skill) : await store.getVersion(source.skill, source.version);
          return { label: versionLabel(profile.label || source.connection, revision), text: packageText(revision.package), package: revision.package, version: revision.version, etag: revision.etag };
        });
      default:
        if (!options.resolveSource) throw new WorkbenchError('not_implemented', `${source.kind} sources are not available in this host`);
        return options.resolveSource(source, limits);
    }
  };

  const limitsOf = async (connection: string | undefined): Promise<SkillAuthoringLimits> =>
    // The limits are known once the store is open: reading them asks the store nothing, so it says nothing of its state.
    connection === undefined ? resolveLimits() : (await pool.open(connection)).limits;

  const preview = async (store: SkillStore, id: SkillId, from: number, to: number): Promise<DeletePreview> => {
    if (from > to) throw new WorkbenchError('invalid_request', `invalid range v${from}-v${to}: from must not exceed to`, { details: { pointer: '/from' } });
    const published = await store.getPublished(id);
    const page = await store.listVersions(id, { before: to + 1, limit: Math.min(100, to - from + 1) });
    const inRange = new Map(page.versions.filter((v) => v.version >= from && v.version <= to).map((v) => [v.version, v]));
    const result: DeletePreview = {
      confirmation: confirmationFor(id, from, to),
      etag: published.etag,
      published: published.version,
      deletable: [],
      already_deleted: [],
      protected: [],
      missing: [],
      allowed: true,
      consequence: '',
    };
    for (let v = from; v <= to; v++) {
      const entry = inRange.get(v);
      if (v === published.version || v === published.version - 1) result.protected.push(v);
      else if (!entry) result.missing.push(v);
      else if (entry.status === 'deleted') result.already_deleted.push(v);
      else result.deletable.push(v);
    }
    const list = (vs: number[]) => vs.map((v) => `v${v}`).join(', ');
    if (to - from + 1 > 100) {
      result.allowed = false;
      result.reason = `a deletion spans at most 100 versions; v${from}-v${to} spans ${to - from + 1}`;
    } else if (result.protected.length > 0) {
      result.allowed = false;
      result.reason = `${list(result.protected)} ${result.protected.length === 1 ? 'is' : 'are'} protected: the published version and its predecessor are never deleted`;
    } else if (result.missing.length > 0) {
      result.allowed = false;
      result.reason = `${list(result.missing)} ${result.missing.length === 1 ? 'does' : 'do'} not exist`;
    }
    result.consequence =
      result.deletable.length === 0
        ? `Nothing changes: ${list(result.already_deleted)} ${result.already_deleted.length === 1 ? 'is' : 'are'} already deleted.`
        : `${list(result.deletable)} of ${skillKey(id)} will become ${result.deletable.length === 1 ? 'a tombstone' : 'tombstones'}: the content is deleted for good, anyone pinned to ${result.deletable.length === 1 ? 'it' : 'them'} gets "not found", and the version number${result.deletable.length === 1 ? ' is' : 's are'} never reused.`;
    return result;
  };

  return {
    'catalog.page': (params) =>
      pool.use(params.connection, (store) =>
        scans.page(
          { connection: params.connection, cursor: params.cursor, limit: params.limit, query: params.query, filter: params.filter, sort: params.sort },
          (filter) => (filter.namespace === undefined && filter.domain === undefined && filter.tag === undefined && filter.limit === undefined ? wholeRead(params.connection, () => store.listMetadata(filter)) : store.listMetadata(filter)),
        ),
      ),

    'packages.get': (params) =>
      pool.use(params.connection, async (store) =>
        revisionView(params.version === 'published' ? await store.getPublished(params.skill) : await store.getVersion(params.skill, params.version)),
      ),

    'packages.schema': async (params) => {
      const limits = await limitsOf(params.connection);
      return { schema: packageJsonSchema(limits), limits };
    },

    'validate.package': async (params) => {
      const limits = await limitsOf(params.connection);
      const { normalized: _normalized, ...result } = validatePackage(params.text, { ...(params.skill && { id: params.skill }), limits });
      return { result, limits };
    },

    'diff.packages': async (params) => {
      const limits = resolveLimits();
      const [before, after] = await Promise.all([resolve(params.before, limits, 'before'), resolve(params.after, limits, 'after')]);
      return { diff: diffPackages(before.package, after.package), before, after };
    },

    'merge.packages': async (params) => {
      const limits = resolveLimits();
      const [base, theirs, mine] = await Promise.all([resolve(params.base, limits, 'base'), resolve(params.theirs, limits, 'theirs'), resolve(params.mine, limits, 'mine')]);
      const merge = mergePackages(base.package, theirs.package, mine.package);
      const { normalized: _n, ...validation } = validatePackage(merge.merged, { limits });
      return { merged: merge.merged, merged_text: packageText(merge.merged), conflicts: merge.conflicts, clean: merge.clean, validation, base, theirs, mine };
    },

    'publish.package': async (params) => {
      // A refused write is refused before anything is opened (or created).
      checkWritable(await pool.profileOf(params.connection), 'publish');
      return pool.use(params.connection, async (store, profile) => {
        checkWritable(profile, 'publish');
        try {
          return publishOutcome(await publishConditional(store, { id: params.skill, body: params.text, base: params.base, idempotencyKey: params.idempotency_key, actor }));
        } catch (error) {
          if (!isStoreError(error, 'precondition_failed')) throw error;
          // What a three-way merge needs: the base the draft started from, what is published now, and mine.
          const theirs = await publishedOrUndefined(store, params.skill);
          if (!theirs) throw error;
          let base: PackageRevision | null = null;
          if (params.base !== null) {
            try {
              base = revisionView(await store.getVersion(params.skill, params.base.version));
            } catch (readError) {
              if (!isStoreError(readError, 'not_found')) throw readError;
            }
          }
          const check = validatePackage(params.text, { id: params.skill, limits: store.limits });
          const conflict: PublishConflict = { base, theirs: revisionView(theirs), mine: { package: check.normalized ?? null, text: params.text } };
          const was = params.base === null ? 'as a new skill' : `on v${params.base.version}`;
          throw new WorkbenchError(
            'precondition_failed',
            `${skillKey(params.skill)} changed since this draft was opened: it is at v${theirs.version} now and the draft is based ${was}. Merge the changes, then publish on v${theirs.version}.`,
            { details: { conflict, current_etag: theirs.etag } },
          );
        }
        // A publish the profile lets through is the one use that may create a local profile's registry.
      }, { create: (profile) => !profile.read_only && !profile.protected });
    },

    'versions.list': (params) =>
      pool.use(params.connection, async (store) => {
        const published = await store.getPublished(params.skill);
        const page = await store.listVersions(params.skill, { ...(params.before !== undefined && { before: params.before }), limit: params.limit });
        return { versions: page.versions, next_before: page.next_before, published: published.version, etag: published.etag };
      }),

    'versions.get': (params) => pool.use(params.connection, async (store) => revisionView(await store.getVersion(params.skill, params.version))),

    'delete.preview': (params) => pool.use(params.connection, (store) => preview(store, params.skill, params.from, params.to)),

    'delete.versions': async (params) => {
      checkWritable(await pool.profileOf(params.connection), 'delete');
      return pool.use(params.connection, async (store, profile) => {
        checkWritable(profile, 'delete');
        const expected = confirmationFor(params.skill, params.from, params.to);
        if (params.confirmation !== expected) {
          throw new WorkbenchError('invalid_request', `type ${expected} to confirm the deletion`, { details: { pointer: '/confirmation', expected } });
        }
        return store.deleteVersions({ id: params.skill, from: params.from, to: params.to, ifMatch: params.if_match, reason: params.reason, actor });
      });
    },
  };
}
