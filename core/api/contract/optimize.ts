/**
 * The description optimizer and the authoring advisor.
 *
 * Isomorphic: no `node:` imports (the renderer and the preload import it).
 */
import { z } from 'zod';
import type { ValidationResult } from '../../package/types';
import type { PairedComparison } from '../../report/evalResults';
import type { CandidateReport, HeldoutModel, OptimizeReport, SplitCase } from '../../report/optimizeResults';
import type { AuthoringAnalysis, CheckedProposal } from '../../store/types';
import { connectionNameSchema, packageTextSchema, skillIdSchema } from './common';
import type { WorkbenchErrorData } from './errors';
import type { EvalPlanProblem } from './evals';
import { method, runRef } from './internal';

// The optimizer's report is declared once, with its view below derived from it.
export type * from '../../report/optimizeResults';
// The advisor's analysis is the admin API's (core/store/types.ts).
export type { AdvisorSource, AdvisorSuggestion, AuthoringAnalysis, DropReason, DroppedProposal } from '../../store/types';

/** A split case as the workbench shows it: without its origin. */
export type OptimizeSplitCase = Omit<SplitCase, 'source'>;

/**
 * The held-out comparison on one model as the workbench shows it: the
 * report's, with the per-case comparison cut to its pairs, accuracies, test
 * and cases.
 */
export interface OptimizeHeldoutView extends Omit<HeldoutModel, 'comparison'> {
  comparison: Pick<PairedComparison, 'pairs' | 'accuracy_a' | 'accuracy_b' | 'test' | 'cases'>;
}

/**
 * The optimizer's report as the API carries it: the report `--json` writes,
 * without the host's file name and run folders (`format`, `file`, `runs`),
 * its split cases without their origin, and its held-out comparisons cut as
 * {@link OptimizeHeldoutView} says.
 */
export interface OptimizeReportView extends Omit<OptimizeReport, 'format' | 'file' | 'runs' | 'split' | 'heldout'> {
  split: { seed: number; holdout: number; train: OptimizeSplitCase[]; heldout: OptimizeSplitCase[] };
  heldout: OptimizeHeldoutView[] | null;
}

/** Where an optimizer run is. */
export interface OptimizeProgress {
  /** `train` (round 0 scores the original), `heldout`, or `done`. */
  phase: 'starting' | 'train' | 'heldout' | 'done';
  round: number;
  /** Cells of the current eval run. */
  done: number;
  total: number;
  errors: number;
  /** One line for a person (`round 2: 3 candidates, 1 dropped`). */
  message: string;
}

/**
 * Why a skill cannot be optimized as given: a planning problem, or
 * `too_few_cases` (the held-out split cannot reach p < alpha; `file` is the
 * extra-cases file to add cases to, `power` what the split can prove at best).
 */
export interface OptimizeProblemView extends Omit<EvalPlanProblem, 'kind'> {
  kind: EvalPlanProblem['kind'] | 'too_few_cases';
  power?: { heldout: number; best_p: number; alpha: number; needed: number; enough: boolean; add?: { activate: number; not_activate: number }; holdout?: number };
}

/** An optimizer run of this session. */
export interface OptimizeRunView {
  run: string;
  skill: string;
  status: 'running' | 'stopping' | 'finished' | 'stopped' | 'failed';
  seed: number;
  models: string[];
  proposer: string;
  started_at: string;
  progress: OptimizeProgress;
  /** The candidates proposed so far (train scores filled in as rounds finish). */
  candidates: CandidateReport[];
  /** The report, once finished. */
  report: OptimizeReportView | null;
  /** Why the skill could not be optimized as given (invalid package, no cases, too few to prove a gain), when that is why it failed. */
  problems?: OptimizeProblemView[];
  error?: WorkbenchErrorData;
}

/**
 * A kept advisor proposal: it applies to a copy of the normalized package and
 * leaves it valid. The admin API's checked proposal, plus the patched text.
 */
export interface AdvisorProposalView extends CheckedProposal {
  /** The patched package, pretty-printed (what "apply" puts in the editor). */
  text: string;
}

/** The authoring advisor's analysis of one package text. */
export interface AdvisorAnalysisView {
  /** Deterministic validation; when it fails the advisor is not called and `analysis` is null. */
  validation: ValidationResult;
  /** The normalized package the proposals apply to, pretty-printed; null when the text has no package shape. */
  normalized_text: string | null;
  /** The advisor's analysis as the admin API's `analyze` returns it, each kept proposal with its patched text. */
  analysis: (Omit<AuthoringAnalysis, 'proposals'> & { proposals: AdvisorProposalView[] }) | null;
}

const optimizeSource = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('text'), text: packageTextSchema, skill: skillIdSchema }),
  z.strictObject({ kind: z.literal('draft'), draft: z.string().min(1).max(512) }),
]);

const modelSpecList = z
  .array(z.string().min(1).max(2048))
  .min(1)
  .max(8)
  .refine((m) => new Set(m).size === m.length, 'the same model is given twice');

/** The settings of an optimizer run. */
export const optimizeRequestSchema = z.strictObject({
  /** The package whose description is optimized: text as the editor holds it, or a draft. */
  source: optimizeSource,
  /** The store holding the competing catalog. */
  connection: connectionNameSchema.default('default'),
  /** Evaluated models (default: the lexical and embedding baselines). */
  models: modelSpecList.default(['baseline:lexical', 'baseline:embedding']),
  /** `baseline:keywords` (deterministic, no model) or a language-model spec. */
  proposer: z.string().min(1).max(2048).default('baseline:keywords'),
  rounds: z.number().int().min(1).max(20).default(3),
  /** Candidates evaluated per round. */
  candidates: z.number().int().min(1).max(10).default(3),
  /** Share of each stratum held out. */
  holdout: z.number().gt(0).lt(1).default(0.4),
  repeats: z.number().int().min(1).max(20).default(1),
  /** The most the winner may raise any model's held-out false-activation rate, or lower its per-answer accuracy (0 tolerates none). */
  harm_margin: z.number().min(0).lt(1).default(0.05),
  /** Split seed (default: random, recorded in the report). */
  seed: z.number().int().min(0).max(0xffffffff).optional(),
  timeout_ms: z.number().int().min(100).max(600_000).default(60_000),
  /** Answer from and write to the answer cache. */
  cache: z.boolean().default(true),
});

/** This domain's methods of {@link METHODS}, with their parameter schemas. */
export const optimizeMethods = {
  /**
   * Starts the description optimizer on a package text or draft; progress
   * arrives as `optimize.progressed`, the end as `optimize.finished`. Nothing
   * is published or written to the package.
   */
  'optimize.start': method<OptimizeRunView>()(optimizeRequestSchema),
  /** Stops a run: the eval run in flight is abandoned (its recorded cells kept for a rerun with the same seed). */
  'optimize.stop': method<OptimizeRunView>()(runRef),
  /** A run of this session with its candidates and, once finished, its report. */
  'optimize.get': method<OptimizeRunView>()(runRef),

  /**
   * The authoring advisor (guide 5.3) on a package text: validation first (an
   * invalid package gets its findings and no model call), then advice and
   * JSON Patch proposals, each applied to a copy and revalidated (kept with the
   * patched package, or dropped with the reason).
   */
  'advisor.analyze': method<AdvisorAnalysisView>()(
    z.strictObject({
      text: packageTextSchema,
      skill: skillIdSchema,
      model: z.string().min(1).max(2048),
      reasoning_effort: z.enum(['low', 'medium', 'high', 'none']).optional(),
      /** Additional guidance (bounded: 4,096 bytes and 512 estimated tokens). */
      guidance: z.string().max(4096).optional(),
      max_output_tokens: z.number().int().min(16).max(32_768).optional(),
      timeout_ms: z.number().int().min(100).max(600_000).default(120_000),
    }),
  ),
} as const;
