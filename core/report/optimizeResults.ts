/**
 * The description optimizer's report as data: what `skillbench optimize
 * --json` writes whole, and what the API carries (trimmed of the host's file
 * names and run folders, core/api/contract/optimize.ts) to the workbench.
 * Declared once, so the report and its view cannot drift apart.
 *
 * Types only. Isomorphic: no `node:` imports (the API contract, the renderer
 * and the preload import it).
 */
import type { JsonPatchOperation } from '../package/jsonPatch';
import type { CaseSource, Expectation, ModelInfo, PairedComparison } from './evalResults';

/** A case as the split records it. */
export interface SplitCase {
  id: string;
  request: string;
  expect: Expectation;
  source: CaseSource;
}

/** The train / held-out split of a skill's cases. */
export interface CaseSplit {
  seed: number;
  /** Share of each stratum held out (as asked). */
  holdout: number;
  train: SplitCase[];
  heldout: SplitCase[];
}

/** A description's score on one model. */
export interface ModelScore {
  model: string;
  /** Share of answered cells that were right; null when no cell was answered. */
  accuracy: number | null;
  correct: number;
  answered: number;
  errors: number;
}

/** Why a candidate was not evaluated. */
export type CandidateDrop = 'validation_failed' | 'over_budget' | 'duplicate' | 'too_many';

/** One proposed description and what became of it. */
export interface CandidateReport {
  /** `r<round>c<n>`. */
  id: string;
  round: number;
  description: string;
  rationale: string;
  status: 'evaluated' | 'dropped';
  reason?: CandidateDrop;
  /** Why it was dropped, for a person. */
  message?: string;
  /** Estimated tokens of the whole activation catalog with this description (absent when it did not validate). */
  catalog_tokens?: number;
  /** Estimated tokens of this skill's own catalog line. */
  line_tokens: number;
  train?: ModelScore[];
  /** Mean train accuracy across models; null when a model answered no train cell. */
  mean_train?: number | null;
  /** Warnings of the package with this description (quality advice, not blocking). */
  warnings?: string[];
}

/** What a round did. */
export interface RoundReport {
  round: number;
  /** The description the round started from (`original` or a candidate id). */
  from: string;
  proposed: number;
  evaluated: number;
  /** The best evaluated candidate of the round, and whether it went forward. */
  best: string | null;
  advanced: boolean;
  notes: string[];
}

/**
 * What the winner did to one model's answers on the held-out cases, case by
 * case: the rates the per-case majority vote hides (a should-not case that
 * now fires on 1 of 3 repeats is still "right" by majority).
 */
export interface AnswerChange {
  /** Held-out cases both descriptions got answers on, from this model. */
  cases: number;
  /** Mean over those cases of the share of answers that were right; null without cases. */
  accuracy_winner: number | null;
  accuracy_original: number | null;
  /** The should-not-activate cases among them, and the mean share of their answers that activated the skill. */
  false_activation: { cases: number; winner: number | null; original: number | null };
  /**
   * Wilcoxon signed-rank test of the per-case differences in the share of
   * right answers (winner − original); `p_worse` is the one-sided p-value
   * that the winner is worse.
   */
  test: { n: number; w_plus: number; w_minus: number; p_worse: number; exact: boolean };
  /** Why the winner harms this model's answers; empty when it does not (see {@link OptimizeReport.harm_margin}). */
  harm: string[];
  /** Every way its answers got worse at all, harm or within the margin (`right answers 1.000 → 0.983`); empty when none did. */
  drops: string[];
}

/** The held-out comparison on one model: winner (`a`) against the original (`b`). */
export interface HeldoutModel {
  model: string;
  winner: ModelScore;
  original: ModelScore;
  /** The per-case comparison, exactly as `eval` reports it. */
  comparison: PairedComparison;
  /** Right on more disagreeing cases than the original (each side's majority per case), and significant. */
  better: boolean;
  /** Worse on this model: the original right on more disagreeing cases, or any harm to its answers (`answers.harm`). */
  worse: boolean;
  answers: AnswerChange;
}

/** The proposed description and how to apply it. */
export interface Winner {
  candidate: string;
  description: string;
  /** RFC 6902 patch for the package file: a `test` of the current description, then a `replace`. */
  patch: JsonPatchOperation[];
  catalog_tokens: number;
}

/** Where a run's cells are kept. */
export interface RunRef {
  phase: 'train' | 'heldout';
  round: number;
  /** Run folder, relative to the working directory. */
  run_dir: string;
  config_hash: string;
}

/** The optimizer's report (`--json` writes it whole). */
export interface OptimizeReport {
  format: 'skillbench.optimize/v1';
  skill: string;
  file: string;
  seed: number;
  verdict: 'proven_gain' | 'no_proven_gain';
  /** One sentence explaining the verdict. */
  reason: string;
  /** The proposed description, only with `proven_gain`. */
  winner: Winner | null;
  /** The best description by train score, whatever the verdict (null when none beat the original). */
  best: { candidate: string; description: string; mean_train: number | null } | null;
  models: ModelInfo[];
  proposer: { spec: string; isBaseline: boolean };
  repeats: number;
  alpha: number;
  /**
   * The most the winner may raise any model's false-activation rate on the
   * held-out should-not cases, or lower its per-answer held-out accuracy,
   * before the gain is refused.
   */
  harm_margin: number;
  split: CaseSplit;
  catalog: { budget: number; source: string; competitors: string[] };
  /** Doubts about the catalog (a binding that could not be pinned, ...). */
  warnings: string[];
  original: { description: string; catalog_tokens: number; line_tokens: number; train: ModelScore[]; mean_train: number | null };
  candidates: CandidateReport[];
  rounds: RoundReport[];
  /** The held-out comparison of the best candidate, when one beat the original on train. */
  heldout: HeldoutModel[] | null;
  runs: RunRef[];
}
