/**
 * The whole runtime selector for one request and one boundary, as one call:
 * pin, activate, load manifests, select resources, load and project. The
 * evaluation runner calls this once per (model, case), so apart from the model
 * calls it does only in-memory work and the registry reads of the port.
 *
 * A fresh call simulates an execution's initial activation followed by the
 * requested boundary. Passing the `state` of an earlier result continues that
 * execution instead: no repinning; at `continuation` the still-inactive auto
 * candidates are offered again; at `synthesis` no activation runs.
 *
 * Isomorphic: no `node:` imports.
 */
import { WorkbenchError } from '../errors';
import type { ModelClient, TokenUsage } from '../models/types';
import type { Boundary, SkillId } from '../package/types';
import type { SkillRegistryReader } from '../store/types';
import { activateSkills, continueActivation, type ActivationOutcome, type ActivationPolicy, type PolicyTrace } from './activation';
import { checkBindings, defaultBindings } from './bindings';
import { effectiveTotalBudget, resolveSelectorLimits, type SelectorLimits } from './limits';
import { pinCandidates, type PinningResult } from './pinning';
import { deepFreeze } from '../frozen';
import { loadManifests, projectBoundary, type ManifestLoadResult, type Projection } from './projection';
import type { PromptTemplate } from './prompts/template';
import { selectResources, type SelectedResource } from './resources';
import type {
  ActiveSkill,
  DomainCompatibilityMode,
  PinningRecord,
  ResourceSelection,
  SelectionContext,
  SelectionState,
  SelectorCallTrace,
  SelectorDiagnostic,
  SkillBinding,
} from './types';
import { bounded, describeError } from './util';

/** Input of {@link selectForRequest}. */
export interface SelectForRequestInput {
  request: string;
  /** Default `planning`. */
  boundary?: Boundary;
  /** Effective bindings; default: every catalog skill as an optional auto binding of its published version. */
  bindings?: readonly SkillBinding[];
  registry: SkillRegistryReader;
  /** The activation selector's model (guide 9.4 `TRUVAG3_SKILL_ACTIVATION_MODEL`); also the resource selector's unless `resourceModel` is given. */
  model: ModelClient;
  /** The resource selector's model (guide 9.4 `TRUVAG3_SKILL_RESOURCE_MODEL`); default: `model`. */
  resourceModel?: ModelClient;
  /** Partial limits are completed with the 9.10 defaults and validated. */
  limits?: Partial<SelectorLimits>;
  trustedActivations?: readonly (string | SkillId)[];
  /** Trusted resource requests: `{skill, name}` or `namespace/name#resource`. */
  trustedResources?: readonly (ResourceSelection | string)[];
  policy?: ActivationPolicy;
  context?: SelectionContext;
  templates?: { activation?: PromptTemplate; resource?: PromptTemplate };
  /** Agent domain for domain compatibility (guide 9.3). */
  domain?: string;
  /** Default `warn`. */
  domainMode?: DomainCompatibilityMode;
  /** State of an earlier result of the same execution (continuation and synthesis). */
  state?: SelectionState;
  /**
   * The pinning of `bindings` against `registry`, done once beforehand and used
   * in place of resolving them again: for a registry whose answers cannot change,
   * as an evaluation's frozen catalog, where every cell would pin the same set.
   * Ignored with `state` (an execution pins once).
   */
  pinning?: PinningResult;
  /**
   * Manifest loads and projections shared by the calls against one registry
   * whose answers cannot change (an evaluation's frozen catalog): the same
   * active skills and selected resources load and project the same content,
   * so each combination is read and measured once. See {@link SelectionMemo}.
   */
  memo?: SelectionMemo;
  signal?: AbortSignal;
}

/** Most combinations one {@link SelectionMemo} keeps; past it, calls load and project for themselves. */
const MAX_MEMO_ENTRIES = 1024;

/**
 * Results that calls against one unchanging registry share, under one set of
 * limits: clean manifest loads by active skills, clean projections by active
 * skills and selected resources (deeply frozen, since every call gets the same
 * objects). A load or projection with any diagnostic is never kept: each call
 * records what it saw, as without a memo.
 */
export class SelectionMemo {
  private readonly manifests = new Map<string, ManifestLoadResult>();
  private readonly projections = new Map<string, Projection>();

  constructor(
    private readonly registry: SkillRegistryReader,
    private readonly limits: SelectorLimits,
  ) {}

  /** Whether a call may use this memo: the same registry (whose answers cannot change) under the same resolved limits. */
  serves(registry: SkillRegistryReader, limits: SelectorLimits): boolean {
    return registry === this.registry && limits === this.limits;
  }

  manifestsOf(key: string, load: () => Promise<ManifestLoadResult>): Promise<ManifestLoadResult> {
    return kept(this.manifests, key, load);
  }

  projectionOf(key: string, project: () => Promise<Projection>): Promise<Projection> {
    return kept(this.projections, key, project);
  }
}

/** `map`'s entry for `key`, else what `make` gives, kept (deeply frozen) when it is clean and the map has room. */
async function kept<T extends { diagnostics: readonly unknown[]; failure?: unknown }>(map: Map<string, T>, key: string, make: () => Promise<T>): Promise<T> {
  const known = map.get(key);
  if (known) return known;
  const made = await make();
  if (made.diagnostics.length === 0 && made.failure === undefined && map.size < MAX_MEMO_ENTRIES) map.set(key, deepFreeze(made));
  return made;
}

/** The identity of what a manifest load reads: the boundary and the active skills' exact versions and hashes, in order. */
function activeKey(boundary: Boundary, active: readonly ActiveSkill[]): string {
  let key = boundary;
  for (const a of active) key += `\n${a.skill}@${a.version}#${a.manifest_hash}${a.required ? '!' : ''}`;
  return key;
}

/** What a projection adds to it: the selected resources' exact contents, in order. */
function resourcesKey(selected: readonly SelectedResource[]): string {
  let key = '';
  for (const r of selected) key += `\n${r.skill}#${r.name}@${r.content_hash}${r.required_when_selected ? '!' : ''}`;
  return key;
}

/** Everything one call observed, body-free apart from the prompts sent to the model. */
export interface SelectionTrace {
  boundary: Boundary;
  bindingSource: 'given' | 'catalog' | 'state';
  pinning: PinningRecord[];
  activation: { boundary: Boundary | null; activated: string[]; policy: PolicyTrace | null };
  /** Resource ids offered to the resource selector at this boundary. */
  resourceCatalog: string[];
  /** Every selector model call, in order. */
  calls: SelectorCallTrace[];
  /** Sum over `calls`. */
  usage: TokenUsage;
  /** Sum of model latencies reported by the client. */
  modelLatencyMs: number;
  /** Template identities used for each selector kind. */
  templates: { activation: { id: string; version: string }; resource: { id: string; version: string } };
  /**
   * The model spec each selector was given (guide 9.4 pins them apart);
   * absent in traces recorded before both were recorded.
   */
  models?: { activation: string; resource: string };
}

/** Result of {@link selectForRequest}: plain JSON-serializable data. */
export interface SelectionResult {
  /** The model client spec. */
  model: string;
  /** `failed` when a required skill or resource could not be pinned, admitted or loaded. */
  outcome: 'ok' | 'failed';
  failure?: SelectorDiagnostic;
  /** Every active skill of the execution after this step, in admission order. */
  activated: string[];
  /** Resources admitted into the projection at this boundary. */
  resources: ResourceSelection[];
  projection: Projection | null;
  diagnostics: SelectorDiagnostic[];
  trace: SelectionTrace;
  /** Body-free execution state to pass to the next boundary. */
  state: SelectionState;
}

/** Resolves default bindings from the registry's catalog. */
export async function catalogBindings(registry: SkillRegistryReader, limits: SelectorLimits): Promise<SkillBinding[]> {
  let catalog;
  try {
    catalog = await bounded('listMetadata', limits.registryReadTimeoutMs, () => registry.listMetadata());
  } catch (error) {
    throw new WorkbenchError('unavailable', `could not list the catalog for default bindings: ${describeError(error)}`, { cause: error });
  }
  const bindings = defaultBindings(catalog);
  if (bindings.length > limits.maxBindings) {
    throw new WorkbenchError(
      'invalid_request',
      `the catalog has ${bindings.length} skills, above maxBindings (${limits.maxBindings}); give an explicit binding list`,
    );
  }
  return bindings;
}

/**
 * Runs the selector pipeline for one request at one boundary. Selection
 * problems are data (diagnostics, `outcome: 'failed'`); it throws only for a
 * caller error (invalid limits or bindings, `invalid_request`), an unlistable
 * catalog when default bindings are needed (`unavailable`), or cancellation.
 */
export async function selectForRequest(input: SelectForRequestInput): Promise<SelectionResult> {
  const resolved = resolveSelectorLimits(input.limits ?? {});
  if (!resolved.ok) {
    throw new WorkbenchError('invalid_request', `invalid selector limits: ${resolved.issues.map((i) => i.message).join('; ')}`, { details: { issues: resolved.issues } });
  }
  const limits = resolved.limits;
  const boundary = input.boundary ?? 'planning';
  const diagnostics: SelectorDiagnostic[] = [];
  const calls: SelectorCallTrace[] = [];
  const activationTemplate = input.templates?.activation;
  const resourceTemplate = input.templates?.resource;
  for (const [kind, t] of [['activation', activationTemplate], ['resource', resourceTemplate]] as const) {
    if (t && t.kind !== kind) throw new WorkbenchError('invalid_request', `template ${t.id} is a ${t.kind} template, given for ${kind}`);
  }
  const trace: SelectionTrace = {
    boundary,
    bindingSource: input.state ? 'state' : input.bindings ? 'given' : 'catalog',
    pinning: [],
    activation: { boundary: null, activated: [], policy: null },
    resourceCatalog: [],
    calls,
    usage: { inputTokens: 0, outputTokens: 0 },
    modelLatencyMs: 0,
    templates: {
      activation: { id: activationTemplate?.id ?? 'skillbench.activation', version: activationTemplate?.version ?? '1' },
      resource: { id: resourceTemplate?.id ?? 'skillbench.resource', version: resourceTemplate?.version ?? '1' },
    },
    models: { activation: input.model.spec, resource: (input.resourceModel ?? input.model).spec },
  };
  let failure: SelectorDiagnostic | undefined;
  const result = (state: SelectionState, resources: SelectedResource[], projection: Projection | null): SelectionResult => {
    for (const c of calls) {
      trace.usage.inputTokens += c.usage.inputTokens;
      trace.usage.outputTokens += c.usage.outputTokens;
      trace.modelLatencyMs += c.latencyMs;
    }
    const out: SelectionResult = {
      model: input.model.spec,
      outcome: failure ? 'failed' : 'ok',
      activated: state.active.map((a) => a.skill),
      resources: resources.map((r) => ({ skill: r.skill, name: r.name })),
      projection,
      diagnostics,
      trace,
      state,
    };
    if (failure) out.failure = failure;
    return out;
  };

  // Stage 1: pin (or reuse the execution's pinned set).
  let state: SelectionState;
  const common = {
    request: input.request,
    model: input.model,
    limits,
    ...(input.policy && { policy: input.policy }),
    ...(input.context && { context: input.context }),
    ...(activationTemplate && { template: activationTemplate }),
    ...(input.signal && { signal: input.signal }),
  };
  let activation: ActivationOutcome | undefined;
  if (input.state) {
    state = input.state;
    if (boundary === 'continuation') activation = await continueActivation(state, { ...common, boundary });
  } else {
    const pinned = input.pinning ?? (await pin(input, limits));
    trace.pinning = pinned.records;
    diagnostics.push(...pinned.diagnostics);
    state = { candidates: pinned.candidates, active: [], resourceHistory: [] };
    if (pinned.failure) {
      failure = pinned.failure;
      return result(state, [], null);
    }
    activation = await activateSkills({
      ...common,
      candidates: pinned.candidates,
      ...(input.trustedActivations && { trustedActivations: input.trustedActivations }),
    });
  }
  if (activation) {
    state = activation.state;
    diagnostics.push(...activation.diagnostics);
    calls.push(...activation.calls);
    trace.activation = { boundary: input.state ? boundary : 'planning', activated: activation.activated, policy: activation.policy };
    if (activation.failure) {
      failure = activation.failure;
      return result(state, [], null);
    }
  }
  if (state.active.length === 0) return result(state, [], projectionOfNothing(boundary, limits));

  // Stage 3: manifests of the active skills, then this boundary's resources.
  const memo = input.memo?.serves(input.registry, limits) ? input.memo : undefined;
  const active = state.active;
  const load = () =>
    loadManifests(active, {
      registry: input.registry,
      boundary,
      registryReadTimeoutMs: limits.registryReadTimeoutMs,
      ...(input.signal && { signal: input.signal }),
    });
  const activeIdentity = memo ? activeKey(boundary, active) : '';
  const manifests = memo ? await memo.manifestsOf(activeIdentity, load) : await load();
  const selection = await selectResources({
    state,
    manifests: manifests.manifests,
    boundary,
    request: input.request,
    model: input.resourceModel ?? input.model,
    limits,
    ...(input.trustedResources && { trustedResources: input.trustedResources }),
    ...(input.context && { context: input.context }),
    ...(resourceTemplate && { template: resourceTemplate }),
    ...(input.signal && { signal: input.signal }),
  });
  state = selection.state;
  trace.resourceCatalog = selection.catalog;
  calls.push(...selection.calls);

  // Stages 4-5: load resources and project under the budgets.
  const project = () =>
    projectBoundary({
      boundary,
      active: state.active,
      resources: selection.selected,
      registry: input.registry,
      limits,
      preloaded: manifests,
      ...(input.signal && { signal: input.signal }),
    });
  const projection = memo ? await memo.projectionOf(activeIdentity + resourcesKey(selection.selected), project) : await project();
  // Manifest diagnostics come first (they are part of the projection's list), then selection, then admission.
  const manifestCount = manifests.diagnostics.length;
  diagnostics.push(...projection.diagnostics.slice(0, manifestCount), ...selection.diagnostics, ...projection.diagnostics.slice(manifestCount));
  failure = projection.failure ?? selection.failure;
  return result(state, selection.selected, projection);
}

/** Stage 1 for a fresh execution: the bindings (given, re-checked, or the catalog's) pinned against the registry. */
async function pin(input: SelectForRequestInput, limits: SelectorLimits): Promise<PinningResult> {
  let bindings: readonly SkillBinding[];
  if (input.bindings) {
    // Re-check given bindings: the caller may have built them in code.
    const issues = checkBindings(input.bindings, limits.maxBindings);
    if (issues.length > 0) throw new WorkbenchError('invalid_request', `invalid bindings: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, { details: { issues } });
    bindings = input.bindings;
  } else {
    bindings = await catalogBindings(input.registry, limits);
  }
  return pinCandidates({
    bindings,
    registry: input.registry,
    registryReadTimeoutMs: limits.registryReadTimeoutMs,
    ...(input.domain !== undefined && { domain: input.domain }),
    ...(input.domainMode && { domainMode: input.domainMode }),
    ...(input.signal && { signal: input.signal }),
  });
}

function projectionOfNothing(boundary: Boundary, limits: SelectorLimits): Projection {
  const total = effectiveTotalBudget(limits);
  return {
    boundary,
    status: 'ok',
    budgets: { main: limits.mainTokenBudget, resource: limits.resourceTokenBudget, total: boundary === 'synthesis' ? Math.min(total, limits.synthesisTokenBudget) : total },
    skills: [],
    resources: [],
    totals: { mainTokens: 0, resourceTokens: 0, totalTokens: 0 },
    loads: [],
    diagnostics: [],
    section: '',
  };
}
