/**
 * Authoring analysis as every host runs it (the admin API's `POST …/analyze`,
 * `skillbench analyze`, the workbench): deterministic validation first; only a
 * valid package goes to the advisor, as the body-free input of guide 5.3; then
 * each proposal is applied to a copy of the complete package and revalidated,
 * and kept or dropped with its reason. Nothing is stored or written.
 */
import { advisorInput, validationOf } from '../admin/advisorInput';
import type { AuthoringAdvisor } from '../admin/types';
import type { PackageCheck } from '../package/validate';
import type { SkillAuthoringLimits, SkillId, ValidationResult } from '../package/types';
import type { AuthoringAnalysis, WireAnalyzeResponse } from '../store/httpWire';
import { checkProposals } from './proposals';

/** Input of {@link analyzePackage}. */
export interface AnalyzeRequest {
  id: SkillId;
  /** The deterministic validation of the submitted package (with its normalized form when it has the right shape). */
  check: PackageCheck;
  advisor: AuthoringAdvisor;
  /** The host's authoring limits (the proposals are validated under them). */
  limits?: Partial<SkillAuthoringLimits>;
  signal: AbortSignal;
}

/**
 * Analyzes one submitted package. `analysis` is null, and the advisor is not
 * called, when deterministic validation fails. Advisor failures (model
 * errors, two malformed answers, cancellation) are thrown as they are.
 */
export async function analyzePackage(request: AnalyzeRequest): Promise<WireAnalyzeResponse> {
  const { check } = request;
  const validation: ValidationResult = validationOf(check);
  const normalized = check.normalized;
  if (!check.valid || normalized === undefined) return { normalized: normalized ?? null, validation, analysis: null };
  const answer = await request.advisor.analyze(advisorInput(request.id, normalized, validation), request.signal);
  const checked = checkProposals(normalized, answer.proposals, { id: request.id, ...(request.limits && { limits: request.limits }) });
  const analysis: AuthoringAnalysis = {
    summary: answer.summary,
    suggestions: answer.suggestions,
    proposals: checked.proposals,
    dropped: checked.dropped,
    advisor: answer.source ?? null,
  };
  return { normalized, validation, analysis };
}
