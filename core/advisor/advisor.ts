/**
 * The default authoring advisor (guide 5.3) over any model client: one
 * versioned prompt, strict decoding with one correction attempt, and an
 * answer of advice plus JSON Patch proposals. The host checks the proposals
 * against the complete package afterwards (`analyzePackage`), so this module
 * never needs, and never sees, resource bodies or `change_reason`.
 *
 * Only the model (the client the host opens, for example `openai:smart`) and
 * the reasoning-effort intent are the host's to choose; the prompt, the
 * output contract, the temperature and the attempt policy are fixed. The
 * additional guidance has the selector guidance's bound (4,096 bytes and 512
 * estimated tokens) and is refused, not cut, when it breaks it.
 *
 * Isomorphic: no `node:` imports.
 */
import type { AdvisorAnswer, AdvisorInput, AuthoringAdvisor } from '../admin/types';
import { WorkbenchError } from '../errors';
import { callForStructure } from '../models/structured';
import type { ModelClient } from '../models/types';
import { checkLimits } from '../package/limits';
import type { SkillAuthoringLimits } from '../package/types';
import { SELECTOR_TEMPERATURE } from '../selector/call';
import { checkGuidance } from '../selector/guidance';
import { fillTemplate } from '../selector/prompts/template';
import type { AdvisorSource } from '../store/httpWire';
import { decodeAdvice } from './decode';
import { ADVISOR_OUTPUT_FORMAT, AUTHORING_TEMPLATE_V1, renderAdvisorMessages } from './prompt';

/** Reasoning-effort intents a host may ask for. */
export type ReasoningEffort = 'low' | 'medium' | 'high';

/** Default output ceiling of one advisor call (guide 9.11 `TRUVAG3_SKILL_AUTHORING_ADVICE_MAX_OUTPUT_TOKENS`). */
export const DEFAULT_ADVICE_MAX_OUTPUT_TOKENS = 1_024;
/** Default reasoning-effort intent: the guide's example composes the advisor with `low`. */
export const DEFAULT_ADVISOR_REASONING_EFFORT: ReasoningEffort = 'low';

/** Options of {@link createDefaultAdvisor}. */
export interface DefaultAdvisorOptions {
  /** The model client that answers (the host opens and closes it). */
  model: ModelClient;
  /** Reasoning-effort intent sent with every call (default `low`); `null` sends none. */
  reasoningEffort?: ReasoningEffort | null;
  /** Output ceiling of one call (default 1,024 tokens). */
  maxOutputTokens?: number;
  /** Additional guidance for the advisor, appended as data (bounded: 4,096 bytes and 512 estimated tokens). */
  guidance?: string;
  /** The host's authoring limits, quoted in the prompt so proposals are made to fit them. */
  limits?: Partial<SkillAuthoringLimits>;
}

/**
 * Creates the default advisor. Throws `invalid_request` (with the findings in
 * `details.findings`) when the guidance breaks its bounds, and for an
 * unusable output ceiling or limit override.
 */
export function createDefaultAdvisor(options: DefaultAdvisorOptions): AuthoringAdvisor {
  const guidance = checkGuidance(options.guidance, 'guidance');
  if (!guidance.ok) {
    throw new WorkbenchError('invalid_request', `the advisor guidance is refused: ${guidance.findings.map((f) => f.message).join(' ')}`, { details: { findings: guidance.findings } });
  }
  const maxOutputTokens = options.maxOutputTokens ?? DEFAULT_ADVICE_MAX_OUTPUT_TOKENS;
  if (!Number.isSafeInteger(maxOutputTokens) || maxOutputTokens < 1) {
    throw new WorkbenchError('invalid_request', `the advisor's output ceiling must be a positive integer, got ${maxOutputTokens}`);
  }
  const limits = checkLimits(options.limits);
  if (!limits.ok) throw new WorkbenchError('invalid_request', `invalid authoring limits: ${limits.problems.map((p) => p.message).join('; ')}`);
  const reasoningEffort = options.reasoningEffort === undefined ? DEFAULT_ADVISOR_REASONING_EFFORT : options.reasoningEffort;
  const template = AUTHORING_TEMPLATE_V1;
  const model = options.model;

  return {
    name: model.spec,
    async analyze(input: AdvisorInput, signal: AbortSignal): Promise<AdvisorAnswer> {
      const answer = await callForStructure({
        model,
        messages: renderAdvisorMessages(template, input, { guidance: guidance.text, limits: limits.limits }),
        settings: { temperature: SELECTOR_TEMPERATURE, maxOutputTokens, ...(reasoningEffort !== null && { reasoningEffort }) },
        decode: decodeAdvice,
        correction: (error) => fillTemplate(template.correction, { error, output_format: ADVISOR_OUTPUT_FORMAT }),
        what: "the advisor's answer",
        signal,
      });
      const warnings = answer.attempts > 1 ? [...answer.warnings, 'the first answer was malformed; the second attempt was used'] : answer.warnings;
      const source: AdvisorSource = {
        prompt: { id: template.id, version: template.version },
        model: answer.result.model,
        provider: answer.result.provider,
        ...(reasoningEffort !== null && { reasoning_effort: reasoningEffort }),
        usage: { input_tokens: answer.usage.inputTokens, output_tokens: answer.usage.outputTokens },
        ...(warnings.length > 0 && { warnings }),
      };
      return { ...answer.value, source };
    },
  };
}
