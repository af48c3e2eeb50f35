/**
 * A workspace folder as the desired state of a store (guide section 3,
 * `skills-check` / `skills-sync`): compare every package file with the
 * store's published revision, and roll changed ones forward as new immutable
 * revisions. Never deletes; a skill only the store has is reported, not
 * touched. Every published revision read is verified (a strong ETag, a
 * manifest that hashes to its pinned hash); a store that cannot return a
 * valid package and ETag stops the run with `integrity_mismatch`.
 *
 * Node-only: reads files.
 */
import { randomUUID } from 'node:crypto';
import { sameVersionedContent, validatePackage } from '../package/index';
import type { Finding, SkillAuthoringLimits, SkillId, SkillPackage } from '../package/types';
import { skillKey } from '../package/types';
import { StoreError, isStoreError } from '../store/errors';
import { parseEtag } from '../store/etag';
import { publishConditional } from '../store/publication';
import { compareSkillIds } from '../store/skillIds';
import type { PublishResult, SkillStore, StoredRevision } from '../store/types';
import { verifiedManifest } from '../store/verify';
import { discoverPackages } from './discover';
import { readFileBounded } from './read';

/** One package file of the folder, valid and normalized. */
export interface LocalPackage {
  id: SkillId;
  /** Relative to the folder, `/` separators. */
  path: string;
  package: SkillPackage;
}

/** Why a file of the folder cannot be compared or published. */
export interface LocalProblem {
  path: string;
  code: string;
  message: string;
  /** Validation errors, located. */
  findings?: Finding[];
}

/** The packages of a folder and what is wrong with the rest. */
export interface LocalPackages {
  packages: LocalPackage[];
  problems: LocalProblem[];
}

/** How a package of the folder compares with the store. */
export type DriftStatus = 'equal' | 'changed' | 'missing_remotely' | 'only_remote';

/** One row of a drift report. */
export interface DriftEntry {
  skill: SkillId;
  status: DriftStatus;
  /** The file (absent for `only_remote`). */
  path?: string;
  /** The store's published revision (absent for `missing_remotely`). */
  remote?: { version: number; etag?: string; manifest_hash: string };
}

/** What `sync` did with one package. */
export interface SyncEntry {
  skill: SkillId;
  path: string;
  action: 'skipped' | 'created' | 'published';
  version: number;
  etag: string;
  /** The revision was read back and matched what was sent. */
  verified: boolean;
}

/**
 * Reads and validates every package of `root` (discovery as `discoverPackages`:
 * `.DS_Store` and other dotfiles ignored, other stray entries are problems).
 */
export async function readLocalPackages(root: string, limits: SkillAuthoringLimits): Promise<LocalPackages> {
  const out: LocalPackages = { packages: [], problems: [] };
  for (const found of await discoverPackages(root)) {
    if (!found.id) {
      out.problems.push({ path: found.path, code: found.problem?.code ?? 'unexpected_entry', message: found.problem?.message ?? 'not a package' });
      continue;
    }
    let bytes: Uint8Array;
    try {
      // A little headroom over the limit, so an oversized file gets the validator's located finding.
      bytes = await readFileBounded(found.file, limits.maxPackageBytes * 2 + 1024, found.path);
    } catch (error) {
      out.problems.push({ path: found.path, code: error instanceof StoreError || (error as { code?: unknown }).code === 'payload_too_large' ? 'payload_too_large' : 'unreadable', message: (error as Error).message });
      continue;
    }
    const result = validatePackage(bytes, { id: found.id, limits });
    if (!result.valid || !result.normalized) {
      const count = result.errors.length;
      out.problems.push({ path: found.path, code: 'validation_failed', message: `invalid package: ${count} error${count === 1 ? '' : 's'}`, findings: result.errors });
      continue;
    }
    out.packages.push({ id: found.id, path: found.path, package: result.normalized });
  }
  return out;
}

/** Throws `integrity_mismatch` unless `revision` is a valid, strong-ETagged revision of `id` whose manifest hashes to its pin. */
async function verifyRevision(id: SkillId, revision: StoredRevision): Promise<void> {
  const etag = typeof revision.etag === 'string' ? parseEtag(revision.etag) : undefined;
  if (!etag || etag.weak) {
    throw new StoreError('integrity_mismatch', `the store returned no valid ETag for ${skillKey(id)}: repair the store, then run again`, { details: { etag: revision.etag ?? null } });
  }
  if (revision.namespace !== id.namespace || revision.name !== id.name || !Number.isSafeInteger(revision.version) || revision.version < 1) {
    throw new StoreError('integrity_mismatch', `the store answered for ${skillKey(id)} with another revision: repair the store, then run again`);
  }
  await verifiedManifest({ ...id, version: revision.version, manifest_hash: revision.manifest_hash }, revision);
}

/** The verified published revision of `id`, or undefined when the store has no such skill. */
export async function verifiedPublished(store: SkillStore, id: SkillId): Promise<StoredRevision | undefined> {
  let revision: StoredRevision;
  try {
    revision = await store.getPublished(id);
  } catch (error) {
    if (isStoreError(error, 'not_found')) return undefined;
    throw error;
  }
  await verifyRevision(id, revision);
  return revision;
}

/**
 * Compares every package with the store (read-only). Skills of the folder's
 * namespaces that only the store has are listed as `only_remote`.
 */
export async function compareWithStore(store: SkillStore, local: LocalPackage[]): Promise<DriftEntry[]> {
  const out: DriftEntry[] = [];
  for (const pkg of local) {
    const remote = await verifiedPublished(store, pkg.id);
    if (!remote) {
      out.push({ skill: pkg.id, path: pkg.path, status: 'missing_remotely' });
      continue;
    }
    out.push({
      skill: pkg.id,
      path: pkg.path,
      status: sameVersionedContent(remote.package, pkg.package) ? 'equal' : 'changed',
      remote: { version: remote.version, etag: remote.etag, manifest_hash: remote.manifest_hash },
    });
  }
  const known = new Set(local.map((p) => skillKey(p.id)));
  for (const namespace of [...new Set(local.map((p) => p.id.namespace))].sort()) {
    for (const meta of await store.listMetadata({ namespace })) {
      if (known.has(skillKey(meta))) continue;
      out.push({ skill: { namespace: meta.namespace, name: meta.name }, status: 'only_remote', remote: { version: meta.version, manifest_hash: meta.manifest_hash } });
    }
  }
  return out.sort((a, b) => compareSkillIds(a.skill, b.skill));
}

/** True when a report asks for a sync: a package changed or missing in the store. */
export function hasDrift(entries: readonly DriftEntry[]): boolean {
  return entries.some((e) => e.status === 'changed' || e.status === 'missing_remotely');
}

/** Options of {@link syncToStore}. */
export interface SyncOptions {
  /** Recorded by the store in its audit events. */
  actor?: string;
  /** Told about each package as soon as it is done (progress output). */
  onEntry?: (entry: SyncEntry, result?: PublishResult) => void;
}

/**
 * Publishes each changed or missing package conditionally (If-Match the ETag
 * just read, or create), skips equivalent ones, reads every publication back
 * and checks it is the revision the store reported with the content sent.
 * Stops at the first failure (thrown); what was done before stays done.
 */
export async function syncToStore(store: SkillStore, local: LocalPackage[], options: SyncOptions = {}): Promise<SyncEntry[]> {
  const out: SyncEntry[] = [];
  for (const pkg of [...local].sort((a, b) => compareSkillIds(a.id, b.id))) {
    const remote = await verifiedPublished(store, pkg.id);
    if (remote && sameVersionedContent(remote.package, pkg.package)) {
      const entry: SyncEntry = { skill: pkg.id, path: pkg.path, action: 'skipped', version: remote.version, etag: remote.etag, verified: true };
      out.push(entry);
      options.onEntry?.(entry);
      continue;
    }
    // Conditional: If-Match the ETag read just now (or create); a publication by someone else meanwhile is a 412.
    const result = await publishConditional(store, {
      id: pkg.id,
      body: pkg.package,
      base: remote ? { etag: remote.etag } : 'current',
      idempotencyKey: `skillbench-sync-${randomUUID()}`,
      ...(options.actor !== undefined && { actor: options.actor }),
    });
    const back = await verifiedPublished(store, pkg.id);
    if (!back || back.version !== result.version || back.etag !== result.etag || !sameVersionedContent(back.package, pkg.package)) {
      throw new StoreError(
        'integrity_mismatch',
        `${skillKey(pkg.id)}: reading the publication back did not return v${result.version} with ETag ${result.etag} and the content sent; repair the store, then run sync again`,
        { details: { expected: { version: result.version, etag: result.etag }, observed: back ? { version: back.version, etag: back.etag } : null } },
      );
    }
    const entry: SyncEntry = { skill: pkg.id, path: pkg.path, action: result.outcome === 'created' ? 'created' : result.outcome === 'published' ? 'published' : 'skipped', version: back.version, etag: back.etag, verified: true };
    out.push(entry);
    options.onEntry?.(entry, result);
  }
  return out;
}
