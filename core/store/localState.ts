/**
 * What the embedded registry stores per skill (see docs/local-layout.md): the
 * committed `state.json` and the immutable `versions/<n>.json`.
 */
import type { SkillPackage } from '../package/types';
import type { SkillMetadata } from './types';

/** Format number of every file of a local registry. */
export const FORMAT = 1;

/** One history entry of `state.json`; tombstones keep their metadata. */
export interface HistoryEntry {
  version: number;
  created_at: string;
  manifest_hash: string;
  change_reason: string;
  status: 'available' | 'deleted';
  deleted_at?: string;
  /** Hash of the Idempotency-Key that created this revision, for replay after a crash. */
  key_hash?: string;
  fingerprint?: string;
}

/** `skills/<ns>/<name>/state.json`: the committed state of one skill. */
export interface SkillState {
  format: number;
  namespace: string;
  name: string;
  published: number;
  next_version: number;
  etag: string;
  created_at: string;
  /** Catalog entry of the published revision. */
  metadata: SkillMetadata;
  history: HistoryEntry[];
}

/** `skills/<ns>/<name>/versions/<n>.json`: one immutable revision. */
export interface VersionFile {
  format: number;
  namespace: string;
  name: string;
  version: number;
  created_at: string;
  manifest_hash: string;
  resource_hashes: Record<string, string>;
  package: SkillPackage;
}

/** The history entry of `version` when it is available (not deleted, not unknown). */
export function availableEntry(state: SkillState, version: number): HistoryEntry | undefined {
  const entry = state.history.find((e) => e.version === version);
  return entry && entry.status === 'available' ? entry : undefined;
}

/** The catalog entry a revision describes. */
export function metadataOf(state: SkillState, file: VersionFile): SkillMetadata {
  return {
    namespace: state.namespace,
    name: state.name,
    display_name: file.package.display_name,
    description: file.package.description,
    domains: file.package.domains,
    tags: file.package.tags,
    version: file.version,
    manifest_hash: file.manifest_hash,
    updated_at: file.created_at,
  };
}
