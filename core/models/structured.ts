/**
 * One model call whose answer must decode into a structure, with the guide's
 * malformed-answer policy for activation and authoring (9.4): a malformed
 * first answer is echoed back with a correction message and asked once more;
 * a second malformed answer ends the call. Model failures are thrown as the
 * client reports them (after its own retries and failover).
 *
 * Types only from the model layer: isomorphic.
 */
import { WorkbenchError } from '../errors';
import type { ChatMessage, GenerateRequest, GenerateResult, ModelClient } from './types';

/** Attempts of one structured call. */
export const STRUCTURED_MAX_ATTEMPTS = 2;
/** Longest malformed answer echoed back before the correction message. */
const ECHO_CHARS = 2_000;

/** Thrown when the model answered on every attempt but no answer could be decoded. */
export class MalformedAnswerError extends WorkbenchError {
  constructor(message: string) {
    super('answer_malformed', message);
    this.name = 'MalformedAnswerError';
  }
}

/** What one structured call needs. */
export interface StructuredCall<T> {
  model: ModelClient;
  /** The first attempt's messages. */
  messages: ChatMessage[];
  /** Request settings besides the messages. */
  settings: Omit<GenerateRequest, 'messages' | 'signal'>;
  /** Decodes an answer's text, or says why it cannot be used. */
  decode(text: string): { ok: true; value: T } | { ok: false; error: string };
  /** The user message sent after a malformed answer. */
  correction(error: string): string;
  /** What the call is for, in the error message (`the advisor's answer`). */
  what: string;
  signal?: AbortSignal;
}

/** A decoded answer and what it cost. */
export interface StructuredResult<T> {
  value: T;
  /** The result of the attempt that decoded. */
  result: GenerateResult;
  attempts: number;
  /** Token usage summed over the attempts. */
  usage: { inputTokens: number; outputTokens: number };
  /** Distinct client warnings over the attempts. */
  warnings: string[];
}

/** The answer as echoed back: at most ECHO_CHARS, never ending inside a surrogate pair. */
function echo(text: string): string {
  if (text.length <= ECHO_CHARS) return text;
  const end = /[\uD800-\uDBFF]/.test(text[ECHO_CHARS - 1]!) ? ECHO_CHARS - 1 : ECHO_CHARS;
  return text.slice(0, end);
}

const finite = (n: number) => (Number.isFinite(n) ? n : 0);

/** Runs a structured call (see the module comment). */
export async function callForStructure<T>(call: StructuredCall<T>): Promise<StructuredResult<T>> {
  let messages = call.messages;
  const usage = { inputTokens: 0, outputTokens: 0 };
  const warnings = new Set<string>();
  let error = '';
  let model = call.model.spec;
  for (let attempt = 1; attempt <= STRUCTURED_MAX_ATTEMPTS; attempt++) {
    call.signal?.throwIfAborted();
    const result = await call.model.generate({ ...call.settings, messages, ...(call.signal && { signal: call.signal }) });
    model = result.model;
    usage.inputTokens += finite(result.usage.inputTokens);
    usage.outputTokens += finite(result.usage.outputTokens);
    for (const w of result.warnings ?? []) warnings.add(w);
    const text = typeof result.text === 'string' ? result.text : '';
    const decoded = call.decode(text);
    if (decoded.ok) return { value: decoded.value, result, attempts: attempt, usage, warnings: [...warnings] };
    error = decoded.error;
    messages = [...call.messages, { role: 'assistant', content: echo(text) }, { role: 'user', content: call.correction(error) }];
  }
  throw new MalformedAnswerError(`${call.what} was malformed on both attempts (${model}): ${error}`);
}
