/**
 * One selector model task: at most two attempts, strict decoding, then
 * revalidation, with a trace of everything sent and received.
 *
 * Attempt policy (guide 9.4):
 * - a malformed answer on the first attempt is retried once, with the
 *   template's correction message after the malformed answer;
 * - resource selection also retries a first-attempt timeout (same prompt);
 * - any other model failure ends the task (`*_selection_failed`); the model
 *   client has already applied its own provider retries and failover;
 * - a decoded answer that fails revalidation ends the task (`*_selection_invalid`)
 *   without a retry: the model answered in format and chose something illegal;
 * - cancellation by the caller is rethrown, never reported as an omission.
 *
 * Isomorphic: no `node:` imports.
 */
import type { ChatMessage, GenerateResult, ModelClient, SelectionTask, TokenUsage } from '../models/types';
import type { Boundary } from '../package/types';
import type { Decoded } from './decode';
import { MAX_ANSWER_CHARS } from './decode';
import { freezeWithJson } from '../frozen';
import { fillTemplate, fillTemplateJson, type PromptTemplate } from './prompts/template';
import type { SelectorAttempt, SelectorCallTrace, SelectorDecision, SelectorDiagnostic, SelectorDiagnosticCode, SelectorKind } from './types';
import { SelectionCancelledError, cut, describeError, throwIfAborted } from './util';

/** Selector sampling temperature (guide 9.4). */
export const SELECTOR_TEMPERATURE = 0.01;
/** Attempts per selector task (guide 9.4). */
export const SELECTOR_MAX_ATTEMPTS = 2;
/** Longest malformed answer echoed back to the model before the correction message. */
const ECHO_CHARS = 2_000;

/** What one selector task needs. */
export interface SelectorCallSpec<D> {
  kind: SelectorKind;
  boundary: Boundary;
  template: PromptTemplate;
  /** Slot values, already encoded. */
  values: Record<string, string>;
  task: SelectionTask;
  model: ModelClient;
  maxOutputTokens: number;
  decode(text: string): Decoded<D>;
  /** Revalidates a decoded decision; returns the accepted identities or why it is invalid. */
  validate(decision: D): Decoded<string[]>;
  toDecision(decision: D): SelectorDecision;
  /** Retry a first-attempt timeout (resource selector v2). */
  retryTimeout: boolean;
  candidates: string[];
  catalogTokens: number;
  /** Caller cancellation: aborting rethrows instead of reporting an omission. */
  signal?: AbortSignal;
}

/** Result of {@link runSelectorCall}: the accepted identities, or null when the task was skipped. */
export interface SelectorCallResult {
  accepted: string[] | null;
  trace: SelectorCallTrace;
}

const CODES: Record<SelectorKind, { failed: SelectorDiagnosticCode; invalid: SelectorDiagnosticCode }> = {
  activation: { failed: 'skill_activation_selection_failed', invalid: 'skill_activation_selection_invalid' },
  resource: { failed: 'skill_resource_selection_failed', invalid: 'skill_resource_selection_invalid' },
};

/** The failure kind of a model error (duck-typed: the selector never imports an adapter). */
function errorKind(error: unknown): string | undefined {
  const e = error as { kind?: unknown; details?: { kind?: unknown }; code?: unknown } | null;
  if (typeof e?.kind === 'string') return e.kind;
  if (typeof e?.details?.kind === 'string') return e.details.kind;
  if (e?.code === 'timeout') return 'timeout';
  return undefined;
}

function addUsage(total: TokenUsage, usage: TokenUsage | undefined): void {
  if (!usage) return;
  total.inputTokens += Number.isFinite(usage.inputTokens) ? usage.inputTokens : 0;
  total.outputTokens += Number.isFinite(usage.outputTokens) ? usage.outputTokens : 0;
}

/**
 * Builds the messages of the first attempt, frozen, with their JSON text
 * attached (core/frozen `freezeWithJson`): every trace carries them, and the
 * text is assembled from pieces encoded once per template and catalog rather
 * than encoded again, prompt by prompt, when the trace is written.
 */
export function renderMessages(template: PromptTemplate, values: Record<string, string>): readonly ChatMessage[] {
  const system = fillTemplateJson(template.system, values);
  const user = fillTemplateJson(template.user, values);
  const messages: ChatMessage[] = [
    { role: 'system', content: system.text },
    { role: 'user', content: user.text },
  ];
  const json = system.json !== undefined && user.json !== undefined ? `[{"role":"system","content":${system.json}},{"role":"user","content":${user.json}}]` : undefined;
  return freezeWithJson(messages, json);
}

/** Runs one selector task and returns the accepted identities (or null) and its trace. */
export async function runSelectorCall<D>(spec: SelectorCallSpec<D>): Promise<SelectorCallResult> {
  const action = spec.kind === 'activation' ? 'auto_activation_skipped' : 'resource_selection_skipped';
  const codes = CODES[spec.kind];
  const base = renderMessages(spec.template, spec.values);
  let messages = base;
  const attempts: SelectorAttempt[] = [];
  const diagnostics: SelectorDiagnostic[] = [];
  const usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  let latencyMs = 0;
  let lastResult: GenerateResult | undefined;
  let raw: string | null = null;
  let decision: SelectorDecision | null = null;
  let accepted: string[] | null = null;

  const finish = (): SelectorCallResult => ({
    accepted,
    trace: {
      kind: spec.kind,
      boundary: spec.boundary,
      template: { id: spec.template.id, version: spec.template.version },
      messages,
      raw,
      decision,
      accepted: accepted ?? [],
      attempts,
      diagnostics,
      usage,
      latencyMs,
      model: lastResult?.model ?? spec.model.spec,
      provider: lastResult?.provider ?? '',
      candidates: spec.candidates,
      catalogTokens: spec.catalogTokens,
    },
  });
  const skip = (code: SelectorDiagnosticCode, message: string) => {
    diagnostics.push({ code, boundary: spec.boundary, action, message });
    return finish();
  };

  for (let attempt = 1; attempt <= SELECTOR_MAX_ATTEMPTS; attempt++) {
    throwIfAborted(spec.signal);
    const correction = messages !== base;
    let result: GenerateResult;
    try {
      result = await spec.model.generate({
        messages,
        temperature: SELECTOR_TEMPERATURE,
        maxOutputTokens: spec.maxOutputTokens,
        task: spec.task,
        ...(spec.signal && { signal: spec.signal }),
      });
    } catch (error) {
      const kind = errorKind(error);
      if (spec.signal?.aborted || kind === 'cancelled') throw new SelectionCancelledError();
      const message = describeError(error);
      const model = (error as { model?: unknown }).model;
      const provider = (error as { provider?: unknown }).provider;
      attempts.push({
        attempt,
        correction,
        outcome: kind === 'timeout' ? 'timeout' : 'failed',
        error: message,
        latencyMs: 0,
        ...(typeof model === 'string' && { model }),
        ...(typeof provider === 'string' && { provider }),
      });
      if (kind === 'timeout' && spec.retryTimeout) {
        if (attempt < SELECTOR_MAX_ATTEMPTS) {
          diagnostics.push({ code: 'skill_resource_selection_timeout', boundary: spec.boundary, action: 'retry', message: `attempt ${attempt} timed out: ${message}` });
          continue;
        }
        return skip('skill_resource_selection_timeout', `resource selection timed out on every attempt: ${message}`);
      }
      return skip(codes.failed, `${spec.kind} selector call failed: ${message}`);
    }
    lastResult = result;
    addUsage(usage, result.usage);
    latencyMs += Number.isFinite(result.latencyMs) ? result.latencyMs : 0;
    const text = typeof result.text === 'string' ? result.text : '';
    const truncated = text.length > MAX_ANSWER_CHARS;
    raw = truncated ? cut(text, MAX_ANSWER_CHARS) : text;
    const record: SelectorAttempt = {
      attempt,
      correction,
      outcome: 'ok',
      raw,
      ...(truncated && { rawTruncated: true }),
      usage: result.usage,
      latencyMs: result.latencyMs,
      model: result.model,
      provider: result.provider,
    };
    attempts.push(record);
    const decoded = spec.decode(text);
    if (!decoded.ok) {
      record.outcome = 'malformed';
      record.error = decoded.error;
      if (attempt < SELECTOR_MAX_ATTEMPTS) {
        messages = [
          ...base,
          { role: 'assistant', content: cut(text, ECHO_CHARS) },
          { role: 'user', content: fillTemplate(spec.template.correction, { ...spec.values, error: decoded.error }) },
        ];
        continue;
      }
      return skip(codes.invalid, `${spec.kind} answer was malformed on both attempts: ${decoded.error}`);
    }
    decision = spec.toDecision(decoded.value);
    const checked = spec.validate(decoded.value);
    if (!checked.ok) {
      record.outcome = 'invalid';
      record.error = checked.error;
      return skip(codes.invalid, `${spec.kind} decision rejected: ${checked.error}`);
    }
    accepted = checked.value;
    return finish();
  }
  // Unreachable: every path of the last attempt returns.
  return finish();
}
