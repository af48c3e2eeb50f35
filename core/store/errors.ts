/**
 * The store error taxonomy: one code per guide HTTP status (section 11,
 * "Common management responses"), plus the integrity failure of section 10.2
 * and the two refusals of a store's own access control: `unauthorized` (401:
 * the credentials are missing or wrong) and `forbidden` (403: they are valid
 * but not allowed to do this, or the connection is read-only).
 */
import { WorkbenchError } from '../errors';
import type { Finding } from '../package/types';

/** Store error codes and the HTTP status each maps to. */
export const STORE_ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  precondition_required: 428,
  unavailable: 503,
  timeout: 504,
  integrity_mismatch: 502,
} as const;

/** A store error code. */
export type StoreErrorCode = keyof typeof STORE_ERROR_STATUS;

/** A typed store failure; adapters map their library's errors into it at the boundary. */
export class StoreError extends WorkbenchError {
  declare readonly code: StoreErrorCode;

  constructor(
    code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown; details?: Record<string, unknown> },
  ) {
    super(code, message, options);
    this.name = 'StoreError';
  }

  /** The HTTP status of this error in the V1 admin API. */
  get status(): number {
    return STORE_ERROR_STATUS[this.code];
  }

  /** Validation findings carried by a `validation_failed` error. */
  get findings(): Finding[] {
    const errors = this.details?.['errors'];
    return Array.isArray(errors) ? (errors as Finding[]) : [];
  }
}

/** True when `value` is a {@link StoreError}, optionally of one of `codes`. */
export function isStoreError(value: unknown, ...codes: StoreErrorCode[]): value is StoreError {
  return value instanceof StoreError && (codes.length === 0 || codes.includes(value.code));
}

/** The `StoreErrorCode` of an HTTP status, for clients reading a V1 host. */
export function storeErrorCodeForStatus(status: number): StoreErrorCode | undefined {
  for (const [code, s] of Object.entries(STORE_ERROR_STATUS)) {
    if (s === status) return code as StoreErrorCode;
  }
  return undefined;
}

/**
 * `error` (a request to the store that got no answer: `unavailable` or
 * `timeout`) said of the store, `<description> does not answer: <reason>`,
 * with the request's own `METHOD URL: ` prefix dropped. What a connection's
 * state says when it goes offline, whichever noticed first: the reachability
 * probe or a request of the user's. Any other error comes back as it is.
 */
export function notAnswering(description: string, error: unknown): unknown {
  if (!isStoreError(error, 'unavailable', 'timeout')) return error;
  const reason = error.message.replace(/^[A-Z]+ \S+: /, '');
  return new StoreError(error.code, `${description} does not answer: ${reason}`, { cause: error, ...(error.details && { details: error.details }) });
}
