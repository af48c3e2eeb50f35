/**
 * Catalog scans for the catalog browser: one read of a store's body-free
 * catalog, held as a snapshot and walked page by page in the requested order.
 * A query is matched while walking, so a page of a selective search says how
 * much of the catalog it has examined (`scanned`) against the whole (`total`):
 * "nothing in what has been scanned so far" differs from "nothing at all".
 *
 * Snapshots are bounded in number and age; a cursor of an evicted snapshot is a
 * 404 asking for a fresh scan, never a page from another read.
 *
 * Isomorphic logic (no `node:` imports), used by the Node service.
 */
import { randomToken } from './ids';
import { WorkbenchError } from '../errors';
import type { MetadataFilter, SkillMetadata } from '../store/types';
import type { CatalogPage, CatalogSortKey } from './contract';

/** How a scan is ordered. */
export interface CatalogSort {
  by: CatalogSortKey;
  direction: 'asc' | 'desc';
}

/** A request for one page. */
export interface CatalogPageRequest {
  /** Which store's catalog (the profile name). */
  connection: string;
  cursor: string | null;
  limit: number;
  query: string;
  filter: MetadataFilter;
  sort: CatalogSort;
}

interface Snapshot {
  id: string;
  key: string;
  entries: SkillMetadata[];
  haystacks: string[] | undefined;
  readAt: string;
  created: number;
  /** Matches returned by the pages served so far, by the position they ended at. */
  matchedAt: Map<number, number>;
}

/** Options of {@link CatalogScans}. */
export interface CatalogScansOptions {
  /** Snapshots kept at most (least recently used evicted first; default 16). */
  maxSnapshots?: number;
  /** Age after which a snapshot's cursors expire (default 10 minutes). */
  ttlMs?: number;
  clock?: () => number;
}

function compareBy(by: CatalogSortKey): (a: SkillMetadata, b: SkillMetadata) => number {
  const text = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  const id = (a: SkillMetadata, b: SkillMetadata) => text(a.namespace, b.namespace) || text(a.name, b.name);
  switch (by) {
    case 'name':
      return (a, b) => text(a.name, b.name) || text(a.namespace, b.namespace);
    case 'namespace':
      return id;
    case 'display_name':
      return (a, b) => text(a.display_name.toLowerCase(), b.display_name.toLowerCase()) || id(a, b);
    case 'version':
      return (a, b) => a.version - b.version || id(a, b);
    case 'updated_at':
      return (a, b) => text(a.updated_at, b.updated_at) || id(a, b);
  }
}

/** The text a query searches in: identity, display name, domains and tags, lowercased. */
function haystackOf(m: SkillMetadata): string {
  return `${m.namespace}/${m.name}\n${m.display_name}\n${m.domains.join(' ')}\n${m.tags.join(' ')}`.toLowerCase();
}

/** The words of a query: every one must occur (case-insensitive). */
export function queryWords(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter((w) => w.length > 0);
}

/** Paged scans over catalog snapshots. */
export class CatalogScans {
  private readonly snapshots = new Map<string, Snapshot>();
  private readonly max: number;
  private readonly ttl: number;
  private readonly clock: () => number;

  constructor(options: CatalogScansOptions = {}) {
    this.max = options.maxSnapshots ?? 16;
    this.ttl = options.ttlMs ?? 10 * 60_000;
    this.clock = options.clock ?? Date.now;
  }

  /**
   * One page. With `cursor` null, `read` lists the store (with the exact filters
   * the store applies) and a new snapshot starts; otherwise the cursor's
   * snapshot continues, and it must belong to the same connection, filter and order.
   */
  async page(request: CatalogPageRequest, read: (filter: MetadataFilter) => Promise<SkillMetadata[]>): Promise<CatalogPage> {
    const key = JSON.stringify([request.connection, request.filter.namespace ?? null, request.filter.domain ?? null, request.filter.tag ?? null, request.sort.by, request.sort.direction]);
    let snapshot: Snapshot;
    let position = 0;
    let matchedBefore = 0;
    if (request.cursor === null) {
      const entries = [...(await read(request.filter))];
      const compare = compareBy(request.sort.by);
      entries.sort(request.sort.direction === 'asc' ? compare : (a, b) => compare(b, a));
      snapshot = { id: randomToken(9), key, entries, haystacks: undefined, readAt: new Date(this.clock()).toISOString(), created: this.clock(), matchedAt: new Map([[0, 0]]) };
      this.remember(snapshot);
    } else {
      const [id, at, matched] = request.cursor.split('.');
      const found = id === undefined ? undefined : this.snapshots.get(id);
      if (!found || this.clock() - found.created > this.ttl) {
        if (found) this.snapshots.delete(found.id);
        throw new WorkbenchError('not_found', 'this catalog scan has expired: start a fresh scan (cursor null)', { details: { reason: 'cursor_expired', pointer: '/cursor' } });
      }
      if (found.key !== key) {
        throw new WorkbenchError('invalid_request', 'the cursor belongs to a scan of another connection, filter or order: start a fresh scan', { details: { pointer: '/cursor' } });
      }
      position = Number(at);
      matchedBefore = Number(matched);
      if (!Number.isSafeInteger(position) || position < 0 || position > found.entries.length || !Number.isSafeInteger(matchedBefore) || matchedBefore < 0) {
        throw new WorkbenchError('invalid_request', 'malformed catalog cursor: start a fresh scan', { details: { pointer: '/cursor' } });
      }
      snapshot = found;
      this.remember(snapshot);
    }
    const words = queryWords(request.query);
    const items: SkillMetadata[] = [];
    const { entries } = snapshot;
    let i = position;
    if (words.length === 0) {
      items.push(...entries.slice(i, i + request.limit));
      i += items.length;
    } else {
      const haystacks = (snapshot.haystacks ??= entries.map(haystackOf));
      for (; i < entries.length && items.length < request.limit; i++) {
        const h = haystacks[i]!;
        if (words.every((w) => h.includes(w))) items.push(entries[i]!);
      }
    }
    const matched = matchedBefore + items.length;
    return {
      items,
      cursor: i < entries.length ? `${snapshot.id}.${i}.${matched}` : null,
      scanned: i,
      total: entries.length,
      matched,
      read_at: snapshot.readAt,
    };
  }

  private remember(snapshot: Snapshot): void {
    this.snapshots.delete(snapshot.id);
    this.snapshots.set(snapshot.id, snapshot);
    while (this.snapshots.size > this.max) {
      const oldest = this.snapshots.keys().next().value;
      if (oldest === undefined) break;
      this.snapshots.delete(oldest);
    }
  }
}
