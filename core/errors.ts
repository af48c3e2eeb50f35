/**
 * The one error family of Skillbench. Every error that crosses a layer or a
 * transport (IPC, HTTP) is a `WorkbenchError` with a stable `code` and a message a
 * user can act on; `toJSON` gives the plain data that crosses the wire.
 */
export class WorkbenchError extends Error {
  /** Stable machine-readable code. */
  readonly code: string;
  /** Extra structured data (findings, versions, ...). Never secrets or bodies. */
  readonly details: Record<string, unknown> | undefined;

  constructor(code: string, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'WorkbenchError';
    this.code = code;
    this.details = options?.details;
  }

  /** Plain data for transports: code, message and details (never the cause's stack). */
  toJSON(): { code: string; message: string; details?: Record<string, unknown> } {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}
