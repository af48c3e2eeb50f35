import { describe, expect, it } from 'vitest';
import { publishOutcome, publishOutcomeDocument, publishOutcomeLine } from '../../../../core/api/publishOutcome';
import type { PublishResult } from '../../../../core/store/types';

const result: PublishResult = {
  namespace: 'acme',
  name: 'pdf-tools',
  outcome: 'published',
  version: 4,
  etag: '"v4-abc"',
  manifest_hash: 'sha256:00',
  audit_recorded: false,
  warnings: [{ code: 'skill_audit_not_recorded', message: 'the audit event was not recorded' }],
  replayed: true,
  validation: {
    warnings: [],
    metrics: { manifest_bytes: 1, resource_bytes: 2, package_bytes: 3, manifest_tokens: 4, resource_tokens: 5, resource_count: 1, token_estimator: { name: 'truvag3-canonical', version: 'v1' } },
  },
};

describe('publication outcome', () => {
  it('carries every field of the store result under the skill identity', () => {
    const outcome = publishOutcome(result);
    const { namespace, name, ...rest } = result;
    expect(outcome).toEqual({ skill: { namespace, name }, ...rest });
  });

  it("flattens into the CLI's JSON document with the identity first and the idempotency key before the validation", () => {
    const doc = publishOutcomeDocument(publishOutcome(result), 'key-1');
    expect(Object.keys(doc)).toEqual(['namespace', 'name', 'outcome', 'version', 'etag', 'manifest_hash', 'audit_recorded', 'warnings', 'replayed', 'idempotency_key', 'validation']);
    expect(doc).toMatchObject({ namespace: 'acme', name: 'pdf-tools', idempotency_key: 'key-1', replayed: true });
  });

  it('says in one line what happened, and that a same-content no-op keeps the version', () => {
    expect(publishOutcomeLine(publishOutcome(result))).toBe('published acme/pdf-tools version 4 (replayed), ETag "v4-abc"');
    expect(publishOutcomeLine(publishOutcome({ ...result, outcome: 'same_content_noop', replayed: false }))).toBe('unchanged: acme/pdf-tools stays at version 4, ETag "v4-abc"');
  });
});
