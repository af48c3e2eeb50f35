/**
 * The optimizer's report and progress events: plain data, written whole by
 * `--json` and carried (trimmed) to the workbench.
 */
import type { CandidateReport, CaseSplit, OptimizeReport, RoundReport } from '../core/report/optimizeResults';
import type { RunProgress } from './runner';

// The report is declared once in core, where the API contract derives its view of it.
export type { AnswerChange, CandidateDrop, CandidateReport, HeldoutModel, ModelScore, OptimizeReport, RoundReport, RunRef, Winner } from '../core/report/optimizeResults';

/** What the optimizer is doing, for a progress display. */
export type OptimizeEvent =
  | { type: 'split'; split: CaseSplit }
  | { type: 'run_started'; phase: 'train' | 'heldout'; round: number; variants: string[]; cells: number; resumed: number }
  | { type: 'cell'; phase: 'train' | 'heldout'; round: number; progress: RunProgress }
  | { type: 'proposed'; round: number; candidates: CandidateReport[] }
  | { type: 'round_finished'; round: RoundReport }
  | { type: 'finished'; verdict: OptimizeReport['verdict']; reason: string };
