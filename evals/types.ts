/**
 * The data model of an evaluation run, shared by the runner, the metrics
 * aggregation and every report format. A run streams one {@link CellRecord}
 * per (model, case, repeat) to `cells.jsonl` as each finishes; reports are
 * built from the run header, the streamed cells and the {@link EvalSummary}.
 * Every number in a summary can be traced back to the cells (by `cell.key`)
 * and their traces.
 */
import type { CatalogRecord, EvalCase, ModelInfo, VariantInfo } from '../core/report/evalResults';
import type { SelectorLimits } from '../core/selector/limits';

// The results of a run (cells, metrics, comparisons, verdict) are declared once
// in core, where the API contract carries them as they are.
export type {
  CatalogEntry,
  CatalogRecord,
  CellRecord,
  EvalSummary,
  EvalVerdict,
  GateResult,
  ModelInfo,
  ModelMetrics,
  PairedComparison,
  SkillMetrics,
  VariantInfo,
  VerdictReason,
  VerdictWarning,
} from '../core/report/evalResults';

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
