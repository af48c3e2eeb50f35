/**
 * The editor's meters: description, manifest, resources and package against
 * their authoring limits, and the skill's catalog entry against the agent's
 * catalog token budget (guide 9.10, 2,000 by default). Every figure comes from
 * one validation result (its metrics and its normalized package), the same
 * result the problems panel lists, so a meter and a finding cannot disagree.
 * Pure: no DOM.
 */
import { estimateTokens, Utf8Counter } from '../../core/package/tokens';
import type { PackageCheck } from '../../core/package/validate';
import type { SkillAuthoringLimits, SkillId } from '../../core/package/types';
import { skillKey } from '../../core/package/types';
import { DEFAULT_SELECTOR_LIMITS } from '../../core/selector/limits';
import { renderCatalog } from '../../core/selector/render';

/** `ok` below 80 % of the limit, `amber` from 80 % up to the limit, `red` over it. */
export type MeterLevel = 'ok' | 'amber' | 'red';

/** One meter. `used` is null when the document cannot be measured (it does not parse). */
export interface PackageMeter {
  id: 'description' | 'manifest' | 'resources' | 'largest-resource' | 'package' | 'catalog';
  label: string;
  used: number | null;
  limit: number;
  unit: string;
  level: MeterLevel;
  /** A sentence for the tooltip. */
  title: string;
  /** The JSON Pointer a click on the meter goes to. */
  pointer: string;
}

/** The share of a limit from which a meter turns amber. */
export const AMBER_SHARE = 0.8;

/** The level of `used` against `limit`. */
export function meterLevel(used: number | null, limit: number): MeterLevel {
  if (used === null || limit <= 0) return 'ok';
  if (used > limit) return 'red';
  return used >= limit * AMBER_SHARE ? 'amber' : 'ok';
}

function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Estimated tokens of the skill's line in the agent's activation catalog. */
export function catalogEntryTokens(check: PackageCheck, id: SkillId | undefined): number | null {
  const pkg = check.normalized;
  if (!pkg) return null;
  const skill = id ? skillKey(id) : 'namespace/name';
  return renderCatalog([{ skill, display_name: pkg.display_name, description: pkg.description, domains: pkg.domains, tags: pkg.tags }]).tokens;
}

/** The meters of one validation result. */
export function packageMeters(check: PackageCheck, limits: SkillAuthoringLimits, id?: SkillId, catalogBudget: number = DEFAULT_SELECTOR_LIMITS.catalogTokenBudget): PackageMeter[] {
  const pkg = check.normalized;
  const m = check.metrics;
  const measured = pkg !== undefined;
  const counter = new Utf8Counter();
  const largest = pkg ? pkg.resources.reduce((max, r) => Math.max(max, estimateTokens(r.content, counter)), 0) : null;
  const make = (id: PackageMeter['id'], label: string, used: number | null, limit: number, unit: string, title: string, pointer: string): PackageMeter => ({
    id,
    label,
    used,
    limit,
    unit,
    level: meterLevel(used, limit),
    title: used === null ? `${title}: fix the errors that stop the package from being read to measure it` : `${title}: ${used.toLocaleString('en')} of ${limit.toLocaleString('en')} ${unit}`,
    pointer,
  });
  return [
    make('description', 'Description', pkg ? codePoints(pkg.description) : null, limits.maxDescriptionChars, 'chars', 'Description length against its limit', '/description'),
    make('manifest', 'Manifest', measured ? m.manifest_tokens : null, limits.maxManifestTokens, 'tok', 'Instructions and tool hints (the manifest) against its token limit', '/planning_instructions'),
    make('resources', 'Resources', measured ? m.resource_count : null, limits.maxResources, '', 'Number of resources against the limit', '/resources'),
    make('largest-resource', 'Largest resource', largest, limits.maxResourceTokens, 'tok', 'The largest resource against the per-resource token limit', '/resources'),
    make('package', 'Package', measured ? m.package_bytes : null, limits.maxPackageBytes, 'B', 'Package size against its byte limit', ''),
    make('catalog', 'Catalog entry', catalogEntryTokens(check, id), catalogBudget, 'tok', `This skill's catalog entry against the agent's ${catalogBudget.toLocaleString('en')}-token catalog budget`, '/description'),
  ];
}
