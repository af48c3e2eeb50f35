/**
 * The catalog of the embedded registry: `catalog/<xx>.json` shards, each mapping
 * `namespace/name` to the skill's catalog entry, sharded by the first byte of the
 * identity's SHA-256, and `catalog/shards.json`, the index of the shards that must
 * exist. Written after each commit; rebuilt from the skills' states by the repair
 * (see docs/local-layout.md).
 *
 * The index is what lets a read tell a damaged catalog from a small one: a shard
 * the index lists but the folder lacks, a shard or an index that does not parse,
 * or no index at all (a deleted `catalog/` folder, or a registry written before
 * the index existed) is damage, reported to the store, which rebuilds the catalog
 * from the committed states instead of serving a catalog with skills missing.
 *
 * Node-only: uses node:fs.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { SkillId } from '../package/types';
import { StoreError } from './errors';
import { writeFileAtomic } from '../fs/atomic';
import { fileKey } from '../fs/fileKey';
import { createOnce, readJsonSync, readWithKey, removeTemps } from './localFiles';
import { FORMAT } from './localState';
import type { SkillMetadata } from './types';
import { isErrno } from '../fs/errno';

const CATALOG_SHARD_HEX = 2;

/** The index of the shards that must exist. */
export const CATALOG_INDEX = 'shards.json';

/** A shard file's name (`<2 hex>.json`). */
const SHARD_FILE = /^[0-9a-f]{2}\.json$/;

interface CatalogShard {
  format: number;
  skills: Record<string, SkillMetadata>;
}

interface CatalogIndex {
  format: number;
  /** Shard names (`<2 hex>`), sorted: each must exist as `<name>.json`. */
  shards: string[];
}

/** The text of an index listing `shards`. */
export function catalogIndexText(shards: Iterable<string>): string {
  return JSON.stringify({ format: FORMAT, shards: [...new Set(shards)].sort() } satisfies CatalogIndex);
}

function isIndex(value: unknown): value is CatalogIndex {
  const v = value as Partial<CatalogIndex> | null;
  return typeof v === 'object' && v !== null && Array.isArray(v.shards) && v.shards.every((s) => typeof s === 'string' && SHARD_FILE.test(`${s}.json`));
}

function isShard(value: unknown): value is CatalogShard {
  const v = value as Partial<CatalogShard> | null;
  return typeof v === 'object' && v !== null && typeof v.skills === 'object' && v.skills !== null && !Array.isArray(v.skills);
}

/** What a read of the catalog found: its entries, or why they cannot be trusted. */
export type CatalogListing = { entries: SkillMetadata[]; damage?: undefined } | { entries?: undefined; damage: string };

function storeError(error: unknown, what: string): StoreError {
  if (error instanceof StoreError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new StoreError('unavailable', `local registry: ${what} failed: ${message}`, { cause: error });
}

/** The catalog folder of one registry, with a cache of parsed shards. */
export class LocalCatalog {
  private readonly dir: string;
  private readonly cache = new Map<string, { key: string; value: unknown }>();

  constructor(
    registry: string,
    private readonly durable: boolean,
  ) {
    this.dir = join(registry, 'catalog');
  }

  /** The name (`<2 hex>`) of the shard that holds the entry of `id`. */
  private shardName(id: SkillId): string {
    return createHash('sha256').update(`${id.namespace}/${id.name}`).digest('hex').slice(0, CATALOG_SHARD_HEX);
  }

  /** The shard file that holds the entry of `id`. */
  shardPath(id: SkillId): string {
    return join(this.dir, `${this.shardName(id)}.json`);
  }

  /**
   * Every entry of every shard, or the damage found instead (see the module
   * comment). Parsed shards and the index are kept while the file's identity
   * (inode, size, mtime) is unchanged: writers always rename a new file into place.
   */
  async entries(): Promise<CatalogListing> {
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((n) => SHARD_FILE.test(n));
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return { damage: 'the catalog folder is missing' };
      throw storeError(error, 'listing the catalog');
    }
    const index = await this.readCached(join(this.dir, CATALOG_INDEX), isIndex);
    if (index === undefined) return { damage: `the catalog index ${CATALOG_INDEX} is missing` };
    if (index === 'damaged') return { damage: `the catalog index ${CATALOG_INDEX} is damaged` };
    const present = new Set(names);
    const missing = index.shards.filter((s) => !present.has(`${s}.json`));
    if (missing.length > 0) return { damage: `catalog shard ${missing.slice(0, 3).map((s) => `${s}.json`).join(', ')}${missing.length > 3 ? ', …' : ''} is missing` };
    const shards = await Promise.all(names.map((n) => this.readCached(join(this.dir, n), isShard)));
    const entries: SkillMetadata[] = [];
    for (const [i, shard] of shards.entries()) {
      // Removed since the listing (a rebuild under way elsewhere): nothing of it to serve.
      if (shard === undefined) continue;
      if (shard === 'damaged') return { damage: `catalog shard ${names[i]} is damaged` };
      entries.push(...Object.values(shard.skills));
    }
    return { entries };
  }

  /** A parsed catalog file, reused while unchanged; undefined when absent, `damaged` when it does not parse as `check` wants. */
  private async readCached<T>(path: string, check: (value: unknown) => value is T): Promise<T | 'damaged' | undefined> {
    try {
      const cached = this.cache.get(path);
      if (cached && cached.key === fileKey(await stat(path, { bigint: true }))) return cached.value as T;
      const { key, text } = await readWithKey(path);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return 'damaged';
      }
      if (!check(value)) return 'damaged';
      this.cache.set(path, { key, value });
      return value;
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return undefined;
      throw storeError(error, 'reading the catalog');
    }
  }

  /**
   * Writes the index for a registry created just now, unless one is there: the file
   * is complete before it is linked into place, so a reader never sees it torn.
   */
  async createIndex(): Promise<void> {
    await createOnce(join(this.dir, CATALOG_INDEX), catalogIndexText([]));
  }

  /**
   * Writes (or with `undefined` removes) the entry of `id`; only under the registry
   * lock. Returns false, writing nothing, when the catalog is damaged (the shard of
   * `id` is listed but missing or does not parse, or the index is missing or
   * damaged): the caller then rebuilds the whole catalog.
   */
  async update(id: SkillId, metadata: SkillMetadata | undefined): Promise<boolean> {
    const path = this.shardPath(id);
    const name = this.shardName(id);
    const index = readIndexSync(join(this.dir, CATALOG_INDEX));
    if (index === undefined || index === 'damaged') return false;
    let shard: unknown;
    try {
      shard = readJsonSync<unknown>(path);
    } catch {
      return false;
    }
    const listed = index.shards.includes(name);
    if (shard === undefined ? listed : !isShard(shard)) return false;
    const skills = { ...((shard as CatalogShard | undefined)?.skills ?? {}) };
    const key = `${id.namespace}/${id.name}`;
    if (metadata) skills[key] = metadata;
    else delete skills[key];
    await writeFileAtomic(path, JSON.stringify({ format: FORMAT, skills }), { durable: this.durable });
    // A new shard is listed once it exists: a crash in between leaves a shard the index does not name yet, which is read all the same.
    if (!listed) await writeFileAtomic(join(this.dir, CATALOG_INDEX), catalogIndexText([...index.shards, name]), { durable: this.durable });
    return true;
  }

  /** Replaces the whole catalog with `entries`, and its index; only under the registry lock. */
  async replaceAll(entries: readonly SkillMetadata[]): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    const shards = new Map<string, Record<string, SkillMetadata>>();
    for (const n of readdirSync(this.dir)) {
      if (SHARD_FILE.test(n)) shards.set(n.slice(0, -'.json'.length), {});
    }
    for (const entry of entries) {
      const name = this.shardName(entry);
      const skills = shards.get(name) ?? {};
      skills[`${entry.namespace}/${entry.name}`] = entry;
      shards.set(name, skills);
    }
    for (const [name, skills] of shards) await writeFileAtomic(join(this.dir, `${name}.json`), JSON.stringify({ format: FORMAT, skills }), { durable: this.durable });
    await writeFileAtomic(join(this.dir, CATALOG_INDEX), catalogIndexText(shards.keys()), { durable: this.durable });
  }

  /** Drops temp files a crashed writer left in the catalog folder. */
  removeTemps(): Promise<void> {
    return removeTemps(this.dir);
  }
}

function readIndexSync(path: string): CatalogIndex | 'damaged' | undefined {
  try {
    const value = readJsonSync<unknown>(path);
    return value === undefined ? undefined : isIndex(value) ? value : 'damaged';
  } catch {
    return 'damaged';
  }
}
