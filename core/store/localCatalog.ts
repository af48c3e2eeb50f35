/**
 * The catalog of the embedded registry: `catalog/<xx>.json` shards, each mapping
 * `namespace/name` to the skill's catalog entry, sharded by the first byte of the
 * identity's SHA-256. Written after each commit; rebuilt from the skills' states by
 * the repair (see docs/local-layout.md).
 *
 * Node-only: uses node:fs.
 */
import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { SkillId } from '../package/types';
import { StoreError } from './errors';
import { writeFileAtomic } from '../fs/atomic';
import { fileKey, readJsonSync, readWithKey, removeTemps } from './localFiles';
import { FORMAT } from './localState';
import type { SkillMetadata } from './types';
import { isErrno } from '../fs/errno';

const CATALOG_SHARD_HEX = 2;

interface CatalogShard {
  format: number;
  skills: Record<string, SkillMetadata>;
}

function storeError(error: unknown, what: string): StoreError {
  if (error instanceof StoreError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new StoreError('unavailable', `local registry: ${what} failed: ${message}`, { cause: error });
}

/** The catalog folder of one registry, with a cache of parsed shards. */
export class LocalCatalog {
  private readonly dir: string;
  private readonly cache = new Map<string, { key: string; shard: CatalogShard }>();

  constructor(
    registry: string,
    private readonly durable: boolean,
  ) {
    this.dir = join(registry, 'catalog');
  }

  /** The shard file that holds the entry of `id`. */
  shardPath(id: SkillId): string {
    const shard = createHash('sha256').update(`${id.namespace}/${id.name}`).digest('hex').slice(0, CATALOG_SHARD_HEX);
    return join(this.dir, `${shard}.json`);
  }

  /**
   * Every entry of every shard. Parsed shards are kept while the file's identity
   * (inode, size, mtime) is unchanged: writers always rename a new file into place.
   */
  async entries(): Promise<SkillMetadata[]> {
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((n) => n.endsWith('.json'));
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return [];
      throw storeError(error, 'listing the catalog');
    }
    const shards = await Promise.all(
      names.map(async (n): Promise<CatalogShard> => {
        const path = join(this.dir, n);
        try {
          const cached = this.cache.get(path);
          if (cached && cached.key === fileKey(await stat(path, { bigint: true }))) return cached.shard;
          const { key, text } = await readWithKey(path);
          const shard = JSON.parse(text) as CatalogShard;
          this.cache.set(path, { key, shard });
          return shard;
        } catch (error) {
          if (isErrno(error, 'ENOENT')) return { format: FORMAT, skills: {} };
          throw storeError(error, 'reading the catalog');
        }
      }),
    );
    return shards.flatMap((shard) => Object.values(shard.skills));
  }

  /** Writes (or with `undefined` removes) the entry of `id`; only under the registry lock. */
  async update(id: SkillId, metadata: SkillMetadata | undefined): Promise<void> {
    const path = this.shardPath(id);
    let shard: CatalogShard | undefined;
    try {
      shard = readJsonSync<CatalogShard>(path);
    } catch {
      shard = undefined;
    }
    const skills = { ...(shard?.skills ?? {}) };
    const key = `${id.namespace}/${id.name}`;
    if (metadata) skills[key] = metadata;
    else delete skills[key];
    await writeFileAtomic(path, JSON.stringify({ format: FORMAT, skills }), { durable: this.durable });
  }

  /** Replaces the whole catalog with `entries`; only under the registry lock. */
  async replaceAll(entries: readonly SkillMetadata[]): Promise<void> {
    const shards = new Map<string, Record<string, SkillMetadata>>();
    for (const n of await readdir(this.dir).catch((): string[] => [])) {
      if (n.endsWith('.json')) shards.set(join(this.dir, n), {});
    }
    for (const entry of entries) {
      const path = this.shardPath(entry);
      const skills = shards.get(path) ?? {};
      skills[`${entry.namespace}/${entry.name}`] = entry;
      shards.set(path, skills);
    }
    for (const [path, skills] of shards) await writeFileAtomic(path, JSON.stringify({ format: FORMAT, skills }), { durable: this.durable });
  }

  /** Drops temp files a crashed writer left in the catalog folder. */
  removeTemps(): Promise<void> {
    return removeTemps(this.dir);
  }
}
