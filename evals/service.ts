/**
 * The evaluation service: the one orchestration of the engine, plan → run →
 * verdict → reports, that `skillbench eval` and the WorkbenchApi's evals port
 * both call. Two front ends that each planned, opened models, ran and
 * reported drifted apart (the CLI and the workbench once evaluated 11 and 19
 * cases of the same skill); here each step exists once:
 *
 * - which cases a target brings is decided by the targets' resolution
 *   (core/workspace/targets.ts) and stated per skill in every plan and
 *   report header ("11 activation examples + 8 extra cases");
 * - the selector limits, the catalogs measured against them and the
 *   configuration hash a resume checks are computed once, by the plan;
 * - the models (activation models, and an optional resource model) are
 *   opened, refused and closed the same way;
 * - the verdict is the runner's summary, judged by the gates given; reports
 *   are written from the run's header, summary and cells file.
 *
 * Nothing here prints: front ends format what it returns.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toErrorData } from '../core/api/errors';
import { WorkbenchError } from '../core/errors';
import { openModel, priceOf, resolveModelId, safeParseModelSpec } from '../core/models/index';
import type { ModelClient } from '../core/models/types';
import { estimateTokens } from '../core/package/tokens';
import { caseOrigins, type CaseOrigins } from '../core/report/cases';
import { resolveSelectorLimits, type SelectorLimits } from '../core/selector/limits';
import type { SkillBinding } from '../core/selector/types';
import type { Target } from '../core/workspace/targets';
import { summarize } from './aggregate';
import { planEval, type PlanProblem, type PlanStore, type PlanWarning } from './plan';
import { renderMarkdownReport, writeHtmlReport, writeJsonReport, writeJunitReport, writeMarkdownReport } from './reports/index';
import { configHash, runEval, type EvalSkillPlan, type RunEvalOptions, type RunHooks, type RunResult } from './runner';
import { RUN_FILES, scanCells } from './runFiles';
import type { CatalogRecord, CellRecord, EvalSummary, RunHeader } from './types';
import type { GateOptions } from './verdict';

/** Most repeats of a case per model: a run records models × cases × repeats cells. */
export const MAX_EVAL_REPEATS = 100;
/** Most calls in flight per provider. */
export const MAX_EVAL_CONCURRENCY = 64;
/** Longest per-attempt model timeout, in milliseconds. */
export const MAX_EVAL_TIMEOUT_MS = 600_000;

/** How to evaluate: everything besides the targets that decides the cells. */
export interface EvaluationSettings {
  /** The activation models of the matrix, one column each (guide 9.4 `TRUVAG3_SKILL_ACTIVATION_MODEL`). */
  models: readonly string[];
  /** One resource-selection model for every activation model (guide 9.4 `TRUVAG3_SKILL_RESOURCE_MODEL`); absent: each its own. */
  resourceModel?: string;
  /** Runs of each case per model, 1..{@link MAX_EVAL_REPEATS}. */
  repeats: number;
  /** Also run each draft's published revision and compare them. */
  comparePublished: boolean;
  /** The agent's binding list; absent: every skill of the skill's namespace, bound auto. */
  bindings?: readonly SkillBinding[];
  /** Where `bindings` came from, as given (recorded with each catalog). */
  bindingsSource?: string;
  /** Selector limits (guide 9.10) besides the defaults; validated by {@link checkSettings}. */
  limits?: Readonly<Record<string, unknown>>;
  /** Run each skill's should-activate examples as should-not cases of the other skills of its catalog (default true). */
  adjacentNegatives?: boolean;
}

/** Where a plan reads from. */
export interface PlanContext {
  store: PlanStore;
  /** Secret-free name of the store, recorded with each catalog. */
  source: string;
  /** Base of the file names shown in problems and headers. */
  cwd: string;
}

/** The cases one skill brings, by origin (see core/report/cases.ts). */
export interface SkillCases extends CaseOrigins {
  skill: string;
  /** The extra-cases file, as shown, when the skill has one. */
  extras?: string;
}

/** A plan ready to run. */
export interface ReadyPlan {
  ok: true;
  skills: EvalSkillPlan[];
  warnings: PlanWarning[];
  /** The limits every cell runs with, defaults filled in. */
  limits: SelectorLimits;
  /** The run's id: the hash the runner will record (a resume checks it). */
  configHash: string;
  /** Per skill, the cases it brings by origin. */
  cases: SkillCases[];
  settings: EvaluationSettings;
}

/** The result of {@link planEvaluation}. */
export type EvaluationPlan = ReadyPlan | { ok: false; problems: PlanProblem[] };

/**
 * Checks settings before anything is read or opened. Throws `invalid_request`
 * with `details.pointer` (`/models/1`, `/resource_model`, `/repeats`,
 * `/limits`) and, for a bound, `details.max`.
 */
export function checkSettings(settings: EvaluationSettings): SelectorLimits {
  if (settings.models.length === 0) throw new WorkbenchError('invalid_request', 'an evaluation needs at least one model', { details: { pointer: '/models' } });
  if (new Set(settings.models).size !== settings.models.length) throw new WorkbenchError('invalid_request', 'the same model is given twice', { details: { pointer: '/models' } });
  settings.models.forEach((spec, i) => {
    const parsed = safeParseModelSpec(spec);
    if (!parsed.success) throw new WorkbenchError('invalid_request', parsed.error.message, { details: { pointer: `/models/${i}` } });
  });
  if (settings.resourceModel !== undefined) {
    const parsed = safeParseModelSpec(settings.resourceModel);
    if (!parsed.success) throw new WorkbenchError('invalid_request', `resource model: ${parsed.error.message}`, { details: { pointer: '/resource_model' } });
  }
  if (!Number.isSafeInteger(settings.repeats) || settings.repeats < 1 || settings.repeats > MAX_EVAL_REPEATS) {
    throw new WorkbenchError('invalid_request', `repeats must be an integer from 1 to ${MAX_EVAL_REPEATS}, got ${settings.repeats}`, { details: { pointer: '/repeats', max: MAX_EVAL_REPEATS } });
  }
  const limits = resolveSelectorLimits(settings.limits ?? {});
  if (!limits.ok) {
    throw new WorkbenchError('invalid_request', `invalid selector limits: ${limits.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}`, {
      details: { pointer: '/limits', issues: limits.issues },
    });
  }
  return limits.limits;
}

/**
 * Plans an evaluation: validates drafts and extra cases, builds and pins each
 * variant's catalog against the limits, and computes the run's id. Invalid
 * inputs come back as problems; settings that cannot run throw
 * `invalid_request` (see {@link checkSettings}); a store failure throws its
 * store error.
 */
export async function planEvaluation(targets: readonly Target[], settings: EvaluationSettings, context: PlanContext): Promise<EvaluationPlan> {
  const limits = checkSettings(settings);
  const planned = await planEval(targets, {
    store: context.store,
    cwd: context.cwd,
    ...(settings.bindings && { bindings: settings.bindings, bindingsFile: settings.bindingsSource ?? 'the given bindings' }),
    comparePublished: settings.comparePublished,
    source: context.source,
    limits,
    ...(settings.adjacentNegatives === false && { adjacentNegatives: false }),
  });
  if (!planned.ok) return planned;
  const catalogs: Record<string, CatalogRecord> = {};
  for (const s of planned.skills) for (const v of s.variants) catalogs[`${v.info.label}|${s.skill}`] = v.catalog;
  const hash = configHash({
    // Only the specs enter the hash: whether a model is a baseline changes no answer.
    models: settings.models.map((spec) => ({ spec, isBaseline: false })),
    ...(settings.resourceModel !== undefined && { resourceModel: settings.resourceModel }),
    variants: planned.skills.flatMap((s) => s.variants.map((v) => v.info)),
    catalogs,
    cases: planned.skills.flatMap((s) => s.cases),
    repeats: settings.repeats,
    limits,
  });
  return {
    ok: true,
    skills: planned.skills,
    warnings: planned.warnings,
    limits,
    configHash: hash,
    cases: planned.skills.map((s) => ({ skill: s.skill, ...caseOrigins(s.cases), ...(s.extras !== undefined && { extras: s.extras }) })),
    settings,
  };
}

/** The open model clients of a run. */
export interface OpenedModels {
  /** The activation models, in the order of the settings. */
  models: ModelClient[];
  resourceModel?: ModelClient;
  /** Closes every client once. */
  close(): Promise<void>;
}

/** Options of {@link openEvaluationModels}. */
export interface OpenModelsOptions {
  env: Record<string, string | undefined>;
  /** Per-attempt timeout in milliseconds. */
  timeoutMs: number;
  /** Opens one client (default: core/models `openModel`). */
  open?: typeof openModel;
}

/**
 * Opens the activation models and the resource model of `settings` (a
 * resource model that is also an activation model shares its client).
 * Throws `invalid_request` naming the spec (with `details.pointer`) when one
 * cannot be opened, after closing those already open.
 */
export async function openEvaluationModels(settings: EvaluationSettings, options: OpenModelsOptions): Promise<OpenedModels> {
  const open = options.open ?? openModel;
  const opened: ModelClient[] = [];
  const openOne = async (spec: string, pointer: string): Promise<ModelClient> => {
    try {
      const client = await open(spec, { env: options.env, timeoutMs: options.timeoutMs, retries: { retryOn: ['server'] } });
      opened.push(client);
      // The run is keyed by the spec as given (a client may shorten it: `llama-cpp:…?grammar=1` opens as
      // `llama-cpp:…`), so the plan's hash, the header and the cells name the same model.
      return { spec, isBaseline: client.isBaseline, generate: (request) => client.generate(request) };
    } catch (error) {
      throw new WorkbenchError('invalid_request', `${spec}: ${toErrorData(error).message}`, { cause: error, details: { pointer } });
    }
  };
  const close = async () => {
    await Promise.allSettled(opened.map((m) => m.close?.()));
  };
  try {
    const models: ModelClient[] = [];
    for (const [i, spec] of settings.models.entries()) models.push(await openOne(spec, `/models/${i}`));
    const resource = settings.resourceModel;
    const resourceModel = resource === undefined ? undefined : (models.find((m) => m.spec === resource) ?? (await openOne(resource, '/resource_model')));
    return { models, ...(resourceModel && { resourceModel }), close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Options of {@link runEvaluation}: where and how the cells run, never what they are. */
export type RunOptions = Omit<RunEvalOptions, 'models' | 'resourceModel' | 'skills' | 'repeats' | 'limits'>;

/**
 * Runs (or resumes) a planned evaluation with opened models. Throws
 * `conflict` when the models opened are not those the plan hashed (a caller
 * bug), and whatever the runner throws.
 */
export async function runEvaluation(plan: ReadyPlan, models: OpenedModels, options: RunOptions, hooks: RunHooks = {}): Promise<RunResult> {
  const specs = models.models.map((m) => m.spec);
  if (specs.join('\n') !== plan.settings.models.join('\n') || models.resourceModel?.spec !== plan.settings.resourceModel) {
    throw new WorkbenchError('conflict', 'the models opened are not the models of the plan');
  }
  const result = await runEval(
    {
      ...options,
      models: models.models,
      ...(models.resourceModel && { resourceModel: models.resourceModel }),
      skills: plan.skills,
      repeats: plan.settings.repeats,
      limits: plan.limits,
    },
    hooks,
  );
  if (result.header.config_hash !== plan.configHash) throw new WorkbenchError('internal', `the run's configuration hash ${result.header.config_hash} is not the plan's ${plan.configHash}`);
  return result;
}

/** One model's share of an estimate. */
export interface ModelEstimate {
  spec: string;
  isBaseline: boolean;
  cells: number;
  calls: number;
  /** Null when a price is unknown; 0 for baselines and local models. */
  costUsd: number | null;
}

/** What a plan will cost before it runs. */
export interface EvaluationEstimate {
  cells: number;
  calls: number;
  costUsd: number | null;
  models: ModelEstimate[];
}

/** Rough selector prompt overhead and answer size of one call, for the cost estimate only. */
const PROMPT_OVERHEAD_TOKENS = 600;
const ANSWER_TOKENS = 60;

/** Whether a spec names a deterministic baseline. */
export function isBaselineSpec(spec: string): boolean {
  const parsed = safeParseModelSpec(spec);
  return parsed.success && parsed.output.kind === 'baseline';
}

/** The price of a model spec's first member, when the price table knows it. */
function priceOfSpec(spec: string, env: Record<string, string | undefined>): { inputPerMTok: number; outputPerMTok: number } | null | undefined {
  const parsed = safeParseModelSpec(spec);
  if (!parsed.success) return undefined;
  const first = parsed.output.kind === 'chain' ? parsed.output.members[0] : parsed.output;
  if (!first) return undefined;
  if (first.kind === 'baseline' || first.kind === 'llama-cpp') return null;
  if (first.kind !== 'hosted' || first.provider === 'openai-compatible') return undefined;
  const resolved = resolveModelId(first.provider, first.model, env);
  if (!resolved) return undefined;
  return priceOf(first.provider, resolved.model);
}

/**
 * Cells, selector calls and cost of a plan: one activation call per cell,
 * plus a resource call where a should-activate case names expected resources
 * (billed to the resource model when one is set).
 */
export function estimateEvaluation(plan: ReadyPlan, env: Record<string, string | undefined>): EvaluationEstimate {
  const { settings } = plan;
  const units = plan.skills.reduce((n, s) => n + s.cases.length * s.variants.length, 0);
  const perModelCells = units * settings.repeats;
  let activationCalls = 0;
  let resourceCalls = 0;
  let activationTokens = 0;
  let resourceTokens = 0;
  for (const s of plan.skills) {
    for (const v of s.variants) {
      for (const c of s.cases) {
        const tokens = v.catalog.tokens + estimateTokens(c.request) + PROMPT_OVERHEAD_TOKENS;
        activationCalls++;
        activationTokens += tokens;
        if (c.expect === 'activate' && c.expectedResources && c.expectedResources.length > 0) {
          resourceCalls++;
          resourceTokens += tokens;
        }
      }
    }
  }
  const r = settings.repeats;
  const cost = (spec: string, calls: number, tokens: number): number | null => {
    if (calls === 0) return 0;
    const price = priceOfSpec(spec, env);
    return price === null ? 0 : price === undefined ? null : (tokens * r * price.inputPerMTok + calls * r * ANSWER_TOKENS * price.outputPerMTok) / 1_000_000;
  };
  const sum = (a: number | null, b: number | null) => (a === null || b === null ? null : a + b);
  const shared = settings.resourceModel;
  const models: ModelEstimate[] = settings.models.map((spec) => {
    const own = shared === undefined;
    const calls = (activationCalls + (own ? resourceCalls : 0)) * r;
    const costUsd = own ? cost(spec, activationCalls + resourceCalls, activationTokens + resourceTokens) : cost(spec, activationCalls, activationTokens);
    return { spec, isBaseline: isBaselineSpec(spec), cells: perModelCells, calls, costUsd };
  });
  let calls = models.reduce((n, m) => n + m.calls, 0);
  let costUsd = models.reduce<number | null>((a, m) => sum(a, m.costUsd), 0);
  if (shared !== undefined) {
    calls += resourceCalls * r * settings.models.length;
    costUsd = sum(costUsd, cost(shared, resourceCalls * settings.models.length, resourceTokens * settings.models.length));
  }
  return { cells: perModelCells * settings.models.length, calls, costUsd, models };
}

/**
 * The summary of a run folder from its recorded cells, judged by `gates`;
 * null while no cell is recorded. The same aggregation the runner ends with.
 */
export async function summarizeRunFolder(runDir: string, header: RunHeader, gates: GateOptions): Promise<EvalSummary | null> {
  const cells: CellRecord[] = [];
  const scan = await scanCells(join(runDir, RUN_FILES.cells), (cell) => void cells.push(cell));
  if (scan.cells === 0) return null;
  return summarize(header, cells, gates);
}

/** One distinct cause of a model's error cells or unusable answers, with how many cells it explains. */
export interface CellCause {
  kind: 'error' | 'unusable';
  message: string;
  cells: number;
}

/** Longest cause kept, in characters: a cause is a line to read, not a body to store. */
const MAX_CAUSE_CHARS = 300;

/**
 * The first distinct causes of each model's error cells (their messages) and
 * unusable answers (why the selector rejected them), in the order the run
 * met them, at most `perModel` of each kind, each with the cells it
 * explains. A user who reads "model unavailable" sees "no API key; set
 * OPENAI_API_KEY" beside it instead of digging in `cells.jsonl`.
 */
export async function cellCauses(cellsFile: string, perModel = 3): Promise<Map<string, CellCause[]>> {
  const out = new Map<string, CellCause[]>();
  await scanCells(cellsFile, (cell) => {
    let kind: CellCause['kind'] | undefined;
    let message: string | undefined;
    if (cell.outcome === 'error') {
      kind = 'error';
      message = cell.error ?? 'no message recorded';
    } else if (cell.invalid) {
      kind = 'unusable';
      message = cell.diagnostics.find((d) => d.code === 'skill_activation_selection_invalid')?.message ?? 'the selector rejected the answer';
    }
    if (kind === undefined || message === undefined) return;
    const text = message.length > MAX_CAUSE_CHARS ? `${message.slice(0, MAX_CAUSE_CHARS)}…` : message;
    let causes = out.get(cell.model);
    if (!causes) out.set(cell.model, (causes = []));
    const known = causes.find((c) => c.kind === kind && c.message === text);
    if (known) known.cells++;
    else if (causes.filter((c) => c.kind === kind).length < perModel) causes.push({ kind, message: text, cells: 1 });
  });
  return out;
}

/** A report format. */
export type ReportFormat = 'json' | 'junit' | 'markdown' | 'html';

/** The reports to write, by format: a file path each (absolute or relative to the caller's folder). */
export type ReportFiles = Partial<Record<ReportFormat, string>>;

/** Writes one report of a finished run to `file` (atomically). */
export async function writeEvaluationReport(format: ReportFormat, file: string, run: Pick<RunResult, 'header' | 'summary' | 'cellsFile'>): Promise<void> {
  const { header, summary, cellsFile } = run;
  if (format === 'json') await writeJsonReport(file, header, summary, cellsFile);
  else if (format === 'junit') await writeJunitReport(file, header, summary, cellsFile);
  else if (format === 'markdown') await writeMarkdownReport(file, header, summary);
  else await writeHtmlReport(file, header, summary, cellsFile);
}

/** One report of a run as text (the workbench's export), written through a scratch file for the streaming writers. */
export async function renderEvaluationReport(format: ReportFormat, run: Pick<RunResult, 'header' | 'summary' | 'cellsFile'>): Promise<string> {
  if (format === 'markdown') return renderMarkdownReport(run.header, run.summary);
  const dir = await mkdtemp(join(tmpdir(), 'skillbench-eval-export-'));
  try {
    const file = join(dir, `report.${format}`);
    await writeEvaluationReport(format, file, run);
    return await readFile(file, 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
