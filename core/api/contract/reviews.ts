/**
 * Publication requests and their signed reviews.
 *
 * Isomorphic: no `node:` imports (the renderer and the preload import it).
 */
import { z } from 'zod';
import type { ReviewDeleteOutcome, ReviewRequest, ReviewSigner, ReviewSummary } from '../../review/types';
import { connectionNameSchema, idempotencyKeySchema, skillIdSchema, versionSchema, workspacePathSchema } from './common';
import { comment, empty, method, reviewRef, runRef } from './internal';
import type { PublishOutcome } from './packages';

export type { ReviewDeleteOutcome, ReviewEvent, ReviewRequest, ReviewSignatureView, ReviewSigner, ReviewStatus, ReviewSummary } from '../../review/types';

/** This domain's methods of {@link METHODS}, with their parameter schemas. */
export const reviewMethods = {
  'reviews.list': method<{ reviews: ReviewSummary[] }>()(
    z.strictObject({ status: z.enum(['open', 'changes_requested', 'approved', 'rejected', 'published', 'stale']).optional() }),
  ),
  'reviews.get': method<ReviewRequest>()(reviewRef),
  /** Who this session signs as (the principal of its key in the allowed signers), or why it cannot sign. */
  'reviews.signer': method<ReviewSigner>()(empty),
  /** Files a publication request for a draft or workspace file, or a request to delete old versions; signed with the session's key. */
  'reviews.create': method<ReviewRequest>()(
    z.strictObject({
      source: z.discriminatedUnion('kind', [
        z.strictObject({ kind: z.literal('draft'), draft: z.string().min(1).max(512) }),
        z.strictObject({ kind: z.literal('file'), path: workspacePathSchema }),
        z.strictObject({
          kind: z.literal('delete'),
          skill: skillIdSchema,
          from: versionSchema,
          to: versionSchema,
          reason: z.string().trim().min(1, 'give a reason for the audit trail').max(1000),
        }),
      ]),
      connection: connectionNameSchema,
      note: comment.default(''),
      eval_run: runRef.shape.run.optional(),
    }),
  ),
  'reviews.approve': method<ReviewRequest>()(reviewRef.extend({ comment: comment.optional() })),
  'reviews.requestChanges': method<ReviewRequest>()(reviewRef.extend({ comment: comment.optional() })),
  'reviews.reject': method<ReviewRequest>()(reviewRef.extend({ comment: comment.optional() })),
  /** A comment anchored to a JSON Pointer of the package. */
  'reviews.comment': method<ReviewRequest>()(reviewRef.extend({ pointer: z.string().max(1024), text: comment.min(1) })),
  /**
   * Carries out an approved request (exactly the approved package with If-Match
   * the recorded ETag, or the approved deletion) once its signatures verify; a
   * 412 marks the request stale.
   */
  'reviews.publish': method<PublishOutcome | ReviewDeleteOutcome>()(reviewRef.extend({ idempotency_key: idempotencyKeySchema })),
} as const;
