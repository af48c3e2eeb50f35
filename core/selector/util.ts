/**
 * Small helpers shared by the selector stages: bounded port calls, text
 * encoding for prompts, and error descriptions that never leak stacks.
 *
 * Isomorphic: no `node:` imports.
 */
import { WorkbenchError } from '../errors';

/** Thrown when a registry read exceeds `registryReadTimeoutMs`. */
export class RegistryTimeoutError extends WorkbenchError {
  constructor(operation: string, ms: number) {
    super('timeout', `registry ${operation} did not answer within ${ms} ms`);
    this.name = 'RegistryTimeoutError';
  }
}

/** Thrown when the caller's signal aborts the selection: cancellation is terminal, never an omission. */
export class SelectionCancelledError extends WorkbenchError {
  constructor() {
    super('cancelled', 'selection was cancelled');
    this.name = 'SelectionCancelledError';
  }
}

/** Throws {@link SelectionCancelledError} when `signal` has aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new SelectionCancelledError();
}

/** What {@link bounded} races a read against to learn whether it has already answered. */
const NOT_YET: unique symbol = Symbol('not yet');
const notYet = Promise.resolve(NOT_YET);

/**
 * Runs one registry operation under the per-operation timeout (0 = none).
 * A read that has already answered when it returns (an evaluation's frozen
 * registry, memoized in memory, answers every cell that way) needs no timer;
 * any other gets one, always cleared, so a fast answer leaves nothing pending.
 */
export async function bounded<T>(operation: string, ms: number, run: () => Promise<T>): Promise<T> {
  if (ms <= 0) return run();
  const read = run();
  // A settled promise's reactions run in the order they were added, so a read that has answered wins this race.
  const early = await Promise.race([read, notYet]);
  if (early !== NOT_YET) return early;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RegistryTimeoutError(operation, ms)), ms);
  });
  try {
    return await Promise.race([read, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A short, stack-free description of a thrown value, safe for diagnostics. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const text = error.message.length > 300 ? `${error.message.slice(0, 300)}...` : error.message;
    return typeof code === 'string' && code.length > 0 ? `${code}: ${text}` : text;
  }
  return String(error).slice(0, 300);
}

/**
 * Encodes untrusted text for a tagged prompt section: `&`, `<` and `>` become
 * entities, so request text, context and authored package text can never
 * open or close a section of the prompt.
 */
export function encodeText(text: string): string {
  // Most text has nothing to encode: test first, since a replace with a callback allocates.
  if (!TAG_LIKE.test(text)) return text;
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const TAG_LIKE = /[&<>]/;

/**
 * `JSON.stringify` with `<`, `>` and `&` written as `\u003c`, `\u003e` and
 * `\u0026`: still the same JSON value, but with nothing tag-like in the text.
 */
export function safeJson(value: unknown, indent?: number): string {
  const json = JSON.stringify(value, null, indent);
  if (!TAG_LIKE.test(json)) return json;
  return json.replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

/** Cuts `text` to at most `max` UTF-16 code units without splitting a surrogate pair. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return text.slice(0, end);
}
