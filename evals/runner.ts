/**
 * The evaluation runner: the matrix models × variants × cases × repeats,
 * each cell one `selectForRequest` call.
 *
 * - Concurrency is bounded per provider (the prefix of the model spec), and
 *   adapts to rate limits (see `limiter.ts`): a 429 halves that provider's
 *   concurrency, the call waits (the server's Retry-After when given) and is
 *   retried; the concurrency grows back as calls succeed.
 * - Each finished cell is appended to `cells.jsonl` as one whole line as soon
 *   as the write before it is done (group commit). A rerun with the same configuration (same config hash, same run
 *   directory) reads the recorded cells back, cuts a torn last line, and runs
 *   only the missing cells: no cell is ever done twice.
 * - Repeat `r` sends seed `r` and uses repeat index `r` in the answer cache,
 *   so repeats are separate model calls, never one cached answer counted n times.
 * - Errors and timeouts are `error` cells with their message, never "not
 *   activated". Cancellation records nothing for the cells it interrupts.
 * - Memory stays flat: cells are aggregated as they finish and written out;
 *   no cell or trace is kept.
 */
import { createHash, randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { join, resolve } from 'node:path';
import { WorkbenchError } from '../core/errors';
import type { GenerateRequest, GenerateResult, ModelClient } from '../core/models/types';
import { canonicalJson } from '../core/package/canonical';
import { resolveSelectorLimits, type SelectorLimits } from '../core/selector/limits';
import { checkBindings } from '../core/selector/bindings';
import { pinCandidates, type PinningResult } from '../core/selector/pinning';
import { SelectionMemo, selectForRequest, type SelectionResult, type SelectionTrace } from '../core/selector/select';
import type { SelectionContext, SkillBinding } from '../core/selector/types';
import type { SkillRegistryReader } from '../core/store/types';
import { deepFreeze } from '../core/frozen';
import { Aggregator } from './aggregate';
import { cachedModel, type AnswerCache, type CacheStats } from './cache';
import { mayRedactJson, redactValue } from '../core/redact';
import { ProgressTracker, type RunProgress } from './runProgress';
import { openRunHeader, resumeCells } from './runRecord';
import { RUN_FILES, cellLine, lockRunDir, writeSummary, type CellWriter } from './runFiles';
import { dispatchProvider, groupedByTurn, providerLimiters, providerOf, rateLimited, type RateLimitEvent } from './runSchedule';
import type { EvalCase } from './suite';
import type { CaseInfo, CatalogRecord, CellRecord, EvalSummary, ModelInfo, RunHeader, VariantInfo } from './types';
import type { GateOptions } from './verdict';

/** One variant of a skill under test, ready to run. */
export interface EvalVariantPlan {
  info: VariantInfo;
  /** The (frozen) registry of this variant's catalog. */
  registry: SkillRegistryReader;
  /** The bindings every cell of this variant uses. */
  bindings: SkillBinding[];
  catalog: CatalogRecord;
}

/** One skill under test: its cases and the variants they run on (all variants share the cases). */
export interface EvalSkillPlan {
  skill: string;
  cases: EvalCase[];
  variants: EvalVariantPlan[];
  /** The extra-cases file the cases came from besides the package's examples, as shown to the user. */
  extras?: string;
}

/** Options of {@link runEval}. */
export interface RunEvalOptions {
  /** Open model clients (the caller closes them): the activation models of the matrix. */
  models: ModelClient[];
  /**
   * One resource-selection model for every activation model (guide 9.4
   * `TRUVAG3_SKILL_RESOURCE_MODEL`); absent: each model selects its own
   * resources. The caller closes it.
   */
  resourceModel?: ModelClient;
  skills: EvalSkillPlan[];
  /** Repeats per case (default 1). */
  repeats?: number;
  /** Highest concurrency per provider (default 4). */
  concurrency?: number;
  /** Run directory; default `<cwd>/.skillbench/runs/<config_hash>`. */
  runDir?: string;
  cwd?: string;
  /** Answer cache for language models; baselines are never cached (they are deterministic and local). */
  cache?: AnswerCache;
  limits?: Partial<SelectorLimits>;
  /** Stop scheduling new cells; cells in flight finish and are recorded. */
  stopSignal?: AbortSignal;
  /**
   * Stop scheduling the cells of one model (keyed by spec), as `stopSignal`
   * does for the whole run: its cells in flight finish and are recorded, the
   * other models go on, and the run ends incomplete (a rerun resumes it).
   */
  modelStopSignals?: ReadonlyMap<string, AbortSignal>;
  /** Stop scheduling and abort the cells in flight (they are not recorded). */
  signal?: AbortSignal;
  /** Rate-limit retries of one model call before the cell is an error (default 6). */
  maxRateLimitRetries?: number;
  /** A Retry-After longer than this is not waited for: the cell is an error (default 60 s). */
  maxRateLimitWaitMs?: number;
  /** Gates the summary's verdict judges (evals/verdict.ts); they decide no answer, so they are not part of the config hash. */
  gates?: GateOptions;
  /** Options of each provider's limiter besides its maximum (tests shorten the cool-down). */
  limiter?: { cooldownMs?: number; baseDelayMs?: number; maxDelayMs?: number };
  /**
   * Removes secrets from every text of a cell before it is recorded (core/redact.ts):
   * an error message or a trace may quote what a provider echoed.
   */
  redact?: (text: string) => string;
}

export type { ModelProgress, RunProgress } from './runProgress';
export { providerOf } from './runSchedule';

/** Callbacks of {@link runEval}; all optional, none may throw. */
export interface RunHooks {
  /** `snapshot` reads the progress at any time until the run returns (a display ticking between cells). */
  onStart?(info: { header: RunHeader; runDir: string; progress: RunProgress; tornLine: boolean; snapshot: () => RunProgress }): void;
  onCell?(cell: CellRecord, progress: RunProgress): void;
  onRateLimit?(event: RateLimitEvent): void;
}

/** Result of {@link runEval}. */
export interface RunResult {
  header: RunHeader;
  summary: EvalSummary;
  cellsFile: string;
  runDir: string;
  /** False when the run was stopped before every cell was recorded. */
  complete: boolean;
  progress: RunProgress;
  cache?: CacheStats;
}

/** Default highest concurrency per provider. */
export const DEFAULT_CONCURRENCY = 4;

/** The key of a cell, as reports link to it. */
export function cellKey(model: string, variant: string, caseId: string, repeat: number): string {
  return `${model}|${variant}|${caseId}|${repeat}`;
}

/**
 * The hash of everything that decides the cells: models, variants (exact
 * revisions and hashes), catalogs (exact entries and budget), cases, repeats
 * and selector limits. Concurrency, output folders and catalog sources (paths)
 * do not change an answer and are left out, so the same evaluation resumes
 * from another checkout.
 */
export function configHash(input: { models: ModelInfo[]; resourceModel?: string; variants: VariantInfo[]; catalogs: Record<string, CatalogRecord>; cases: CaseInfo[]; repeats: number; limits: SelectorLimits }): string {
  const material = canonicalJson({
    format: 'skillbench.eval/v1',
    models: input.models.map((m) => m.spec),
    // Only when set, so the runs recorded before a resource model could be pinned keep their hash.
    ...(input.resourceModel !== undefined && { resource_model: input.resourceModel }),
    variants: input.variants.map((v) => ({ label: v.label, skill: v.skill, version: v.version, manifest_hash: v.manifest_hash })),
    catalogs: Object.fromEntries(Object.entries(input.catalogs).map(([k, c]) => [k, { entries: c.entries, budget: c.budget }])),
    cases: input.cases.map((c) => ({ id: c.id, skill: c.skill, expect: c.expect, boundary: c.boundary, expectedResources: c.expectedResources ?? null, context: c.context ?? null })),
    repeats: input.repeats,
    limits: input.limits,
  });
  return createHash('sha256').update(material).digest('hex').slice(0, 16);
}

/** One (variant, case) pair of the matrix, with what every cell of it shares. */
interface Unit {
  variant: EvalVariantPlan;
  case: EvalCase;
  /** The selector's context, built once per unit instead of once per cell. */
  context: SelectionContext | undefined;
}

/** The validated matrix of a run: its units and what its header records. */
interface RunMatrix {
  units: Unit[];
  variants: VariantInfo[];
  catalogs: Record<string, CatalogRecord>;
  cases: CaseInfo[];
  extras: Record<string, string>;
}

/** Checks the skills of a run and lays out its units (variants × cases, per skill); throws `invalid_request` for an inconsistent plan. */
function planMatrix(skills: readonly EvalSkillPlan[]): RunMatrix {
  const units: Unit[] = [];
  const variants: VariantInfo[] = [];
  const catalogs: Record<string, CatalogRecord> = {};
  const cases: CaseInfo[] = [];
  const extras: Record<string, string> = {};
  const seenCases = new Set<string>();
  const seenVariants = new Set<string>();
  for (const plan of skills) {
    if (plan.extras !== undefined) extras[plan.skill] = plan.extras;
    if (plan.cases.length === 0) throw new WorkbenchError('invalid_request', `${plan.skill} has no cases to evaluate`);
    if (plan.variants.length === 0) throw new WorkbenchError('invalid_request', `${plan.skill} has no variant to evaluate`);
    for (const c of plan.cases) {
      if (c.skill !== plan.skill) throw new WorkbenchError('invalid_request', `case ${c.id} belongs to ${c.skill}, not ${plan.skill}`);
      if (seenCases.has(c.id)) throw new WorkbenchError('invalid_request', `case ${c.id} is given twice`);
      seenCases.add(c.id);
      cases.push(c);
    }
    for (const v of plan.variants) {
      const key = `${v.info.label}|${plan.skill}`;
      if (v.info.skill !== plan.skill) throw new WorkbenchError('invalid_request', `variant ${v.info.label} is of ${v.info.skill}, not ${plan.skill}`);
      if (seenVariants.has(key)) throw new WorkbenchError('invalid_request', `variant ${v.info.label} of ${plan.skill} is given twice`);
      seenVariants.add(key);
      variants.push(v.info);
      catalogs[key] = v.catalog;
      for (const c of plan.cases) units.push({ variant: v, case: c, context: c.context !== undefined ? { objective: c.context } : undefined });
    }
  }
  return { units, variants, catalogs, cases, extras };
}

function emptyTrace(boundary: EvalCase['boundary']): SelectionTrace {
  return {
    boundary,
    bindingSource: 'given',
    pinning: [],
    activation: { boundary: null, activated: [], policy: null },
    resourceCatalog: [],
    calls: [],
    usage: { inputTokens: 0, outputTokens: 0 },
    modelLatencyMs: 0,
    templates: { activation: { id: 'skillbench.activation', version: '1' }, resource: { id: 'skillbench.resource', version: '1' } },
  };
}

/** What an error cell's trace records: nothing ran but the models it was given. */
function errorTrace(boundary: EvalCase['boundary'], models: { activation: string; resource: string }): SelectionTrace {
  return { ...emptyTrace(boundary), models };
}

function isCancellation(error: unknown): boolean {
  const e = error as { code?: unknown; kind?: unknown; name?: unknown } | null;
  return e?.code === 'cancelled' || e?.kind === 'cancelled' || e?.name === 'AbortError';
}

function message(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 500 ? `${text.slice(0, 500)}...` : text;
}

const RESOURCE_FAILURES = new Set(['skill_resource_selection_failed', 'skill_resource_selection_timeout']);

/** Turns a selection result into the cell record of (model, variant, case, repeat). */
export function cellFromResult(
  result: SelectionResult,
  where: { model: string; variant: string; case: EvalCase; repeat: number },
  meter: { costUsd: number | null; cached: boolean },
): CellRecord {
  const c = where.case;
  const failedCall = result.diagnostics.find((d) => d.code === 'skill_activation_selection_failed');
  // A failure before activation ran is a pinning failure: the run's environment, not an answer.
  const pinFailure = result.failure && result.trace.activation.boundary === null ? result.failure : undefined;
  const errorText = failedCall?.message ?? pinFailure?.message;
  const activatedUnderTest = result.activated.includes(c.skill);
  const outcome: CellRecord['outcome'] = errorText !== undefined ? 'error' : activatedUnderTest ? 'activated' : 'not_activated';
  const resourceFailure = result.diagnostics.find((d) => RESOURCE_FAILURES.has(d.code) && d.action !== 'retry');
  let resourcesCorrect: boolean | null = null;
  if (c.expectedResources && outcome === 'activated' && !resourceFailure) {
    const chosen = result.resources.filter((r) => r.skill === c.skill).map((r) => r.name);
    const expected = new Set(c.expectedResources);
    resourcesCorrect = chosen.length === expected.size && new Set(chosen).size === chosen.length && chosen.every((n) => expected.has(n));
  }
  const cell: CellRecord = {
    key: cellKey(where.model, where.variant, c.id, where.repeat),
    model: where.model,
    variant: where.variant,
    case: c.id,
    skill: c.skill,
    repeat: where.repeat,
    expect: c.expect,
    outcome,
    invalid: result.diagnostics.some((d) => d.code === 'skill_activation_selection_invalid'),
    activated: result.activated,
    resources: result.resources.map((r) => `${r.skill}#${r.name}`),
    resources_correct: resourcesCorrect,
    diagnostics: result.diagnostics,
    latency_ms: Math.round(result.trace.modelLatencyMs),
    input_tokens: result.trace.usage.inputTokens,
    output_tokens: result.trace.usage.outputTokens,
    cost_usd: meter.costUsd,
    cached: meter.cached,
    trace: result.trace,
    finished_at: new Date().toISOString(),
  };
  if (errorText !== undefined) cell.error = errorText;
  if (resourceFailure && outcome === 'activated') cell.resource_error = resourceFailure.message;
  return cell;
}

/** Checks the scalar options of a run; returns repeats, concurrency and the resolved selector limits. */
function checkOptions(options: RunEvalOptions): { repeats: number; concurrency: number; limits: SelectorLimits } {
  const repeats = options.repeats ?? 1;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isSafeInteger(repeats) || repeats < 1) throw new WorkbenchError('invalid_request', `repeats must be a positive integer, got ${repeats}`);
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw new WorkbenchError('invalid_request', `concurrency must be a positive integer, got ${concurrency}`);
  if (options.models.length === 0) throw new WorkbenchError('invalid_request', 'an evaluation needs at least one model');
  if (options.skills.length === 0) throw new WorkbenchError('invalid_request', 'an evaluation needs at least one skill under test');
  const specs = options.models.map((m) => m.spec);
  if (new Set(specs).size !== specs.length) throw new WorkbenchError('invalid_request', 'the same model is given twice');
  const resolvedLimits = resolveSelectorLimits(options.limits ?? {});
  if (!resolvedLimits.ok) throw new WorkbenchError('invalid_request', `invalid selector limits: ${resolvedLimits.issues.map((i) => i.message).join('; ')}`);
  return { repeats, concurrency, limits: resolvedLimits.limits };
}

/** What one cell's execution needs besides its coordinates. */
interface CellContext {
  options: RunEvalOptions;
  specs: readonly string[];
  resourceSpec: string | undefined;
  limits: SelectorLimits;
  /** The activation models, each under its provider's limiter. */
  limited: readonly ModelClient[];
  limitedResource: ModelClient | undefined;
  /** Aborts the selector calls in flight (a hard stop). */
  hard: AbortSignal;
  /** The pinning every cell of a variant shares, when it pinned cleanly (see {@link variantPinnings}). */
  pinning: (variant: EvalVariantPlan) => Promise<PinningResult | undefined>;
  /** The manifest loads and projections every cell of a variant shares (its registry is a frozen catalog). */
  memo: (variant: EvalVariantPlan) => SelectionMemo;
}

/**
 * Pins each variant's bindings once, on its first cell. A variant's registry
 * is its frozen catalog (evals/catalog.ts): every cell would resolve the same
 * recorded answers, so they share one pinning (deeply frozen, so no cell can
 * change another's). A pinning with any diagnostic or failure is not shared:
 * those cells pin for themselves, as before, and record what they saw.
 */
function variantPinnings(limits: SelectorLimits): (variant: EvalVariantPlan) => Promise<PinningResult | undefined> {
  const pinnings = new Map<EvalVariantPlan, Promise<PinningResult | undefined>>();
  return (variant) => {
    let pinning = pinnings.get(variant);
    if (!pinning) {
      // Bindings the selector would refuse are left to each cell, which records the refusal.
      pinning = checkBindings(variant.bindings, limits.maxBindings).length > 0 ? Promise.resolve(undefined) : pinCandidates({ bindings: variant.bindings, registry: variant.registry, registryReadTimeoutMs: limits.registryReadTimeoutMs }).then(
        (pinned) => (pinned.failure || pinned.diagnostics.length > 0 ? undefined : deepFreeze(pinned)),
        () => undefined,
      );
      pinnings.set(variant, pinning);
    }
    return pinning;
  };
}

/** One {@link SelectionMemo} per variant, made on its first cell: its registry is the variant's frozen catalog. */
function variantMemos(limits: SelectorLimits): (variant: EvalVariantPlan) => SelectionMemo {
  const memos = new Map<EvalVariantPlan, SelectionMemo>();
  return (variant) => {
    let memo = memos.get(variant);
    if (!memo) memos.set(variant, (memo = new SelectionMemo(variant.registry, limits)));
    return memo;
  };
}

/**
 * A model client that counts one cell's calls, cached calls and cost, and
 * sends the cell's repeat as the seed (before the answer cache, so the seed is
 * part of the cache key too). Both selectors' calls count in the cell.
 */
class CellMeter {
  calls = 0;
  cachedCalls = 0;
  cost: number | null = 0;

  constructor(private readonly repeat: number) {}

  wrap(model: ModelClient, limitedModel: ModelClient, cache: AnswerCache | undefined): ModelClient {
    const base = cache && !model.isBaseline ? cachedModel(limitedModel, cache, this.repeat) : limitedModel;
    return {
      spec: base.spec,
      isBaseline: base.isBaseline,
      generate: async (request: GenerateRequest): Promise<GenerateResult> => {
        const result = await base.generate({ ...request, seed: this.repeat });
        this.calls++;
        if (result.cached) this.cachedCalls++;
        this.cost = this.cost === null || result.costUsd === null || !Number.isFinite(result.costUsd) ? null : this.cost + result.costUsd;
        return result;
      },
    };
  }
}

/**
 * Runs the cell (model `m`, `unit`, `repeat`) through the selector and returns
 * its record (redacted), with its line for `cells.jsonl` when that was made
 * already, or undefined when a hard stop cancelled it. A model or registry
 * failure is an `error` cell, never a rejection.
 */
async function executeCell(ctx: CellContext, m: number, unit: Unit, repeat: number): Promise<{ cell: CellRecord; line?: string } | undefined> {
  const { options, specs } = ctx;
  const meter = new CellMeter(repeat);
  const metered = meter.wrap(options.models[m]!, ctx.limited[m]!, options.cache);
  const meteredResource = options.resourceModel && ctx.limitedResource ? meter.wrap(options.resourceModel, ctx.limitedResource, options.cache) : undefined;
  const c = unit.case;
  const started = performance.now();
  let cell: CellRecord;
  try {
    const pinning = await ctx.pinning(unit.variant);
    const result = await selectForRequest({
      request: c.request,
      boundary: c.boundary,
      bindings: unit.variant.bindings,
      registry: unit.variant.registry,
      model: metered,
      ...(meteredResource && { resourceModel: meteredResource }),
      limits: ctx.limits,
      ...(unit.context && { context: unit.context }),
      ...(pinning && { pinning }),
      memo: ctx.memo(unit.variant),
      signal: ctx.hard,
    });
    cell = cellFromResult(result, { model: specs[m]!, variant: unit.variant.info.label, case: c, repeat }, { costUsd: meter.cost, cached: meter.calls > 0 && meter.cachedCalls === meter.calls });
  } catch (error) {
    if (ctx.hard.aborted || isCancellation(error)) return undefined;
    cell = {
      key: cellKey(specs[m]!, unit.variant.info.label, c.id, repeat),
      model: specs[m]!,
      variant: unit.variant.info.label,
      case: c.id,
      skill: c.skill,
      repeat,
      expect: c.expect,
      outcome: 'error',
      invalid: false,
      activated: [],
      resources: [],
      resources_correct: null,
      diagnostics: [],
      latency_ms: Math.round(performance.now() - started),
      input_tokens: 0,
      output_tokens: 0,
      cost_usd: meter.cost,
      cached: false,
      error: message(error),
      trace: errorTrace(c.boundary, { activation: specs[m]!, resource: ctx.resourceSpec ?? specs[m]! }),
      finished_at: new Date().toISOString(),
    };
  }
  if (cell.outcome === 'error' && cell.latency_ms === 0) cell.latency_ms = Math.round(performance.now() - started);
  if (!options.redact) return { cell };
  // The line is needed anyway; when it shows that redaction has nothing to change (core/redact
  // mayRedactJson), the walk over every string of the cell is skipped and the line is reused.
  const line = cellLine(cell);
  if (!mayRedactJson(line, options.redact)) return { cell, line };
  const redacted = redactValue(cell, options.redact);
  return redacted === cell ? { cell, line } : { cell: redacted };
}

/**
 * The run's stop controls: `stop` schedules no new cells, `hard` also aborts
 * the cells in flight. `follow` makes them obey the caller's signals (once
 * the run starts scheduling), `detach` lets go of those signals.
 */
function stopControls(options: RunEvalOptions): { stop: AbortController; hard: AbortController; abortHard: () => void; follow: () => void; detach: () => void } {
  const stop = new AbortController();
  const hard = new AbortController();
  // Every cell in flight listens on these (the model call's abort): a warning at 10 would be noise.
  setMaxListeners(0, stop.signal, hard.signal);
  const onStop = () => stop.abort();
  const abortHard = () => {
    stop.abort();
    hard.abort();
  };
  return {
    stop,
    hard,
    abortHard,
    follow: () => {
      if (options.stopSignal?.aborted) onStop();
      if (options.signal?.aborted) abortHard();
      options.stopSignal?.addEventListener('abort', onStop, { once: true });
      options.signal?.addEventListener('abort', abortHard, { once: true });
    },
    detach: () => {
      options.stopSignal?.removeEventListener('abort', onStop);
      options.signal?.removeEventListener('abort', abortHard);
    },
  };
}

/**
 * Runs (or resumes) an evaluation. Throws `invalid_request` for an empty or
 * inconsistent matrix, `conflict` when the run directory belongs to another
 * configuration or another live runner; model and registry failures become
 * `error` cells instead.
 *
 * The steps: check the options and lay out the matrix ({@link planMatrix});
 * lock the run directory and bind it to this configuration's header; read back
 * the cells an earlier attempt recorded ({@link resumeCells}); schedule the
 * missing cells per provider ({@link dispatchProvider}), each run by
 * {@link executeCell}, appended to `cells.jsonl`, aggregated and counted
 * ({@link ProgressTracker}); write the summary.
 */
export async function runEval(options: RunEvalOptions, hooks: RunHooks = {}): Promise<RunResult> {
  const { repeats, concurrency, limits } = checkOptions(options);
  const specs = options.models.map((m) => m.spec);
  const { units, variants, catalogs, cases, extras } = planMatrix(options.skills);
  const models: ModelInfo[] = options.models.map((m) => ({ spec: m.spec, isBaseline: m.isBaseline }));
  const resourceSpec = options.resourceModel?.spec;
  const hash = configHash({ models, ...(resourceSpec !== undefined && { resourceModel: resourceSpec }), variants, catalogs, cases, repeats, limits });
  const runDir = resolve(options.runDir ?? join(options.cwd ?? process.cwd(), '.skillbench', 'runs', hash));
  const cellsFile = join(runDir, RUN_FILES.cells);

  const unlock = await lockRunDir(runDir);
  let writer: CellWriter | undefined;
  try {
    const header = await openRunHeader(runDir, hash, () => ({
      format: 'skillbench.eval/v1',
      run_id: randomUUID(),
      started_at: new Date().toISOString(),
      config_hash: hash,
      models,
      ...(resourceSpec !== undefined && { resource_model: resourceSpec }),
      variants,
      catalogs,
      repeats,
      concurrency,
      cases,
      ...(Object.keys(extras).length > 0 && { extras }),
      limits,
    }));

    const M = models.length;
    const U = units.length;
    const total = repeats * U * M;
    const done = new Uint8Array(total);
    const aggregator = new Aggregator(header);
    const controls = stopControls(options);
    const modelStops = specs.map((s) => options.modelStopSignals?.get(s));
    const modelStoppedAlone = (m: number) => modelStops[m]?.aborted === true;
    const progress = new ProgressTracker(specs, repeats * U, (m) => controls.stop.signal.aborted || modelStoppedAlone(m));
    const snapshot = () => progress.snapshot();

    const unitIndex = new Map(units.map((u, i) => [`${u.variant.info.label}|${u.case.id}`, i]));
    const modelIndex = new Map(specs.map((s, i) => [s, i]));
    const resumed = await resumeCells(
      cellsFile,
      done,
      (cell) => {
        const u = unitIndex.get(`${cell.variant}|${cell.case}`);
        const m = modelIndex.get(cell.model);
        if (u === undefined || m === undefined || !Number.isSafeInteger(cell.repeat) || cell.repeat < 0 || cell.repeat >= repeats) return undefined;
        return (cell.repeat * U + u) * M + m;
      },
      (cell) => {
        aggregator.add(cell);
        progress.count(modelIndex.get(cell.model)!, cell, true);
      },
    );
    writer = resumed.writer;
    const cellWriter = writer;
    progress.restartClock();
    hooks.onStart?.({ header, runDir, progress: snapshot(), tornLine: resumed.tornLine, snapshot });
    controls.follow();

    const { byProvider, limiters } = providerLimiters(specs, resourceSpec, concurrency, options.limiter);
    const rateOptions = { maxRetries: options.maxRateLimitRetries ?? 6, maxWaitMs: options.maxRateLimitWaitMs ?? 60_000, ...(hooks.onRateLimit && { onRateLimit: (e: RateLimitEvent) => hooks.onRateLimit!(e) }) };
    // Calls that reach a model (cache hits do not) wait out its rate limits and meet the other cells' calls at turns.
    const limit = (model: ModelClient) => groupedByTurn(rateLimited(model, limiters.get(providerOf(model.spec))!, rateOptions));
    const ctx: CellContext = {
      options,
      specs,
      resourceSpec,
      limits,
      limited: options.models.map(limit),
      limitedResource: options.resourceModel ? limit(options.resourceModel) : undefined,
      hard: controls.hard.signal,
      pinning: variantPinnings(limits),
      memo: variantMemos(limits),
    };

    let fatal: unknown;
    const runCell = async (m: number, u: number, repeat: number): Promise<void> => {
      const executed = await executeCell(ctx, m, units[u]!, repeat);
      if (!executed) return;
      const { cell } = executed;
      await cellWriter.append(cell, executed.line);
      aggregator.add(cell);
      progress.count(m, cell, false);
      hooks.onCell?.(cell, snapshot());
    };
    try {
      await Promise.all(
        [...byProvider].map(([provider, ms]) =>
          dispatchProvider({
            limiter: limiters.get(provider)!,
            models: ms,
            repeats,
            units: U,
            modelCount: M,
            done,
            stop: controls.stop.signal,
            modelStopped: modelStoppedAlone,
            runCell,
            // A cell that cannot be recorded (disk full, ...) ends the run: going on would lose results.
            onFatal: (error) => {
              fatal ??= error;
              controls.abortHard();
            },
          }),
        ),
      );
    } finally {
      controls.detach();
      await writer.close();
      writer = undefined;
    }
    if (fatal !== undefined) throw fatal;
    const summary = aggregator.summary(options.gates);
    await writeSummary(runDir, summary);
    return {
      header,
      summary,
      cellsFile,
      runDir,
      complete: progress.done === total,
      progress: snapshot(),
      ...(options.cache && { cache: { ...options.cache.stats } }),
    };
  } finally {
    await writer?.close().catch(() => undefined);
    await unlock();
  }
}
