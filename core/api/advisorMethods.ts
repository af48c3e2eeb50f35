/**
 * `advisor.analyze`: the guide's authoring advisor (section 5.3) on a package
 * text as the editor holds it. Deterministic validation first (an invalid
 * package gets its findings and no model call); then the default advisor over
 * the given model, and every proposal applied to a copy and revalidated: kept
 * with the patched package as pretty-printed text, or dropped with the reason.
 * Nothing is stored or written.
 *
 * Node-only (opens model clients).
 */
import { analyzePackage, createDefaultAdvisor } from '../advisor/index';
import { WorkbenchError } from '../errors';
import { openModel, safeParseModelSpec } from '../models/index';
import { applyJsonPatch } from '../package/jsonPatch';
import { validatePackage } from '../package/validate';
import type { AdvisorAnalysisView } from './contract';
import type { Handler } from './router';
import { packageText } from './storeMethods';

/** The `advisor.analyze` handler; `env` holds the model keys and aliases. */
export function advisorAnalyze(env: Record<string, string | undefined>): Handler<'advisor.analyze'> {
  return async (params): Promise<AdvisorAnalysisView> => {
    const spec = safeParseModelSpec(params.model);
    if (!spec.success) throw new WorkbenchError('invalid_request', spec.error.message, { details: { pointer: '/model' } });
    const id = params.skill;
    const check = validatePackage(new TextEncoder().encode(params.text), { id });
    const normalizedText = check.normalized ? packageText(check.normalized) : null;
    if (!check.valid || !check.normalized) {
      return { validation: { valid: check.valid, errors: check.errors, warnings: check.warnings, metrics: check.metrics }, normalized_text: normalizedText, analysis: null };
    }
    const model = await openModel(params.model, { env, timeoutMs: params.timeout_ms, retries: { retryOn: ['server'] } });
    try {
      const effort = params.reasoning_effort;
      const advisor = createDefaultAdvisor({
        model,
        ...(effort !== undefined && { reasoningEffort: effort === 'none' ? null : effort }),
        ...(params.guidance !== undefined && { guidance: params.guidance }),
        ...(params.max_output_tokens !== undefined && { maxOutputTokens: params.max_output_tokens }),
      });
      const response = await analyzePackage({ id, check, advisor, signal: new AbortController().signal });
      const analysis = response.analysis;
      return {
        validation: response.validation,
        normalized_text: normalizedText,
        analysis: analysis && {
          summary: analysis.summary,
          suggestions: analysis.suggestions,
          dropped: analysis.dropped,
          advisor: analysis.advisor,
          proposals: analysis.proposals.map((p) => {
            // Kept proposals applied and validated once already; this only renders the result.
            const patched = applyJsonPatch(check.normalized, p.patch);
            const again = patched.ok ? validatePackage(patched.value, { id }) : undefined;
            if (!again?.normalized) throw new WorkbenchError('internal', `proposal ${p.id} no longer applies to the package it was checked against`);
            return { ...p, text: packageText(again.normalized) };
          }),
        },
      };
    } finally {
      await model.close?.();
    }
  };
}
