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

/** A publication of this session, noted in the order publications land. */
interface Noted {
  fingerprint: string;
  seq: number;
}

/**
 * The last catalog fingerprints seen per connection.
 *
 * A catalog read and this session's own publication can overlap: a read that
 * began before the publication landed lists the older revision. Each read
 * therefore takes a {@link CatalogWatch.ticket} before it starts; what this
 * session noted after the ticket is kept over what the read listed, so the
 * next look neither calls its own publication another writer's nor forgets it.
 */
export class CatalogWatch {
  private readonly seen = new Map<string, Map<string, string>>();
  /** Own publications per connection that a read may not show yet. */
  private readonly own = new Map<string, Map<string, Noted>>();
  private seq = 0;

  /** Take before reading a catalog for {@link compare} or {@link look}: notes made after it win over the read. */
  ticket(): number {
    return this.seq;
  }

  private fingerprints(connection: string, entries: readonly SkillMetadata[], ticket: number): Map<string, string> {
    const now = new Map<string, string>();
    for (const e of entries) now.set(keyOf(e), fingerprint(e.version, e.manifest_hash));
    const mine = this.own.get(connection);
    if (mine) {
      for (const [key, noted] of mine) {
        if (noted.seq > ticket) now.set(key, noted.fingerprint);
        // A read that started after the note shows the publication (or what came after it).
        else mine.delete(key);
      }
      if (mine.size === 0) this.own.delete(connection);
    }
    return now;
  }

  /**
   * Compares `entries` (the whole catalog of `connection`, as read now) with
   * the last look, remembers them, and returns the skills that differ in
   * catalog order. The first look of a connection is the baseline.
   * `ticket` is what {@link ticket} returned before the read (default: now).
   */
  compare(connection: string, entries: readonly SkillMetadata[], ticket = this.seq): CatalogComparison {
    const now = this.fingerprints(connection, entries, ticket);
    const before = this.seen.get(connection);
    this.seen.set(connection, now);
    if (!before) return { kind: 'baseline' };
    const changes: CatalogChange[] = [];
    for (const e of entries) {
      const key = keyOf(e);
      if (before.get(key) !== now.get(key)) changes.push({ skill: { namespace: e.namespace, name: e.name }, version: e.version });
    }
    for (const key of before.keys()) {
      if (now.has(key)) continue;
      const slash = key.indexOf('/');
      changes.push({ skill: { namespace: key.slice(0, slash), name: key.slice(slash + 1) } });
    }
    return { kind: 'changes', changes };
  }

  /**
   * A view read the whole catalog of `connection`: when nothing was seen of it
   * yet, that read is the baseline, so a change another writer makes before
   * the first recheck is reported by it instead of becoming part of the baseline.
   */
  look(connection: string, entries: readonly SkillMetadata[], ticket = this.seq): void {
    if (this.seen.has(connection)) return;
    this.seen.set(connection, this.fingerprints(connection, entries, ticket));
  }

  /** Records a publication this session made, so the next recheck does not report it as another writer's. */
  note(connection: string, skill: SkillId, version: number, manifestHash: string): void {
    const key = keyOf(skill);
    const noted = { fingerprint: fingerprint(version, manifestHash), seq: ++this.seq };
    this.seen.get(connection)?.set(key, noted.fingerprint);
    // Kept (one entry per skill) until a read that started after it: a first look in flight may predate it.
    let mine = this.own.get(connection);
    if (!mine) this.own.set(connection, (mine = new Map()));
    mine.set(key, noted);
  }

  /** Forgets a connection (its profile changed or was removed): the next look is a new baseline. */
  forget(connection: string): void {
    this.seen.delete(connection);
    this.own.delete(connection);
  }
}
