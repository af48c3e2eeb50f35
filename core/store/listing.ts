/** Catalog listing filters (guide section 11): checked once, then matched the same way by every store. */
import { StoreError } from './errors';
import { isSlug } from './skillIds';
import type { MetadataFilter } from './types';

/** Validates a metadata filter (400 on a non-slug value or a bad limit) and returns it normalized. */
export function checkMetadataFilter(filter: MetadataFilter | undefined): MetadataFilter {
  const out: MetadataFilter = {};
  for (const key of ['namespace', 'domain', 'tag'] as const) {
    const value = filter?.[key];
    if (value === undefined) continue;
    if (!isSlug(value)) throw new StoreError('invalid_request', `invalid ${key} filter ${JSON.stringify(value)}: expected a lowercase slug`);
    out[key] = value;
  }
  if (filter?.limit !== undefined) {
    if (!Number.isSafeInteger(filter.limit) || filter.limit < 1) {
      throw new StoreError('invalid_request', `limit must be a positive integer, got ${String(filter.limit)}`);
    }
    out.limit = filter.limit;
  }
  return out;
}

/** True when a catalog entry passes every given filter (exact matches, combined with AND). */
export function matchesFilter(
  entry: { namespace: string; domains: readonly string[]; tags: readonly string[] },
  filter: MetadataFilter,
): boolean {
  if (filter.namespace !== undefined && entry.namespace !== filter.namespace) return false;
  if (filter.domain !== undefined && !entry.domains.includes(filter.domain)) return false;
  if (filter.tag !== undefined && !entry.tags.includes(filter.tag)) return false;
  return true;
}
