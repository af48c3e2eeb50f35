/**
 * Packages of a store: revisions, validation, diffs, merges, publication, history and deletion.
 *
 * Isomorphic: no `node:` imports (the renderer and the preload import it).
 */
import { z } from 'zod';
import type { PackageDiff } from '../../package/diff';
import type { MergeConflict } from '../../package/merge';
import type { SkillAuthoringLimits, SkillId, SkillPackage, ValidationResult } from '../../package/types';
import type { DeleteResult, PublishResult, VersionEntry } from '../../store/types';
import { connectionNameSchema, draftBaseSchema, etagSchema, idempotencyKeySchema, packageTextSchema, skillIdSchema, versionSchema, workspacePathSchema } from './common';
import { method } from './internal';
import type { DraftView } from './workspace';

/**
 * Where a package for a diff or merge comes from: text as typed, a stored
 * revision, a draft, or a workspace file.
 */
export const packageSourceSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('text'), text: packageTextSchema, label: z.string().max(200).optional() }),
  z.strictObject({
    kind: z.literal('stored'),
    connection: connectionNameSchema,
    skill: skillIdSchema,
    version: z.union([z.literal('published'), versionSchema]),
  }),
  z.strictObject({ kind: z.literal('draft'), draft: z.string().min(1).max(512) }),
  z.strictObject({ kind: z.literal('file'), path: workspacePathSchema }),
]);

/** A stored revision as the editor opens it. */
export interface PackageRevision {
  skill: SkillId;
  version: number;
  /** The ETag of the skill's *published* state when this was read (what If-Match needs). */
  etag: string;
  manifest_hash: string;
  created_at: string;
  /** True when this revision is the published one. */
  published: boolean;
  /** The normalized package (`change_reason` included). */
  package: SkillPackage;
  /** The package as pretty-printed JSON, for the editor and Monaco's diff. */
  text: string;
}

/** The verdict of the registry's validator, with the limits it used. */
export interface ValidationView {
  result: ValidationResult;
  limits: SkillAuthoringLimits;
}

/** A resolved side of a diff or merge. */
export interface ResolvedPackage {
  /** What to title the side with: `draft`, `prod v7`, `skills/packages/a/b.json`. */
  label: string;
  /** Normalized pretty JSON (key order and whitespace never show as changes). */
  text: string;
  package: SkillPackage;
  /** Present for a stored revision. */
  version?: number;
  etag?: string;
}

/** A semantic diff with both sides' texts for Monaco. */
export interface DiffView {
  diff: PackageDiff;
  before: ResolvedPackage;
  after: ResolvedPackage;
}

/** A three-way merge and the validation of what it produced. */
export interface MergeView {
  merged: SkillPackage;
  merged_text: string;
  conflicts: MergeConflict[];
  clean: boolean;
  validation: ValidationResult;
  base: ResolvedPackage;
  theirs: ResolvedPackage;
  mine: ResolvedPackage;
}

/** The result of a publication: the store's {@link PublishResult}, with the skill's identity as one `skill` member. */
export interface PublishOutcome extends Omit<PublishResult, keyof SkillId> {
  skill: SkillId;
}

/** A history entry, with who deleted it and why when the store records that. */
export interface VersionView extends VersionEntry {
  deleted_by?: string;
  deletion_reason?: string;
}

/** One page of body-free history, newest first. */
export interface VersionsPage {
  versions: VersionView[];
  /** Pass as `before` for the next page; null when none remain. */
  next_before: number | null;
  /** The published version and its ETag (what a delete's If-Match needs). */
  published: number;
  etag: string;
}

/** What a deletion would do, before asking for confirmation. */
export interface DeletePreview {
  /** What the user must type: `namespace/name@v5` or `namespace/name@v3-v5`. */
  confirmation: string;
  etag: string;
  published: number;
  /** Versions of the range that would become tombstones. */
  deletable: number[];
  already_deleted: number[];
  /** Versions of the range that are protected (published and its predecessor). */
  protected: number[];
  /** Versions of the range that never existed. */
  missing: number[];
  /** False when the store would refuse (protected or missing versions); `reason` says why. */
  allowed: boolean;
  reason?: string;
  /** One sentence stating the consequence, for the confirmation popover. */
  consequence: string;
}

/** A skill of a connection. */
const skillRef = z.strictObject({ connection: connectionNameSchema, skill: skillIdSchema });

/** This domain's methods of {@link METHODS}, with their parameter schemas. */
export const packageMethods = {
  /** The published revision (or an exact retained one) of a skill. */
  'packages.get': method<PackageRevision>()(
    z.strictObject({ connection: connectionNameSchema, skill: skillIdSchema, version: z.union([z.literal('published'), versionSchema]).default('published') }),
  ),
  /**
   * Opens a skill of a connection for editing: its draft (an existing one is
   * offered back as is), based on the published version and ETag of the moment.
   * A skill the store does not have opens as a new draft with a null base.
   */
  'packages.open': method<DraftView>()(skillRef),
  /** The package JSON Schema (with the connection's limits) for the editor. */
  'packages.schema': method<{ schema: Record<string, unknown>; limits: SkillAuthoringLimits }>()(
    z.strictObject({ connection: connectionNameSchema.optional() }),
  ),

  /** The registry's verdict on a package text, with the connection's limits when given. */
  'validate.package': method<ValidationView>()(
    z.strictObject({ text: packageTextSchema, skill: skillIdSchema.optional(), connection: connectionNameSchema.optional() }),
  ),
  'diff.packages': method<DiffView>()(z.strictObject({ before: packageSourceSchema, after: packageSourceSchema })),
  'merge.packages': method<MergeView>()(z.strictObject({ base: packageSourceSchema, theirs: packageSourceSchema, mine: packageSourceSchema })),

  /**
   * Publishes `text` as the next revision. `base` is the revision the draft was
   * opened from (If-Match its ETag) or null to create the skill. Send one
   * `idempotency_key` per attempt, the same one on every retry of that attempt.
   * A 422 carries located `findings`; a 412 carries the `conflict` (base, theirs,
   * mine) a three-way merge needs. The draft is kept on every failure.
   */
  'publish.package': method<PublishOutcome>()(
    z.strictObject({
      connection: connectionNameSchema,
      skill: skillIdSchema,
      text: packageTextSchema,
      base: draftBaseSchema.nullable(),
      idempotency_key: idempotencyKeySchema,
      /** The draft to rebase on the new revision after success. */
      draft: z.string().min(1).max(512).optional(),
    }),
  ),

  /** Body-free history with tombstones and protection markers, newest first. */
  'versions.list': method<VersionsPage>()(
    z.strictObject({ connection: connectionNameSchema, skill: skillIdSchema, before: versionSchema.optional(), limit: z.number().int().min(1).max(100).default(50) }),
  ),
  /** A retained version, read-only. */
  'versions.get': method<PackageRevision>()(z.strictObject({ connection: connectionNameSchema, skill: skillIdSchema, version: versionSchema })),

  /** What deleting `from..to` would do, and the confirmation text it needs. */
  'delete.preview': method<DeletePreview>()(
    z.strictObject({ connection: connectionNameSchema, skill: skillIdSchema, from: versionSchema, to: versionSchema }),
  ),
  /** Deletes `from..to` (tombstones); refused unless `confirmation` is exactly the preview's. */
  'delete.versions': method<DeleteResult>()(
    z.strictObject({
      connection: connectionNameSchema,
      skill: skillIdSchema,
      from: versionSchema,
      to: versionSchema,
      if_match: etagSchema,
      reason: z.string().trim().min(1, 'give a reason for the audit trail').max(1000),
      confirmation: z.string().max(200),
    }),
  ),
} as const;
