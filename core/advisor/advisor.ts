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
import type { ChatMessage, GenerateResult, ModelClient } from '../models/types';
import { checkLimits } from '../package/limits';
import type { SkillAuthoringLimits } from '../package/types';
import { SELECTOR_MAX_ATTEMPTS, SELECTOR_TEMPERATURE } from '../selector/call';
import { checkGuidance } from '../selector/guidance';
import { fillTemplate } from '../selector/prompts/template';
import { cut } from '../selector/util';
import type { AdvisorSource } from '../store/httpWire';
import { decodeAdvice } from './decode';
import { ADVISOR_OUTPUT_FORMAT, AUTHORING_TEMPLATE_V1, renderAdvisorMessages } from './prompt';

/** Reasoning-effort intents a host may ask for. */
export type ReasoningEffort = 'low' | 'medium' | 'high';

/** Default output ceiling of one advisor call (guide 9.11 `TRUVAG3_SKILL_AUTHORING_ADVICE_MAX_OUTPUT_TOKENS`). */
export const DEFAULT_ADVICE_MAX_OUTPUT_TOKENS = 1_024;
/** Default reasoning-effort intent: the guide's example composes the advisor with `low`. */
export const DEFAULT_ADVISOR_REASONING_EFFORT: ReasoningEffort = 'low';
/** Longest malformed answer echoed back before the correction message. */
const ECHO_CHARS = 2_000;

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

/** Thrown when the model answered twice but neither answer could be decoded. */
export class AdvisorAnswerError extends WorkbenchError {
  constructor(message: string) {
    super('advisor_answer_invalid', message);
    this.name = 'AdvisorAnswerError';
  }
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
    async analyze(input: AdvisorInput, signal: AbortSignal): Promise<AdvisorAnswer> {
      const base = renderAdvisorMessages(template, input, { guidance: guidance.text, limits: limits.limits });
      let messages: ChatMessage[] = base;
      const usage = { input_tokens: 0, output_tokens: 0 };
      const warnings = new Set<string>();
      let last: GenerateResult | undefined;
      let error = '';
      for (let attempt = 1; attempt <= SELECTOR_MAX_ATTEMPTS; attempt++) {
        signal.throwIfAborted();
        const result = await model.generate({
          messages,
          temperature: SELECTOR_TEMPERATURE,
          maxOutputTokens,
          ...(reasoningEffort !== null && { reasoningEffort }),
          signal,
        });
        last = result;
        usage.input_tokens += Number.isFinite(result.usage.inputTokens) ? result.usage.inputTokens : 0;
        usage.output_tokens += Number.isFinite(result.usage.outputTokens) ? result.usage.outputTokens : 0;
        for (const w of result.warnings ?? []) warnings.add(w);
        const text = typeof result.text === 'string' ? result.text : '';
        const decoded = decodeAdvice(text);
        if (decoded.ok) {
          const source: AdvisorSource = {
            prompt: { id: template.id, version: template.version },
            model: result.model,
            provider: result.provider,
            ...(reasoningEffort !== null && { reasoning_effort: reasoningEffort }),
            usage,
            ...(attempt > 1 && { warnings: [...warnings, 'the first answer was malformed; the second attempt was used'] }),
          };
          if (attempt === 1 && warnings.size > 0) source.warnings = [...warnings];
          return { ...decoded.value, source };
        }
        error = decoded.error;
        messages = [
          ...base,
          { role: 'assistant', content: cut(text, ECHO_CHARS) },
          { role: 'user', content: fillTemplate(template.correction, { error, output_format: ADVISOR_OUTPUT_FORMAT }) },
        ];
      }
      throw new AdvisorAnswerError(`the advisor's answer was malformed on both attempts (${last?.model ?? model.spec}): ${error}`);
    },
  };
}
