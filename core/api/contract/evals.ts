/**
 * Evaluation runs: requests, plans, progress, cells and summaries.
 *
 * Isomorphic: no `node:` imports (the renderer and the preload import it).
 */
import { z } from 'zod';
import type { Finding } from '../../package/types';
import type { CatalogRecord, CellRecord, EvalCase, EvalSummary, VariantInfo } from '../../report/evalResults';
import { connectionNameSchema, skillIdSchema, versionSchema, workspacePathSchema } from './common';
import type { WorkbenchErrorData } from './errors';
import { empty, method, runRef, slug } from './internal';

// A run's results cross the API exactly as the engine records them: their
// shapes are declared once, with the rest of a run's results.
export type * from '../../report/evalResults';

/** One binding of an agent's binding list (guide 6.1). */
export const bindingSchema = z.strictObject({
  namespace: slug('a namespace'),
  name: slug('a name'),
  version: z.union([z.literal('published'), versionSchema]),
  activation: z.enum(['always', 'auto', 'explicit']),
  required: z.boolean(),
});

/** What to evaluate: a draft, a workspace file, or a published revision. */
export const evalTargetSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('draft'), draft: z.string().min(1).max(512) }),
  z.strictObject({ kind: z.literal('file'), path: workspacePathSchema }),
  z.strictObject({ kind: z.literal('published'), skill: skillIdSchema }),
]);

/** An evaluation as the setup view describes it; `evals.plan` and `evals.start` take the same request. */
export const evalRequestSchema = z.strictObject({
  targets: z.array(evalTargetSchema).min(1).max(100),
  /** Model specs (`openai:fast`, `baseline:lexical`, `chain:…`), at least one, no duplicates. */
  models: z
    .array(z.string().min(1).max(2048))
    .min(1)
    .max(32)
    .refine((m) => new Set(m).size === m.length, 'the same model is given twice'),
  /**
   * One resource-selection model for every model of `models` (guide 9.4
   * `TRUVAG3_SKILL_RESOURCE_MODEL`); absent: each model selects its own
   * resources. `models` are the activation models.
   */
  resource_model: z.string().min(1).max(2048).optional(),
  /** The store holding the catalog and the published revisions. */
  connection: connectionNameSchema,
  /** The agent's binding list; absent: every skill of the skill's namespace, bound auto. */
  bindings: z.array(bindingSchema).max(1000).optional(),
  /** Selector limits (guide 9.10) other than the defaults, as `select --limits` takes them: checked by the engine. */
  limits: z.record(z.string().max(64), z.number()).optional(),
  /** Also run each draft's published revision and compare them. */
  compare_published: z.boolean().default(false),
  /**
   * Also run each skill's should-activate examples as should-not cases of the
   * other skills of its catalog ("adjacent" cases; the CLI's `--no-adjacent-negatives` turns them off).
   */
  adjacent_negatives: z.boolean().default(true),
  repeats: z.number().int().min(1).max(100).default(1),
  concurrency: z.number().int().min(1).max(64).default(4),
  /** Per-attempt model timeout. */
  timeout_ms: z.number().int().min(100).max(600_000).default(60_000),
  /** Answer from and write to the answer cache. */
  cache: z.boolean().default(true),
  /** Quality gates the run's verdict judges (they decide no answer, so they do not change the configuration). */
  gates: z
    .strictObject({
      min_accuracy: z.number().min(0).max(1).optional(),
      min_recall: z.number().min(0).max(1).optional(),
      min_precision: z.number().min(0).max(1).optional(),
      /** Fail unless each draft is shown non-inferior to its published revision. */
      fail_on_regression: z.boolean().optional(),
      /** The loss in paired accuracy the comparison gates tolerate (default 0.05). */
      regression_margin: z.number().min(0).max(0.5).optional(),
      /** Fail unless every other model is non-inferior to this one (one of `models`). */
      reference_model: z.string().min(1).max(2048).optional(),
      /** Share of a model's cells that may end in an error before the run reaches no verdict (default 0). */
      max_error_rate: z.number().min(0).max(1).optional(),
      /** Share of a model's answers that may be unusable before the run reaches no verdict (default 0). */
      max_invalid_rate: z.number().min(0).max(1).optional(),
      /** The run measures a catalog the selector skips on purpose. */
      allow_skipped_activation: z.boolean().optional(),
    })
    .default({}),
});

/**
 * The catalog of one variant and its size against the selector's activation
 * budget: the run's record without the binding file, plus what the runtime
 * does about its size.
 */
export interface EvalCatalogView extends Omit<CatalogRecord, 'bindings'> {
  /** What the runtime does when `tokens` is over `budget`; null when within it. */
  consequence: string | null;
}

/** Why a skill cannot be evaluated as given. */
export interface EvalPlanProblem {
  kind: 'invalid_package' | 'invalid_cases' | 'no_cases';
  skill: string;
  file?: string;
  message: string;
  findings: Finding[];
}

/** The estimate of one model's share of a run. */
export interface EvalModelEstimate {
  spec: string;
  isBaseline: boolean;
  cells: number;
  /** Selector calls expected (activation, plus resource selection where a skill has resources). */
  estimated_calls: number;
  /** Null when the model's price is unknown (or it costs nothing: baselines and local models give 0). */
  estimated_cost_usd: number | null;
}

/** What a run would do, before it starts. */
export interface EvalPlanView {
  /** False when problems prevent the run. */
  ok: boolean;
  problems: EvalPlanProblem[];
  warnings: { code: string; skill: string; variant?: string; message: string }[];
  config_hash: string | null;
  cells: number;
  estimated_calls: number;
  estimated_cost_usd: number | null;
  models: EvalModelEstimate[];
  skills: {
    skill: string;
    cases: number;
    /** Cases from the package's activation examples. */
    examples: number;
    /** Cases from the workspace's extra-cases file. */
    extra_cases: number;
    /** Other skills' should-activate examples run as should-not cases of this one (a catalog run). */
    adjacent_cases: number;
    /** That file, workspace-relative, when there is one. */
    extras_file?: string;
    variants: { label: string; version: number | 'draft'; manifest_hash: string; catalog: EvalCatalogView }[];
  }[];
  /** An earlier attempt of the same configuration that `evals.start` would resume. */
  resumable: { run: string; done: number; total: number } | null;
}

/** Progress counters (the runner's, or one model's share). */
export interface EvalProgress {
  done: number;
  total: number;
  errors: number;
  /** Cells per second run in this attempt (0 before the first). */
  rate: number;
  /** Milliseconds to completion at that rate: 0 when done, null while unknown. */
  eta_ms: number | null;
}

/** One model's column of a run. */
export interface EvalModelProgress extends EvalProgress {
  spec: string;
  isBaseline: boolean;
  /** `stopped` columns are incomplete and never shown as complete. */
  status: 'pending' | 'running' | 'stopped' | 'complete';
}

/** A run, as the run list and the live view show it. */
export interface EvalRunView {
  /** The run's folder name: its id. */
  run: string;
  config_hash: string;
  started_at: string;
  status: 'running' | 'stopping' | 'complete' | 'incomplete' | 'failed';
  progress: EvalProgress;
  models: EvalModelProgress[];
  skills: string[];
  variants: string[];
  repeats: number;
  /** Why it failed, when `status` is `failed`. */
  error?: WorkbenchErrorData;
}

/** One evaluated cell, as the matrix shows it: the recorded cell without its trace (that comes from `evals.trace`). */
export type EvalCell = Omit<CellRecord, 'trace'>;

/** A cell with its full selector trace (prompts sent, raw answers, decisions): the cell as the run recorded it. */
export type EvalCellTrace = CellRecord;

/** A run with its header facts and, once it has cells, its summary. */
export interface EvalRunDetail {
  run: EvalRunView;
  cases: EvalCase[];
  variants: VariantInfo[];
  catalogs: Record<string, EvalCatalogView>;
  /** The one resource-selection model of every activation model, when the run pinned one (guide 9.4). */
  resource_model?: string;
  /** The extra-cases file of each skill that has one, as recorded. */
  extras?: Record<string, string>;
  /** The engine's summary, shown as is and never re-derived; null until the first cell is recorded. */
  summary: EvalSummary | null;
}

/** A page of a run's cells, in recorded order. */
export interface EvalCellsPage {
  cells: EvalCell[];
  /** Pass as `offset` for the next page; null at the end. */
  next_offset: number | null;
}

/** An exported report. */
export interface EvalExport {
  format: 'json' | 'junit' | 'markdown' | 'html';
  filename: string;
  content_type: string;
  text: string;
}

/** This domain's methods of {@link METHODS}, with their parameter schemas. */
export const evalMethods = {
  /** Plans an evaluation: cells, estimated calls and cost, catalogs against the budget, problems. */
  'evals.plan': method<EvalPlanView>()(evalRequestSchema),
  /** Starts (or resumes, when the same configuration has an incomplete run) an evaluation. */
  'evals.start': method<EvalRunView>()(evalRequestSchema),
  /** Stops one model's column, or the whole run: no new cells; cells in flight finish and are recorded. */
  'evals.stop': method<EvalRunView>()(z.strictObject({ run: runRef.shape.run, model: z.string().min(1).max(2048).optional() })),
  /** Resumes an interrupted run from its folder, redoing nothing. */
  'evals.resume': method<EvalRunView>()(runRef),
  /** Runs found in the run folder, newest first. */
  'evals.list': method<{ runs: EvalRunView[] }>()(empty),
  'evals.get': method<EvalRunDetail>()(runRef),
  'evals.cells': method<EvalCellsPage>()(
    z.strictObject({ run: runRef.shape.run, offset: z.number().int().min(0).default(0), limit: z.number().int().min(1).max(20_000).default(5000) }),
  ),
  'evals.trace': method<EvalCellTrace>()(z.strictObject({ run: runRef.shape.run, key: z.string().min(1).max(4096) })),
  'evals.export': method<EvalExport>()(z.strictObject({ run: runRef.shape.run, format: z.enum(['json', 'junit', 'markdown', 'html']) })),
} as const;
