/**
 * The WorkbenchApi contract: every request/response method and every event
 * the workbench UI, the Electron shell, `skillbench serve` and the tests share
 * (ARCHITECTURE.md section 2).
 *
 * - Methods are named `domain.verb` and take one JSON object of parameters,
 *   parsed at the boundary by the schema listed in {@link METHODS}; results are
 *   plain JSON data typed by {@link WorkbenchResults}.
 * - Events are past tense (`evals.progressed`) and typed by {@link WorkbenchEvents}.
 * - Failures cross as data: one {@link WorkbenchErrorData} with a code of the
 *   store taxonomy (plus the workbench's own few), a message a user can act on,
 *   and the JSON Pointer / line / column where one applies. Clients rethrow it as
 *   a `WorkbenchError`.
 *
 * A host serves only the methods it has wired: `app.info` lists them, and an
 * unknown or unwired method is refused with `not_implemented`, never faked.
 *
 * Isomorphic: no `node:` imports (the renderer and the preload import it).
 */
import { z } from 'zod';
import type { JsonPatchOperation } from '../package/jsonPatch';
import type { PackageDiff } from '../package/diff';
import type { MergeConflict } from '../package/merge';
import type { Finding, PackageMetrics, SkillAuthoringLimits, SkillId, SkillPackage, ValidationResult } from '../package/types';
import type { SelectionTrace } from '../selector/select';
import type { ActivationMode, SelectorDiagnostic } from '../selector/types';
import type { CheckedProposal, DeleteResult, SkillMetadata, StoreWarning, VersionEntry } from '../store/types';
import type { SkillExportReport, SkillImportReport } from '../interop/types';
import type { CatalogHealth } from '../catalog/health';
import type { SplitProposal } from '../catalog/split';
import type { SelectorLimits } from '../selector/limits';
import type { ProjectConfig } from '../workspace/projectConfig';
import type { WorkbenchErrorCode, WorkbenchEventName, WorkbenchMethodName } from './names';

export { EVENT_NAMES, METHOD_NAMES, isWorkbenchEvent, isWorkbenchMethod } from './names';

/** True when `A` and `B` are the same union (compile-time checks against `names.ts`). */
type SameUnion<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type AssertTrue<T extends true> = T;

// ---------------------------------------------------------------------------
// Errors.

// The error codes live with the method and event names in `names.ts`, which
// code that must not bundle zod (the preload, the renderer's client) imports.
export { ERROR_STATUS, type WorkbenchErrorCode } from './names';

/** What the user must reconcile after a 412 on publish: a three-way merge's inputs. */
export interface PublishConflict {
  /** The revision the draft was based on; null when it was a create, or the base is no longer retained. */
  base: PackageRevision | null;
  /** The currently published revision (what someone else published meanwhile). */
  theirs: PackageRevision;
  /** The package the user tried to publish (normalized), and the text as sent. */
  mine: { package: SkillPackage | null; text: string };
}

/**
 * A failure, as data. `status` is the HTTP-equivalent of `code`. Location fields
 * are present where one applies: `pointer` (RFC 6901) into the document at
 * fault, `line`/`column` (1-based) in its text, `file` for a workspace file.
 */
export interface WorkbenchErrorData {
  /** One of {@link WorkbenchErrorCode}; a newer host may send a code this build does not know. */
  code: WorkbenchErrorCode | (string & Record<never, never>);
  message: string;
  status: number;
  pointer?: string;
  line?: number;
  column?: number;
  file?: string;
  /** Validation findings of a 422 (errors first, then warnings), each located. */
  findings?: Finding[];
  /** Present on a 412 of `publish.package` / `reviews.publish`. */
  conflict?: PublishConflict;
  /** Extra structured data (`current_etag`, `reason`, ...). Never a secret or a stack. */
  details?: Record<string, unknown>;
}

/** The result of one call as it crosses a transport. */
export type Envelope<T = unknown> = { ok: true; result: T } | { ok: false; error: WorkbenchErrorData };

// ---------------------------------------------------------------------------
// Shared parameter schemas.

const SLUG = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
const slug = (what: string) => z.string().max(64).regex(SLUG, `${what} is a lowercase slug of letters, digits and internal hyphens`);

/** A skill identity `{namespace, name}`. */
export const skillIdSchema = z.strictObject({ namespace: slug('a namespace'), name: slug('a name') });

/** The name of a saved connection profile (`default` is the embedded registry). */
export const connectionNameSchema = slug('a connection name');

/** A package's JSON text as the editor holds it (bounded: the largest package limit is far below). */
export const packageTextSchema = z.string().max(16 * 1024 * 1024);

/** A strong or weak quoted entity tag as stores return it. */
export const etagSchema = z.string().min(2).max(256).regex(/^(W\/)?"[^"]*"$/, 'an ETag is a quoted entity tag such as "v3-…"');

/** A positive revision number. */
export const versionSchema = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

/** An Idempotency-Key: 1..255 visible ASCII characters. */
export const idempotencyKeySchema = z.string().min(1).max(255).regex(/^[\x21-\x7e]+$/, 'an idempotency key is visible ASCII without spaces');

/**
 * No NUL or other control character: no file system stores one in a name, and
 * Node's refusal of a NUL would quote the whole absolute path back. A zod
 * `refine` pair: `schema.refine(...noControlCharacters('a folder'))`.
 */
export const noControlCharacters = (what: string) =>
  [(p: string) => ![...p].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f), `${what} must not contain a NUL or another control character`] as const;

/** A workspace-relative path with `/` separators (never absolute, never `..`). */
export const workspacePathSchema = z
  .string()
  .min(1)
  .max(1024)
  .refine(...noControlCharacters('a workspace path'))
  .refine((p) => !p.startsWith('/') && !/^[a-zA-Z]:/.test(p) && !p.includes('\\') && !p.split('/').includes('..'), 'a path relative to the workspace, with / separators and no ..');

/** A folder on this machine, as the user typed or picked it. */
export const folderSchema = z.string().min(1).max(4096).refine(...noControlCharacters('a folder'));

/** The revision a draft was opened from: what publish sends as If-Match. */
export const draftBaseSchema = z.strictObject({ version: versionSchema, etag: etagSchema });

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

/** One binding of an agent's binding list (guide 6.1). */
export const bindingSchema = z.strictObject({
  namespace: slug('a namespace'),
  name: slug('a name'),
  version: z.union([z.literal('published'), versionSchema]),
  activation: z.enum(['always', 'auto', 'explicit']),
  required: z.boolean(),
});

/** What to evaluate: a draft, a workspace file, or a published revision. */
export const evalTargetSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('draft'), draft: z.string().min(1).max(512) }),
  z.strictObject({ kind: z.literal('file'), path: workspacePathSchema }),
  z.strictObject({ kind: z.literal('published'), skill: skillIdSchema }),
]);

/** An evaluation as the setup view describes it; `evals.plan` and `evals.start` take the same request. */
export const evalRequestSchema = z.strictObject({
  targets: z.array(evalTargetSchema).min(1).max(100),
  /** Model specs (`openai:fast`, `baseline:lexical`, `chain:…`), at least one, no duplicates. */
  models: z
    .array(z.string().min(1).max(2048))
    .min(1)
    .max(32)
    .refine((m) => new Set(m).size === m.length, 'the same model is given twice'),
  /**
   * One resource-selection model for every model of `models` (guide 9.4
   * `TRUVAG3_SKILL_RESOURCE_MODEL`); absent: each model selects its own
   * resources. `models` are the activation models.
   */
  resource_model: z.string().min(1).max(2048).optional(),
  /** The store holding the catalog and the published revisions. */
  connection: connectionNameSchema,
  /** The agent's binding list; absent: every skill of the skill's namespace, bound auto. */
  bindings: z.array(bindingSchema).max(1000).optional(),
  /** Selector limits (guide 9.10) other than the defaults, as `select --limits` takes them: checked by the engine. */
  limits: z.record(z.string().max(64), z.number()).optional(),
  /** Also run each draft's published revision and compare them. */
  compare_published: z.boolean().default(false),
  repeats: z.number().int().min(1).max(100).default(1),
  concurrency: z.number().int().min(1).max(64).default(4),
  /** Per-attempt model timeout. */
  timeout_ms: z.number().int().min(100).max(600_000).default(60_000),
  /** Answer from and write to the answer cache. */
  cache: z.boolean().default(true),
  /** Quality gates the run's verdict judges (they decide no answer, so they do not change the configuration). */
  gates: z
    .strictObject({
      min_accuracy: z.number().min(0).max(1).optional(),
      min_recall: z.number().min(0).max(1).optional(),
      min_precision: z.number().min(0).max(1).optional(),
      /** Fail unless each draft is shown non-inferior to its published revision. */
      fail_on_regression: z.boolean().optional(),
      /** The loss in paired accuracy the comparison gates tolerate (default 0.05). */
      regression_margin: z.number().min(0).max(0.5).optional(),
      /** Fail unless every other model is non-inferior to this one (one of `models`). */
      reference_model: z.string().min(1).max(2048).optional(),
      /** Share of a model's cells that may end in an error before the run reaches no verdict (default 0). */
      max_error_rate: z.number().min(0).max(1).optional(),
      /** Share of a model's answers that may be unusable before the run reaches no verdict (default 0). */
      max_invalid_rate: z.number().min(0).max(1).optional(),
      /** The run measures a catalog the selector skips on purpose. */
      allow_skipped_activation: z.boolean().optional(),
    })
    .default({}),
});

const skillRef = z.strictObject({ connection: connectionNameSchema, skill: skillIdSchema });
const empty = z.strictObject({});
const runRef = z.strictObject({ run: z.string().min(1).max(128).regex(/^[A-Za-z0-9._-]+$/, 'a run id') });
const reviewRef = z.strictObject({ id: z.string().min(1).max(128).regex(/^[A-Za-z0-9._-]+$/, 'a review id') });
const comment = z.string().max(10_000);

// ---------------------------------------------------------------------------
// Result types.

/** What a host serves. */
export interface AppInfo {
  /** Skillbench's version. */
  version: string;
  /** Which shell the UI runs in. */
  host: 'electron' | 'browser' | 'direct';
  /** Methods this host serves (wired), sorted. */
  methods: WorkbenchMethod[];
  /** Events this host emits. */
  events: WorkbenchEvent[];
  /** The open workspace folder, when one is open. */
  workspace: string | null;
  /** The operating system, for key labels (`Cmd` vs `Ctrl`). */
  platform: 'darwin' | 'win32' | 'linux' | 'other';
}

/** How a profile is shown: an environment label (e.g. `production`) and its colour (`#rrggbb`). */
export interface ProfileEnvironment {
  label: string;
  colour: string;
}

/**
 * Where a profile points. Paths are absolute; URLs carry no credentials
 * (secrets are saved separately and never cross the API).
 */
export type ConnectionTarget =
  | { kind: 'local'; dir: string }
  | {
      kind: 'redis';
      topology: 'standalone' | 'sentinel' | 'cluster';
      hosts: { host: string; port: number }[];
      master_name?: string;
      username?: string;
      deployment: string;
      tls?: { ca_file?: string; servername?: string };
      sentinel_username?: string;
      connect_timeout_ms?: number;
      command_timeout_ms?: number;
    }
  | {
      kind: 'http';
      url: string;
      auth: 'none' | 'bearer' | 'basic' | 'headers';
      username?: string;
      header_names?: string[];
      ca_file?: string;
      proxy?: string;
      proxy_username?: string;
      timeout_ms?: number;
    };

/** A saved connection profile: never a secret in it. */
export interface ConnectionProfile {
  name: string;
  label: string;
  environment: ProfileEnvironment | null;
  /** Every write through this profile is refused. */
  read_only: boolean;
  /** Publishes and deletes only through approved review requests (a rail of this client). */
  protected: boolean;
  /**
   * The host behind this profile enforces approvals itself (`skillbench registry
   * serve --require-approval`): writes go only through approved review requests,
   * which carry their signed attestation. Absent means false.
   */
  enforces_approvals?: boolean;
  target: ConnectionTarget;
  created_at: string;
  updated_at: string;
}

/** Names of the secret kinds a profile can have. */
export type SecretName = 'password' | 'sentinel_password' | 'token' | 'headers' | 'proxy_password';

/** Which secrets a profile has saved: names only, never values. */
export type SecretsPresence = Partial<Record<SecretName, boolean>>;

/** How saved secrets are protected at rest. */
export type SecretProtection = 'os-keychain' | 'key' | 'file-permissions';

/** The live state of a connection in this session. */
export interface ConnectionState {
  /**
   * `closed`: not opened yet; `open`: the store answered; `offline`: it does
   * not answer (an unreachable host, a local folder that is gone) or stopped
   * answering; `error`: it could not be opened as it is (refused credentials,
   * no registry in the folder yet). Opening never creates a store.
   */
  status: 'closed' | 'opening' | 'open' | 'offline' | 'error';
  /** Secret-free description of the store (e.g. `redis://127.0.0.1:6379 (default)`). */
  description?: string;
  /** Why it is `offline` or `error`. */
  error?: WorkbenchErrorData;
  /** When the state last changed (ISO-8601). */
  since: string;
}

/** One connection as the sidebar shows it. */
export interface ConnectionView {
  profile: ConnectionProfile;
  secrets: SecretsPresence;
  state: ConnectionState;
}

/** Why a connection test failed. */
export type ConnectionTestCause =
  | 'refused'
  | 'dns'
  | 'tls'
  | 'auth'
  | 'forbidden'
  | 'wrong_base_url'
  | 'not_admin_api'
  | 'wrong_deployment'
  | 'wrong_master'
  | 'wrong_topology'
  | 'timeout'
  | 'not_a_registry'
  | 'invalid'
  | 'unavailable';

/** The outcome of a connection test; never a secret in it. */
export interface ConnectionTestResult {
  ok: boolean;
  cause?: ConnectionTestCause;
  /** One sentence a user can act on. */
  message: string;
  description: string;
  skills?: number;
  deployments?: string[];
  suggested_url?: string;
  created_on_first_write?: boolean;
}

/** An exported set of profiles: no secrets, portable between machines. */
export interface ProfilesExport {
  format: 'skillbench.connections/v1';
  exported_at?: string;
  profiles: (Omit<ConnectionProfile, 'created_at' | 'updated_at' | 'label'> & { label?: string; created_at?: string; updated_at?: string })[];
}

/** What an import did, profile by profile. */
export interface ImportReport {
  imported: string[];
  replaced: string[];
  skipped: string[];
  renamed: { from: string; to: string }[];
}

/** Columns the catalog can be sorted by. */
export type CatalogSortKey = 'name' | 'namespace' | 'display_name' | 'version' | 'updated_at';

/**
 * One page of a catalog scan. A scan walks the store's catalog once, in the
 * requested order; `scanned` counts the entries examined so far (all pages),
 * `total` the entries the store holds when it can tell (null otherwise). While
 * `cursor` is not null the scan is incomplete: an empty result then means
 * "nothing in what has been scanned so far", not "nothing at all".
 */
export interface CatalogPage {
  items: SkillMetadata[];
  /** Pass to the next `catalog.page`; null when the scan is complete. */
  cursor: string | null;
  scanned: number;
  total: number | null;
  /** Entries matching the query and filter so far (all pages). */
  matched: number;
  /** When the store was read for this scan (ISO-8601). */
  read_at: string;
}

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

/** The result of a publication. */
export interface PublishOutcome {
  skill: SkillId;
  outcome: 'created' | 'published' | 'same_content_noop';
  version: number;
  etag: string;
  manifest_hash: string;
  audit_recorded: boolean;
  warnings: StoreWarning[];
  replayed: boolean;
  validation: { warnings: Finding[]; metrics: PackageMetrics };
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

/** One provider or backend family of the model picker. */
export interface ProviderView {
  id: 'openai' | 'anthropic' | 'groq' | 'openai-compatible' | 'llama-cpp' | 'baseline';
  label: string;
  kind: 'hosted' | 'local' | 'baseline';
  specExample: string;
  keyEnvVar?: string;
  /** Whether a key is available now (its value never crosses). */
  keyConfigured?: boolean;
  baseUrlEnvVar?: string;
  baseUrl?: string;
  aliases: {
    alias: 'default' | 'fast' | 'smart';
    model?: string;
    source: 'builtin' | 'env' | 'unmapped';
    envVar: string;
    price?: { inputPerMTok: number; outputPerMTok: number };
  }[];
  isBaseline: boolean;
  pricesAsOf?: string;
}

/** A checked model spec. */
export interface ModelCheck {
  spec: string;
  ok: boolean;
  isBaseline: boolean;
  /** Why the spec is not usable, when `ok` is false. */
  error?: WorkbenchErrorData;
}

/** The catalog of one variant and its size against the selector's activation budget. */
export interface EvalCatalogView {
  entries: { skill: string; version: number | 'draft'; manifest_hash: string; activation: ActivationMode; under_test: boolean }[];
  /** Estimated tokens of the rendered body-free activation catalog. */
  tokens: number;
  /** The budget (guide 9.10 default 2,000). */
  budget: number;
  /** What the runtime does when `tokens` is over `budget`; null when within it. */
  consequence: string | null;
  source: string;
  auto_candidates?: number;
  max_auto_candidates?: number;
}

/** Why a skill cannot be evaluated as given. */
export interface EvalPlanProblem {
  kind: 'invalid_package' | 'invalid_cases' | 'no_cases';
  skill: string;
  file?: string;
  message: string;
  findings: Finding[];
}

/** The estimate of one model's share of a run. */
export interface EvalModelEstimate {
  spec: string;
  isBaseline: boolean;
  cells: number;
  /** Selector calls expected (activation, plus resource selection where a skill has resources). */
  estimated_calls: number;
  /** Null when the model's price is unknown (or it costs nothing: baselines and local models give 0). */
  estimated_cost_usd: number | null;
}

/** What a run would do, before it starts. */
export interface EvalPlanView {
  /** False when problems prevent the run. */
  ok: boolean;
  problems: EvalPlanProblem[];
  warnings: { code: string; skill: string; variant?: string; message: string }[];
  config_hash: string | null;
  cells: number;
  estimated_calls: number;
  estimated_cost_usd: number | null;
  models: EvalModelEstimate[];
  skills: {
    skill: string;
    cases: number;
    /** Cases from the package's activation examples. */
    examples: number;
    /** Cases from the workspace's extra-cases file. */
    extra_cases: number;
    /** Other skills' should-activate examples run as should-not cases of this one (a catalog run). */
    adjacent_cases: number;
    /** That file, workspace-relative, when there is one. */
    extras_file?: string;
    variants: { label: string; version: number | 'draft'; manifest_hash: string; catalog: EvalCatalogView }[];
  }[];
  /** An earlier attempt of the same configuration that `evals.start` would resume. */
  resumable: { run: string; done: number; total: number } | null;
}

/** Progress counters (the runner's, or one model's share). */
export interface EvalProgress {
  done: number;
  total: number;
  errors: number;
  /** Cells per second run in this attempt (0 before the first). */
  rate: number;
  /** Milliseconds to completion at that rate: 0 when done, null while unknown. */
  eta_ms: number | null;
}

/** One model's column of a run. */
export interface EvalModelProgress extends EvalProgress {
  spec: string;
  isBaseline: boolean;
  /** `stopped` columns are incomplete and never shown as complete. */
  status: 'pending' | 'running' | 'stopped' | 'complete';
}

/** A run, as the run list and the live view show it. */
export interface EvalRunView {
  /** The run's folder name: its id. */
  run: string;
  config_hash: string;
  started_at: string;
  status: 'running' | 'stopping' | 'complete' | 'incomplete' | 'failed';
  progress: EvalProgress;
  models: EvalModelProgress[];
  skills: string[];
  variants: string[];
  repeats: number;
  /** Why it failed, when `status` is `failed`. */
  error?: WorkbenchErrorData;
}

/** One evaluated cell, as the matrix shows it (the trace comes from `evals.trace`). */
export interface EvalCell {
  key: string;
  model: string;
  variant: string;
  case: string;
  skill: string;
  repeat: number;
  expect: 'activate' | 'not_activate';
  outcome: 'activated' | 'not_activated' | 'error';
  invalid: boolean;
  activated: string[];
  resources: string[];
  resources_correct: boolean | null;
  diagnostics: SelectorDiagnostic[];
  latency_ms: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
  cached: boolean;
  error?: string;
  resource_error?: string;
  finished_at: string;
}

/** A cell with its full selector trace (prompts sent, raw answers, decisions). */
export interface EvalCellTrace extends EvalCell {
  trace: SelectionTrace;
}

/** A case of a run. */
export interface EvalCaseView {
  id: string;
  skill: string;
  source: 'should_activate' | 'should_not_activate' | 'extra' | 'adjacent';
  request: string;
  expect: 'activate' | 'not_activate';
  boundary: 'planning' | 'continuation' | 'synthesis';
  expectedResources?: string[];
  context?: string;
  /** The skill an `adjacent` case's request is a should-activate example of. */
  from?: string;
}

/** Confusion counts and rates of one skill under one model and variant. */
export interface EvalSkillMetrics {
  skill: string;
  variant: string;
  cells: number;
  tp: number;
  fp: number;
  tn: number;
  fn: number;
  errors: number;
  invalid: number;
  accuracy: number | null;
  precision: number | null;
  recall: number | null;
  f1: number | null;
  flaky_cases: string[];
  trigger_rates: Record<string, { k: number; n: number; errors: number; flaky: boolean }>;
  co_activated: Record<string, number>;
  stolen_by?: Record<string, number>;
  resource_accuracy: number | null;
  resource_cases: number;
  /** Answered cells whose activation selector asked the model. */
  asked?: number;
}

/** The engine's summary of a run: shown as is, never re-derived. */
export interface EvalSummaryView {
  models: {
    model: string;
    isBaseline: boolean;
    skills: EvalSkillMetrics[];
    latency_p50_ms: number | null;
    latency_p95_ms: number | null;
    input_tokens: number;
    output_tokens: number;
    cost_usd: number | null;
    cached?: number;
    errors: number;
    invalid: number;
    cells: number;
  }[];
  comparisons: {
    kind: 'variant' | 'model';
    skill: string;
    a: string;
    b: string;
    accuracy_a: number | null;
    accuracy_b: number | null;
    test: { aOnly: number; bOnly: number; concordant: number; pValue: number; significant: boolean; alpha: number };
    model?: string;
    variant?: string;
    pairs?: number;
  }[];
  totals: { cells: number; errors: number; invalid: number; cached: number };
  gates: { gate: string; threshold?: number; model: string; skill: string; value: number | null; passed: boolean; message: string }[];
  /** The run's verdict, as every report states it. */
  verdict: {
    status: 'passed' | 'failed' | 'unavailable' | 'incomplete';
    message: string;
    gates_set: number;
    gates_failed: number;
    unavailable_models: string[];
    cells: { recorded: number; expected: number };
    warnings: { code: string; message: string; catalog?: string; model?: string }[];
    /** Why no verdict was reached (status `incomplete`). */
    reasons?: { code: string; message: string; model?: string; catalog?: string; value?: number; threshold?: number }[];
    /** The limits the run was judged under. */
    limits?: { max_error_rate: number; max_invalid_rate: number; regression_margin?: number; allow_skipped_activation?: boolean };
  };
}

/** A run with its header facts and, once it has cells, its summary. */
export interface EvalRunDetail {
  run: EvalRunView;
  cases: EvalCaseView[];
  variants: { label: string; skill: string; version: number | 'draft'; manifest_hash: string; file?: string }[];
  catalogs: Record<string, EvalCatalogView>;
  /** The one resource-selection model of every activation model, when the run pinned one (guide 9.4). */
  resource_model?: string;
  /** The extra-cases file of each skill that has one, as recorded. */
  extras?: Record<string, string>;
  /** Null until the first cell is recorded. */
  summary: EvalSummaryView | null;
}

/** A page of a run's cells, in recorded order. */
export interface EvalCellsPage {
  cells: EvalCell[];
  /** Pass as `offset` for the next page; null at the end. */
  next_offset: number | null;
}

/** An exported report. */
export interface EvalExport {
  format: 'json' | 'junit' | 'markdown' | 'html';
  filename: string;
  content_type: string;
  text: string;
}

/** Status of a publication request. */
export type ReviewStatus = 'open' | 'changes_requested' | 'approved' | 'rejected' | 'published' | 'stale';

/** One entry of a request's history. */
export interface ReviewEvent {
  at: string;
  actor: string;
  action: 'created' | 'updated' | 'commented' | 'approved' | 'changes_requested' | 'rejected' | 'published' | 'stale';
  comment?: string;
  /** The manifest hash the action concerned (an approval binds to it). */
  hash?: string;
}

/** A request as the review list shows it. */
export interface ReviewSummary {
  id: string;
  connection: string;
  skill: SkillId;
  /** What the request does once approved: publish a package, or delete old versions. */
  action: 'publish' | 'delete';
  status: ReviewStatus;
  /** The author's principal (as the list reads it from the file; the request's view verifies it). */
  author: string;
  note: string;
  created_at: string;
  updated_at: string;
  /** An approval exists but the draft changed since (or the store moved on): publishing is off. */
  stale: boolean;
}

/** One signature of a request, as checked now against the allowed signers and what the request would send. */
export interface ReviewSignatureView {
  /** The author's signature over the request, or a reviewer's approval. */
  role: 'author' | 'approval';
  /** Who the request file says signed. */
  claimed: string;
  /** The principal the allowed signers give the signing key; null when it does not verify. */
  principal: string | null;
  /** `SHA256:…` of the signing key, when the signature could be read. */
  fingerprint: string | null;
  /** ssh-keygen verified the signature against the allowed signers. */
  verified: boolean;
  /** It stands for the request as it is (and, for an approval, is not the author's own). */
  counts: boolean;
  at: string;
  /** Why it does not count. */
  problem?: string;
}

/** A publication (or deletion) request: the reviewer's whole view. */
export interface ReviewRequest extends ReviewSummary {
  /** Workspace path of the request file (`skills/reviews/<id>.json`). */
  file: string;
  /** The target store's identity the statements bind (null in a request filed before requests were signed). */
  registry: string | null;
  base: { version: number; etag: string } | null;
  /** The package to publish; null for a deletion request. */
  package: SkillPackage | null;
  /** The versions a deletion request removes, and its audit reason. */
  delete?: { from: number; to: number; reason: string };
  manifest_hash: string;
  validation: ValidationResult;
  /** The eval run named as evidence: its id (the run folder's name), summary and verdict as the run recorded them. */
  eval: {
    run: string;
    summary: EvalSummaryView | null;
    verdict: { passed: boolean; status?: EvalSummaryView['verdict']['status']; message: string } | null;
  } | null;
  /** `reviewer` is the verified principal when the approval's signature verifies; `verified` says it stands. */
  approvals: { reviewer: string; at: string; comment?: string; hash: string; stale: boolean; verified: boolean }[];
  /** The author's signature, then each approval's, checked now. */
  signatures: ReviewSignatureView[];
  /** An approval stands: it verifies, binds this request as it is, and is not the author's. */
  verified_approval: boolean;
  /** Why no signature could be checked (no allowed signers, a connection that is not a saved profile). */
  unverifiable?: string;
  comments: { pointer: string; author: string; at: string; text: string }[];
  history: ReviewEvent[];
  /** The principal of this session's signing key; null when it has none in the allowed signers. */
  viewer: string | null;
  /** The viewer is the author: the UI never offers Approve then. */
  viewer_is_author: boolean;
}

/** Who this session signs reviews as, and what keeps it from signing. */
export interface ReviewSigner {
  /** The principal the allowed signers give this session's key; null when it cannot sign. */
  principal: string | null;
  /** Where the key comes from (`git config user.signingkey`, `SKILLBENCH_SIGNING_KEY`, a setting), when one is set. */
  key_source: string | null;
  /** Where the allowed-signers file comes from, when one is set. */
  allowed_signers_source: string | null;
  /** Why this session cannot sign, in words a user can act on. */
  problem?: string;
}

/** What carrying out an approved deletion request did. */
export interface ReviewDeleteOutcome {
  skill: SkillId;
  outcome: 'deleted';
  deleted: number[];
  already_deleted: number[];
  etag: string;
  audit_recorded: boolean;
  warnings: StoreWarning[];
}

// ---------------------------------------------------------------------------
// The description optimizer and the authoring advisor.

/** A description's score on one model (train or held-out cases). */
export interface OptimizeModelScore {
  model: string;
  /** Share of answered cells that were right; null when none was answered. */
  accuracy: number | null;
  correct: number;
  answered: number;
  errors: number;
}

/** One proposed description and what became of it. */
export interface OptimizeCandidateView {
  /** `r<round>c<n>`. */
  id: string;
  round: number;
  description: string;
  rationale: string;
  status: 'evaluated' | 'dropped';
  /** Why it was dropped: `validation_failed`, `over_budget`, `duplicate`, `too_many`. */
  reason?: string;
  message?: string;
  /** Estimated tokens of the whole activation catalog with this description. */
  catalog_tokens?: number;
  /** Estimated tokens of the skill's own catalog line. */
  line_tokens: number;
  /** Train score per model. */
  train?: OptimizeModelScore[];
  mean_train?: number | null;
  warnings?: string[];
}

/** One held-out case as both descriptions decided it (`a` the winner, `b` the original). */
export interface OptimizeCaseView {
  case: string;
  expect: 'activate' | 'not_activate';
  rate_a: number | null;
  rate_b: number | null;
  difference: number | null;
  verdict_a: 'right' | 'wrong' | 'tie' | 'none';
  verdict_b: 'right' | 'wrong' | 'tie' | 'none';
}

/** The held-out comparison on one model: the winner against the original, case by case (McNemar). */
export interface OptimizeHeldoutView {
  model: string;
  winner: OptimizeModelScore;
  original: OptimizeModelScore;
  comparison: {
    pairs: number;
    accuracy_a: number | null;
    accuracy_b: number | null;
    test: { aOnly: number; bOnly: number; concordant: number; pValue: number; significant: boolean; alpha: number };
    cases: OptimizeCaseView[];
  };
  better: boolean;
  /** Worse by case (McNemar) or by answer (`answers.harm` not empty). */
  worse: boolean;
  /** What the winner did to this model's answers, case by case (what the majority vote hides). */
  answers: {
    cases: number;
    accuracy_winner: number | null;
    accuracy_original: number | null;
    false_activation: { cases: number; winner: number | null; original: number | null };
    /** One-sided Wilcoxon signed-rank test of the per-case right-answer differences; `p_worse` the p that the winner is worse. */
    test: { n: number; w_plus: number; w_minus: number; p_worse: number; exact: boolean };
    /** Why this counts as harm; empty when it does not. */
    harm: string[];
    /** Every way the answers got worse at all, harm or within the margin; empty when none did. */
    drops: string[];
  };
}

/** A split case. */
export interface OptimizeSplitCase {
  id: string;
  request: string;
  expect: 'activate' | 'not_activate';
}

/** The optimizer's report. */
export interface OptimizeReportView {
  skill: string;
  seed: number;
  verdict: 'proven_gain' | 'no_proven_gain';
  /** One sentence explaining the verdict. */
  reason: string;
  /** The proposed description and its RFC 6902 patch (a `test` then a `replace` of `/description`); only with `proven_gain`. */
  winner: { candidate: string; description: string; patch: JsonPatchOperation[]; catalog_tokens: number } | null;
  /** The best description by train score, whatever the verdict. */
  best: { candidate: string; description: string; mean_train: number | null } | null;
  models: { spec: string; isBaseline: boolean }[];
  proposer: { spec: string; isBaseline: boolean };
  repeats: number;
  alpha: number;
  /** The most the winner may raise any model's false-activation rate, or lower its per-answer accuracy, on the held-out cases. */
  harm_margin: number;
  split: { seed: number; holdout: number; train: OptimizeSplitCase[]; heldout: OptimizeSplitCase[] };
  catalog: { budget: number; source: string; competitors: string[] };
  warnings: string[];
  original: { description: string; catalog_tokens: number; line_tokens: number; train: OptimizeModelScore[]; mean_train: number | null };
  candidates: OptimizeCandidateView[];
  rounds: { round: number; from: string; proposed: number; evaluated: number; best: string | null; advanced: boolean; notes: string[] }[];
  heldout: OptimizeHeldoutView[] | null;
}

/** Where an optimizer run is. */
export interface OptimizeProgress {
  /** `train` (round 0 scores the original), `heldout`, or `done`. */
  phase: 'starting' | 'train' | 'heldout' | 'done';
  round: number;
  /** Cells of the current eval run. */
  done: number;
  total: number;
  errors: number;
  /** One line for a person (`round 2: 3 candidates, 1 dropped`). */
  message: string;
}

/**
 * Why a skill cannot be optimized as given: a planning problem, or
 * `too_few_cases` (the held-out split cannot reach p < alpha; `file` is the
 * extra-cases file to add cases to, `power` what the split can prove at best).
 */
export interface OptimizeProblemView extends Omit<EvalPlanProblem, 'kind'> {
  kind: EvalPlanProblem['kind'] | 'too_few_cases';
  power?: { heldout: number; best_p: number; alpha: number; needed: number; enough: boolean; add?: { activate: number; not_activate: number }; holdout?: number };
}

/** An optimizer run of this session. */
export interface OptimizeRunView {
  run: string;
  skill: string;
  status: 'running' | 'stopping' | 'finished' | 'stopped' | 'failed';
  seed: number;
  models: string[];
  proposer: string;
  started_at: string;
  progress: OptimizeProgress;
  /** The candidates proposed so far (train scores filled in as rounds finish). */
  candidates: OptimizeCandidateView[];
  /** The report, once finished. */
  report: OptimizeReportView | null;
  /** Why the skill could not be optimized as given (invalid package, no cases, too few to prove a gain), when that is why it failed. */
  problems?: OptimizeProblemView[];
  error?: WorkbenchErrorData;
}

/**
 * A kept advisor proposal: it applies to a copy of the normalized package and
 * leaves it valid. The admin API's checked proposal, plus the patched text.
 */
export interface AdvisorProposalView extends CheckedProposal {
  /** The patched package, pretty-printed (what "apply" puts in the editor). */
  text: string;
}

/** A proposal that was not kept, with its reason. */
export interface AdvisorDroppedView {
  id: string;
  title: string;
  rationale: string;
  /** The operations as proposed (possibly not a valid patch). */
  patch: unknown;
  reason: 'patch_invalid' | 'patch_failed' | 'validation_failed' | 'withheld_content' | 'no_change' | 'too_many';
  message: string;
  /** The validation errors of the patched package, for `validation_failed`. */
  findings?: Finding[];
}

/** The authoring advisor's analysis of one package text. */
export interface AdvisorAnalysisView {
  /** Deterministic validation; when it fails the advisor is not called and `analysis` is null. */
  validation: ValidationResult;
  /** The normalized package the proposals apply to, pretty-printed; null when the text has no package shape. */
  normalized_text: string | null;
  analysis: {
    summary: string;
    suggestions: { code?: string; message: string; path?: string }[];
    proposals: AdvisorProposalView[];
    dropped: AdvisorDroppedView[];
    /** Who answered: prompt id and version, model, provider, usage; never a secret. */
    advisor: {
      prompt?: { id: string; version: string };
      model?: string;
      provider?: string;
      reasoning_effort?: 'low' | 'medium' | 'high';
      usage?: { input_tokens: number; output_tokens: number };
      warnings?: string[];
    } | null;
  } | null;
}

const optimizeSource = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('text'), text: packageTextSchema, skill: skillIdSchema }),
  z.strictObject({ kind: z.literal('draft'), draft: z.string().min(1).max(512) }),
]);

const modelSpecList = z
  .array(z.string().min(1).max(2048))
  .min(1)
  .max(8)
  .refine((m) => new Set(m).size === m.length, 'the same model is given twice');

/** The settings of an optimizer run. */
export const optimizeRequestSchema = z.strictObject({
  /** The package whose description is optimized: text as the editor holds it, or a draft. */
  source: optimizeSource,
  /** The store holding the competing catalog. */
  connection: connectionNameSchema.default('default'),
  /** Evaluated models (default: the lexical and embedding baselines). */
  models: modelSpecList.default(['baseline:lexical', 'baseline:embedding']),
  /** `baseline:keywords` (deterministic, no model) or a language-model spec. */
  proposer: z.string().min(1).max(2048).default('baseline:keywords'),
  rounds: z.number().int().min(1).max(20).default(3),
  /** Candidates evaluated per round. */
  candidates: z.number().int().min(1).max(10).default(3),
  /** Share of each stratum held out. */
  holdout: z.number().gt(0).lt(1).default(0.4),
  repeats: z.number().int().min(1).max(20).default(1),
  /** The most the winner may raise any model's held-out false-activation rate, or lower its per-answer accuracy (0 tolerates none). */
  harm_margin: z.number().min(0).lt(1).default(0.05),
  /** Split seed (default: random, recorded in the report). */
  seed: z.number().int().min(0).max(0xffffffff).optional(),
  timeout_ms: z.number().int().min(100).max(600_000).default(60_000),
  /** Answer from and write to the answer cache. */
  cache: z.boolean().default(true),
});

// ---------------------------------------------------------------------------
// Methods.

/** A method's parameter schema, with its result type attached for typing only. */
export interface MethodSpec<P extends z.ZodType = z.ZodType, R = unknown> {
  params: P;
  /** Never set at runtime: carries the result type. */
  readonly result?: R;
}

function method<R>() {
  return <P extends z.ZodType>(params: P): MethodSpec<P, R> => ({ params });
}

const onConflict = z.enum(['skip', 'replace', 'rename']).default('skip');
const catalogFilter = z.strictObject({ namespace: slug('a namespace').optional(), domain: slug('a domain').optional(), tag: slug('a tag').optional() });

/** One skill's row of a {@link CatalogRoutingView}: where its should-activate requests went in an eval run. */
export interface CatalogRoutingRow {
  skill: string;
  /** Answered should-activate cells of this skill. */
  requests: number;
  /** Error cells of those requests (left out of every count). */
  errors: number;
  /** Cells in which each skill (the row's own included) was active. */
  went_to: Record<string, number>;
  /** Cells that activated nothing. */
  none: number;
  /** Cells in which this skill stayed inactive while another fired, by that other skill. */
  stolen_by: Record<string, number>;
  /** This skill's adjacent negatives (other skills' should-activate examples), apart: answered cells, and those in which it fired. */
  adjacent: { cells: number; activated: number };
}

/** A pair of skills and how they confuse each other. */
export interface CatalogRoutingPair {
  a: string;
  b: string;
  /** a's should-activate requests taken by b (a inactive, b active). */
  a_to_b: number;
  /** b's should-activate requests taken by a. */
  b_to_a: number;
  /** Answered cells (of any case) in which both were active. */
  fired_together: number;
}

/**
 * The skill x skill routing matrix of an eval run over a catalog (what
 * `skillbench catalog --run` prints), counted by evals/catalogRouting.ts.
 */
export interface CatalogRoutingView {
  /** Rows and columns, in identity order. */
  skills: string[];
  rows: CatalogRoutingRow[];
  /** Pairs with any confusion: most stolen (both ways) first, then most often together. */
  pairs: CatalogRoutingPair[];
  /** The models and variants counted. */
  models: string[];
  variants: string[];
  /** Answered cells counted (of any case). */
  cells: number;
}

/** The result of `catalog.health`: the report `skillbench catalog --json` prints, one figure source for both. */
export interface CatalogHealthReport {
  /** The bindings file as given, or the namespace. */
  catalog: string;
  /** Where the skills were read, secret-free. */
  source: string;
  limits: Pick<SelectorLimits, 'maxBindings' | 'maxAutoCandidates' | 'catalogTokenBudget'>;
  health: CatalogHealth;
  /** The run id, when one was read. */
  run?: string;
  routing?: CatalogRoutingView;
  /** Present when a runtime limit is broken (or `split` was asked). */
  split?: SplitProposal;
  warnings: string[];
}

/** Every method of the WorkbenchApi, with its parameter schema. */
export const METHODS = {
  'app.info': method<AppInfo>()(empty),

  /** Every profile (`default` first) with its saved-secret names and live state. */
  'connections.list': method<{ connections: ConnectionView[]; secret_protection: SecretProtection }>()(empty),
  /** Tests a saved profile (by name) or unsaved form values; saves nothing. */
  'connections.test': method<ConnectionTestResult>()(
    z.union([
      z.strictObject({ name: connectionNameSchema }),
      z.strictObject({ profile: z.record(z.string(), z.unknown()), secrets: z.record(z.string(), z.unknown()).optional() }),
    ]),
  ),
  /**
   * Creates, updates (`previous_name` = its name) or renames a profile. `secrets`
   * patches: a value sets, null removes, an absent key keeps.
   */
  'connections.save': method<ConnectionView>()(
    z.strictObject({
      profile: z.record(z.string(), z.unknown()),
      previous_name: connectionNameSchema.optional(),
      secrets: z.record(z.string(), z.unknown()).optional(),
      /** The saved profile's name, typed to confirm switching `protected` or `enforces_approvals` off. */
      confirm_unprotect: connectionNameSchema.optional(),
    }),
  ),
  'connections.remove': method<{ removed: boolean }>()(z.strictObject({ name: connectionNameSchema })),
  /**
   * Opens (or reuses) the store of a profile; several stay open at once.
   * Opening reads and never creates a store. With `check`, an open store is
   * asked one small read, so a store that stopped answering reads `offline`.
   */
  /**
   * With `watch` as well, the check also compares the store's catalog with the
   * one the last watched check saw, and emits `store.changed` for every skill
   * another writer published, replaced or removed in between.
   */
  'connections.open': method<ConnectionView>()(z.strictObject({ name: connectionNameSchema, check: z.boolean().optional(), watch: z.boolean().optional() })),
  'connections.close': method<{ closed: boolean }>()(z.strictObject({ name: connectionNameSchema })),
  /** Profiles without secrets, as a portable document. */
  'connections.export': method<ProfilesExport>()(z.strictObject({ names: z.array(connectionNameSchema).max(1000).optional() })),
  'connections.import': method<ImportReport>()(z.strictObject({ document: z.unknown(), on_conflict: onConflict })),

  /**
   * One page of a catalog scan. Start with `cursor` null (a fresh read of the
   * store); pass the returned cursor for the next page with the same query.
   */
  'catalog.page': method<CatalogPage>()(
    z.strictObject({
      connection: connectionNameSchema,
      cursor: z.string().max(512).nullable().default(null),
      limit: z.number().int().min(1).max(2000).default(500),
      /** Case-insensitive words matched against name, namespace, display name, domains and tags. */
      query: z.string().max(200).default(''),
      filter: catalogFilter.default({}),
      sort: z.strictObject({ by: z.enum(['name', 'namespace', 'display_name', 'version', 'updated_at']), direction: z.enum(['asc', 'desc']).default('asc') }).default({ by: 'namespace', direction: 'asc' }),
    }),
  ),

  /**
   * The health of an agent's whole catalog (`skillbench catalog`): every
   * budget against its limit, each skill's share of the activation catalog,
   * the broken limits, a split into catalogs that fit when a runtime limit is
   * broken, and, with `run`, where that run's requests went. The catalog is a
   * namespace of the connection (every published skill, bound auto) or a
   * bindings file of the open workspace.
   */
  'catalog.health': method<CatalogHealthReport>()(
    z
      .strictObject({
        connection: connectionNameSchema,
        namespace: slug('a namespace').optional(),
        bindings: workspacePathSchema.optional(),
        run: runRef.shape.run.optional(),
        split: z.boolean().default(false),
      })
      .refine((p) => (p.namespace === undefined) !== (p.bindings === undefined), { message: 'give a namespace or a bindings file, not both', path: ['namespace'] }),
  ),

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

  /** Providers, aliases as resolved now, prices, and whether keys are present. */
  'models.list': method<{ providers: ProviderView[] }>()(empty),
  /** Checks a model spec without calling the model. */
  'models.check': method<ModelCheck>()(z.strictObject({ spec: z.string().min(1).max(2048) })),

  /** Plans an evaluation: cells, estimated calls and cost, catalogs against the budget, problems. */
  'evals.plan': method<EvalPlanView>()(evalRequestSchema),
  /** Starts (or resumes, when the same configuration has an incomplete run) an evaluation. */
  'evals.start': method<EvalRunView>()(evalRequestSchema),
  /** Stops one model's column, or the whole run: no new cells; cells in flight finish and are recorded. */
  'evals.stop': method<EvalRunView>()(z.strictObject({ run: runRef.shape.run, model: z.string().min(1).max(2048).optional() })),
  /** Resumes an interrupted run from its folder, redoing nothing. */
  'evals.resume': method<EvalRunView>()(runRef),
  /** Runs found in the run folder, newest first. */
  'evals.list': method<{ runs: EvalRunView[] }>()(empty),
  'evals.get': method<EvalRunDetail>()(runRef),
  'evals.cells': method<EvalCellsPage>()(
    z.strictObject({ run: runRef.shape.run, offset: z.number().int().min(0).default(0), limit: z.number().int().min(1).max(20_000).default(5000) }),
  ),
  'evals.trace': method<EvalCellTrace>()(z.strictObject({ run: runRef.shape.run, key: z.string().min(1).max(4096) })),
  'evals.export': method<EvalExport>()(z.strictObject({ run: runRef.shape.run, format: z.enum(['json', 'junit', 'markdown', 'html']) })),

  /**
   * Starts the description optimizer on a package text or draft; progress
   * arrives as `optimize.progressed`, the end as `optimize.finished`. Nothing
   * is published or written to the package.
   */
  'optimize.start': method<OptimizeRunView>()(optimizeRequestSchema),
  /** Stops a run: the eval run in flight is abandoned (its recorded cells kept for a rerun with the same seed). */
  'optimize.stop': method<OptimizeRunView>()(runRef),
  /** A run of this session with its candidates and, once finished, its report. */
  'optimize.get': method<OptimizeRunView>()(runRef),

  /**
   * The authoring advisor (guide 5.3) on a package text: validation first (an
   * invalid package gets its findings and no model call), then advice and
   * JSON Patch proposals, each applied to a copy and revalidated (kept with the
   * patched package, or dropped with the reason).
   */
  'advisor.analyze': method<AdvisorAnalysisView>()(
    z.strictObject({
      text: packageTextSchema,
      skill: skillIdSchema,
      model: z.string().min(1).max(2048),
      reasoning_effort: z.enum(['low', 'medium', 'high', 'none']).optional(),
      /** Additional guidance (bounded: 4,096 bytes and 512 estimated tokens). */
      guidance: z.string().max(4096).optional(),
      max_output_tokens: z.number().int().min(16).max(32_768).optional(),
      timeout_ms: z.number().int().min(100).max(600_000).default(120_000),
    }),
  ),

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

  /**
   * Converts Agent Skills folders (a SKILL.md, the folder holding one, or a
   * folder of such folders; relative paths are taken from the open workspace)
   * into packages of the open workspace, `skills/packages/<namespace>/`. With
   * `dry_run` nothing is written: the report shows every conversion first.
   * A package file with other content is replaced only with `overwrite`;
   * otherwise nothing at all is written and its status is `exists`.
   */
  'interop.import': method<SkillImportReport>()(
    z.strictObject({
      paths: z.array(folderSchema).min(1).max(100),
      namespace: slug('a namespace'),
      overwrite: z.boolean().default(false),
      dry_run: z.boolean().default(false),
    }),
  ),
  /**
   * Writes a package as an Agent Skills folder `<to>/<name>/` (SKILL.md and
   * references/); `to` relative is taken from the open workspace. An existing
   * SKILL.md there is a 409 unless `overwrite`; `dry_run` writes nothing.
   */
  'interop.export': method<SkillExportReport>()(
    z.strictObject({
      source: z.discriminatedUnion('kind', [
        z.strictObject({ kind: z.literal('stored'), connection: connectionNameSchema, skill: skillIdSchema, version: z.union([z.literal('published'), versionSchema]).default('published') }),
        z.strictObject({ kind: z.literal('draft'), draft: z.string().min(1).max(512) }),
        z.strictObject({ kind: z.literal('file'), path: workspacePathSchema }),
      ]),
      to: folderSchema,
      overwrite: z.boolean().default(false),
      dry_run: z.boolean().default(false),
    }),
  ),
  /**
   * Asks the user for a folder with the desktop's own picker; `path` is null
   * when they cancel. Only the desktop shell serves it: a browser shows a path
   * field instead.
   */
  'host.pickFolder': method<{ path: string | null }>()(z.strictObject({ title: z.string().max(200).optional() })),
} as const;

/** Every method name. */
export type WorkbenchMethod = keyof typeof METHODS;

/** The parameters a caller passes to each method (defaults may be omitted). */
export type WorkbenchParams = { [M in WorkbenchMethod]: z.input<(typeof METHODS)[M]['params']> };

/** The parameters a handler receives: parsed, defaults applied. */
export type WorkbenchParsedParams = { [M in WorkbenchMethod]: z.output<(typeof METHODS)[M]['params']> };

/** The result of each method. */
export type WorkbenchResults = { [M in WorkbenchMethod]: Exclude<(typeof METHODS)[M]['result'], undefined> };

// `names.ts` lists the same methods without their schemas: a method added here and not there fails to compile.
type _MethodNamesInStep = AssertTrue<SameUnion<WorkbenchMethod, WorkbenchMethodName>>;

/** The typed API a client offers: one async function per method. */
export type WorkbenchApi = {
  [M in WorkbenchMethod]: (
    ...params: Record<never, never> extends WorkbenchParams[M] ? [params?: WorkbenchParams[M]] : [params: WorkbenchParams[M]]
  ) => Promise<WorkbenchResults[M]>;
};

// ---------------------------------------------------------------------------
// Events.

/** Every event and its payload. */
export interface WorkbenchEvents {
  /** A profile was saved, removed or imported, or a connection's live state changed. */
  'connections.changed': { kind: 'saved' | 'removed' | 'imported' | 'state'; name?: string; state?: ConnectionState };
  /** Files of the open workspace were added, changed or removed on disk (by anyone). */
  'workspace.changed': {
    root: string;
    changes: { kind: 'added' | 'changed' | 'removed'; path: string; skill?: SkillId; hash?: string }[];
  };
  /** A draft was autosaved, discarded, or its base moved (conflict). */
  'drafts.changed': { kind: 'saved' | 'discarded' | 'conflict' | 'rebased'; id: string; draft?: DraftView };
  /** A run started or resumed. */
  'evals.started': { run: EvalRunView };
  /**
   * A run advanced: counters per model and the cells recorded since the last
   * event (at most a few events a second, however fast cells land).
   */
  'evals.progressed': { run: string; progress: EvalProgress; models: EvalModelProgress[]; cells: EvalCell[] };
  /** A run ended: complete, stopped (incomplete) or failed. */
  'evals.finished': { run: EvalRunView; summary: EvalSummaryView | null };
  /** An optimizer run advanced: a phase started, cells were recorded, candidates were proposed or scored. */
  'optimize.progressed': { run: string; progress: OptimizeProgress; candidates?: OptimizeCandidateView[] };
  /** An optimizer run ended: finished with a verdict, stopped, or failed. */
  'optimize.finished': { run: OptimizeRunView };
  /** A publication request was created, arrived on disk, or changed state (status null: it was removed or cannot be read). */
  'reviews.changed': { id: string; status: ReviewStatus | null };
  /**
   * What a connection's store holds changed: this session published or deleted
   * versions, or a watched recheck (`connections.open` with `watch`) found the
   * catalog changed by another writer (a sync, the CLI, another workbench).
   * Without `skill`, anything of the connection may have changed.
   */
  'store.changed': StoreChange;
  /**
   * The desktop shell's native menu chose a command of the UI's keymap table
   * (its `command` id); the page runs it as if its key had been pressed.
   */
  'menu.selected': { command: string };
}

/** Every event name. */
export type WorkbenchEvent = keyof WorkbenchEvents;

/** One change of a store, as `store.changed` carries it. */
export interface StoreChange {
  connection: string;
  /** `published` and `deleted` by this session; `changed` when a recheck saw another writer's change. */
  kind: 'published' | 'deleted' | 'changed';
  skill?: SkillId;
  /** The version now published (`published`, `changed`), absent when the skill left the catalog. */
  version?: number;
  /** The versions that became tombstones (`deleted`). */
  versions?: number[];
  /** Who made the change, when this session made it. */
  actor?: string;
  /** When the change was seen (ISO-8601). */
  at: string;
}

// `names.ts` lists the same events without their payloads: an event added here and not there fails to compile.
type _EventNamesInStep = AssertTrue<SameUnion<WorkbenchEvent, WorkbenchEventName>>;

/** A listener of one event. */
export type EventListener<E extends WorkbenchEvent> = (payload: WorkbenchEvents[E]) => void;
