/**
 * Exit codes of ARCHITECTURE.md section 5, one meaning each, and the mapping
 * from typed errors to them.
 */
import { WorkbenchError } from '../core/errors';

/** Process exit codes of the `skillbench` command. */
export const EXIT = {
  ok: 0,
  invalid: 1,
  usage: 2,
  precondition: 3,
  conflict: 4,
  notFound: 5,
  unavailable: 6,
} as const;

/** A usage error: wrong flags or arguments (exit 2). */
export class UsageError extends WorkbenchError {
  constructor(message: string) {
    super('usage', message);
    this.name = 'UsageError';
  }
}

const BY_CODE: Record<string, number> = {
  usage: EXIT.usage,
  invalid_request: EXIT.usage,
  validation_failed: EXIT.invalid,
  payload_too_large: EXIT.invalid,
  unsupported_media_type: EXIT.invalid,
  precondition_failed: EXIT.precondition,
  precondition_required: EXIT.precondition,
  conflict: EXIT.conflict,
  not_found: EXIT.notFound,
  unavailable: EXIT.unavailable,
  timeout: EXIT.unavailable,
  integrity_mismatch: EXIT.unavailable,
  model_unavailable: EXIT.unavailable,
  gate_failed: EXIT.invalid,
};

/** The exit code for an error thrown by a command. Unknown errors are "unavailable" only when they are I/O failures. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof WorkbenchError) return BY_CODE[error.code] ?? EXIT.unavailable;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ECONNREFUSED' || code === 'ETIMEDOUT' || code === 'ENOTFOUND' || code === 'ECONNRESET') return EXIT.unavailable;
  return EXIT.unavailable;
}
