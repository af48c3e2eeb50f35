/**
 * Stage 3 of the runtime lifecycle (guide 7, 9.7): resource selection at one
 * boundary. The body-free catalog is built from the loaded manifests of active
 * skills, filtered by `applies_to` (empty = every boundary). Trusted host
 * requests are admitted first when valid; the model selector picks from the
 * rest, with prior selections of the execution as context. Admission applies
 * the per-phase and per-execution count limits in a deterministic order:
 * trusted requests in the order given, then model picks in catalog order.
 *
 * Isomorphic: no `node:` imports.
 */
import type { ModelClient } from '../models/types';
import type { Boundary, ResourceIndexEntry, SkillManifest } from '../package/types';
import { compareIds } from './bindings';
import { runSelectorCall } from './call';
import { decodeResources } from './decode';
import { isDeeplyFrozen } from '../frozen';
import { DEFAULT_SELECTOR_LIMITS, type SelectorLimits } from './limits';
import type { PromptTemplate } from './prompts/template';
import { RESOURCE_OUTPUT_FORMAT, RESOURCE_TEMPLATE_V1 } from './prompts/resource-v1';
import { renderCatalog, renderContext, renderGuidance, renderPriorSelections, renderRequest, type RenderedCatalog, type ResourceCatalogEntry } from './render';
import type {
  ResourceHistoryEntry,
  ResourceSelection,
  ResourceSource,
  SelectionContext,
  SelectionState,
  SelectorCallTrace,
  SelectorDiagnostic,
} from './types';

/** Most entries one trusted resource request list may carry. */
export const MAX_TRUSTED_RESOURCES = 32;

/** A resource chosen at a boundary, with what projection needs to load it. */
export interface SelectedResource extends ResourceSelection {
  source: ResourceSource;
  required_when_selected: boolean;
  content_hash: string;
  content_type: ResourceIndexEntry['content_type'];
}

/** Input of {@link selectResources}. */
export interface ResourceSelectionInput {
  state: SelectionState;
  /** Loaded manifests of active skills, by `namespace/name`; skills without one offer no resources. */
  manifests: Readonly<Record<string, SkillManifest>>;
  boundary: Boundary;
  request: string;
  model?: ModelClient;
  limits?: SelectorLimits;
  /** Trusted host requests: `{skill, name}` or `namespace/name#resource`. */
  trustedResources?: readonly (ResourceSelection | string)[];
  context?: SelectionContext;
  template?: PromptTemplate;
  signal?: AbortSignal;
}

/** Result of {@link selectResources}. */
export interface ResourceSelectionOutcome {
  /** State with this boundary's admitted selections appended to the history. */
  state: SelectionState;
  /** Admitted at this boundary, in admission order. */
  selected: SelectedResource[];
  /** Resource ids (`ns/name#resource`) the selector was offered, in catalog order. */
  catalog: string[];
  diagnostics: SelectorDiagnostic[];
  calls: SelectorCallTrace[];
  /** Set when a selected `required_when_selected` resource could not be admitted: the boundary fails. */
  failure?: SelectorDiagnostic;
}

/** `namespace/name#resource`, the resource identity used in task options and messages. */
export function resourceKey(r: ResourceSelection): string {
  return `${r.skill}#${r.name}`;
}

interface Entry {
  skill: string;
  index: ResourceIndexEntry;
}

function parseTrusted(value: ResourceSelection | string): ResourceSelection | undefined {
  if (typeof value !== 'string') {
    return typeof value?.skill === 'string' && typeof value?.name === 'string' ? { skill: value.skill.trim().toLowerCase(), name: value.name.trim().toLowerCase() } : undefined;
  }
  const hash = value.indexOf('#');
  if (hash <= 0) return undefined;
  return { skill: value.slice(0, hash).trim().toLowerCase(), name: value.slice(hash + 1).trim().toLowerCase() };
}

/** Selects the resources of one boundary; see the module comment for the order of the rules. */
export async function selectResources(input: ResourceSelectionInput): Promise<ResourceSelectionOutcome> {
  const limits = input.limits ?? DEFAULT_SELECTOR_LIMITS;
  const { boundary, state } = input;
  const diagnostics: SelectorDiagnostic[] = [];
  const calls: SelectorCallTrace[] = [];
  let failure: SelectorDiagnostic | undefined;

  // Eligible entries: active skills with a loaded manifest, resources whose scope includes this boundary.
  const activeIds = state.active.map((a) => a.skill).sort(compareIds);
  const lists = activeIds.flatMap((skill) => (Object.hasOwn(input.manifests, skill) ? [eligibleEntries(input.manifests[skill]!, skill, boundary)] : []));
  // One skill's list (the usual case) is offered as it is, so its offer is memoised too.
  const eligible: readonly Entry[] = lists.length === 1 ? lists[0]! : lists.flat();

  const pending: { entry: Entry; source: ResourceSource }[] = [];
  const trustedKeys = new Set<string>();
  const trustedList = input.trustedResources ?? [];
  if (trustedList.length > MAX_TRUSTED_RESOURCES) {
    diagnostics.push({
      code: 'skill_trusted_resource_ineligible',
      boundary,
      action: 'ignored',
      message: `the trusted resource list has ${trustedList.length} entries, above the limit of ${MAX_TRUSTED_RESOURCES}; the whole list is ignored`,
    });
  } else if (trustedList.length > 0) {
    const byKey = new Map(eligible.map((e) => [`${e.skill}#${e.index.name}`, e]));
    for (const raw of trustedList) {
      const ref = parseTrusted(raw);
      if (!ref) {
        diagnostics.push({ code: 'skill_trusted_resource_ineligible', boundary, action: 'ignored', message: `trusted resource request ${JSON.stringify(raw)} is not a {skill, name} pair` });
        continue;
      }
      const key = resourceKey(ref);
      if (trustedKeys.has(key)) continue;
      const entry = byKey.get(key);
      if (!entry) {
        const why = !state.active.some((a) => a.skill === ref.skill)
          ? `${ref.skill} is not an active skill`
          : !Object.hasOwn(input.manifests, ref.skill)
            ? `the manifest of ${ref.skill} is not loaded`
            : input.manifests[ref.skill]!.resources.some((r) => r.name === ref.name)
              ? `it does not apply to the ${boundary} boundary`
              : `the pinned manifest has no resource '${ref.name}'`;
        diagnostics.push({ code: 'skill_trusted_resource_ineligible', boundary, skill: ref.skill, resource: ref.name, action: 'ignored', message: `trusted resource request ${key} ignored: ${why}` });
        continue;
      }
      trustedKeys.add(key);
      pending.push({ entry, source: 'trusted' });
    }
  }

  const remaining = trustedKeys.size === 0 ? eligible : eligible.filter((e) => !trustedKeys.has(`${e.skill}#${e.index.name}`));
  const { catalogIds, catalog, options, offered } = resourceOffer(remaining);
  if (remaining.length > 0) {
    if (remaining.length > limits.maxResourceCandidates || catalog.tokens > limits.resourceCatalogTokenBudget) {
      const why = [
        ...(remaining.length > limits.maxResourceCandidates ? [`${remaining.length} resource candidates exceed maxResourceCandidates (${limits.maxResourceCandidates})`] : []),
        ...(catalog.tokens > limits.resourceCatalogTokenBudget ? [`the resource catalog is ${catalog.tokens} estimated tokens, above resourceCatalogTokenBudget (${limits.resourceCatalogTokenBudget})`] : []),
      ].join(', and ');
      diagnostics.push({ code: 'skill_resource_catalog_budget_exceeded', boundary, action: 'resource_selection_skipped', message: `resource selection skipped: ${why}` });
    } else if (!input.model) {
      diagnostics.push({ code: 'skill_resource_selection_failed', boundary, action: 'resource_selection_skipped', message: 'no selector model is configured' });
    } else {
      const context = input.context ?? {};
      const template = input.template ?? RESOURCE_TEMPLATE_V1;
      const values = {
        request: renderRequest(input.request),
        context: renderContext(context),
        guidance: renderGuidance(context.resourceGuidance),
        prior_selections: renderPriorSelections(state.resourceHistory),
        active_skills: activeIds.join(', '),
        catalog: catalog.text,
        boundary,
        output_format: RESOURCE_OUTPUT_FORMAT,
      };
      const { accepted, trace } = await runSelectorCall<ResourceSelection[]>({
        kind: 'resource',
        boundary,
        template,
        values,
        task: {
          kind: 'resource',
          request: input.request,
          context: values.context,
          options,
          renderAnswer: (ids) => JSON.stringify({ resources: ids.map(splitKey) }),
        },
        model: input.model,
        maxOutputTokens: limits.resolutionMaxTokens,
        decode: decodeResources,
        validate: (list) => validateResources(list, offered),
        toDecision: (list) => ({ resources: list }),
        retryTimeout: true,
        candidates: catalogIds,
        catalogTokens: catalog.tokens,
        ...(input.signal && { signal: input.signal }),
      });
      calls.push(trace);
      for (const d of trace.diagnostics) diagnostics.push(d);
      if (accepted) {
        const chosen = new Set(accepted);
        for (const e of remaining) if (chosen.has(`${e.skill}#${e.index.name}`)) pending.push({ entry: e, source: 'model' });
      }
    }
  }

  // Admission: per-phase, then per-execution (distinct resources across the execution).
  const executed = new Set(state.resourceHistory.map((h) => `${h.skill}#${h.name}`));
  const selected: SelectedResource[] = [];
  for (const { entry, source } of pending) {
    const key = `${entry.skill}#${entry.index.name}`;
    const required = entry.index.required_when_selected;
    let why: string | undefined;
    if (selected.length >= limits.maxResourcesPerPhase) why = `${limits.maxResourcesPerPhase} resources are already admitted at this boundary (maxResourcesPerPhase)`;
    else if (!executed.has(key) && executed.size >= limits.maxResourcesPerExecution) {
      why = `${limits.maxResourcesPerExecution} distinct resources were already admitted in this execution (maxResourcesPerExecution)`;
    }
    if (why !== undefined) {
      const d: SelectorDiagnostic = {
        code: 'skill_resource_limit_exceeded',
        boundary,
        skill: entry.skill,
        resource: entry.index.name,
        action: required ? 'boundary_failed' : 'not_admitted',
        message: `${key} (${source}) was not admitted: ${why}`,
      };
      diagnostics.push(d);
      if (required) failure ??= d;
      continue;
    }
    executed.add(key);
    selected.push({
      skill: entry.skill,
      name: entry.index.name,
      source,
      required_when_selected: required,
      content_hash: entry.index.content_hash,
      content_type: entry.index.content_type,
    });
  }
  const history: ResourceHistoryEntry[] = [
    ...state.resourceHistory,
    ...selected.map((s) => ({ skill: s.skill, name: s.name, boundary, source: s.source })),
  ];
  const outcome: ResourceSelectionOutcome = { state: { ...state, resourceHistory: history }, selected, catalog: catalogIds, diagnostics, calls };
  if (failure) outcome.failure = failure;
  return outcome;
}

/** Eligible entries of one skill's manifest at one boundary, in name order. */
const eligibleMemo = new WeakMap<SkillManifest, Map<string, readonly Entry[]>>();

/**
 * The resources of `manifest` that apply at `boundary`, in name order. An
 * evaluation's frozen catalog serves every cell the same frozen manifest, so
 * the list is built once (and frozen) per manifest, skill and boundary.
 */
function eligibleEntries(manifest: SkillManifest, skill: string, boundary: Boundary): readonly Entry[] {
  const memo = Object.isFrozen(manifest) && isDeeplyFrozen(manifest.resources);
  const key = `${skill}\n${boundary}`;
  const known = memo ? eligibleMemo.get(manifest)?.get(key) : undefined;
  if (known) return known;
  const entries: Entry[] = [];
  for (const index of [...manifest.resources].sort((a, b) => compareIds(a.name, b.name))) {
    if (index.applies_to.length === 0 || index.applies_to.includes(boundary)) entries.push({ skill, index });
  }
  if (!memo) return entries;
  const frozen = Object.freeze(entries.map((e) => Object.freeze(e)));
  let byKey = eligibleMemo.get(manifest);
  if (!byKey) eligibleMemo.set(manifest, (byKey = new Map()));
  byKey.set(key, frozen);
  return frozen;
}

/** What the resource selector is offered: identities, the rendered catalog, and the baseline texts. */
interface ResourceOffer {
  catalogIds: string[];
  /** The same identities, for revalidating an answer. */
  offered: ReadonlySet<string>;
  catalog: RenderedCatalog;
  options: { id: string; text: string }[];
}

/** Offers of frozen entry lists (see {@link eligibleEntries}), frozen and shared by every cell that offers the same list. */
const offers = new WeakMap<readonly Entry[], ResourceOffer>();

function resourceOffer(entries: readonly Entry[]): ResourceOffer {
  const known = offers.get(entries);
  if (known) return known;
  const catalogEntries: ResourceCatalogEntry[] = entries.map((e) => ({ skill: e.skill, name: e.index.name, description: e.index.description, load_when: e.index.load_when }));
  const catalogIds = entries.map((e) => `${e.skill}#${e.index.name}`);
  const offer: ResourceOffer = {
    catalogIds,
    offered: new Set(catalogIds),
    catalog: renderCatalog(catalogEntries),
    options: entries.map((e) => ({ id: `${e.skill}#${e.index.name}`, text: `${e.index.description}\n${e.index.load_when}` })),
  };
  if (Object.isFrozen(entries)) {
    Object.freeze(offer.catalogIds);
    for (const o of offer.options) Object.freeze(o);
    Object.freeze(offer.options);
    offers.set(entries, offer);
  }
  return offer;
}

function splitKey(id: string): ResourceSelection {
  const hash = id.indexOf('#');
  return hash < 0 ? { skill: id, name: '' } : { skill: id.slice(0, hash), name: id.slice(hash + 1) };
}

/** Revalidates a decoded resource decision: every pair exactly one offered entry, at most once. */
export function validateResources(
  list: readonly ResourceSelection[],
  offered: ReadonlySet<string>,
): { ok: true; value: string[] } | { ok: false; error: string } {
  const seen = new Set<string>();
  for (const r of list) {
    const key = `${r.skill}#${r.name}`;
    if (!offered.has(key)) return { ok: false, error: `${JSON.stringify(key.length > 120 ? `${key.slice(0, 120)}...` : key)} is not an offered resource` };
    if (seen.has(key)) return { ok: false, error: `${key} is listed more than once` };
    seen.add(key);
  }
  return { ok: true, value: [...seen] };
}
