/**
 * Stages 4 and 5 of the runtime lifecycle (guide 7, 10.2): load and verify the
 * content of active skills and selected resources by exact version and
 * expected hash, then admit it under the boundary's token budgets.
 *
 * What is projected: planning and continuation take `planning_instructions`,
 * synthesis takes `response_instructions`, plus the selected resources of the
 * boundary. Each skill's block and each resource's block is rendered with the
 * authored text encoded (so it cannot forge a prompt section) and estimated on
 * its own; the framework wrapper around them is not counted.
 *
 * Admission is greedy in a fixed order: main blocks in active order against the
 * main budget and the total, then resource blocks in selection order against
 * the resource budget and the total. A block that does not fit is omitted and
 * later, smaller blocks may still fit. At synthesis the total is
 * min(total, synthesis budget); the total is itself capped by the effective
 * input allowance. Required content that fails to load or to fit fails the
 * boundary; optional content is omitted with a diagnostic.
 *
 * The port is the authoritative registry (there is no local content cache), so
 * an integrity mismatch it reports is final: there is nothing to evict and reread.
 *
 * Isomorphic: no `node:` imports.
 */
import { estimateTokens, Utf8Counter } from '../package/tokens';
import type { Boundary, SkillManifest } from '../package/types';
import { isStoreError } from '../store/errors';
import type { SkillRegistryReader, SkillResourceBody } from '../store/types';
import { DEFAULT_SELECTOR_LIMITS, effectiveTotalBudget, type SelectorLimits } from './limits';
import type { SelectedResource } from './resources';
import type { ActiveSkill, SelectorDiagnostic } from './types';
import { bounded, describeError, encodeText, throwIfAborted } from './util';

/** Evidence of one content load. */
export interface ContentLoad {
  kind: 'manifest' | 'resource';
  skill: string;
  resource?: string;
  version: number;
  expected_hash: string;
  observed_hash?: string;
  result: 'ok' | 'hash_mismatch' | 'failed';
  message?: string;
}

/** Result of {@link loadManifests}. */
export interface ManifestLoadResult {
  /** Verified manifests by `namespace/name`. */
  manifests: Record<string, SkillManifest>;
  loads: ContentLoad[];
  diagnostics: SelectorDiagnostic[];
  /** Set when a required skill's manifest could not be loaded: the boundary fails. */
  failure?: SelectorDiagnostic;
}

/** Options of the registry reads. */
export interface LoadOptions {
  registry: SkillRegistryReader;
  boundary: Boundary;
  /** Per-operation timeout in ms (default 5000; 0 = none). */
  registryReadTimeoutMs?: number;
  signal?: AbortSignal;
}

function splitId(id: string): { namespace: string; name: string } {
  const slash = id.indexOf('/');
  return { namespace: id.slice(0, slash), name: id.slice(slash + 1) };
}

/** Loads the manifest of every active skill by exact version and expected hash, concurrently. */
export async function loadManifests(active: readonly ActiveSkill[], options: LoadOptions): Promise<ManifestLoadResult> {
  const timeout = options.registryReadTimeoutMs ?? DEFAULT_SELECTOR_LIMITS.registryReadTimeoutMs;
  const manifests: Record<string, SkillManifest> = Object.create(null) as Record<string, SkillManifest>;
  const loads: ContentLoad[] = [];
  const diagnostics: SelectorDiagnostic[] = [];
  let failure: SelectorDiagnostic | undefined;
  throwIfAborted(options.signal);
  const settled = await Promise.allSettled(
    active.map((a) =>
      bounded('getManifest', timeout, () => options.registry.getManifest({ ...splitId(a.skill), version: a.version, manifest_hash: a.manifest_hash })),
    ),
  );
  throwIfAborted(options.signal);
  active.forEach((a, i) => {
    const s = settled[i]!;
    const base = { kind: 'manifest' as const, skill: a.skill, version: a.version, expected_hash: a.manifest_hash };
    if (s.status === 'fulfilled' && isManifest(s.value)) {
      manifests[a.skill] = s.value;
      loads.push({ ...base, observed_hash: a.manifest_hash, result: 'ok' });
      return;
    }
    const error = s.status === 'rejected' ? s.reason : new Error('the registry returned something that is not a manifest');
    const mismatch = isStoreError(error, 'integrity_mismatch');
    const observed = mismatch ? (error.details?.['observed'] as string | undefined) : undefined;
    const message = describeError(error);
    loads.push({ ...base, result: mismatch ? 'hash_mismatch' : 'failed', message, ...(typeof observed === 'string' && { observed_hash: observed }) });
    const d: SelectorDiagnostic = {
      code: mismatch ? 'skill_manifest_hash_mismatch' : 'skill_manifest_load_failed',
      boundary: options.boundary,
      skill: a.skill,
      action: a.required ? 'boundary_failed' : 'omitted',
      message: `manifest of ${a.skill}@${a.version} ${mismatch ? 'failed integrity verification' : 'could not be loaded'}: ${message}`,
    };
    diagnostics.push(d);
    if (a.required) failure ??= d;
  });
  return failure ? { manifests, loads, diagnostics, failure } : { manifests, loads, diagnostics };
}

function isManifest(value: unknown): value is SkillManifest {
  const m = value as Partial<SkillManifest> | null;
  return (
    m !== null &&
    typeof m === 'object' &&
    Array.isArray(m.planning_instructions) &&
    Array.isArray(m.response_instructions) &&
    Array.isArray(m.resources) &&
    typeof m.display_name === 'string'
  );
}

/** Admission status of a projected block. */
export type ProjectionStatus = 'admitted' | 'omitted' | 'failed' | 'empty';

/** One active skill's main content at the boundary. */
export interface ProjectedSkill {
  skill: string;
  version: number;
  manifest_hash: string;
  required: boolean;
  status: ProjectionStatus;
  /** Estimated tokens of the skill's block (0 when it could not be loaded or is empty). */
  tokens: number;
  reason?: string;
}

/** One selected resource at the boundary. */
export interface ProjectedResource {
  skill: string;
  name: string;
  required_when_selected: boolean;
  content_hash: string;
  status: ProjectionStatus;
  tokens: number;
  reason?: string;
}

/** What the runtime admits into the prompt at one boundary. */
export interface Projection {
  boundary: Boundary;
  /** `failed` when required content could not be loaded or admitted. */
  status: 'ok' | 'failed';
  failure?: SelectorDiagnostic;
  /** Budgets in force at this boundary. */
  budgets: { main: number; resource: number; total: number };
  skills: ProjectedSkill[];
  resources: ProjectedResource[];
  totals: { mainTokens: number; resourceTokens: number; totalTokens: number };
  loads: ContentLoad[];
  diagnostics: SelectorDiagnostic[];
  /** The admitted content as it would be placed in the `<active_skills>` section ("" when nothing). */
  section: string;
}

/** Input of {@link projectBoundary}. */
export interface ProjectionInput {
  boundary: Boundary;
  /** Active skills, in admission order. */
  active: readonly ActiveSkill[];
  /** Resources selected at this boundary, in admission order. */
  resources?: readonly SelectedResource[];
  registry: SkillRegistryReader;
  limits?: SelectorLimits;
  /** Manifests already loaded by {@link loadManifests} for this boundary; loaded here when absent. */
  preloaded?: ManifestLoadResult;
  signal?: AbortSignal;
}

/** The projected main block of one skill at a boundary ("" when it has nothing for this boundary). */
export function renderSkillBlock(skill: string, manifest: SkillManifest, boundary: Boundary): string {
  const lines = boundary === 'synthesis' ? manifest.response_instructions : manifest.planning_instructions;
  if (lines.length === 0) return '';
  return [`<skill id="${encodeText(skill)}" name="${encodeText(manifest.display_name).replace(/"/g, '&quot;')}">`, ...lines.map((l) => `- ${encodeText(l)}`), '</skill>'].join('\n');
}

/** The projected block of one resource. */
export function renderResourceBlock(skill: string, name: string, content: string): string {
  return [`<skill_resource skill="${encodeText(skill)}" name="${encodeText(name)}">`, encodeText(content), '</skill_resource>'].join('\n');
}

/** A rendered block and its estimated tokens. */
interface MeasuredBlock {
  block: string;
  tokens: number;
}

/**
 * Blocks already rendered and measured, per frozen manifest or resource body.
 * An evaluation's frozen catalog serves every cell the same frozen objects, so
 * each skill's instructions and each resource are rendered and counted once; a
 * frozen source (and frozen instruction list) cannot change, so a hit is exactly
 * what rendering again would give.
 */
const measuredBlocks = new WeakMap<object, Map<string, MeasuredBlock>>();

function measured(source: object, lines: object, key: string, render: () => string, counter: Utf8Counter): MeasuredBlock {
  const memo = Object.isFrozen(source) && Object.isFrozen(lines);
  let known = memo ? measuredBlocks.get(source) : undefined;
  const hit = known?.get(key);
  if (hit) return hit;
  const block = render();
  const result = { block, tokens: block === '' ? 0 : estimateTokens(block, counter) };
  if (memo) {
    if (!known) measuredBlocks.set(source, (known = new Map()));
    known.set(key, result);
  }
  return result;
}

/**
 * Loads, verifies and admits the content of one boundary. Never throws for
 * registry or content problems (they become diagnostics); rethrows cancellation.
 */
export async function projectBoundary(input: ProjectionInput): Promise<Projection> {
  const limits = input.limits ?? DEFAULT_SELECTOR_LIMITS;
  const { boundary } = input;
  const loadOptions: LoadOptions = { registry: input.registry, boundary, registryReadTimeoutMs: limits.registryReadTimeoutMs, ...(input.signal && { signal: input.signal }) };
  const manifestLoad = input.preloaded ?? (await loadManifests(input.active, loadOptions));
  const diagnostics: SelectorDiagnostic[] = [];
  const loads: ContentLoad[] = [...manifestLoad.loads];
  let failure: SelectorDiagnostic | undefined = manifestLoad.failure;
  let total = effectiveTotalBudget(limits);
  if (boundary === 'synthesis') total = Math.min(total, limits.synthesisTokenBudget);
  const budgets = { main: limits.mainTokenBudget, resource: limits.resourceTokenBudget, total };
  const fail = (d: SelectorDiagnostic) => {
    diagnostics.push(d);
    if (d.action === 'boundary_failed') failure ??= d;
  };

  // Resource bodies load concurrently with nothing else left to wait for.
  const selected = input.resources ?? [];
  const timeout = limits.registryReadTimeoutMs;
  throwIfAborted(input.signal);
  const bodies = await Promise.allSettled(
    selected.map((r) => {
      const owner = input.active.find((a) => a.skill === r.skill);
      if (!owner) return Promise.reject(new Error(`${r.skill} is not active`));
      return bounded('getResource', timeout, () =>
        input.registry.getResource({
          skill: { ...splitId(r.skill), version: owner.version, manifest_hash: owner.manifest_hash },
          name: r.name,
          expected_hash: r.content_hash,
        }),
      );
    }),
  );
  throwIfAborted(input.signal);

  // Measures the blocks of this projection through the native UTF-8 encoder.
  const counter = new Utf8Counter();
  let mainTokens = 0;
  let resourceTokens = 0;
  const blocks: string[] = [];
  const skills: ProjectedSkill[] = [];
  const projectedSkills = new Set<string>();
  for (const a of input.active) {
    const base = { skill: a.skill, version: a.version, manifest_hash: a.manifest_hash, required: a.required };
    const manifest = manifestLoad.manifests[a.skill];
    if (!manifest) {
      skills.push({ ...base, status: a.required ? 'failed' : 'omitted', tokens: 0, reason: 'manifest unavailable' });
      continue;
    }
    const lines = boundary === 'synthesis' ? manifest.response_instructions : manifest.planning_instructions;
    const { block, tokens } = measured(manifest, lines, `${a.skill}\n${boundary === 'synthesis' ? 'response' : 'planning'}`, () => renderSkillBlock(a.skill, manifest, boundary), counter);
    if (block === '') {
      skills.push({ ...base, status: 'empty', tokens: 0 });
      projectedSkills.add(a.skill);
      continue;
    }
    const over =
      mainTokens + tokens > budgets.main
        ? `main budget (${mainTokens} + ${tokens} > ${budgets.main})`
        : mainTokens + resourceTokens + tokens > budgets.total
          ? `total budget (${mainTokens + resourceTokens} + ${tokens} > ${budgets.total})`
          : undefined;
    if (over !== undefined) {
      skills.push({ ...base, status: a.required ? 'failed' : 'omitted', tokens, reason: `over the ${over}` });
      fail({
        code: 'skill_budget_exceeded',
        boundary,
        skill: a.skill,
        action: a.required ? 'boundary_failed' : 'omitted',
        message: `${a.skill} instructions (${tokens} estimated tokens) do not fit the ${over}`,
      });
      continue;
    }
    mainTokens += tokens;
    blocks.push(block);
    skills.push({ ...base, status: 'admitted', tokens });
    projectedSkills.add(a.skill);
  }

  const resources: ProjectedResource[] = [];
  selected.forEach((r, i) => {
    const base = { skill: r.skill, name: r.name, required_when_selected: r.required_when_selected, content_hash: r.content_hash };
    const action = r.required_when_selected ? ('boundary_failed' as const) : ('omitted' as const);
    const status: ProjectionStatus = r.required_when_selected ? 'failed' : 'omitted';
    const s = bodies[i]!;
    const owner = input.active.find((a) => a.skill === r.skill);
    const loadBase = { kind: 'resource' as const, skill: r.skill, resource: r.name, version: owner?.version ?? 0, expected_hash: r.content_hash };
    let body: SkillResourceBody | undefined;
    if (s.status === 'fulfilled') {
      const value = s.value as Partial<SkillResourceBody> | null;
      if (value && typeof value.content === 'string' && value.content_hash === r.content_hash) {
        body = value as SkillResourceBody;
        loads.push({ ...loadBase, observed_hash: r.content_hash, result: 'ok' });
      } else {
        const observed = typeof value?.content_hash === 'string' ? value.content_hash : undefined;
        loads.push({ ...loadBase, result: 'hash_mismatch', message: 'the returned body does not carry the expected hash', ...(observed !== undefined && { observed_hash: observed }) });
        fail({ code: 'skill_resource_hash_mismatch', boundary, skill: r.skill, resource: r.name, action, message: `resource ${r.skill}#${r.name} failed integrity verification` });
      }
    } else {
      const mismatch = isStoreError(s.reason, 'integrity_mismatch');
      const message = describeError(s.reason);
      const observed = mismatch ? (s.reason.details?.['observed'] as string | undefined) : undefined;
      loads.push({ ...loadBase, result: mismatch ? 'hash_mismatch' : 'failed', message, ...(typeof observed === 'string' && { observed_hash: observed }) });
      fail({
        code: mismatch ? 'skill_resource_hash_mismatch' : 'skill_resource_load_failed',
        boundary,
        skill: r.skill,
        resource: r.name,
        action,
        message: `resource ${r.skill}#${r.name} ${mismatch ? 'failed integrity verification' : 'could not be loaded'}: ${message}`,
      });
    }
    if (!body) {
      resources.push({ ...base, status, tokens: 0, reason: 'content unavailable' });
      return;
    }
    const content = body.content;
    const { block, tokens } = measured(body, body, `${r.skill}\n${r.name}`, () => renderResourceBlock(r.skill, r.name, content), counter);
    if (!projectedSkills.has(r.skill)) {
      resources.push({ ...base, status, tokens, reason: 'its skill was not projected' });
      fail({ code: 'skill_content_omitted', boundary, skill: r.skill, resource: r.name, action, message: `resource ${r.skill}#${r.name} omitted: the instructions of ${r.skill} were not projected at this boundary` });
      return;
    }
    const over =
      resourceTokens + tokens > budgets.resource
        ? `resource budget (${resourceTokens} + ${tokens} > ${budgets.resource})`
        : mainTokens + resourceTokens + tokens > budgets.total
          ? `total budget (${mainTokens + resourceTokens} + ${tokens} > ${budgets.total})`
          : undefined;
    if (over !== undefined) {
      resources.push({ ...base, status, tokens, reason: `over the ${over}` });
      fail({ code: 'skill_resource_budget_exceeded', boundary, skill: r.skill, resource: r.name, action, message: `resource ${r.skill}#${r.name} (${tokens} estimated tokens) does not fit the ${over}` });
      return;
    }
    resourceTokens += tokens;
    blocks.push(block);
    resources.push({ ...base, status: 'admitted', tokens });
  });

  const projection: Projection = {
    boundary,
    status: failure ? 'failed' : 'ok',
    budgets,
    skills,
    resources,
    totals: { mainTokens, resourceTokens, totalTokens: mainTokens + resourceTokens },
    loads,
    diagnostics: [...manifestLoad.diagnostics, ...diagnostics],
    section: blocks.join('\n'),
  };
  if (failure) projection.failure = failure;
  return projection;
}
