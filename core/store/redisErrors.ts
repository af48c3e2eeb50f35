/**
 * How the Redis store reports ioredis failures: each one becomes a store error
 * of the shared taxonomy (`STORE_ERROR_STATUS` gives its status), with a message
 * that says what to check, and a cause stripped of the command's arguments (which
 * may hold a password or a package).
 */
import { WorkbenchError } from '../errors';
import { StoreError } from './errors';

const UNAVAILABLE =
  /ECONNREFUSED|ECONNRESET|ECONNABORTED|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|Connection is closed|Stream isn't writeable|max retries per request|All sentinels are unreachable|Failed to refresh slots cache|None of startup nodes is available|CLUSTERDOWN|LOADING|MASTERDOWN|TRYAGAIN|READONLY|OOM |MOVED|ASK |closed|not connected/i;
const AUTH = /WRONGPASS|NOAUTH|invalid username-password|invalid password|AUTH failed|ERR AUTH/i;

/** A copy of an ioredis error without `command` (whose args may hold a password or a package): the only form kept as a cause. */
export function sanitized(error: unknown): Error {
  const source = error instanceof Error ? error : new Error(String(error));
  const copy = new Error(source.message);
  copy.name = source.name;
  if (source.stack) copy.stack = source.stack;
  return copy;
}

/**
 * Maps an ioredis failure to the store taxonomy: connection loss → 503
 * `unavailable`, command timeout → 504 `timeout`, wrong or missing credentials →
 * 401 `unauthorized`, an ACL denial → 403 `forbidden`, each with an actionable
 * message; anything else (a script error) → `internal`.
 * `where` is the redacted URL; `what` the operation.
 */
export function toStoreError(error: unknown, where: string, what: string): WorkbenchError {
  if (error instanceof WorkbenchError) return error;
  let message = error instanceof Error ? error.message : String(error);
  // A cluster that cannot load its slot map says why only on the last node error.
  const lastNodeError = (error as { lastNodeError?: unknown } | null)?.lastNodeError;
  if (lastNodeError instanceof Error) message = `${message} (${lastNodeError.message})`;
  const cause = sanitized(error);
  if (/Command timed out/i.test(message)) {
    return new StoreError('timeout', `Redis at ${where} did not answer in time (${what})`, { cause });
  }
  if (AUTH.test(message)) {
    return new StoreError(
      'unauthorized',
      `Redis at ${where} refused the credentials (${message.split(' ')[0]}): check the user name and password of the connection`,
      { cause },
    );
  }
  const tlsCode = String((error as { code?: unknown } | null)?.code ?? '');
  if (/certificate|CERT_|SSL|TLS|handshake/i.test(message) || /^ERR_TLS|CERT|SSL/.test(tlsCode)) {
    return new StoreError(
      'unavailable',
      `the TLS connection to ${where} failed (${message}): check the server certificate, '?ca=' and '?servername='`,
      { cause },
    );
  }
  if (/NOPERM/.test(message)) {
    return new StoreError('forbidden', `the Redis user of ${where} lacks a permission the skill store needs (${what}): ${message}`, { cause });
  }
  if (UNAVAILABLE.test(message)) {
    return new StoreError('unavailable', `Redis at ${where} is unavailable (${what}): ${message}`, { cause });
  }
  return new WorkbenchError('internal', `Redis at ${where} failed unexpectedly (${what}): ${message}`, { cause });
}
