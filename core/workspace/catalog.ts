/**
 * A read-only, in-memory skill registry built from packages on disk, so a
 * folder of JSON packages goes through exactly the same pinning, manifest and
 * resource reads, and hash verification, as a store catalog.
 *
 * Every valid package becomes revision 1 of its identity, with real integrity
 * hashes computed by core/package. Invalid packages are not served; they are
 * listed in `problems` with their findings so the caller can report them.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { buildManifest, computeIntegrity, isSlug, validatePackage } from '../package/index';
import type { Finding, SkillId, SkillManifest, SkillPackage } from '../package/types';
import { skillKey } from '../package/types';
import { openStore, redactConnection } from '../store/connect';
import { StoreError } from '../store/errors';
import type {
  CandidateRequest,
  CandidateResult,
  ManifestRef,
  MetadataFilter,
  ResourceRef,
  SkillMetadata,
  SkillRegistryReader,
  SkillResourceBody,
} from '../store/types';
import { discoverPackages } from './discover';
import { PACKAGE_FILE_MAX_BYTES, readFileBounded } from './read';
import { deepFreeze } from '../frozen';

/** A package that could not be served, with why. */
export interface CatalogProblem {
  /** File path relative to the folder. */
  path: string;
  /** `namespace/name` when the path gave one. */
  skill?: string;
  message: string;
  findings: Finding[];
}

/** A registry over a fixed set of packages. */
export interface MemoryRegistry extends SkillRegistryReader {
  /** Secret-free description, e.g. `folder examples/skills/packages (8 skills)`. */
  readonly description: string;
  /** Body-free metadata of every served skill, in identity order. */
  readonly skills: readonly SkillMetadata[];
}

/** A registry opened from a folder. */
export interface FolderRegistry extends MemoryRegistry {
  /** Packages that were found but not served (invalid, unreadable, misplaced). */
  readonly problems: readonly CatalogProblem[];
}

/** One package to serve. */
export interface MemoryEntry {
  id: SkillId;
  /** A normalized, valid package. */
  package: SkillPackage;
  /** ISO time shown as `updated_at` (default: the Unix epoch, so results are reproducible). */
  updatedAt?: string;
}

interface Served {
  metadata: SkillMetadata;
  manifest: SkillManifest;
  resources: Map<string, SkillResourceBody>;
}

/**
 * Builds a registry over `entries` (each served as revision 1). Served objects
 * are deeply frozen and shared, so reads cost no copying.
 */
export async function createMemoryRegistry(entries: readonly MemoryEntry[], description = 'memory registry'): Promise<MemoryRegistry> {
  const served = new Map<string, Served>();
  for (const entry of entries) {
    const key = skillKey(entry.id);
    if (served.has(key)) throw new StoreError('conflict', `${key} is given twice`);
    const integrity = await computeIntegrity(entry.package);
    const manifest = buildManifest(entry.package, integrity);
    const resources = new Map<string, SkillResourceBody>();
    for (const r of entry.package.resources) {
      resources.set(r.name, deepFreeze({ name: r.name, content_type: r.content_type, content: r.content, content_hash: integrity.resource_hashes[r.name]! }));
    }
    served.set(key, {
      metadata: deepFreeze({
        namespace: entry.id.namespace,
        name: entry.id.name,
        display_name: entry.package.display_name,
        description: entry.package.description,
        domains: [...entry.package.domains],
        tags: [...entry.package.tags],
        version: 1,
        manifest_hash: integrity.manifest_hash,
        updated_at: entry.updatedAt ?? new Date(0).toISOString(),
      }),
      manifest: deepFreeze(manifest),
      resources,
    });
  }
  const skills = deepFreeze([...served.keys()].sort().map((k) => served.get(k)!.metadata));
  return new MemoryRegistryImpl(served, skills, `${description} (${skills.length} skill${skills.length === 1 ? '' : 's'})`);
}

class MemoryRegistryImpl implements MemoryRegistry {
  constructor(
    private readonly served: Map<string, Served>,
    readonly skills: readonly SkillMetadata[],
    readonly description: string,
  ) {}

  async listMetadata(filter: MetadataFilter = {}): Promise<SkillMetadata[]> {
    const out = this.skills.filter(
      (m) =>
        (filter.namespace === undefined || m.namespace === filter.namespace) &&
        (filter.domain === undefined || m.domains.includes(filter.domain)) &&
        (filter.tag === undefined || m.tags.includes(filter.tag)),
    );
    return filter.limit !== undefined && filter.limit >= 0 ? out.slice(0, filter.limit) : out;
  }

  async resolveCandidates(requests: CandidateRequest[]): Promise<CandidateResult[]> {
    return requests.map((request): CandidateResult => {
      if (!isSlug(request.namespace) || !isSlug(request.name) || request.namespace.length > 64 || request.name.length > 64) {
        return { status: 'invalid', request, reason: 'namespace and name must be lowercase slugs of at most 64 characters' };
      }
      if (request.version !== 'published' && (!Number.isSafeInteger(request.version) || request.version < 1)) {
        return { status: 'invalid', request, reason: 'version must be "published" or a positive integer' };
      }
      const s = this.served.get(skillKey(request));
      if (!s) return { status: 'not_found', request };
      if (request.version !== 'published' && request.version !== 1) return { status: 'version_unavailable', request };
      return { status: 'found', request, version: 1, manifest_hash: s.metadata.manifest_hash, metadata: s.metadata };
    });
  }

  private pinned(ref: ManifestRef): Served {
    const key = skillKey(ref);
    const s = this.served.get(key);
    if (!s || ref.version !== 1) throw new StoreError('not_found', `${key}@${ref.version} does not exist`);
    if (ref.manifest_hash !== s.metadata.manifest_hash) {
      throw new StoreError('integrity_mismatch', `manifest of ${key}@${ref.version} does not match the expected hash`, {
        details: { expected: ref.manifest_hash, observed: s.metadata.manifest_hash },
      });
    }
    return s;
  }

  async getManifest(ref: ManifestRef): Promise<SkillManifest> {
    return this.pinned(ref).manifest;
  }

  async getResource(ref: ResourceRef): Promise<SkillResourceBody> {
    const s = this.pinned(ref.skill);
    const body = s.resources.get(ref.name);
    const key = skillKey(ref.skill);
    if (!body) throw new StoreError('not_found', `${key}@${ref.skill.version} has no resource '${ref.name}'`);
    if (body.content_hash !== ref.expected_hash) {
      throw new StoreError('integrity_mismatch', `resource '${ref.name}' of ${key}@${ref.skill.version} does not match the expected hash`, {
        details: { expected: ref.expected_hash, observed: body.content_hash },
      });
    }
    return body;
  }
}

/**
 * Opens a folder of packages as a read-only registry: a workspace (any folder
 * holding `skills/packages/<namespace>/<name>.json`) or a plain folder of
 * `<namespace>/<name>.json`. Throws `not_found` when the folder does not exist.
 * `label` names the folder in messages and the description (default: `dir` as given).
 */
export async function openFolderRegistry(dir: string, options: { label?: string } = {}): Promise<FolderRegistry> {
  const root = resolve(dir);
  const label = options.label ?? dir;
  try {
    if (!(await stat(root)).isDirectory()) throw new StoreError('invalid_request', `${label} is not a folder`);
  } catch (error) {
    if (error instanceof StoreError) throw error;
    throw new StoreError('not_found', `catalog folder ${label} does not exist`, { cause: error });
  }
  const discovered = await discoverPackages(root);
  const problems: CatalogProblem[] = [];
  const entries: MemoryEntry[] = [];
  await Promise.all(
    discovered.map(async (file) => {
      if (!file.id) {
        problems.push({ path: file.path, message: file.problem?.message ?? 'not a package', findings: [] });
        return;
      }
      const skill = skillKey(file.id);
      let bytes: Uint8Array;
      let updatedAt: string;
      try {
        bytes = await readFileBounded(file.file, PACKAGE_FILE_MAX_BYTES, file.path);
        updatedAt = (await stat(file.file)).mtime.toISOString();
      } catch (error) {
        problems.push({ path: file.path, skill, message: error instanceof Error ? error.message : String(error), findings: [] });
        return;
      }
      const check = validatePackage(bytes, { id: file.id });
      if (!check.valid || !check.normalized) {
        const count = check.errors.length;
        problems.push({ path: file.path, skill, message: `invalid package: ${count} error${count === 1 ? '' : 's'}`, findings: check.errors });
        return;
      }
      entries.push({ id: file.id, package: check.normalized, updatedAt });
    }),
  );
  problems.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const registry = await createMemoryRegistry(entries, `folder ${label}`);
  return Object.assign(registry, { problems });
}

/** An open catalog: a store or a folder of packages, read-only. */
export interface OpenCatalog {
  registry: SkillRegistryReader;
  /** Secret-free name for messages: the store's description or `folder <dir> (N skills)`. */
  label: string;
  /** Packages of a folder catalog that are not served (always empty for a store). */
  problems: readonly CatalogProblem[];
  close(): Promise<void>;
}

const CONNECTION = /^(?:local:|[a-z][a-z0-9+.-]*:\/\/)/i;

/** Whether `value` is a connection string (`local:DIR`, `redis://…`, `http(s)://…`) rather than a folder. */
export function isConnectionString(value: string): boolean {
  return CONNECTION.test(value.trim());
}

/**
 * Opens what a user names as a catalog: a connection string opens that store;
 * anything else is a folder of packages (a workspace or `<namespace>/<name>.json`),
 * resolved against `cwd` and served by {@link openFolderRegistry}. The caller closes it.
 * `env` is the command's environment, for a store's credentials (default `process.env`).
 */
export async function openCatalog(value: string, options: { cwd: string; env?: Readonly<Record<string, string | undefined>> }): Promise<OpenCatalog> {
  if (isConnectionString(value)) {
    const store = await openStore(value.trim(), { cwd: options.cwd, create: false, ...(options.env && { env: options.env }) });
    return { registry: store, label: store.description || redactConnection(value), problems: [], close: () => store.close() };
  }
  const registry = await openFolderRegistry(resolve(options.cwd, value), { label: value });
  return { registry, label: registry.description, problems: registry.problems, close: async () => undefined };
}
