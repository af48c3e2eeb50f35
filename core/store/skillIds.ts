/** Skill identities: the V1 slug rule, the `namespace/name` form, and the listing order. */
import { resolveLimits } from '../package/index';
import type { SkillAuthoringLimits, SkillId } from '../package/types';
import { StoreError } from './errors';

const SLUG = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/** True when `value` is a V1 slug (lowercase letters, digits, internal hyphens) within `maxChars`. */
export function isSlug(value: unknown, maxChars = 64): value is string {
  return typeof value === 'string' && value.length <= maxChars && SLUG.test(value);
}

/** Throws 400 `invalid_request` unless `id` is a valid `namespace/name` pair. */
export function checkSkillId(id: SkillId, limits?: Partial<SkillAuthoringLimits>): void {
  const max = resolveLimits(limits).maxNameChars;
  for (const part of ['namespace', 'name'] as const) {
    const value = (id as unknown as Record<string, unknown> | null)?.[part];
    if (!isSlug(value, max)) {
      throw new StoreError(
        'invalid_request',
        `invalid skill ${part} ${JSON.stringify(value)}: use a lowercase slug of letters, digits and internal hyphens, at most ${max} characters`,
        { details: { field: part } },
      );
    }
  }
}

/**
 * Parses `namespace/name` (the CLI and URL form) into an identity, or throws 400.
 */
export function parseSkillKey(text: string, limits?: Partial<SkillAuthoringLimits>): SkillId {
  const parts = text.split('/');
  if (parts.length !== 2) {
    throw new StoreError('invalid_request', `invalid skill identity '${text}': expected <namespace>/<name>`);
  }
  const id = { namespace: parts[0] ?? '', name: parts[1] ?? '' };
  checkSkillId(id, limits);
  return id;
}

/** Sort order of listings: namespace, then name (code-unit order, stable across adapters). */
export function compareSkillIds(a: SkillId, b: SkillId): number {
  if (a.namespace !== b.namespace) return a.namespace < b.namespace ? -1 : 1;
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return 0;
}
