/**
 * The data model of an evaluation run, shared by the runner, the metrics
 * aggregation and every report format. A run streams one {@link CellRecord}
 * per (model, case, repeat) to `cells.jsonl` as each finishes; reports are
 * built from the run header, the streamed cells and the {@link EvalSummary}.
 * Every number in a summary can be traced back to the cells (by `cell.key`)
 * and their traces.
 */
import type { EvalSummaryView } from '../core/api/contract';
import type { SelectorLimits } from '../core/selector/limits';
import type { SelectionTrace } from '../core/selector/select';
import type { SelectorDiagnostic } from '../core/selector/types';
import type { RateDeltas, RateIntervals } from './intervals';
import type { Confusion, Expectation, Rates, TriggerRate } from './metrics';
import type { CaseComparison } from './paired';
import type { EvalCase } from './suite';

/** One skill of the controlled catalog the selector saw, exactly. */
export interface CatalogEntry {
  skill: string;
  version: number | 'draft';
  manifest_hash: string;
  activation: 'always' | 'auto' | 'explicit';
  /** True for the skill(s) under test. */
  under_test: boolean;
}

/** The exact catalog of a run and its size against the activation catalog budget. */
export interface CatalogRecord {
  entries: CatalogEntry[];
  /** Estimated tokens of the rendered body-free activation catalog. */
  tokens: number;
  /** The budget it is measured against (guide 9.10 default 2,000). */
  budget: number;
  /** Where the catalog came from: a redacted connection string or a folder. */
  source: string;
  /** The binding file the catalog was built from, as given; absent for the default namespace catalog. */
  bindings?: string;
  /** Auto candidates offered to the activation selector, and the limit they count against (guide 9.10 `maxAutoCandidates`). */
  auto_candidates?: number;
  max_auto_candidates?: number;
}

/** A model of the matrix, as reports label it. */
export interface ModelInfo {
  spec: string;
  /** Deterministic baselines are labelled as not language models. */
  isBaseline: boolean;
}

/** A variant of the skill under test: the draft from a file or a stored revision. */
export interface VariantInfo {
  /** `draft` or `published` (or `v<N>` for an exact stored revision). */
  label: string;
  skill: string;
  version: number | 'draft';
  manifest_hash: string;
  /** The package file of a draft. */
  file?: string;
}

/** The header of a run: everything needed to reproduce it, and nothing secret. */
export interface RunHeader {
  format: 'skillbench.eval/v1';
  run_id: string;
  started_at: string;
  /** Hash of everything that defines the matrix; a resume only continues a run with the same value. */
  config_hash: string;
  /** The activation models of the matrix (guide 9.4 `TRUVAG3_SKILL_ACTIVATION_MODEL`, one per column). */
  models: ModelInfo[];
  /**
   * The one resource-selection model every activation model was paired with
   * (guide 9.4 `TRUVAG3_SKILL_RESOURCE_MODEL`); absent: each model selected
   * its own resources.
   */
  resource_model?: string;
  variants: VariantInfo[];
  /** The catalog of each skill under each variant, keyed `<variant>|<skill>` (for example `draft|travel/weather-assessment`). */
  catalogs: Record<string, CatalogRecord>;
  repeats: number;
  concurrency: number;
  cases: CaseInfo[];
  /**
   * The extra-cases file of each skill that has one (`skills/evals/<namespace>/<name>.json`
   * of its workspace), as shown to the user; the cases' `source` says which came from it.
   */
  extras?: Record<string, string>;
  /** The selector limits every cell ran with (guide 9.10); absent in headers written before they were recorded. */
  limits?: SelectorLimits;
}

/** A case of the run, as the header records it: exactly the suite's case. */
export type CaseInfo = EvalCase;

/** What one cell produced. `error` covers transport failures and timeouts: never folded into not_activated. */
export interface CellRecord {
  /** `${model}|${variant}|${case}|${repeat}`: the id reports link to. */
  key: string;
  model: string;
  variant: string;
  case: string;
  skill: string;
  repeat: number;
  expect: Expectation;
  outcome: 'activated' | 'not_activated' | 'error';
  /** The selector rejected the model's answer (strict decoding or revalidation). */
  invalid: boolean;
  /** Every skill active after selection (the skill under test and its neighbours). */
  activated: string[];
  /** Resources selected at the case's boundary (`skill#name`). */
  resources: string[];
  /**
   * Whether the selected resources of the skill under test equal the case's
   * expected set. Null when the case names none, when the skill under test did
   * not activate (resource accuracy is judged given activation), or when
   * resource selection failed (see `resource_error`).
   */
  resources_correct: boolean | null;
  diagnostics: SelectorDiagnostic[];
  /**
   * Model latency of the cell: the sum the model client reported over its
   * selector calls (a cached answer reports the original call's), or the wall
   * time until failure for an `error` cell.
   */
  latency_ms: number;
  input_tokens: number;
  output_tokens: number;
  /** Cost of the cell's model calls (of the original calls when cached); null when a price is unknown. */
  cost_usd: number | null;
  /** Every model call of the cell was answered by the cache. */
  cached: boolean;
  /** The error message of an `error` cell (never a key or header). */
  error?: string;
  /** Resource selection failed (model error or timeout) although activation answered: `resources_correct` is then null. */
  resource_error?: string;
  /** The full selector trace: prompts sent, raw answers, decisions. */
  trace: SelectionTrace;
  finished_at: string;
}

/** Metrics of one skill under one model and variant. */
export interface SkillMetrics extends Confusion, Rates {
  skill: string;
  variant: string;
  cells: number;
  /**
   * Answered cells whose activation selector asked the model; 0 while
   * cells answered means the selector skipped (an over-budget catalog) and
   * the row measures nothing about the skill. Absent in older summaries.
   */
  asked?: number;
  /** Cases whose repeats disagreed. */
  flaky_cases: string[];
  trigger_rates: Record<string, TriggerRate>;
  /** Other skills activated with or instead of the skill under test, with counts (skills bound `always` are left out: they are active everywhere). */
  co_activated: Record<string, number>;
  /**
   * The part of `co_activated` counted on should-activate cells where the skill
   * under test stayed inactive: the neighbours that took its requests.
   */
  stolen_by?: Record<string, number>;
  /** Resource-selection accuracy over the scored cells of cases that name expected resources. */
  resource_accuracy: number | null;
  /** Distinct cases with expected resources that have at least one scored cell. */
  resource_cases: number;
  /**
   * The skill's adjacent negatives (other skills' should-activate examples run
   * as its should-not cases in a catalog run), counted apart: they are in no
   * other field. `fp` is the neighbours' requests this skill wrongly took.
   */
  adjacent?: Confusion & { cells: number };
  /** 95 % intervals of the rates, by a case bootstrap (evals/intervals.ts); absent in summaries written before they existed. */
  intervals?: RateIntervals;
}

/** Metrics of one model over the whole run. */
export interface ModelMetrics {
  model: string;
  isBaseline: boolean;
  skills: SkillMetrics[];
  /** Nearest-rank percentiles of `latency_ms` over the cells that did not error. */
  latency_p50_ms: number | null;
  latency_p95_ms: number | null;
  input_tokens: number;
  output_tokens: number;
  /** What the calls made for this run cost (cached cells add nothing); null when no price is known. */
  cost_usd: number | null;
  /** Cells answered entirely from the cache. */
  cached?: number;
  errors: number;
  invalid: number;
  cells: number;
}

/**
 * A paired comparison on the same cases (see evals/paired.ts). The unit of
 * pairing is the case: each side's outcome is the majority verdict of its
 * answered repeats, so repeats of a deterministic model add no evidence. A
 * case is left out of the test when a side's answered repeats tie (flaky) or
 * a side never answered; both are counted. The accuracies are over the
 * paired cases, so they can differ from the per-cell rates of the model
 * tables. Variant comparisons put the draft in `a` and the published
 * revision in `b`.
 */
export interface PairedComparison extends CaseComparison {
  kind: 'variant' | 'model';
  skill: string;
  a: string;
  b: string;
  /** What one pair is: always `case` (one pair per case, never per repeat). */
  unit: 'case';
  /** The model of a variant comparison. */
  model?: string;
  /** The variant of a model comparison. */
  variant?: string;
  /**
   * Differences `a − b` of the per-cell accuracy, precision and recall (the
   * rates of the two skill rows), with 95 % case-bootstrap intervals that keep
   * the pairing (evals/intervals.ts).
   */
  deltas?: RateDeltas;
}

/** Everything aggregated from the cells of a run. */
export interface EvalSummary {
  models: ModelMetrics[];
  comparisons: PairedComparison[];
  totals: { cells: number; errors: number; invalid: number; cached: number };
  /** The gates set for the run (`--min-accuracy` ...), each judged: empty when none were set. */
  gates: GateResult[];
  /** The verdict every report and the UI show (evals/verdict.ts). */
  verdict: EvalVerdict;
}

/**
 * The summary crosses the API as core's wire shape ({@link EvalSummaryView}):
 * a field the contract declares that this summary lacks, or types otherwise,
 * fails to compile here rather than being bridged by a cast where it is sent.
 */
type SummaryIsWireShape<T extends EvalSummaryView> = T;
type _EvalSummaryIsWireShape = SummaryIsWireShape<EvalSummary>;

/** Something a reader must know before trusting the numbers of a run. */
export interface VerdictWarning {
  /**
   * `catalog_over_budget` / `too_many_auto_candidates`: automatic activation
   * was skipped for a catalog, so the model was never asked (`codes` lists
   * every reason when both hold); `cell_errors`: some cells of a model
   * errored and are left out of its rates; `invalid_answers`: some answers of
   * a model were unusable and are left out of its rates; `never_asked`: a
   * skill row whose selector never asked the model, allowed by the user.
   */
  code: 'catalog_over_budget' | 'too_many_auto_candidates' | 'cell_errors' | 'invalid_answers' | 'never_asked';
  /** Every reason of a skipped catalog (`code` is the first). */
  codes?: Array<'catalog_over_budget' | 'too_many_auto_candidates'>;
  message: string;
  /** The catalog concerned (`<variant>|<skill>`). */
  catalog?: string;
  /** The model concerned. */
  model?: string;
}

/** Why a run reached no verdict (status `incomplete`). */
export interface VerdictReason {
  /**
   * `cells_missing`: the run was stopped; `error_rate`: a model's share of
   * error cells is above `--max-error-rate`; `invalid_rate`: its share of
   * unusable answers is above `--max-invalid-rate`; `never_asked`: the
   * selector never asked the model about a skill (an over-budget catalog).
   */
  code: 'cells_missing' | 'error_rate' | 'invalid_rate' | 'never_asked';
  message: string;
  model?: string;
  /** The catalog concerned (`<variant>|<skill>`). */
  catalog?: string;
  /** The measured share or count, and the limit it broke. */
  value?: number;
  threshold?: number;
}

/** The verdict of a run: plain data with a stable shape, stored in `summary.json` and every report. */
export interface EvalVerdict {
  /**
   * `passed`: every gate set passed (or none was set) and every model
   * answered; `failed`: a gate failed; `unavailable`: every cell of some
   * model errored; `incomplete`: no verdict could be reached (`reasons`
   * says why: cells missing, too many error cells or unusable answers, a
   * selector never asked). Precedence: incomplete for missing cells,
   * unavailable, incomplete for the other reasons, failed, passed.
   */
  status: 'passed' | 'failed' | 'unavailable' | 'incomplete';
  /** One line for a headline, e.g. `failed: 1 of 3 gates failed`. */
  message: string;
  gates_set: number;
  gates_failed: number;
  /** Models whose every cell errored. */
  unavailable_models: string[];
  cells: { recorded: number; expected: number };
  warnings: VerdictWarning[];
  /** Why the run is `incomplete` (empty otherwise); absent in summaries written before it was recorded. */
  reasons?: VerdictReason[];
  /** The limits the run was judged under; absent in older summaries. */
  limits?: { max_error_rate: number; max_invalid_rate: number; regression_margin?: number; allow_skipped_activation?: boolean };
}

/** One quality gate and whether it passed. */
export interface GateResult {
  /**
   * `regression`: a draft against its published revision; `reference`: a
   * model against the reference model (`model` is the one judged). Both are
   * non-inferiority tests (evals/verdict.ts): `value` is the upper 95 % bound
   * of the loss in paired accuracy, `threshold` the margin.
   */
  gate: 'min-accuracy' | 'min-recall' | 'min-precision' | 'regression' | 'reference';
  threshold?: number;
  model: string;
  skill: string;
  value: number | null;
  passed: boolean;
  message: string;
}
