/**
 * Reading an agent's catalog from a registry for {@link catalogHealth}: the
 * binding list (given, or every published skill of a namespace bound auto, as
 * the runtime's default), pinned in one batch as the runtime pins it, and the
 * pinned manifests read for their sizes.
 *
 * Isomorphic: registry reads go through the {@link SkillRegistryReader} port.
 */
import { WorkbenchError } from '../errors';
import { defaultBindings } from '../selector/bindings';
import { DEFAULT_SELECTOR_LIMITS, type SelectorLimits } from '../selector/limits';
import { pinCandidates } from '../selector/pinning';
import type { PinnedCandidate, SkillBinding } from '../selector/types';
import type { SkillManifest } from '../package/types';
import type { SkillRegistryReader } from '../store/types';
import { catalogHealth, type CatalogHealth } from './health';
import { proposeSplit, type SkillAffinity, type SplitProposal } from './split';

/** Which catalog to read: a binding list, or a namespace. */
export type CatalogSelection = { bindings: readonly SkillBinding[]; label: string } | { namespace: string };

/** A catalog read and measured. */
export interface InspectedCatalog {
  /** The bindings file as given, or the namespace. */
  catalog: string;
  bindings: SkillBinding[];
  candidates: PinnedCandidate[];
  health: CatalogHealth;
  /** One line per binding that could not be pinned. */
  warnings: string[];
}

/**
 * Pins the catalog and measures it. Throws `not_found` for a namespace with
 * no published skill, and `unavailable` when the registry cannot answer
 * (a failed pin of every binding is the registry's failure, not the catalog's).
 */
export async function inspectCatalog(registry: SkillRegistryReader, selection: CatalogSelection, limits: SelectorLimits = DEFAULT_SELECTOR_LIMITS): Promise<InspectedCatalog> {
  let bindings: SkillBinding[];
  let catalog: string;
  if ('namespace' in selection) {
    catalog = selection.namespace;
    bindings = defaultBindings(await registry.listMetadata({ namespace: selection.namespace }));
    if (bindings.length === 0) throw new WorkbenchError('not_found', `namespace '${selection.namespace}' has no published skill`);
  } else {
    catalog = selection.label;
    bindings = selection.bindings.map((b) => ({ ...b }));
  }
  const pinned = await pinCandidates({ bindings, registry, registryReadTimeoutMs: 0 });
  const unavailable = pinned.diagnostics.find((d) => d.code === 'skill_registry_unavailable');
  if (unavailable) throw new WorkbenchError('unavailable', unavailable.message);
  const manifests = new Map<string, SkillManifest>();
  const read = await Promise.all(
    pinned.candidates.map((c) => registry.getManifest({ namespace: c.namespace, name: c.name, version: c.version, manifest_hash: c.manifest_hash })),
  );
  pinned.candidates.forEach((c, i) => manifests.set(c.id, read[i]!));
  const health = catalogHealth({ bindings, records: pinned.records, candidates: pinned.candidates, manifests, limits });
  const warnings = pinned.records.filter((r) => r.status !== 'pinned').map((r) => `${r.skill} could not be pinned (${r.status.replace(/_/g, ' ')}): it is left out of every figure`);
  return { catalog, bindings, candidates: pinned.candidates, health, warnings };
}

/** The split of an inspected catalog, weighted by how confused its pairs are. */
export function splitCatalog(inspected: InspectedCatalog, affinity: readonly SkillAffinity[] = [], limits: SelectorLimits = DEFAULT_SELECTOR_LIMITS): SplitProposal {
  return proposeSplit({ bindings: inspected.bindings, candidates: inspected.candidates, affinity, limits });
}
