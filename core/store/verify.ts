/**
 * Hash-verified runtime reads shared by every adapter (guide section 10.2): a
 * manifest is rebuilt from the stored package and its stored resource hashes
 * and must hash to the pinned `manifest_hash`; a resource body must hash to the
 * hash the pinned manifest names. A stored resource hash that lies is caught by
 * the manifest hash (it covers every resource hash), a body that lies by its
 * own hash, so no read needs to hash bodies it does not return.
 */
import { buildManifest, canonicalJson, sha256Hex } from '../package/index';
import { skillKey, type SkillManifest, type SkillPackage } from '../package/types';
import { StoreError } from './errors';
import type { ManifestRef, ResourceRef, SkillResourceBody } from './types';

/** The stored parts of one revision a verified read needs. */
export interface StoredContent {
  package: SkillPackage;
  resource_hashes: Record<string, string>;
}

/** The manifest of `stored`, or `integrity_mismatch` when it does not hash to `ref.manifest_hash`. */
export async function verifiedManifest(ref: ManifestRef, stored: StoredContent): Promise<SkillManifest> {
  let manifest: SkillManifest;
  try {
    manifest = buildManifest(stored.package, { resource_hashes: stored.resource_hashes });
  } catch (error) {
    throw new StoreError('integrity_mismatch', `stored revision ${skillKey(ref)}@${ref.version} is damaged`, { cause: error });
  }
  const observed = await sha256Hex(canonicalJson(manifest));
  if (observed !== ref.manifest_hash) {
    throw new StoreError('integrity_mismatch', `manifest of ${skillKey(ref)}@${ref.version} does not match the expected hash`, {
      details: { expected: ref.manifest_hash, observed },
    });
  }
  return manifest;
}

/** The resource `ref.name` of `stored`: `not_found` when absent, `integrity_mismatch` when its body does not hash to `ref.expected_hash`. */
export async function verifiedResource(ref: ResourceRef, stored: Pick<StoredContent, 'package'>): Promise<SkillResourceBody> {
  const skill = ref.skill;
  const resources = Array.isArray(stored.package.resources) ? stored.package.resources : [];
  const resource = resources.find((r) => r?.name === ref.name);
  if (!resource) throw new StoreError('not_found', `${skillKey(skill)}@${skill.version} has no resource '${ref.name}'`);
  const observed = await sha256Hex(resource.content);
  if (observed !== ref.expected_hash) {
    throw new StoreError('integrity_mismatch', `resource '${ref.name}' of ${skillKey(skill)}@${skill.version} does not match the expected hash`, {
      details: { expected: ref.expected_hash, observed },
    });
  }
  return { name: resource.name, content_type: resource.content_type, content: resource.content, content_hash: observed };
}
