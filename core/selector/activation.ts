/**
 * Stage 2 of the runtime lifecycle (guide 7, 8, 9.6, 9.12.2): activation.
 *
 * - `always` candidates activate deterministically;
 * - `explicit` candidates activate only when a trusted activation list names
 *   their exact bound identity (user text can never do it);
 * - `auto` candidates go through the body-free catalog, an optional
 *   deterministic policy, then the model selector for the undecided ones.
 *
 * Admission order is always, explicit, policy, model; within each group,
 * identity order. Activation is monotonic: {@link continueActivation} only adds
 * skills, offering the still-inactive auto candidates again with new context.
 *
 * Isomorphic: no `node:` imports.
 */
import type { ModelClient } from '../models/types';
import type { Boundary, SkillId } from '../package/types';
import { compareIds } from './bindings';
import { runSelectorCall } from './call';
import { decodeActivation } from './decode';
import { isDeeplyFrozen } from '../frozen';
import { DEFAULT_SELECTOR_LIMITS, type SelectorLimits } from './limits';
import { ACTIVATION_OUTPUT_FORMAT, ACTIVATION_TEMPLATE_V1 } from './prompts/activation-v1';
import type { PromptTemplate } from './prompts/template';
import { activationEntry, renderCatalog, renderContext, renderGuidance, renderRequest, type ActivationCatalogEntry, type RenderedCatalog } from './render';
import type {
  ActivationSource,
  ActiveSkill,
  PinnedCandidate,
  SelectionContext,
  SelectionState,
  SelectorCallTrace,
  SelectorDiagnostic,
} from './types';
import { describeError, throwIfAborted } from './util';

/** Most identities one trusted activation list may carry (guide 9.6). */
export const MAX_TRUSTED_ACTIVATIONS = 32;

/** What a deterministic activation policy sees: body-free candidates only. */
export interface ActivationPolicyInput {
  request: string;
  boundary: Boundary;
  context: SelectionContext;
  /** Undecided auto candidates, in identity order. */
  candidates: readonly ActivationCatalogEntry[];
}

/**
 * A policy's conclusive decisions: `include` activates, `exclude` rejects,
 * anything in neither list goes to the model selector. Identities are `namespace/name`.
 */
export interface ActivationPolicyDecision {
  include?: string[];
  exclude?: string[];
}

/** A deterministic activation refinement run before the model (guide 9.12.2). */
export interface ActivationPolicy {
  /** Behaviour identity recorded in traces; change it when the behaviour changes. */
  readonly id: string;
  evaluate(input: ActivationPolicyInput): ActivationPolicyDecision | Promise<ActivationPolicyDecision>;
}

/** Evidence of one policy evaluation. */
export interface PolicyTrace {
  id: string;
  boundary: Boundary;
  outcome: 'ok' | 'failed' | 'invalid';
  include: string[];
  exclude: string[];
}

/** Options shared by initial and continuation activation. */
export interface ActivationOptions {
  request: string;
  model?: ModelClient;
  limits?: SelectorLimits;
  policy?: ActivationPolicy;
  context?: SelectionContext;
  template?: PromptTemplate;
  signal?: AbortSignal;
}

/** Input of {@link activateSkills}. */
export interface ActivationInput extends ActivationOptions {
  /** Pinned, eligible candidates (from pinning). */
  candidates: readonly PinnedCandidate[];
  /** Boundary of the initial activation (default `planning`). */
  boundary?: Boundary;
  /** Trusted host activation list: `namespace/name` strings or identities. */
  trustedActivations?: readonly (string | SkillId)[];
}

/** Result of one activation step. */
export interface ActivationOutcome {
  state: SelectionState;
  /** Skills admitted at this step, in admission order. */
  activated: string[];
  diagnostics: SelectorDiagnostic[];
  calls: SelectorCallTrace[];
  policy: PolicyTrace | null;
  /** Set when a required skill could not be admitted: the boundary fails. */
  failure?: SelectorDiagnostic;
}

/** Normalizes a trusted identity (host input): trimmed and lowercased `namespace/name`. */
function normalizeTrusted(value: string | SkillId): string {
  const text = typeof value === 'string' ? value : `${value.namespace}/${value.name}`;
  return text.trim().toLowerCase();
}

interface Pending {
  candidate: PinnedCandidate;
  source: ActivationSource;
}

/** Admits pending skills in order until the active limit is reached. */
function admit(
  state: SelectionState,
  pending: Pending[],
  boundary: Boundary,
  limits: SelectorLimits,
  diagnostics: SelectorDiagnostic[],
): { active: ActiveSkill[]; activated: string[]; failure?: SelectorDiagnostic } {
  const active = [...state.active];
  const activated: string[] = [];
  let failure: SelectorDiagnostic | undefined;
  for (const { candidate, source } of pending) {
    if (active.some((a) => a.skill === candidate.id)) continue;
    if (active.length >= limits.maxActiveSkills) {
      const d: SelectorDiagnostic = {
        code: 'skill_active_limit_exceeded',
        boundary,
        skill: candidate.id,
        action: candidate.required ? 'boundary_failed' : 'not_admitted',
        message: `${candidate.id} (${source}) was not admitted: ${limits.maxActiveSkills} skills are already active`,
      };
      diagnostics.push(d);
      if (candidate.required) failure ??= d;
      continue;
    }
    active.push({ skill: candidate.id, source, boundary, required: candidate.required, version: candidate.version, manifest_hash: candidate.manifest_hash });
    activated.push(candidate.id);
  }
  return failure ? { active, activated, failure } : { active, activated };
}

const byId = (a: PinnedCandidate, b: PinnedCandidate) => compareIds(a.id, b.id);

/**
 * Runs the auto path for `pool` (still-inactive auto candidates): catalog
 * budget, policy, model. Returns the candidates to admit, in admission order.
 */
async function autoActivation(
  pool: PinnedCandidate[],
  boundary: Boundary,
  options: ActivationOptions,
  limits: SelectorLimits,
  diagnostics: SelectorDiagnostic[],
  calls: SelectorCallTrace[],
): Promise<{ pending: Pending[]; policy: PolicyTrace | null }> {
  if (pool.length === 0) return { pending: [], policy: null };
  const auto = autoCatalog(pool);
  const { sorted, catalog } = auto;
  if (sorted.length > limits.maxAutoCandidates || catalog.tokens > limits.catalogTokenBudget) {
    // Every reason, so fixing one does not reveal the other on the next run.
    const why = [
      ...(sorted.length > limits.maxAutoCandidates ? [`${sorted.length} auto candidates exceed maxAutoCandidates (${limits.maxAutoCandidates})`] : []),
      ...(catalog.tokens > limits.catalogTokenBudget ? [`the catalog is ${catalog.tokens} estimated tokens, above catalogTokenBudget (${limits.catalogTokenBudget})`] : []),
    ].join(', and ');
    diagnostics.push({ code: 'skill_activation_catalog_budget_exceeded', boundary, action: 'auto_activation_skipped', message: `automatic activation skipped: ${why}` });
    return { pending: [], policy: null };
  }
  const context = options.context ?? {};
  let undecided = sorted;
  const pending: Pending[] = [];
  let policyTrace: PolicyTrace | null = null;
  if (options.policy) {
    const ids = new Set(sorted.map((c) => c.id));
    const policyId = typeof options.policy.id === 'string' ? options.policy.id : 'unnamed';
    let decision: ActivationPolicyDecision;
    try {
      decision = await options.policy.evaluate({ request: options.request, boundary, context, candidates: sorted.map(activationEntry) });
    } catch (error) {
      throwIfAborted(options.signal);
      diagnostics.push({ code: 'skill_activation_policy_failed', boundary, action: 'auto_activation_skipped', message: `activation policy '${policyId}' failed: ${describeError(error)}` });
      return { pending: [], policy: { id: policyId, boundary, outcome: 'failed', include: [], exclude: [] } };
    }
    const problem = checkPolicyDecision(decision, ids);
    if (problem !== undefined) {
      diagnostics.push({ code: 'skill_activation_policy_invalid', boundary, action: 'auto_activation_skipped', message: `activation policy '${policyId}' returned an invalid decision: ${problem}` });
      return { pending: [], policy: { id: policyId, boundary, outcome: 'invalid', include: [], exclude: [] } };
    }
    const include = new Set(decision.include ?? []);
    const exclude = new Set(decision.exclude ?? []);
    for (const c of sorted) if (include.has(c.id)) pending.push({ candidate: c, source: 'policy' });
    undecided = sorted.filter((c) => !include.has(c.id) && !exclude.has(c.id));
    policyTrace = { id: policyId, boundary, outcome: 'ok', include: [...include].sort(compareIds), exclude: [...exclude].sort(compareIds) };
  }
  if (undecided.length === 0) return { pending, policy: policyTrace };
  if (!options.model) {
    diagnostics.push({ code: 'skill_activation_selection_failed', boundary, action: 'auto_activation_skipped', message: 'no selector model is configured' });
    return { pending, policy: policyTrace };
  }
  // The catalog offered to the model: only the undecided candidates.
  const offer = undecided === sorted ? offerOf(auto) : offering(undecided, renderCatalog(undecided.map(activationEntry)));
  const offered = offer.catalog;
  const offeredIds = offer.ids;
  const template = options.template ?? ACTIVATION_TEMPLATE_V1;
  const values = {
    request: renderRequest(options.request),
    context: renderContext(context),
    guidance: renderGuidance(context.activationGuidance),
    catalog: offered.text,
    boundary,
    output_format: ACTIVATION_OUTPUT_FORMAT,
  };
  const { accepted, trace } = await runSelectorCall<string[]>({
    kind: 'activation',
    boundary,
    template,
    values,
    task: {
      kind: 'activation',
      request: options.request,
      context: values.context,
      options: offer.options,
      renderAnswer: (ids) => JSON.stringify({ activate: ids }),
    },
    model: options.model,
    maxOutputTokens: limits.resolutionMaxTokens,
    decode: decodeActivation,
    validate: (ids) => validateActivation(ids, offeredIds),
    toDecision: (ids) => ({ activate: ids }),
    retryTimeout: false,
    candidates: offer.candidates,
    catalogTokens: offered.tokens,
    ...(options.signal && { signal: options.signal }),
  });
  calls.push(trace);
  for (const d of trace.diagnostics) diagnostics.push(d);
  if (accepted) {
    const chosen = new Set(accepted);
    for (const c of undecided) if (chosen.has(c.id)) pending.push({ candidate: c, source: 'model' });
  }
  return { pending, policy: policyTrace };
}

/** An auto pool in identity order and its rendered catalog. */
interface AutoCatalog {
  sorted: PinnedCandidate[];
  catalog: RenderedCatalog;
  /** What is offered to the model when no policy decided any candidate; made on first use. */
  offer?: Offering;
}

/** What the model is offered: the catalog, the offered identities, and their baseline texts. */
interface Offering {
  catalog: RenderedCatalog;
  ids: ReadonlySet<string>;
  candidates: string[];
  options: { id: string; text: string }[];
}

/**
 * Sorted auto pools and their catalogs, keyed by a frozen pool. An evaluation
 * pins its frozen catalog once and every cell offers the same frozen pool
 * (`autoPool`), so its catalog is rendered and its offer built once; a frozen
 * pool cannot change, so the memo is exactly what building it would give.
 */
const autoCatalogs = new WeakMap<readonly PinnedCandidate[], AutoCatalog>();

function autoCatalog(pool: readonly PinnedCandidate[]): AutoCatalog {
  const known = autoCatalogs.get(pool);
  if (known) return known;
  const sorted = [...pool].sort(byId);
  const built: AutoCatalog = { sorted, catalog: renderCatalog(sorted.map(activationEntry)) };
  if (isDeeplyFrozen(pool)) {
    Object.freeze(sorted);
    autoCatalogs.set(pool, built);
  }
  return built;
}

function offering(undecided: readonly PinnedCandidate[], catalog: RenderedCatalog): Offering {
  return {
    catalog,
    ids: new Set(undecided.map((c) => c.id)),
    candidates: undecided.map((c) => c.id),
    options: undecided.map((c) => ({ id: c.id, text: catalogText(c) })),
  };
}

/** The offer of a whole auto pool; shared (frozen) when the pool is memoised. */
function offerOf(auto: AutoCatalog): Offering {
  if (auto.offer) return auto.offer;
  const offer = offering(auto.sorted, auto.catalog);
  if (Object.isFrozen(auto.sorted)) {
    Object.freeze(offer.candidates);
    for (const o of offer.options) Object.freeze(o);
    Object.freeze(offer.options);
    auto.offer = offer;
  }
  return offer;
}

/** Frozen auto pools of frozen candidate lists, so every cell of an evaluation offers the same pool object. */
const autoPools = new WeakMap<readonly PinnedCandidate[], readonly PinnedCandidate[]>();

/** The auto candidates of `candidates`, in their order. */
function autoPool(candidates: readonly PinnedCandidate[]): PinnedCandidate[] {
  const known = autoPools.get(candidates);
  if (known) return known as PinnedCandidate[];
  const pool = candidates.filter((c) => c.activation === 'auto');
  if (isDeeplyFrozen(candidates)) autoPools.set(candidates, Object.freeze(pool));
  return pool;
}

/** The text a deterministic baseline judges a candidate by: the same fields the catalog line shows. */
function catalogText(c: PinnedCandidate): string {
  return [c.display_name, c.description, c.domains.join(' '), c.tags.join(' ')].filter((s) => s !== '').join('\n');
}

/** Revalidates a decoded activation decision: every identity exactly one offered candidate, at most once. */
export function validateActivation(ids: readonly string[], offered: ReadonlySet<string>): { ok: true; value: string[] } | { ok: false; error: string } {
  const seen = new Set<string>();
  for (const id of ids) {
    if (!offered.has(id)) return { ok: false, error: `${JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}...` : id)} is not an offered auto candidate` };
    if (seen.has(id)) return { ok: false, error: `${id} is listed more than once` };
    seen.add(id);
  }
  return { ok: true, value: [...seen] };
}

function checkPolicyDecision(decision: unknown, ids: ReadonlySet<string>): string | undefined {
  if (decision === null || typeof decision !== 'object' || Array.isArray(decision)) return 'the decision is not an object';
  const d = decision as Record<string, unknown>;
  const lists: Record<string, string[]> = {};
  for (const key of ['include', 'exclude']) {
    const v = d[key];
    if (v === undefined) {
      lists[key] = [];
      continue;
    }
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return `${key} must be an array of "namespace/name" strings`;
    for (const id of v) if (!ids.has(id)) return `${key} names ${JSON.stringify(id)}, which is not an undecided auto candidate`;
    lists[key] = v;
  }
  const exclude = new Set(lists['exclude']);
  const both = lists['include']!.find((id) => exclude.has(id));
  if (both !== undefined) return `${both} is both included and excluded`;
  return undefined;
}

/**
 * Initial activation of an execution: always, trusted explicit, then auto.
 * Starts from the candidates only (no skill is active before).
 */
export async function activateSkills(input: ActivationInput): Promise<ActivationOutcome> {
  const limits = input.limits ?? DEFAULT_SELECTOR_LIMITS;
  const boundary = input.boundary ?? 'planning';
  const diagnostics: SelectorDiagnostic[] = [];
  const calls: SelectorCallTrace[] = [];
  const state: SelectionState = { candidates: [...input.candidates], active: [], resourceHistory: [] };
  const pending: Pending[] = [];

  for (const c of [...input.candidates].filter((c) => c.activation === 'always').sort(byId)) pending.push({ candidate: c, source: 'always' });

  const trusted = [...new Set((input.trustedActivations ?? []).map(normalizeTrusted))].sort(compareIds);
  if (trusted.length > MAX_TRUSTED_ACTIVATIONS) {
    diagnostics.push({
      code: 'skill_trusted_activation_ineligible',
      boundary,
      action: 'ignored',
      message: `the trusted activation list has ${trusted.length} identities, above the limit of ${MAX_TRUSTED_ACTIVATIONS}; the whole list is ignored`,
    });
  } else {
    for (const id of trusted) {
      const c = input.candidates.find((x) => x.id === id);
      if (c && c.activation === 'explicit') {
        pending.push({ candidate: c, source: 'explicit' });
        continue;
      }
      const why = !c ? 'it is not a pinned bound candidate' : `it is bound with activation '${c.activation}', not 'explicit'`;
      diagnostics.push({ code: 'skill_trusted_activation_ineligible', boundary, skill: id, action: 'ignored', message: `trusted activation of ${id} ignored: ${why}` });
    }
  }

  const auto = await autoActivation(autoPool(input.candidates), boundary, input, limits, diagnostics, calls);
  pending.push(...auto.pending);
  const admitted = admit(state, pending, boundary, limits, diagnostics);
  const outcome: ActivationOutcome = {
    state: { ...state, active: admitted.active },
    activated: admitted.activated,
    diagnostics,
    calls,
    policy: auto.policy,
  };
  if (admitted.failure) outcome.failure = admitted.failure;
  return outcome;
}

/**
 * Activation at a continuation boundary: offers only still-inactive auto
 * candidates, with the new lifecycle context. Already active skills stay
 * active; nothing is ever deactivated.
 */
export async function continueActivation(state: SelectionState, options: ActivationOptions & { boundary?: Boundary }): Promise<ActivationOutcome> {
  const limits = options.limits ?? DEFAULT_SELECTOR_LIMITS;
  const boundary = options.boundary ?? 'continuation';
  const diagnostics: SelectorDiagnostic[] = [];
  const calls: SelectorCallTrace[] = [];
  const activeIds = new Set(state.active.map((a) => a.skill));
  const pool = state.candidates.filter((c) => c.activation === 'auto' && !activeIds.has(c.id));
  const auto = await autoActivation(pool, boundary, options, limits, diagnostics, calls);
  const admitted = admit(state, auto.pending, boundary, limits, diagnostics);
  const outcome: ActivationOutcome = {
    state: { ...state, active: admitted.active },
    activated: admitted.activated,
    diagnostics,
    calls,
    policy: auto.policy,
  };
  if (admitted.failure) outcome.failure = admitted.failure;
  return outcome;
}
