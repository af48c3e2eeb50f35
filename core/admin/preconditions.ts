/**
 * Preconditions of the admin API's writes: `If-None-Match: *` to create,
 * `If-Match` with the current ETag to update a skill or delete its versions.
 */
import type { IncomingMessage } from 'node:http';
import { ADMIN_HEADERS } from '../store/httpWire';
import { parseEtagList } from '../store/etag';
import { StoreError } from '../store/errors';
import type { Precondition } from '../store/types';
import { header } from './body';

/**
 * The precondition of a publish. Exactly one is required (428 without); both at
 * once, a non-`*` If-None-Match, `If-Match: *` or a malformed entity tag are 400.
 */
export function publishPrecondition(req: IncomingMessage): Precondition {
  const ifNoneMatch = header(req, ADMIN_HEADERS.ifNoneMatch)?.trim();
  const ifMatch = header(req, ADMIN_HEADERS.ifMatch)?.trim();
  if (ifNoneMatch !== undefined && ifMatch !== undefined) {
    throw new StoreError('invalid_request', 'send exactly one precondition: If-None-Match: * to create, or If-Match with the current ETag to update');
  }
  if (ifNoneMatch !== undefined) {
    if (ifNoneMatch !== '*') {
      throw new StoreError('invalid_request', 'If-None-Match must be * (create only when the skill does not exist yet)');
    }
    return { kind: 'create' };
  }
  if (ifMatch !== undefined) {
    if (ifMatch === '*') throw new StoreError('invalid_request', 'If-Match must carry the current ETag, not *');
    if (parseEtagList(ifMatch) === undefined) {
      throw new StoreError('invalid_request', 'malformed If-Match value: expected a quoted entity tag such as "v3-…"');
    }
    return { kind: 'if-match', etag: ifMatch };
  }
  throw new StoreError(
    'precondition_required',
    'publishing requires a precondition: If-None-Match: * to create the skill, or If-Match with its current ETag to update it',
  );
}

/**
 * The If-Match of a deletion as sent (trimmed), or undefined when absent or empty;
 * the store's own checks judge it (`checkDeleteRequest`), so every adapter answers alike.
 */
export function deleteIfMatch(req: IncomingMessage): string | undefined {
  const ifMatch = header(req, ADMIN_HEADERS.ifMatch)?.trim();
  return ifMatch !== undefined && ifMatch.length > 0 ? ifMatch : undefined;
}
