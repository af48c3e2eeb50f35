/**
 * What the end-to-end tests put into the embedded registry before the server
 * starts, written through the store API.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { computeIntegrity } from '../../core/package/integrity';
import type { SkillPackage } from '../../core/package/types';
import type { SkillStore } from '../../core/store/types';
import { samplePackage } from '../integration/core/store/samplePackage';

const DOMAINS = ['travel', 'finance', 'health', 'retail', 'support', 'legal', 'ops', 'science'];

/** Publishes `count` skills `ns-<i % 100>/skill-<i>` (one version each), four at a time (about twice as fast as one by one). */
export async function seedMany(store: SkillStore, count: number): Promise<void> {
  let next = 0;
  const publisher = async () => {
    for (let i = next++; i < count; i = next++) {
      const body = samplePackage(`bulk ${i}`, {
        display_name: `Bulk skill ${String(i).padStart(5, '0')}`,
        domains: [DOMAINS[i % DOMAINS.length]],
        tags: [`t${i % 40}`],
      });
      await store.publish({ id: { namespace: `ns-${i % 100}`, name: `skill-${i}` }, body: JSON.stringify(body), precondition: { kind: 'create' } });
    }
  };
  await Promise.all(Array.from({ length: 4 }, publisher));
}

/** Publishes `billing/refund` `versions` times (v1…vN, vN published), as `e2e`. */
export async function seedRefund(store: SkillStore, versions: number): Promise<void> {
  const id = { namespace: 'billing', name: 'refund' };
  let etag: string | undefined;
  for (let v = 1; v <= versions; v++) {
    const body = samplePackage(`refund ${v}`, {
      display_name: 'Refund a payment',
      description: 'Use when a customer asks to refund a card payment or to check the status of a refund.',
      domains: ['finance'],
      tags: ['billing', 'refund'],
      change_reason: `Refund revision ${v}`,
    });
    const result = await store.publish({
      id,
      body: JSON.stringify(body),
      precondition: etag === undefined ? { kind: 'create' } : { kind: 'if-match', etag },
      actor: 'e2e',
    });
    etag = result.etag;
  }
}

/** Markup, a `javascript:` link, event handlers and a right-to-left override, in one string. */
export function hostile(label: string): string {
  return `${label} <script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"><a href="javascript:window.__pwned=3">click</a> javascript:alert(1) \u202egnp.exe\u202c end`;
}

const MARKERS = ['Hostile-display', 'Hostile-description', 'Hostile-reason', 'Hostile-tag', 'Hostile-domain', 'Hostile-instruction', 'Hostile-example', 'Hostile-resource'];

/**
 * A package the registry's validator refuses (markup, `javascript:` links and
 * bidi overrides in every text field), as a store written by another tool could
 * hold it: published clean with marker strings, then the markers in the
 * registry's files are replaced by hostile text.
 */
export async function seedHostile(store: SkillStore, registryDir: string): Promise<void> {
  const body = samplePackage('hostile', {
    display_name: 'Hostile-display',
    description: 'Use when Hostile-description appears.',
    domains: ['hostile-domain'],
    tags: ['hostile-tag'],
    planning_instructions: ['Hostile-instruction first.'],
    activation_examples: { should_activate: ['Hostile-example request'], should_not_activate: ['Book a flight to Oslo'] },
    change_reason: 'Hostile-reason',
  });
  await store.publish({ id: { namespace: 'evil', name: 'hostile' }, body: JSON.stringify(body), precondition: { kind: 'create' } });
  await store.close();
  const files = [join(registryDir, 'skills', 'evil', 'hostile', 'state.json'), join(registryDir, 'skills', 'evil', 'hostile', 'versions', '1.json')];
  for (const shard of await readdir(join(registryDir, 'catalog'))) files.push(join(registryDir, 'catalog', shard));
  for (const file of files) {
    let text = await readFile(file, 'utf8');
    if (!/Hostile-|hostile-(tag|domain)/.test(text)) continue;
    for (const marker of MARKERS) text = text.replaceAll(marker, JSON.stringify(hostile(marker)).slice(1, -1));
    text = text.replaceAll('"hostile-tag"', JSON.stringify(hostile('tag'))).replaceAll('"hostile-domain"', JSON.stringify(hostile('domain')));
    await writeFile(file, text);
  }
  // That other tool records the hashes of what it wrote, as a registry does: the revision verifies, its text is hostile.
  const revision = JSON.parse(await readFile(files[1]!, 'utf8')) as { manifest_hash: string; resource_hashes: Record<string, string>; package: SkillPackage };
  const integrity = await computeIntegrity(revision.package);
  const swaps: [string, string][] = [
    [revision.manifest_hash, integrity.manifest_hash],
    [`v1-${revision.manifest_hash.slice(7, 23)}`, `v1-${integrity.manifest_hash.slice(7, 23)}`],
    ...Object.entries(revision.resource_hashes).map(([name, hash]): [string, string] => [hash, integrity.resource_hashes[name]!]),
  ];
  for (const file of files) {
    let text = await readFile(file, 'utf8');
    for (const [from, to] of swaps) text = text.replaceAll(from, to);
    await writeFile(file, text);
  }
}
