/**
 * The audit trail of the embedded registry: `audit.jsonl`, one JSON line per
 * event, appended after the commit it describes.
 *
 * Node-only: uses node:fs.
 */
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { fdatasyncAsync } from './localFiles';
import type { PreparedPublication } from './publication';
import type { AuditEvent, AuditSink } from './types';

/** The default audit sink of a local registry: one JSON line per event, flushed to disk. */
export class JsonlAuditSink implements AuditSink {
  constructor(
    private readonly path: string,
    private readonly durable = true,
  ) {}

  async record(event: AuditEvent): Promise<void> {
    const fd = openSync(this.path, 'a');
    try {
      writeFileSync(fd, `${JSON.stringify(event)}\n`);
      if (this.durable) await fdatasyncAsync(fd);
    } finally {
      closeSync(fd);
    }
  }
}

/** The audit event of a publication (or of its same-content no-op). */
export function publishAuditEvent(p: PreparedPublication, outcome: string, versions: number[], now: Date, manifestHash: string): AuditEvent {
  const event: AuditEvent = {
    action: 'publish',
    namespace: p.id.namespace,
    name: p.id.name,
    outcome,
    versions,
    manifest_hash: manifestHash,
    reason: p.package.change_reason,
    at: now.toISOString(),
  };
  if (p.actor !== undefined) event.actor = p.actor;
  return event;
}
