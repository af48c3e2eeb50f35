/**
 * Integrity hashes of a normalized package (guide section 10.2): Node's own
 * SHA-256 where there is one, Web Crypto in a browser worker.
 *
 * - resource hash: SHA-256 over the UTF-8 bytes of the normalized `content`;
 * - manifest hash: SHA-256 over the UTF-8 bytes of `canonicalJson(manifest)`,
 *   where the manifest is the package without `change_reason` and without
 *   resource bodies, each resource carrying its `content_hash` instead.
 *
 * Hashes are written `sha256:<64 lowercase hex digits>`.
 *
 * Isomorphic: no `node:` imports.
 */
import { canonicalJson } from './canonical';
import type { PackageIntegrity, ResourceIndexEntry, SkillManifest, SkillPackage } from './types';

const encoder = new TextEncoder();

/** The part of Node's `node:crypto` this file uses. */
interface NodeHash {
  createHash(algorithm: 'sha256'): { update(data: Uint8Array): { digest(encoding: 'hex'): string } };
}

/**
 * Node's `node:crypto`, reached without an import so this file still runs in a
 * browser worker (no `process` there: Web Crypto instead). On Node a digest is
 * synchronous and about a tenth of the CPU of Web Crypto's, whose every call
 * is a job handed to another thread and a promise back (3 µs against 38 µs for
 * a 2 KB text); a publication hashes every resource and its manifest, and a
 * read from a store checks them again.
 */
const nodeCrypto = ((globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.('node:crypto')) as
  | NodeHash
  | undefined;

function hex(buffer: ArrayBuffer): string {
  const bytes = new Uint8Array(buffer);
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}

/** `sha256:<hex>` of the UTF-8 bytes of `text` (or of raw bytes). */
export async function sha256Hex(text: string | Uint8Array): Promise<string> {
  const bytes = typeof text === 'string' ? encoder.encode(text) : text;
  if (nodeCrypto) return `sha256:${nodeCrypto.createHash('sha256').update(bytes).digest('hex')}`;
  const digest = await globalThis.crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return `sha256:${hex(digest)}`;
}

/** A package's manifest content with resource bodies left out and not yet hashed: what the advisor is shown. */
export type BodyFreePackage = Omit<SkillManifest, 'resources'> & { resources: Omit<ResourceIndexEntry, 'content_hash'>[] };

/**
 * Everything of a normalized package that the runtime loads after activation,
 * minus resource bodies and minus `change_reason` (audit data, not content):
 * the one projection behind the manifest and the authoring advisor's input.
 */
export function bodyFreePackage(pkg: SkillPackage): BodyFreePackage {
  return {
    display_name: pkg.display_name,
    description: pkg.description,
    domains: [...pkg.domains],
    tags: [...pkg.tags],
    planning_instructions: [...pkg.planning_instructions],
    response_instructions: [...pkg.response_instructions],
    tool_hints: [...pkg.tool_hints],
    activation_examples: {
      should_activate: [...pkg.activation_examples.should_activate],
      should_not_activate: [...pkg.activation_examples.should_not_activate],
    },
    resources: pkg.resources.map((resource) => ({
      name: resource.name,
      description: resource.description,
      load_when: resource.load_when,
      applies_to: [...resource.applies_to],
      required_when_selected: resource.required_when_selected,
      content_type: resource.content_type,
    })),
  };
}

/**
 * The manifest of a normalized package: its {@link bodyFreePackage} with each
 * resource body replaced by its hash from `integrity.resource_hashes`; a
 * missing one is a broken invariant and throws.
 */
export function buildManifest(pkg: SkillPackage, integrity: Pick<PackageIntegrity, 'resource_hashes'>): SkillManifest {
  const projection = bodyFreePackage(pkg);
  return {
    ...projection,
    resources: projection.resources.map((resource) => {
      const hash = Object.hasOwn(integrity.resource_hashes, resource.name) ? integrity.resource_hashes[resource.name] : undefined;
      if (hash === undefined) throw new Error(`no content hash for resource '${resource.name}'`);
      return { ...resource, content_hash: hash };
    }),
  };
}

/** Computes the resource hashes and the manifest hash of a normalized (and valid) package. */
export async function computeIntegrity(pkg: SkillPackage): Promise<PackageIntegrity> {
  const hashes = await Promise.all(pkg.resources.map((resource) => sha256Hex(resource.content)));
  const resource_hashes: Record<string, string> = Object.create(null) as Record<string, string>;
  pkg.resources.forEach((resource, i) => {
    resource_hashes[resource.name] = hashes[i]!;
  });
  const manifest = buildManifest(pkg, { resource_hashes });
  return { manifest_hash: await sha256Hex(canonicalJson(manifest)), resource_hashes: { ...resource_hashes } };
}

/**
 * Whether two normalized packages have the same versioned content: equal in
 * everything except `change_reason`, which alone never makes a new revision
 * (guide section 5.5, `same_content_noop`).
 */
export function sameVersionedContent(a: SkillPackage, b: SkillPackage): boolean {
  return canonicalJson({ ...a, change_reason: '' }) === canonicalJson({ ...b, change_reason: '' });
}
