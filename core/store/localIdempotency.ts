/**
 * Idempotency-Key records of the embedded registry:
 * `skills/<ns>/<name>/idempotency/<hash>.json`, and the replay of a publication
 * from the committed history when its record was lost in a crash.
 *
 * Node-only: uses node:fs.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SkillId } from '../package/types';
import { etagFor } from './etag';
import { idempotencyConflict, replayIdempotent, type IdempotencyRecord } from './idempotency';
import { auditNotRecordedWarning, type PreparedPublication } from './publication';
import { readJsonSync } from './localFiles';
import type { SkillState } from './localState';
import type { PublishResult } from './types';
import { isErrno } from '../fs/errno';

/** The record file of one key hash under a skill's folder. */
export function idempotencyPath(skillDir: string, keyHash: string): string {
  return join(skillDir, 'idempotency', `${keyHash.replace(/^sha256:/, '')}.json`);
}

/**
 * Writes the record of a publication. Neither flushed nor renamed: a record lost
 * or torn by a crash reads as absent, and the committed history (key hash per
 * revision) still answers the replay.
 */
export function writeIdempotencyRecord(path: string, record: IdempotencyRecord): void {
  const text = JSON.stringify(record);
  try {
    writeFileSync(path, text);
  } catch (error) {
    if (!isErrno(error, 'ENOENT')) throw error;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
}

/**
 * The reply to a repeated publication with the same key: from its record, or,
 * when the record was lost, rebuilt from the committed history. `undefined` when
 * the key is new; `conflict` when it was used for other content.
 */
export function replayPublication(
  id: SkillId,
  path: string,
  state: SkillState | undefined,
  keyHash: string,
  p: PreparedPublication,
  now: Date,
): PublishResult | undefined {
  let record: IdempotencyRecord | undefined;
  try {
    record = readJsonSync<IdempotencyRecord>(path);
  } catch {
    // A record lost or torn by a crash: fall back to the committed history below.
    record = undefined;
  }
  const replayed = replayIdempotent(record, p.fingerprint, now);
  if (replayed) return replayed;
  // The revision committed but its record was not written (crash): rebuild the reply.
  const entry = state?.history.find((e) => e.key_hash === keyHash);
  if (!state || !entry) return undefined;
  if (entry.fingerprint !== p.fingerprint) throw idempotencyConflict();
  return {
    namespace: id.namespace,
    name: id.name,
    outcome: entry.version === 1 ? 'created' : 'published',
    version: entry.version,
    etag: etagFor(entry.version, entry.manifest_hash),
    manifest_hash: entry.manifest_hash,
    // Whether the audit event was delivered before the crash is unknown: say so.
    audit_recorded: false,
    warnings: [auditNotRecordedWarning()],
    validation: p.validation,
    replayed: true,
  };
}
