/**
 * Changes of a store's catalog seen between two watched rechecks: what another
 * writer (a sync, the CLI, another workbench) published, replaced or removed.
 * Each connection keeps the fingerprint of every published skill as the last
 * look saw it; this session's own publications are noted as they happen, so a
 * recheck never reports them a second time.
 *
 * Isomorphic logic (no `node:` imports), used by the Node service.
 */
import type { SkillId } from '../package/types';
import type { SkillMetadata } from '../store/types';

/** A skill whose published revision changed, or that left the catalog (`version` absent). */
export interface CatalogChange {
  skill: SkillId;
  version?: number;
}

/** What a recheck of a catalog found. */
export type CatalogComparison =
  /** The first look at this connection: nothing to compare with yet. */
  | { kind: 'baseline' }
  | { kind: 'changes'; changes: CatalogChange[] };

function keyOf(id: SkillId): string {
  return `${id.namespace}/${id.name}`;
}

function fingerprint(version: number, manifestHash: string): string {
  return `${version}:${manifestHash}`;
}

/** The last catalog fingerprints seen per connection. */
export class CatalogWatch {
  private readonly seen = new Map<string, Map<string, string>>();

  /**
   * Compares `entries` (the whole catalog of `connection`, as read now) with
   * the last look, remembers them, and returns the skills that differ in
   * catalog order. The first look of a connection is the baseline.
   */
  compare(connection: string, entries: readonly SkillMetadata[]): CatalogComparison {
    const now = new Map<string, string>();
    for (const e of entries) now.set(keyOf(e), fingerprint(e.version, e.manifest_hash));
    const before = this.seen.get(connection);
    this.seen.set(connection, now);
    if (!before) return { kind: 'baseline' };
    const changes: CatalogChange[] = [];
    for (const e of entries) {
      if (before.get(keyOf(e)) !== now.get(keyOf(e))) changes.push({ skill: { namespace: e.namespace, name: e.name }, version: e.version });
    }
    for (const key of before.keys()) {
      if (now.has(key)) continue;
      const slash = key.indexOf('/');
      changes.push({ skill: { namespace: key.slice(0, slash), name: key.slice(slash + 1) } });
    }
    return { kind: 'changes', changes };
  }

  /** Records a publication this session made, so the next recheck does not report it as another writer's. */
  note(connection: string, skill: SkillId, version: number, manifestHash: string): void {
    this.seen.get(connection)?.set(keyOf(skill), fingerprint(version, manifestHash));
  }

  /** Forgets a connection (its profile changed or was removed): the next look is a new baseline. */
  forget(connection: string): void {
    this.seen.delete(connection);
  }
}
