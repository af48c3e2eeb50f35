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
  /** An unexpected error: a bug to report, not an outage. */
  internal: 7,
  /** The store refused the credentials (401) or the permission (403), or the connection is read-only or protected. */
  denied: 8,
  /** An evaluation reached no verdict: more error cells or unusable answers than allowed, or a selector never asked. */
  incomplete: 9,
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
  unauthorized: EXIT.denied,
  forbidden: EXIT.denied,
  secrets_locked: EXIT.denied,
  timeout: EXIT.unavailable,
  cancelled: EXIT.unavailable,
  integrity_mismatch: EXIT.unavailable,
  model_unavailable: EXIT.unavailable,
  answer_malformed: EXIT.unavailable,
  gate_failed: EXIT.invalid,
  internal: EXIT.internal,
};

/** Error codes of the operating system and the network that mean "the resource or service failed", not "the program is wrong". */
const IO_CODES = new Set([
  'ECONNREFUSED', 'ETIMEDOUT', 'ENOTFOUND', 'ECONNRESET', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE',
  'EIO', 'ENOSPC', 'EDQUOT', 'EROFS', 'EMFILE', 'ENFILE', 'EBUSY', 'EAGAIN',
]);

/** True when `error` is a typed error or an I/O failure, false for an unexpected error (a bug). */
export function isExpected(error: unknown): boolean {
  if (error instanceof WorkbenchError) return BY_CODE[error.code] !== undefined && error.code !== 'internal';
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  // Node's file-system and socket errors name their system call.
  return IO_CODES.has(code) || typeof (error as { syscall?: unknown }).syscall === 'string';
}

/** The exit code for an error thrown by a command: typed codes by the table, I/O failures "unavailable", anything else "internal". */
export function exitCodeFor(error: unknown): number {
  if (error instanceof WorkbenchError) return BY_CODE[error.code] ?? EXIT.internal;
  return isExpected(error) ? EXIT.unavailable : EXIT.internal;
}
