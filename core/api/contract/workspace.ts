/**
 * The open workspace folder and the autosaved drafts.
 *
 * Isomorphic: no `node:` imports (the renderer and the preload import it).
 */
import { z } from 'zod';
import type { SkillId } from '../../package/types';
import type { ProjectConfig } from '../../workspace/projectConfig';
import { folderSchema, packageTextSchema, workspacePathSchema } from './common';
import { empty, method } from './internal';

/** A package file of the open workspace. */
export interface WorkspaceEntry {
  /** Path relative to the workspace root, `/` separators. */
  path: string;
  /** Identity from the path; absent when the entry is not a package (see `problem`). */
  skill?: SkillId;
  problem?: { code: string; message: string };
  /** The open draft of this file, when there is one with unsaved edits. */
  draft?: string;
}

/**
 * The open workspace's `skillbench.config.json` (core/workspace/projectConfig):
 * its checked defaults, or the problem that keeps them from applying (the file
 * and the setting's JSON pointer); null when the workspace has none.
 */
export type ProjectConfigView =
  | { file: string; config: ProjectConfig; problem?: undefined }
  | { file: string; config?: undefined; problem: { message: string; pointer: string } }
  | null;

/** The open workspace. */
export interface WorkspaceView {
  root: string;
  entries: WorkspaceEntry[];
  /** Whether external edits are watched by polling (network folders) rather than native events. */
  polling: boolean;
}

/** A workspace file's bytes as text, and the hash a later save must name. */
export interface WorkspaceFile {
  path: string;
  text: string;
  /** `sha256:<hex>` of the bytes on disk. */
  hash: string;
  mtime: string;
}

/** Where a draft comes from. */
export type DraftOrigin =
  | { kind: 'store'; connection: string; skill: SkillId; base: { version: number; etag: string; manifest_hash: string } | null }
  | { kind: 'file'; path: string; skill?: SkillId; base_hash: string | null };

/** An autosaved draft. */
export interface DraftView {
  id: string;
  origin: DraftOrigin;
  text: string;
  /** Differs from its base. */
  dirty: boolean;
  updated_at: string;
  /** The base changed underneath (a newer published revision, or the file changed on disk). */
  conflict?: { kind: 'published' | 'disk'; message: string; version?: number; etag?: string; hash?: string };
}

/** This domain's methods of {@link METHODS}, with their parameter schemas. */
export const workspaceMethods = {
  /** Opens a folder as the workspace (watched for external edits). */
  'workspace.open': method<WorkspaceView>()(z.strictObject({ dir: folderSchema })),
  /** The open workspace, or null. */
  'workspace.list': method<WorkspaceView | null>()(empty),
  'workspace.read': method<WorkspaceFile>()(z.strictObject({ path: workspacePathSchema })),
  /** The open workspace's project defaults (`skillbench.config.json` at its root): what the evaluation setup starts from. */
  'workspace.projectConfig': method<ProjectConfigView>()(empty),
  /**
   * Saves a workspace file atomically. `base_hash` is the hash the edit started
   * from (null for a new file): a file changed on disk since is a 409 `conflict`
   * with the disk's hash in `details`, and nothing is written.
   */
  'workspace.save': method<WorkspaceFile>()(
    z.strictObject({ path: workspacePathSchema, text: packageTextSchema, base_hash: z.string().max(100).nullable() }),
  ),
  'workspace.close': method<{ closed: boolean }>()(empty),

  /** Autosaved drafts, including those a crash left behind (offered back on reopen). */
  'drafts.list': method<{ drafts: DraftView[] }>()(empty),
  'drafts.get': method<DraftView>()(z.strictObject({ id: z.string().min(1).max(512) })),
  /** Autosaves a draft's text (atomic; survives a crash). */
  'drafts.save': method<DraftView>()(z.strictObject({ id: z.string().min(1).max(512), text: packageTextSchema })),
  /** Opens a workspace file as a draft (an existing draft of it is offered back). */
  'drafts.openFile': method<DraftView>()(z.strictObject({ path: workspacePathSchema })),
  'drafts.discard': method<{ discarded: boolean }>()(z.strictObject({ id: z.string().min(1).max(512) })),
} as const;
