/**
 * The controlled catalog of an evaluation: which skills the skill under test
 * competes against, exactly, and the registry that serves them.
 *
 * - A draft (a package file not yet published) is served by an overlay
 *   registry in place of its stored revision: validated, normalized, with real
 *   integrity hashes, under the next revision number the store would give it.
 *   Everything else passes through to the store.
 * - The bindings are the agent's binding list (a `TRUVAG3_SKILL_BINDINGS_JSON`
 *   file) with the skill under test added when it is missing, or by default
 *   every skill of the skill's namespace as an optional auto binding.
 * - The catalog is pinned once, recorded (identities, versions, hashes,
 *   activation modes, activation-catalog tokens) and then frozen: every cell of
 *   the run resolves the same exact revisions even if someone publishes while
 *   it runs, and immutable manifests and resources are read once.
 */
import { WorkbenchError } from '../core/errors';
import { buildManifest, computeIntegrity, validatePackage } from '../core/package/index';
import { skillKey, type Finding, type SkillAuthoringLimits, type SkillId, type SkillManifest, type SkillPackage } from '../core/package/types';
import { compareIds, defaultBindings } from '../core/selector/bindings';
import { DEFAULT_SELECTOR_LIMITS, type SelectorLimits } from '../core/selector/limits';
import { pinCandidates } from '../core/selector/pinning';
import { deepFreeze } from '../core/frozen';
import { activationEntry, renderCatalog } from '../core/selector/render';
import type { PinningRecord, SkillBinding } from '../core/selector/types';
import { StoreError, isStoreError } from '../core/store/errors';
import type {
  CandidateRequest,
  CandidateResult,
  ManifestRef,
  MetadataFilter,
  ResourceRef,
  SkillMetadata,
  SkillRegistryReader,
  SkillResourceBody,
  SkillRevisionReader,
} from '../core/store/types';
import type { CatalogEntry, CatalogRecord } from './types';

/** A validated draft ready to be served: the normalized package and its integrity. */
export interface PreparedDraft {
  id: SkillId;
  package: SkillPackage;
  manifest_hash: string;
  resource_hashes: Record<string, string>;
  manifest: SkillManifest;
  /** The package file, as given. */
  file?: string;
}

/** Result of {@link prepareDraft}: the draft, or the validation findings (with locations for text input). */
export type PrepareDraftResult = { ok: true; draft: PreparedDraft; warnings: Finding[] } | { ok: false; errors: Finding[]; warnings: Finding[] };

/**
 * Validates a draft package (raw bytes or text keep line and column in the
 * findings) and computes its real manifest and resource hashes.
 */
export async function prepareDraft(
  id: SkillId,
  input: Uint8Array | string,
  options: { file?: string; limits?: Partial<SkillAuthoringLimits> } = {},
): Promise<PrepareDraftResult> {
  const check = validatePackage(input, { id, ...(options.limits && { limits: options.limits }) });
  if (!check.valid || !check.normalized) return { ok: false, errors: check.errors, warnings: check.warnings };
  const integrity = await computeIntegrity(check.normalized);
  const draft: PreparedDraft = {
    id: { namespace: id.namespace, name: id.name },
    package: check.normalized,
    manifest_hash: integrity.manifest_hash,
    resource_hashes: integrity.resource_hashes,
    manifest: buildManifest(check.normalized, integrity),
    ...(options.file !== undefined && { file: options.file }),
  };
  return { ok: true, draft, warnings: check.warnings };
}

/** A draft as the overlay serves it. */
interface Served {
  draft: PreparedDraft;
  version: number;
  metadata: SkillMetadata;
}

/** A registry that serves drafts in place of their stored revisions. */
export interface DraftOverlay extends SkillRegistryReader {
  /** The revision number each draft is served under (`namespace/name` → number). */
  readonly draftVersions: ReadonlyMap<string, number>;
}

/**
 * The number the store would give the next revision of `id`: one above the
 * newest number ever used (deleted numbers are never reused), or 1 for a new
 * skill. Without a revision reader, one above the published revision.
 */
export async function nextVersion(id: SkillId, base: SkillRegistryReader, revisions?: SkillRevisionReader): Promise<number> {
  if (revisions) {
    try {
      const page = await revisions.listVersions(id, { limit: 1 });
      const newest = page.versions[0]?.version;
      return newest === undefined ? 1 : newest + 1;
    } catch (error) {
      if (isStoreError(error, 'not_found')) return 1;
      throw error;
    }
  }
  const [result] = await base.resolveCandidates([{ ...id, version: 'published' }]);
  return result?.status === 'found' ? result.version + 1 : 1;
}

/**
 * Wraps `base` so each draft is served as the published revision of its
 * identity (under the next revision number); every other read passes through.
 * Stored revisions of a draft's identity stay readable by their exact number.
 */
export async function createDraftOverlay(
  base: SkillRegistryReader,
  drafts: readonly PreparedDraft[],
  options: { revisions?: SkillRevisionReader; versions?: ReadonlyMap<string, number> } = {},
): Promise<DraftOverlay> {
  const served = new Map<string, Served>();
  for (const draft of drafts) {
    const key = skillKey(draft.id);
    if (served.has(key)) throw new WorkbenchError('invalid_request', `${key} is given twice as a draft`);
    const version = options.versions?.get(key) ?? (await nextVersion(draft.id, base, options.revisions));
    const pkg = draft.package;
    served.set(key, {
      draft,
      version,
      metadata: Object.freeze({
        namespace: draft.id.namespace,
        name: draft.id.name,
        display_name: pkg.display_name,
        description: pkg.description,
        domains: [...pkg.domains],
        tags: [...pkg.tags],
        version,
        manifest_hash: draft.manifest_hash,
        // Drafts have no publication time; the epoch keeps catalogs reproducible.
        updated_at: new Date(0).toISOString(),
      }),
    });
  }
  return new DraftOverlayImpl(base, served);
}

class DraftOverlayImpl implements DraftOverlay {
  readonly draftVersions: ReadonlyMap<string, number>;

  constructor(
    private readonly base: SkillRegistryReader,
    private readonly served: Map<string, Served>,
  ) {
    this.draftVersions = new Map([...served].map(([k, s]) => [k, s.version]));
  }

  async listMetadata(filter: MetadataFilter = {}): Promise<SkillMetadata[]> {
    const { limit, ...rest } = filter;
    const stored = await this.base.listMetadata(rest);
    const byKey = new Map(stored.map((m) => [skillKey(m), m]));
    for (const [key, s] of this.served) {
      const m = s.metadata;
      const matches =
        (rest.namespace === undefined || m.namespace === rest.namespace) &&
        (rest.domain === undefined || m.domains.includes(rest.domain)) &&
        (rest.tag === undefined || m.tags.includes(rest.tag));
      if (matches) byKey.set(key, m);
      else byKey.delete(key);
    }
    const out = [...byKey.keys()].sort(compareIds).map((k) => byKey.get(k)!);
    return limit !== undefined && limit >= 0 ? out.slice(0, limit) : out;
  }

  async resolveCandidates(requests: CandidateRequest[]): Promise<CandidateResult[]> {
    const results: (CandidateResult | undefined)[] = new Array(requests.length);
    const passIndex: number[] = [];
    const pass: CandidateRequest[] = [];
    requests.forEach((request, i) => {
      const s = this.served.get(skillKey(request));
      if (s && (request.version === 'published' || request.version === s.version)) {
        results[i] = { status: 'found', request, version: s.version, manifest_hash: s.draft.manifest_hash, metadata: s.metadata };
      } else {
        passIndex.push(i);
        pass.push(request);
      }
    });
    if (pass.length > 0) {
      const answered = await this.base.resolveCandidates(pass);
      passIndex.forEach((index, j) => {
        results[index] = answered[j];
      });
    }
    return results as CandidateResult[];
  }

  private draftFor(ref: ManifestRef): Served | undefined {
    const s = this.served.get(skillKey(ref));
    if (!s || ref.version !== s.version) return undefined;
    if (ref.manifest_hash !== s.draft.manifest_hash) {
      throw new StoreError('integrity_mismatch', `manifest of ${skillKey(ref)}@${ref.version} (draft) does not match the expected hash`, {
        details: { expected: ref.manifest_hash, observed: s.draft.manifest_hash },
      });
    }
    return s;
  }

  async getManifest(ref: ManifestRef): Promise<SkillManifest> {
    const s = this.draftFor(ref);
    return s ? s.draft.manifest : this.base.getManifest(ref);
  }

  async getResource(ref: ResourceRef): Promise<SkillResourceBody> {
    const s = this.draftFor(ref.skill);
    if (!s) return this.base.getResource(ref);
    const resource = s.draft.package.resources.find((r) => r.name === ref.name);
    const key = skillKey(ref.skill);
    if (!resource) throw new StoreError('not_found', `${key}@${ref.skill.version} (draft) has no resource '${ref.name}'`);
    const hash = s.draft.resource_hashes[resource.name]!;
    if (hash !== ref.expected_hash) {
      throw new StoreError('integrity_mismatch', `resource '${ref.name}' of ${key}@${ref.skill.version} (draft) does not match the expected hash`, {
        details: { expected: ref.expected_hash, observed: hash },
      });
    }
    return { name: resource.name, content_type: resource.content_type, content: resource.content, content_hash: hash };
  }
}

/** Input of {@link buildCatalog}. */
export interface CatalogInput {
  /** The registry of this variant (usually a {@link DraftOverlay}). */
  registry: SkillRegistryReader;
  /** The skill under test. */
  skill: SkillId;
  /** The agent's binding list; absent means every skill of the skill's namespace as an optional auto binding. */
  bindings?: readonly SkillBinding[];
  /** Identities the registry serves as drafts (recorded as version `draft`). */
  drafts?: ReadonlySet<string>;
  /** Where the catalog came from, secret-free (a redacted connection or a folder). */
  source: string;
  /** The binding file as given, recorded with the catalog. */
  bindingsFile?: string;
  limits?: SelectorLimits;
}

/** A pinned, recorded and frozen catalog. */
export interface CatalogPlan {
  /** The bindings every cell uses (explicit, so no cell lists the catalog again). */
  bindings: SkillBinding[];
  /** A registry that answers exactly the recorded catalog. */
  registry: SkillRegistryReader;
  record: CatalogRecord;
  /** Bindings that could not be pinned (left out, as the runtime would): one line each. */
  warnings: string[];
}

/**
 * The bindings of an evaluation catalog: the agent's list, or the skill's
 * namespace, with the skill under test always present. A draft under test is
 * bound to `published` (the overlay serves the draft there) whatever exact
 * revision the list names for it.
 */
export async function catalogBindings(input: Pick<CatalogInput, 'registry' | 'skill' | 'bindings' | 'drafts'>): Promise<SkillBinding[]> {
  const key = skillKey(input.skill);
  let bindings: SkillBinding[];
  if (input.bindings) {
    bindings = input.bindings.map((b) => ({ ...b }));
  } else {
    const metadata = await input.registry.listMetadata({ namespace: input.skill.namespace });
    bindings = defaultBindings(metadata);
  }
  let own = bindings.find((b) => `${b.namespace}/${b.name}` === key);
  if (!own) {
    own = { namespace: input.skill.namespace, name: input.skill.name, version: 'published', activation: 'auto', required: false };
    bindings.push(own);
    if (!input.bindings) bindings.sort((a, b) => compareIds(`${a.namespace}/${a.name}`, `${b.namespace}/${b.name}`));
  }
  if (input.drafts?.has(key)) own.version = 'published';
  return bindings;
}

function describePinning(record: PinningRecord): string {
  const why: Record<PinningRecord['status'], string> = {
    pinned: 'pinned',
    not_found: 'is not in the catalog',
    version_unavailable: `has no revision ${String(record.requested)}`,
    invalid: 'was rejected by the registry',
    missing: 'got no answer from the registry',
    registry_unavailable: 'could not be resolved: the registry is unavailable',
    domain_omitted: 'was omitted by domain compatibility',
  };
  return `${record.skill} ${why[record.status]}`;
}

/**
 * Pins the catalog of one skill under test, records it, and freezes it. Throws
 * `not_found` when the skill under test itself cannot be pinned, `unavailable`
 * when the registry cannot answer, and `invalid_request` when the catalog has
 * more bindings than `maxBindings`.
 */
export async function buildCatalog(input: CatalogInput): Promise<CatalogPlan> {
  const limits = input.limits ?? DEFAULT_SELECTOR_LIMITS;
  const key = skillKey(input.skill);
  const bindings = await catalogBindings(input);
  if (bindings.length > limits.maxBindings) {
    throw new WorkbenchError(
      'invalid_request',
      `the catalog of ${key} has ${bindings.length} bindings, above maxBindings (${limits.maxBindings}); give the agent's binding list with --bindings`,
    );
  }
  const requests: CandidateRequest[] = bindings.map((b) => ({ namespace: b.namespace, name: b.name, version: b.version }));
  let resolved: CandidateResult[];
  try {
    resolved = await input.registry.resolveCandidates(requests);
  } catch (error) {
    throw new WorkbenchError('unavailable', `could not resolve the catalog of ${key}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const frozen = freezeCatalog(input.registry, requests, resolved);
  const pinned = await pinCandidates({ bindings, registry: frozen, registryReadTimeoutMs: 0 });
  const own = pinned.records.find((r) => r.skill === key);
  if (!own || own.status !== 'pinned') {
    throw new WorkbenchError('not_found', `the skill under test ${own ? describePinning(own) : `${key} is not bound`}`);
  }
  const warnings = pinned.records.filter((r) => r.status !== 'pinned').map(describePinning);
  if (own.activation !== 'auto') {
    warnings.push(`${key} is bound with activation '${own.activation}': the model does not decide its activation, so its cases measure the binding, not the skill`);
  }
  const entries: CatalogEntry[] = pinned.candidates.map((c) => ({
    skill: c.id,
    version: input.drafts?.has(c.id) && c.requested === 'published' ? 'draft' : c.version,
    manifest_hash: c.manifest_hash,
    activation: c.activation,
    under_test: c.id === key,
  }));
  // Exactly what the activation stage renders and checks against the budget: the auto candidates, in identity order.
  const auto = pinned.candidates.filter((c) => c.activation === 'auto').sort((a, b) => compareIds(a.id, b.id));
  const rendered = renderCatalog(auto.map(activationEntry));
  const record: CatalogRecord = {
    entries,
    tokens: rendered.tokens,
    budget: limits.catalogTokenBudget,
    source: input.source,
    ...(input.bindingsFile !== undefined && { bindings: input.bindingsFile }),
    auto_candidates: auto.length,
    max_auto_candidates: limits.maxAutoCandidates,
  };
  return { bindings, registry: frozen, record, warnings };
}

/**
 * A registry that answers `requests` with the results pinned once, and keeps
 * manifests and resources (immutable per exact revision and hash) after their
 * first read. Other requests pass through.
 */
export function freezeCatalog(base: SkillRegistryReader, requests: readonly CandidateRequest[], results: readonly CandidateResult[]): SkillRegistryReader {
  const pinned = new Map<string, CandidateResult>();
  requests.forEach((r, i) => {
    const result = results[i];
    // A frozen copy: every cell shares it, and its frozen lists let the selector render each catalog line once.
    if (result) pinned.set(`${r.namespace}/${r.name}@${String(r.version)}`, Object.isFrozen(result) ? result : deepFreeze(structuredClone(result)));
  });
  const manifests = new Map<string, Promise<SkillManifest>>();
  const resources = new Map<string, Promise<SkillResourceBody>>();
  // A failed read is not kept: the next cell tries again, as a runtime would. A kept one is a
  // frozen copy every cell shares, so the selector renders and measures its content once.
  const remember = <T>(map: Map<string, Promise<T>>, key: string, read: () => Promise<T>): Promise<T> => {
    let p = map.get(key);
    if (!p) {
      p = read().then((value) => (value !== null && typeof value === 'object' && !Object.isFrozen(value) ? deepFreeze(structuredClone(value)) : value));
      map.set(key, p);
      p.catch(() => map.delete(key));
    }
    return p;
  };
  return {
    listMetadata: (filter?: MetadataFilter) => base.listMetadata(filter),
    async resolveCandidates(list: CandidateRequest[]): Promise<CandidateResult[]> {
      const out: (CandidateResult | undefined)[] = list.map((r) => pinned.get(`${r.namespace}/${r.name}@${String(r.version)}`));
      const missing = out.flatMap((r, i) => (r === undefined ? [i] : []));
      if (missing.length > 0) {
        const answered = await base.resolveCandidates(missing.map((i) => list[i]!));
        missing.forEach((index, j) => {
          out[index] = answered[j];
        });
      }
      return out as CandidateResult[];
    },
    getManifest: (ref: ManifestRef) => remember(manifests, `${ref.namespace}/${ref.name}@${ref.version}#${ref.manifest_hash}`, () => base.getManifest(ref)),
    getResource: (ref: ResourceRef) =>
      remember(resources, `${ref.skill.namespace}/${ref.skill.name}@${ref.skill.version}#${ref.skill.manifest_hash}/${ref.name}#${ref.expected_hash}`, () => base.getResource(ref)),
  };
}
