/**
 * HTTP errors of the admin API: failures of the HTTP layer itself, the mapping of
 * store errors to statuses and bodies, and the generic 503/504 bodies that stand
 * in for a store's own message (which may name files or hosts of the server).
 */
import { WorkbenchError } from '../errors';
import { STORE_ERROR_STATUS, StoreError, type StoreErrorCode } from '../store/errors';

/** A failure of the HTTP layer itself (statuses outside the store taxonomy, or extra headers). */
export class HttpFailure extends WorkbenchError {
  constructor(
    readonly status: number,
    code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(code, message);
    this.name = 'HttpFailure';
  }
}

/** One answer: status, JSON body and extra headers. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Runs a store or advisor call within the time budget; 504 `timeout` when it runs out. */
export async function withinBudget<T>(ms: number, parent: AbortSignal, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort(new Error('timeout'));
      reject(new StoreError('timeout', `the operation did not complete within ${ms} ms; it may still complete: read before retrying a change`));
    }, ms);
  });
  try {
    return await Promise.race([fn(controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
    parent.removeEventListener('abort', onAbort);
  }
}

/**
 * The answer to a failure. `detail` is the store's own message when the body
 * carries a generic one instead (it may name a Redis URL, a lock holder's pid or
 * host); it goes only to the server's log.
 */
export function errorReply(error: unknown): Reply & { code: string; detail?: string } {
  if (error instanceof HttpFailure) {
    return { status: error.status, code: error.code, body: { error: { code: error.code, message: error.message } }, headers: error.headers };
  }
  if (error instanceof StoreError || (error instanceof WorkbenchError && error.code in STORE_ERROR_STATUS)) {
    const code = error.code as StoreErrorCode;
    const status = STORE_ERROR_STATUS[code];
    const headers: Record<string, string> = {};
    let message = error.message;
    let details = error.details;
    // The host's own backend refusing the host's credentials is not the client's fault: 503.
    if (code === 'unauthorized') return errorReply(new StoreError('unavailable', error.message));
    if (code === 'unavailable') {
      headers['Retry-After'] = '1';
      message = 'the skill store is temporarily unavailable; retry shortly';
      details = undefined;
    } else if (code === 'timeout') {
      message = 'the operation did not complete in time; it may still complete: read before retrying a change';
      details = undefined;
    }
    const body = details === undefined ? { error: { code, message } } : { error: { code, message, details } };
    return { status, code, body, headers, ...(message !== error.message && { detail: error.message }) };
  }
  return {
    status: 500,
    code: 'internal_error',
    body: { error: { code: 'internal_error', message: 'the server failed to handle the request' } },
  };
}
