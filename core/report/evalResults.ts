/**
 * The results of an evaluation run as data: the cells a run records, the
 * metrics and comparisons the engine aggregates from them, and the verdict.
 * The engine writes these shapes (`cells.jsonl`, `summary.json`, every report
 * format), the API carries them unchanged (core/api/contract/evals.ts) and the
 * workbench shows them: one declaration, so a field the engine adds or retypes
 * reaches every reader at compile time, never through a cast.
 *
 * Types only. Isomorphic: no `node:` imports (the API contract, the renderer
 * and the preload import it).
 */
import type { Boundary } from '../package/types';
import type { SelectionTrace } from '../selector/select';
import type { SelectorDiagnostic } from '../selector/types';

/** What one call of the selector pipeline produced for one case. */
export type CellOutcome = 'activated' | 'not_activated' | 'error';

/** The label of a case: should the skill under test activate? */
export type Expectation = 'activate' | 'not_activate';

/** Confusion counts plus the outcomes kept apart. */
export interface Confusion {
  tp: number;
  fp: number;
  tn: number;
  fn: number;
  /** Cells that ended in a transport/model error or timeout: excluded from the rates. */
  errors: number;
  /** Cells whose model answer was rejected by strict decoding or revalidation: unusable, excluded from the rates. */
  invalid: number;
}

/** Rates derived from a {@link Confusion} (usable answers only); `null` where the denominator is zero. */
export interface Rates {
  accuracy: number | null;
  precision: number | null;
  recall: number | null;
  f1: number | null;
}

/** How often one case triggered across its repeats (errors and unusable answers excluded from n). */
export interface TriggerRate {
  /** Activations among the repeats that produced a usable answer. */
  k: number;
  /** Repeats that produced a usable answer. */
  n: number;
  errors: number;
  /** Repeats whose answer was unusable (absent in summaries written before they were counted apart). */
  invalid?: number;
  /** Neither always nor never: the model disagrees with itself on this case. */
  flaky: boolean;
}

/** Result of an exact McNemar test on paired binary outcomes. */
export interface McNemarResult {
  /** Pairs where A was right and B wrong. */
  aOnly: number;
  /** Pairs where B was right and A wrong. */
  bOnly: number;
  /** Pairs where both agreed (right or wrong): they carry no evidence. */
  concordant: number;
  /** Two-sided exact p-value (binomial, p = 0.5, on the discordant pairs). */
  pValue: number;
  /** p < alpha. */
  significant: boolean;
  alpha: number;
}

/** A two-sided interval. */
export interface Interval {
  low: number;
  high: number;
}

/** Intervals of the rates of one skill row. */
export interface RateIntervals {
  /** `case bootstrap`: cases are resampled, each with all its repeats. */
  method: 'case bootstrap';
  level: number;
  resamples: number;
  accuracy: Interval | null;
  precision: Interval | null;
  recall: Interval | null;
  f1: Interval | null;
}

/** The difference of one rate between the two sides of a comparison (`a − b`), with its interval. */
export interface RateDelta {
  /** `rate_a − rate_b` over every answered cell of each side; null when either rate is. */
  value: number | null;
  interval: Interval | null;
}

/** Differences of the per-cell rates between the two sides of a comparison. */
export interface RateDeltas {
  method: 'case bootstrap';
  level: number;
  resamples: number;
  accuracy: RateDelta;
  precision: RateDelta;
  recall: RateDelta;
}

/** How often each side activated the skill on one case, and the difference. */
export interface CaseTriggerDifference {
  case: string;
  expect: Expectation;
  /** Activations / answered repeats on side A; null when A never answered. */
  rate_a: number | null;
  rate_b: number | null;
  /** `rate_a − rate_b`; null unless both sides answered. */
  difference: number | null;
  /**
   * Each side's majority verdict on the case (see evals/paired.ts): the
   * case is a pair of the test only when both are `right` or `wrong`; `tie`
   * left it out as flaky on that side, `none` as unanswered there.
   */
  verdict_a: CaseVerdict;
  verdict_b: CaseVerdict;
}

/** A paired comparison of two sides on the same cases (computed by evals/paired.ts). */
export interface CaseComparison {
  /** Exact McNemar test over the paired cases. */
  test: McNemarResult;
  /** Cases where both sides have a majority verdict: the pairs of the test. */
  pairs: number;
  /** Share of the paired cases each side's majority got right; null without pairs. */
  accuracy_a: number | null;
  accuracy_b: number | null;
  /** Cases left out because A's answered repeats tied (flaky on A). */
  flaky_a: number;
  flaky_b: number;
  /** Cases left out because a side has no answered repeat (errors only, or not run). */
  unanswered: number;
  /** Mean of |rate_a − rate_b| over the cases both sides answered; null when there are none. */
  mean_abs_trigger_rate_difference: number | null;
  /** Every case, in the order given. */
  cases: CaseTriggerDifference[];
}

/** A side's verdict on a case: right or wrong by majority, a tie, or nothing answered. */
export type CaseVerdict = 'right' | 'wrong' | 'tie' | 'none';

/**
 * Where a case came from. `adjacent`: another skill's should-activate example,
 * run as a should-not case of this one in a catalog run (evals/adjacentNegatives.ts).
 */
export type CaseSource = 'should_activate' | 'should_not_activate' | 'extra' | 'adjacent';

/** One labelled request for one skill under test. */
export interface EvalCase {
  /** Stable content-derived id: the same request and label give the same id in every run. */
  id: string;
  skill: string;
  source: CaseSource;
  request: string;
  expect: Expectation;
  boundary: Boundary;
  /** Resources the selector should choose for this request, when the case names them. */
  expectedResources?: string[];
  /** Bounded lifecycle context (objective, prior results) for continuation cases. */
  context?: string;
  /** The skill whose should-activate example an `adjacent` case is. */
  from?: string;
}

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
