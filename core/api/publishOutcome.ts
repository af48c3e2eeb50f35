/**
 * The one projection of a store's publication result into what the workbench
 * reports: the API's `publish.package` and `reviews.publish` answer it, and the
 * CLI's `publish --json` document is its flat form. Kept apart from the store
 * methods so the CLI can use it without loading the connection pool.
 */
import type { PublishResult } from '../store/types';
import type { PublishOutcome } from './contract';

/** A store's publication result as `publish.package` and `reviews.publish` answer it. */
export function publishOutcome(result: PublishResult): PublishOutcome {
  return {
    skill: { namespace: result.namespace, name: result.name },
    outcome: result.outcome,
    version: result.version,
    etag: result.etag,
    manifest_hash: result.manifest_hash,
    audit_recorded: result.audit_recorded,
    warnings: result.warnings,
    replayed: result.replayed,
    validation: result.validation,
  };
}

/** The outcome as one line for people: a same-content no-op says the version stays. */
export function publishOutcomeLine(outcome: PublishOutcome): string {
  const key = `${outcome.skill.namespace}/${outcome.skill.name}`;
  const what = outcome.outcome === 'same_content_noop' ? `unchanged: ${key} stays at version ${outcome.version}` : `${outcome.outcome} ${key} version ${outcome.version}`;
  return `${what}${outcome.replayed ? ' (replayed)' : ''}, ETag ${outcome.etag}`;
}

/**
 * The outcome as the CLI's `publish --json` document carries it: the skill's
 * identity flattened to `namespace` and `name` first, and the idempotency key
 * the attempt used (so a script can retry it) just before the validation.
 */
export function publishOutcomeDocument(outcome: PublishOutcome, idempotencyKey: string): Record<string, unknown> {
  const { skill, validation, ...rest } = outcome;
  return { namespace: skill.namespace, name: skill.name, ...rest, idempotency_key: idempotencyKey, validation };
}
