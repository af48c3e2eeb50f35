/**
 * A skill's version history as every store answers it (guide sections 5.4, 10.5):
 * the state-free and state checks of a deletion range, the protection of the
 * published version and its predecessor, and history paging.
 */
import { StoreError } from './errors';
import { etagMatches, parseEtagList } from './etag';
import { checkSkillId } from './skillIds';
import type { DeleteRequest, SkillAdministrationLimits, VersionEntry, VersionPage, VersionQuery } from './types';

/** Default administration limits (guide section 9.11). */
export const DEFAULT_ADMINISTRATION_LIMITS: SkillAdministrationLimits = Object.freeze({ maxDeleteVersions: 100 });

/** Default and maximum page size of `listVersions`. */
export const VERSION_PAGE_DEFAULT = 20;

/** Largest page `listVersions` returns; larger requests are clamped to it. */
export const VERSION_PAGE_MAX = 100;

/**
 * The state-free checks of a deletion, in order: identity, numbers, order and width
 * (400), audit reason (400), If-Match present (428) and well formed (400). Returns
 * the versions of the inclusive range, ascending.
 */
export function checkDeleteRequest(request: DeleteRequest, limits?: Partial<SkillAdministrationLimits>): number[] {
  const { maxDeleteVersions } = { ...DEFAULT_ADMINISTRATION_LIMITS, ...limits };
  checkSkillId(request.id);
  const { from, to } = request;
  if (!Number.isSafeInteger(from) || from < 1 || !Number.isSafeInteger(to) || to < 1) {
    throw new StoreError('invalid_request', `versions must be positive integers, got ${String(from)}-${String(to)}`);
  }
  if (from > to) throw new StoreError('invalid_request', `invalid range ${from}-${to}: from must not exceed to`);
  const width = to - from + 1;
  if (width > maxDeleteVersions) {
    throw new StoreError('invalid_request', `range ${from}-${to} spans ${width} versions, above the limit of ${maxDeleteVersions}`, {
      details: { width, limit: maxDeleteVersions },
    });
  }
  if (typeof request.reason !== 'string' || request.reason.trim().length === 0) {
    throw new StoreError('invalid_request', 'deletion requires an audit reason (X-Audit-Reason)');
  }
  if (request.ifMatch === undefined || request.ifMatch.trim().length === 0) {
    throw new StoreError('precondition_required', 'deletion requires If-Match with the current ETag of the skill');
  }
  if (parseEtagList(request.ifMatch) === undefined) {
    throw new StoreError('invalid_request', `malformed If-Match value ${JSON.stringify(request.ifMatch)}: expected a quoted entity tag`);
  }
  const versions: number[] = [];
  for (let v = from; v <= to; v++) versions.push(v);
  return versions;
}

/**
 * Checks a deletion request against the skill's state and returns the versions of
 * the inclusive range, ascending. After {@link checkDeleteRequest}: If-Match current
 * (412, when `currentEtag` is given), protection of published and published−1 (409),
 * then versions that never existed (404). Nothing is deleted on any failure.
 */
export function checkDeleteRange(
  request: DeleteRequest,
  limits: Partial<SkillAdministrationLimits> | undefined,
  publishedVersion: number,
  currentEtag?: string,
): number[] {
  const versions = checkDeleteRequest(request, limits);
  const { from, to } = request;
  if (currentEtag !== undefined && !etagMatches(request.ifMatch ?? '', currentEtag)) {
    throw new StoreError('precondition_failed', 'the ETag is out of date: read the skill again and retry with its current ETag', {
      details: { current_etag: currentEtag },
    });
  }
  const protectedFrom = Math.max(1, publishedVersion - 1);
  if (to >= protectedFrom && from <= publishedVersion) {
    throw new StoreError(
      'conflict',
      `versions ${protectedFrom}-${publishedVersion} are protected (published and its predecessor); nothing was deleted`,
      { details: { reason: 'protected_version', published: publishedVersion } },
    );
  }
  if (to > publishedVersion) {
    throw new StoreError('not_found', `version ${to} does not exist (latest is ${publishedVersion}); nothing was deleted`);
  }
  return versions;
}

/** The state-free checks of a version query: 400 on bad numbers, limit clamped to 1..100 (default 20). */
export function clampVersionQuery(query: VersionQuery | undefined): { before: number | undefined; limit: number } {
  const before = query?.before;
  if (before !== undefined && (!Number.isSafeInteger(before) || before < 1)) {
    throw new StoreError('invalid_request', `before must be a positive integer, got ${String(before)}`);
  }
  const limit = query?.limit;
  if (limit === undefined) return { before, limit: VERSION_PAGE_DEFAULT };
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new StoreError('invalid_request', `limit must be a positive integer, got ${String(limit)}`);
  }
  return { before, limit: Math.min(limit, VERSION_PAGE_MAX) };
}

/** The protection marker of `version` when `published` is the current revision. */
export function protectionFor(version: number, published: number): VersionEntry['protection'] {
  if (version === published) return 'published';
  if (version === published - 1) return 'protected';
  return undefined;
}

/**
 * One page of history, newest first, from every entry of a skill (any order,
 * tombstones included). `next_before` is set when older entries remain.
 */
export function pageVersions(entries: readonly VersionEntry[], query: VersionQuery | undefined): VersionPage {
  const { before, limit } = clampVersionQuery(query);
  const older = entries
    .filter((e) => before === undefined || e.version < before)
    .sort((a, b) => b.version - a.version);
  const page = older.slice(0, limit);
  const last = page[page.length - 1];
  return { versions: page, next_before: older.length > limit && last ? last.version : null };
}
