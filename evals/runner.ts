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
import { selectForRequest, type SelectionResult, type SelectionTrace } from '../core/selector/select';
import type { SelectionContext, SkillBinding } from '../core/selector/types';
import type { SkillRegistryReader } from '../core/store/types';
import { Aggregator } from './aggregate';
import { cachedModel, type AnswerCache, type CacheStats } from './cache';
import { AdaptiveLimiter } from './limiter';
import { redactValue } from '../core/redact';
import { CellWriter, RUN_FILES, cutTornTail, lockRunDir, readHeader, scanCells, writeHeader, writeSummary } from './runFiles';
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

/** One model's share of a run's progress: its column of the matrix. */
export interface ModelProgress {
  spec: string;
  /** Cells of this model recorded, including those found from an earlier attempt. */
  done: number;
  total: number;
  errors: number;
  /** Cells of this model run by this process. */
  executed: number;
  /** Cells per second of this model run by this process so far. */
  rate: number;
  /** Estimated milliseconds until this model's cells are recorded: 0 when done, null while unknown or once stopped. */
  etaMs: number | null;
  /**
   * `complete`: every cell recorded; `stopped`: its cells were stopped before
   * they were all recorded (never shown as complete); `running` otherwise.
   */
  status: 'running' | 'stopped' | 'complete';
}

/** Progress of a run. */
export interface RunProgress {
  /** Cells recorded, including those found from an earlier attempt. */
  done: number;
  total: number;
  /** Error cells among `done`. */
  errors: number;
  /** Cells run by this process. */
  executed: number;
  /** Cells found from an earlier attempt. */
  resumed: number;
  /** Milliseconds since this process started the run. */
  elapsedMs: number;
  /** Cells per second run by this process so far (0 before the first finishes). */
  rate: number;
  /**
   * Estimated milliseconds until every cell still scheduled is recorded at
   * that rate (a stopped model's missing cells are not scheduled): 0 when
   * nothing is left, null while there is no rate yet.
   */
  etaMs: number | null;
  /** Each model's column, in the order of the models given. */
  models: ModelProgress[];
}

/** Callbacks of {@link runEval}; all optional, none may throw. */
export interface RunHooks {
  /** `snapshot` reads the progress at any time until the run returns (a display ticking between cells). */
  onStart?(info: { header: RunHeader; runDir: string; progress: RunProgress; tornLine: boolean; snapshot: () => RunProgress }): void;
  onCell?(cell: CellRecord, progress: RunProgress): void;
  onRateLimit?(event: { provider: string; model: string; concurrency: number; waitMs: number; retry: number }): void;
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

/** The provider prefix of a spec (`openai:fast` → `openai`): the unit of concurrency and rate limits. */
export function providerOf(spec: string): string {
  const i = spec.indexOf(':');
  return i < 0 ? spec : spec.slice(0, i);
}

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

interface Unit {
  plan: EvalSkillPlan;
  variant: EvalVariantPlan;
  case: EvalCase;
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

/** Waits `ms`; resolves true when `signal` aborted first. */
function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(true);
  return new Promise((done) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      done(false);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      done(true);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
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

/**
 * Runs (or resumes) an evaluation. Throws `invalid_request` for an empty or
 * inconsistent matrix, `conflict` when the run directory belongs to another
 * configuration or another live runner; model and registry failures become
 * `error` cells instead.
 */
export async function runEval(options: RunEvalOptions, hooks: RunHooks = {}): Promise<RunResult> {
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
  const limits = resolvedLimits.limits;

  const units: Unit[] = [];
  const variants: VariantInfo[] = [];
  const catalogs: Record<string, CatalogRecord> = {};
  const cases: CaseInfo[] = [];
  const extras: Record<string, string> = {};
  const seenCases = new Set<string>();
  const seenVariants = new Set<string>();
  for (const plan of options.skills) {
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
      for (const c of plan.cases) units.push({ plan, variant: v, case: c });
    }
  }
  const models: ModelInfo[] = options.models.map((m) => ({ spec: m.spec, isBaseline: m.isBaseline }));
  const resourceSpec = options.resourceModel?.spec;
  const hash = configHash({ models, ...(resourceSpec !== undefined && { resourceModel: resourceSpec }), variants, catalogs, cases, repeats, limits });
  const runDir = resolve(options.runDir ?? join(options.cwd ?? process.cwd(), '.skillbench', 'runs', hash));
  const cellsFile = join(runDir, RUN_FILES.cells);

  const unlock = await lockRunDir(runDir);
  let writer: CellWriter | undefined;
  try {
    let header = await readHeader(runDir);
    if (header && header.config_hash !== hash) {
      throw new WorkbenchError('conflict', `${runDir} holds the run of another configuration (config ${header.config_hash}, this one is ${hash}); use another --out folder`);
    }
    if (!header) {
      header = {
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
      };
      await writeHeader(runDir, header);
    }

    const M = models.length;
    const U = units.length;
    const total = repeats * U * M;
    const unitIndex = new Map(units.map((u, i) => [`${u.variant.info.label}|${u.case.id}`, i]));
    const modelIndex = new Map(specs.map((s, i) => [s, i]));
    const done = new Uint8Array(total);
    const aggregator = new Aggregator(header);
    const progress = { done: 0, total, errors: 0, executed: 0, resumed: 0 };
    const perModel = specs.map(() => ({ done: 0, errors: 0, executed: 0 }));
    const modelTotal = repeats * U;
    // stop: no new cells; hard: also abort the cells in flight; a model's stop: no new cells of that model.
    const stop = new AbortController();
    const hard = new AbortController();
    const modelStops = specs.map((s) => options.modelStopSignals?.get(s));
    const modelStopped = (m: number) => stop.signal.aborted || modelStops[m]?.aborted === true;
    let started = performance.now();
    // Rate and ETA are computed here, once, so every reader (a terminal bar, a UI) shows the same numbers.
    const snapshot = (): RunProgress => {
      const elapsedMs = performance.now() - started;
      const perSecond = (n: number) => (elapsedMs > 0 ? n / (elapsedMs / 1000) : 0);
      const rate = perSecond(progress.executed);
      let scheduled = 0;
      const columns = perModel.map((c, m): ModelProgress => {
        const left = modelTotal - c.done;
        const stopped = left > 0 && modelStopped(m);
        if (!stopped) scheduled += left;
        const modelRate = perSecond(c.executed);
        const etaMs = left === 0 ? 0 : stopped ? null : modelRate > 0 ? (left / modelRate) * 1000 : null;
        return { spec: specs[m]!, done: c.done, total: modelTotal, errors: c.errors, executed: c.executed, rate: modelRate, etaMs, status: left === 0 ? 'complete' : stopped ? 'stopped' : 'running' };
      });
      const etaMs = scheduled === 0 ? 0 : rate > 0 ? (scheduled / rate) * 1000 : null;
      return { ...progress, elapsedMs, rate, etaMs, models: columns };
    };
    const count = (m: number, cell: CellRecord, resumed: boolean) => {
      const column = perModel[m]!;
      progress.done++;
      column.done++;
      if (resumed) progress.resumed++;
      else {
        progress.executed++;
        column.executed++;
      }
      if (cell.outcome === 'error') {
        progress.errors++;
        column.errors++;
      }
    };

    const scan = await scanCells(cellsFile, (cell) => {
      const u = unitIndex.get(`${cell.variant}|${cell.case}`);
      const m = modelIndex.get(cell.model);
      if (u === undefined || m === undefined || !Number.isSafeInteger(cell.repeat) || cell.repeat < 0 || cell.repeat >= repeats) return;
      const index = (cell.repeat * U + u) * M + m;
      if (done[index]) return;
      done[index] = 1;
      aggregator.add(cell);
      count(m, cell, true);
    });
    await cutTornTail(cellsFile, scan);
    writer = await CellWriter.open(cellsFile);
    started = performance.now();
    hooks.onStart?.({ header, runDir, progress: snapshot(), tornLine: scan.totalBytes > scan.validBytes, snapshot });

    // Every cell in flight listens on these (the model call's abort): a warning at 10 would be noise.
    setMaxListeners(0, stop.signal, hard.signal);
    let fatal: unknown;
    const onStop = () => stop.abort();
    const onHard = () => {
      stop.abort();
      hard.abort();
    };
    if (options.stopSignal?.aborted) onStop();
    if (options.signal?.aborted) onHard();
    options.stopSignal?.addEventListener('abort', onStop, { once: true });
    options.signal?.addEventListener('abort', onHard, { once: true });

    const byProvider = new Map<string, number[]>();
    specs.forEach((s, m) => {
      const p = providerOf(s);
      byProvider.set(p, [...(byProvider.get(p) ?? []), m]);
    });
    const limiters = new Map([...byProvider.keys()].map((p) => [p, new AdaptiveLimiter({ max: concurrency, ...options.limiter })]));
    // A resource model of another provider gets that provider's limiter: its rate limits slow its own calls only.
    if (options.resourceModel && !limiters.has(providerOf(options.resourceModel.spec))) limiters.set(providerOf(options.resourceModel.spec), new AdaptiveLimiter({ max: concurrency, ...options.limiter }));
    const maxRetries = options.maxRateLimitRetries ?? 6;
    const maxWait = options.maxRateLimitWaitMs ?? 60_000;

    const limit = (model: ModelClient): ModelClient => {
      const provider = providerOf(model.spec);
      const limiter = limiters.get(provider)!;
      return {
        spec: model.spec,
        isBaseline: model.isBaseline,
        async generate(request: GenerateRequest): Promise<GenerateResult> {
          for (let retry = 1; ; retry++) {
            try {
              const result = await model.generate(request);
              limiter.onSuccess();
              return result;
            } catch (error) {
              const e = error as { kind?: unknown; retryAfterMs?: unknown };
              if (e?.kind !== 'rate_limit' || retry > maxRetries || request.signal?.aborted) throw error;
              const retryAfter = typeof e.retryAfterMs === 'number' ? e.retryAfterMs : undefined;
              if (retryAfter !== undefined && retryAfter > maxWait) throw error;
              const waitMs = limiter.onRateLimit(retryAfter, retry);
              hooks.onRateLimit?.({ provider, model: model.spec, concurrency: limiter.limit, waitMs, retry });
              if (await sleep(waitMs, request.signal)) throw error;
            }
          }
        },
      };
    };
    const limited = options.models.map(limit);
    const limitedResource = options.resourceModel ? limit(options.resourceModel) : undefined;

    const runCell = async (m: number, unit: Unit, repeat: number): Promise<void> => {
      let calls = 0;
      let cachedCalls = 0;
      let cost: number | null = 0;
      // Both selectors' calls count in the cell: its cost, its cache state, its seed.
      const meter = (model: ModelClient, limitedModel: ModelClient): ModelClient => {
        const base = options.cache && !model.isBaseline ? cachedModel(limitedModel, options.cache, repeat) : limitedModel;
        return {
          spec: base.spec,
          isBaseline: base.isBaseline,
          async generate(request: GenerateRequest): Promise<GenerateResult> {
            // The seed goes in before the cache, so it is part of the cache key too.
            const result = await base.generate({ ...request, seed: repeat });
            calls++;
            if (result.cached) cachedCalls++;
            cost = cost === null || result.costUsd === null || !Number.isFinite(result.costUsd) ? null : cost + result.costUsd;
            return result;
          },
        };
      };
      const metered = meter(options.models[m]!, limited[m]!);
      const meteredResource = options.resourceModel && limitedResource ? meter(options.resourceModel, limitedResource) : undefined;
      const c = unit.case;
      const context: SelectionContext | undefined = c.context !== undefined ? { objective: c.context } : undefined;
      const started = performance.now();
      let cell: CellRecord;
      try {
        const result = await selectForRequest({
          request: c.request,
          boundary: c.boundary,
          bindings: unit.variant.bindings,
          registry: unit.variant.registry,
          model: metered,
          ...(meteredResource && { resourceModel: meteredResource }),
          limits,
          ...(context && { context }),
          signal: hard.signal,
        });
        cell = cellFromResult(result, { model: specs[m]!, variant: unit.variant.info.label, case: c, repeat }, { costUsd: cost, cached: calls > 0 && cachedCalls === calls });
      } catch (error) {
        if (hard.signal.aborted || isCancellation(error)) return;
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
          cost_usd: cost,
          cached: false,
          error: message(error),
          trace: errorTrace(c.boundary, { activation: specs[m]!, resource: resourceSpec ?? specs[m]! }),
          finished_at: new Date().toISOString(),
        };
      }
      if (cell.outcome === 'error' && cell.latency_ms === 0) cell.latency_ms = Math.round(performance.now() - started);
      if (options.redact) cell = redactValue(cell, options.redact);
      await writer!.append(cell);
      aggregator.add(cell);
      count(m, cell, false);
      hooks.onCell?.(cell, snapshot());
    };

    const dispatch = async (provider: string, ms: number[]): Promise<void> => {
      const limiter = limiters.get(provider)!;
      const inflight = new Set<Promise<void>>();
      outer: for (let r = 0; r < repeats; r++) {
        for (let u = 0; u < U; u++) {
          for (const m of ms) {
            const index = (r * U + u) * M + m;
            if (done[index] || modelStops[m]?.aborted) continue;
            if (stop.signal.aborted) break outer;
            if (!(await limiter.acquire(stop.signal))) break outer;
            // The model may have been stopped while this cell waited for a slot.
            if (modelStops[m]?.aborted) {
              limiter.release();
              continue;
            }
            done[index] = 1;
            const task: Promise<void> = runCell(m, units[u]!, r)
              .catch((error: unknown) => {
                // A cell that cannot be recorded (disk full, ...) ends the run: going on would lose results.
                fatal ??= error;
                onHard();
              })
              .finally(() => {
                limiter.release();
                inflight.delete(task);
              });
            inflight.add(task);
          }
        }
      }
      await Promise.all(inflight);
    };

    try {
      await Promise.all([...byProvider].map(([p, ms]) => dispatch(p, ms)));
    } finally {
      options.stopSignal?.removeEventListener('abort', onStop);
      options.signal?.removeEventListener('abort', onHard);
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
