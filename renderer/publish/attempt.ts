/**
 * Publish attempts and their idempotency keys. One attempt is one intent to
 * publish one text on one base: every retry of it (after a dropped connection,
 * a timeout, an unavailable store) sends the same key, so the registry applies
 * it at most once; a new text, a new base, or an answer that settles the
 * attempt (success, 412, 422, a refusal) starts a new key next time. Pure.
 */
import type { DraftBase } from '../editor/document';

/** One attempt. */
export interface PublishAttempt {
  key: string;
  text: string;
  base: DraftBase;
}

/** Error codes after which the same attempt may be sent again with the same key. */
const RETRYABLE = new Set(['unavailable', 'timeout', 'cancelled', 'internal', 'integrity_mismatch']);

/** Whether a failure leaves the attempt open for a retry with the same key. */
export function isRetryable(error: unknown): boolean {
  const code = error && typeof error === 'object' && 'code' in error ? String((error as { code: unknown }).code) : undefined;
  // No code: the transport failed before an answer came back.
  return code === undefined || RETRYABLE.has(code);
}

/** A new idempotency key (visible ASCII, unique per attempt). */
export function newIdempotencyKey(): string {
  return `skillbench-${crypto.randomUUID()}`;
}

/** The attempts of one draft. */
export class PublishAttempts {
  private open: PublishAttempt | undefined;

  constructor(private readonly makeKey: () => string = newIdempotencyKey) {}

  /** The attempt to send for `text` on `base`: the open one when it is a retry of it, else a new one. */
  begin(text: string, base: DraftBase): PublishAttempt {
    const same = this.open && this.open.text === text && (this.open.base?.etag ?? null) === (base?.etag ?? null);
    if (!same) this.open = { key: this.makeKey(), text, base };
    return this.open!;
  }

  /** Records the answer: a success or a final refusal closes the attempt; a retryable failure keeps it. */
  settle(outcome: { ok: true } | { ok: false; error: unknown }): void {
    if (outcome.ok || !isRetryable(outcome.error)) this.open = undefined;
  }

  /** The open attempt, if a retry is pending. */
  get pending(): PublishAttempt | undefined {
    return this.open;
  }
}
