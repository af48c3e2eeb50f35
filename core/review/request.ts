/**
 * Publication requests: a draft's package, approved by someone other than its
 * author, published to a connection exactly as approved.
 *
 * A request is a file of the workspace, `skills/reviews/<id>.json`, so it
 * travels through Git with the packages. It records the target connection,
 * the skill, the base version and ETag read when it was filed, the normalized
 * package text and its manifest hash, the validation result, the eval run when
 * one is named (its id, summary and verdict, as the run folder holds them),
 * author, note, status, approvals, comments and history.
 *
 * Publishing re-checks everything an approval stands on, and on any doubt
 * publishes nothing:
 * - the bytes to send are the recorded text; their SHA-256 and the manifest
 *   hash must equal what was approved (a request file edited after approval is refused);
 * - the draft file must still hash to the approved manifest hash (an edit
 *   after approval makes the request stale);
 * - the store gets If-Match the recorded ETag (or a create): a 412 marks the
 *   request stale.
 *
 * Node-only: reads and writes workspace files.
 */
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { WorkbenchError } from '../errors';
import type { ReviewEvent, ReviewRequest, ReviewStatus, ReviewSummary } from '../api/contract';
import { computeIntegrity, sha256Hex, validatePackage } from '../package/index';
import type { SkillAuthoringLimits, SkillId, SkillPackage, ValidationResult } from '../package/types';
import { skillKey } from '../package/types';
import { isStoreError } from '../store/errors';
import { publishConditional } from '../store/publication';
import type { PublishResult, SkillStore } from '../store/types';
import { readInside, resolveInside, writeInside } from '../workspace/confine';
import { identityFromPath } from '../workspace/identity';
import { publishApproved } from '../connections/open';
import { findEvalEvidence, type RunsPlace } from './evalRun';

/** Folder of the requests, relative to the workspace root. */
export const REVIEWS_DIR = 'skills/reviews';

const FORMAT = 'skillbench.review/v1';
const MAX_REQUEST_BYTES = 8 * 1024 * 1024;
const MAX_PACKAGE_BYTES = 4 * 1024 * 1024;
const ID = /^[A-Za-z0-9._-]{1,128}$/;

/** An approval as the file records it. */
export interface ReviewApproval {
  reviewer: string;
  at: string;
  comment?: string;
  /** The manifest hash approved. */
  hash: string;
  /** SHA-256 of the exact text that publishing sends. */
  bytes_sha256: string;
}

/** The request file. */
export interface ReviewFile {
  format: typeof FORMAT;
  id: string;
  connection: string;
  skill: SkillId;
  /**
   * The workspace file the request was made from, or that the draft it was
   * made from edits (`/` separators, relative); null for a draft of a stored skill.
   */
  source: string | null;
  /** The draft the request was made from, when it was made from one (its autosaved text, not the file). */
  draft?: string;
  base: { version: number; etag: string } | null;
  /** The normalized package as pretty JSON: exactly what publishing sends. */
  package_text: string;
  manifest_hash: string;
  validation: ValidationResult;
  eval: ReviewRequest['eval'];
  author: string;
  note: string;
  status: ReviewStatus;
  created_at: string;
  updated_at: string;
  approvals: ReviewApproval[];
  comments: ReviewRequest['comments'];
  history: ReviewEvent[];
  /** What was published, once it was. */
  published?: { version: number; etag: string; manifest_hash: string; at: string };
}

/** A draft's current text by id; undefined when this host holds no such draft. */
export type DraftReader = (id: string) => Promise<string | undefined>;

/** Where requests live and who acts. */
export interface ReviewContext {
  /** The workspace root. */
  root: string;
  /** The identity of whoever acts (author or reviewer). */
  actor: string;
  /** The drafts of this host: a request made from a draft is checked against the draft's text while it exists. */
  drafts?: DraftReader;
  now?: () => Date;
}

function nowIso(ctx: ReviewContext): string {
  return (ctx.now?.() ?? new Date()).toISOString();
}

function requestPath(root: string, id: string): string {
  if (!ID.test(id)) throw new WorkbenchError('invalid_request', `invalid review id '${id.slice(0, 140)}'`);
  return join(root, REVIEWS_DIR, `${id}.json`);
}

/** Pretty JSON of a package with a final newline: the text a request records and publishes. */
export function requestPackageText(pkg: SkillPackage): string {
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

/** Validates a package text into its normalized form and manifest hash, or throws the 422 with located findings. */
async function normalize(text: string, id: SkillId, limits: SkillAuthoringLimits, label: string): Promise<{ pkg: SkillPackage; validation: ValidationResult; hash: string }> {
  const check = validatePackage(text, { id, limits });
  const validation: ValidationResult = { valid: check.valid, errors: check.errors, warnings: check.warnings, metrics: check.metrics };
  if (!check.valid || !check.normalized) {
    throw new WorkbenchError('validation_failed', `${label} is not a valid package: ${check.errors.length} error${check.errors.length === 1 ? '' : 's'}`, {
      details: { errors: check.errors, warnings: check.warnings, metrics: check.metrics },
    });
  }
  return { pkg: check.normalized, validation, hash: (await computeIntegrity(check.normalized)).manifest_hash };
}

/** A workspace file's text, confined to the workspace (core/workspace/confine): a request file cannot point a read elsewhere. */
async function readText(root: string, rel: string, max: number): Promise<string> {
  return new TextDecoder().decode(await readInside(root, rel, max));
}

/** Whether a real path is a request file: `*.json` directly in a `skills/reviews` folder. */
function isRequestPath(real: string[]): boolean {
  return real.length >= 3 && real[real.length - 3] === 'skills' && real[real.length - 2] === 'reviews' && real[real.length - 1]!.endsWith('.json');
}

/** Reads a request file; 404 when there is none, 400 naming the file when it is not a request. */
export async function readRequest(root: string, id: string): Promise<ReviewFile> {
  const file = `${REVIEWS_DIR}/${id}.json`;
  requestPath(root, id);
  const text = await readText(root, file, MAX_REQUEST_BYTES).catch((error: unknown) => {
    if (error instanceof WorkbenchError && error.code === 'not_found') throw new WorkbenchError('not_found', `no review request '${id}' (${file})`);
    throw error;
  });
  let doc: ReviewFile;
  try {
    doc = JSON.parse(text) as ReviewFile;
  } catch (error) {
    throw new WorkbenchError('invalid_request', `${file} is not JSON: ${(error as Error).message}`, { details: { file } });
  }
  if (!doc || doc.format !== FORMAT || doc.id !== id || typeof doc.package_text !== 'string' || !Array.isArray(doc.history) || !Array.isArray(doc.approvals)) {
    throw new WorkbenchError('invalid_request', `${file} is not a ${FORMAT} request for '${id}'`, { details: { file } });
  }
  return doc;
}

async function writeRequest(root: string, doc: ReviewFile): Promise<void> {
  requestPath(root, doc.id);
  await writeInside(root, `${REVIEWS_DIR}/${doc.id}.json`, `${JSON.stringify(doc, null, 2)}\n`, {
    mode: 0o644,
    mkdirs: true,
    dirMode: 0o700,
    owned: isRequestPath,
    what: `review requests (${REVIEWS_DIR}/<id>.json)`,
  });
}

function record(doc: ReviewFile, ctx: ReviewContext, action: ReviewEvent['action'], extra: { comment?: string; hash?: string } = {}): void {
  const at = nowIso(ctx);
  doc.updated_at = at;
  doc.history.push({ at, actor: ctx.actor, action, ...(extra.comment !== undefined && extra.comment.length > 0 && { comment: extra.comment }), ...(extra.hash && { hash: extra.hash }) });
}

/** Options of {@link createRequest}: a workspace `file` or a `draft`. */
export interface CreateRequestOptions {
  /** The package file, relative to the workspace root. */
  file?: string;
  /** A draft: its id, identity, current (autosaved) text and the workspace file it edits, if any. */
  draft?: { id: string; skill: SkillId; text: string; file?: string };
  connection: string;
  /** The target store (its limits validate; its published revision is the base). */
  store: Pick<SkillStore, 'limits' | 'getPublished'>;
  note?: string;
  /** The eval run backing the change, and the folders that may hold it: its summary and verdict are recorded. */
  evalRun?: { run: string; places: readonly RunsPlace[] };
}

/**
 * Files a request for a workspace package or a draft: validated, with the base
 * read from the store now. A draft's request records exactly the draft's text
 * as given (normalized), whatever the file on disk holds.
 */
export async function createRequest(ctx: ReviewContext, options: CreateRequestOptions): Promise<ReviewFile> {
  let source: string | null;
  let id: SkillId;
  let text: string;
  let label: string;
  if (options.draft) {
    source = options.draft.file?.split('\\').join('/') ?? null;
    id = options.draft.skill;
    text = options.draft.text;
    label = 'the draft';
  } else if (options.file !== undefined) {
    source = options.file.split('\\').join('/');
    const identity = identityFromPath(source);
    if (identity.problem) throw new WorkbenchError('invalid_request', `${source}: ${identity.problem}`, { details: { file: source } });
    id = identity.id;
    text = await readText(ctx.root, source, MAX_PACKAGE_BYTES);
    label = source;
  } else {
    throw new WorkbenchError('invalid_request', 'a request is made from a workspace file or a draft');
  }
  const { pkg, validation, hash } = await normalize(text, id, options.store.limits, label);
  const evidence = options.evalRun ? await findEvalEvidence(options.evalRun.run, options.evalRun.places, id) : null;
  let base: ReviewFile['base'] = null;
  try {
    const published = await options.store.getPublished(id);
    base = { version: published.version, etag: published.etag };
  } catch (error) {
    if (!isStoreError(error, 'not_found')) throw error;
  }
  const at = nowIso(ctx);
  const stamp = at.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const doc: ReviewFile = {
    format: FORMAT,
    id: `${id.namespace}.${id.name}.${stamp}.${randomBytes(3).toString('hex')}`,
    connection: options.connection,
    skill: id,
    source,
    ...(options.draft && { draft: options.draft.id }),
    base,
    package_text: requestPackageText(pkg),
    manifest_hash: hash,
    validation,
    eval: evidence,
    author: ctx.actor,
    note: options.note ?? '',
    status: 'open',
    created_at: at,
    updated_at: at,
    approvals: [],
    comments: [],
    history: [],
  };
  record(doc, ctx, 'created', { hash, ...(options.note ? { comment: options.note } : {}) });
  await writeRequest(ctx.root, doc);
  return doc;
}

/**
 * What the request's content is now, and its manifest hash (null when it is
 * gone or no longer valid): the draft's text while this host holds the draft
 * the request was made from, else the workspace file.
 */
async function currentContent(root: string, doc: ReviewFile, limits: SkillAuthoringLimits, drafts: DraftReader | undefined): Promise<{ what: string; hash: string | null }> {
  const hashOf = (text: string) => normalize(text, doc.skill, limits, 'the draft').then((n) => n.hash, () => null);
  if (doc.draft !== undefined && drafts) {
    const text = await drafts(doc.draft).catch(() => undefined);
    if (text !== undefined) return { what: 'the draft', hash: await hashOf(text) };
  }
  if (doc.source === null) return { what: 'the draft', hash: null };
  try {
    return { what: doc.source, hash: await hashOf(await readText(root, doc.source, MAX_PACKAGE_BYTES)) };
  } catch {
    return { what: doc.source, hash: null };
  }
}

/** Why an approved request may not publish, or undefined when it may. */
async function staleReason(root: string, doc: ReviewFile, limits: SkillAuthoringLimits, drafts: DraftReader | undefined): Promise<string | undefined> {
  const approval = doc.approvals.at(-1);
  if (!approval) return undefined;
  if (doc.status === 'stale') return 'the request was marked stale';
  if ((await sha256Hex(doc.package_text)) !== approval.bytes_sha256) return `the package recorded in ${REVIEWS_DIR}/${doc.id}.json changed after it was approved`;
  const recorded = await normalize(doc.package_text, doc.skill, limits, `${REVIEWS_DIR}/${doc.id}.json`).catch(() => undefined);
  if (!recorded || recorded.hash !== approval.hash || doc.manifest_hash !== approval.hash) return 'the recorded package no longer hashes to the approved manifest hash';
  const current = await currentContent(root, doc, limits, drafts);
  if (current.hash !== approval.hash) return `${current.what} changed after the approval (${current.hash === null ? 'it is missing or invalid now' : 'its manifest hash differs'})`;
  return undefined;
}

/** Whether the request is stale now (approved, but the draft or the request changed since). */
export async function isStale(root: string, doc: ReviewFile, limits: SkillAuthoringLimits, drafts?: DraftReader): Promise<boolean> {
  if (doc.status === 'stale') return true;
  if (doc.status !== 'approved') return false;
  return (await staleReason(root, doc, limits, drafts)) !== undefined;
}

function transition(doc: ReviewFile, allowed: ReviewStatus[], action: string): void {
  if (!allowed.includes(doc.status)) {
    throw new WorkbenchError('conflict', `review ${doc.id} is ${doc.status}: it cannot be ${action}`, { details: { status: doc.status } });
  }
}

/** Approves the recorded package (never the author's own request). */
export async function approveRequest(ctx: ReviewContext, id: string, comment?: string): Promise<ReviewFile> {
  const doc = await readRequest(ctx.root, id);
  transition(doc, ['open', 'changes_requested'], 'approved');
  if (doc.author === ctx.actor) {
    throw new WorkbenchError('forbidden', `${ctx.actor} is the author of review ${id}: someone else must approve it`, { details: { reason: 'own_request' } });
  }
  const approval: ReviewApproval = { reviewer: ctx.actor, at: nowIso(ctx), hash: doc.manifest_hash, bytes_sha256: await sha256Hex(doc.package_text), ...(comment && { comment }) };
  doc.approvals.push(approval);
  doc.status = 'approved';
  record(doc, ctx, 'approved', { hash: doc.manifest_hash, ...(comment !== undefined && { comment }) });
  await writeRequest(ctx.root, doc);
  return doc;
}

/** Rejects a request (or asks for changes). */
export async function rejectRequest(ctx: ReviewContext, id: string, comment: string | undefined, kind: 'rejected' | 'changes_requested' = 'rejected'): Promise<ReviewFile> {
  const doc = await readRequest(ctx.root, id);
  transition(doc, ['open', 'changes_requested', 'approved', 'stale'], kind === 'rejected' ? 'rejected' : 'sent back');
  doc.status = kind;
  record(doc, ctx, kind, comment !== undefined ? { comment } : {});
  await writeRequest(ctx.root, doc);
  return doc;
}

/** RFC 6901: empty (the whole package), or `/`-separated tokens where `~` only starts `~0` or `~1`. */
const JSON_POINTER = /^(?:\/(?:[^~/]|~[01])*)*$/;

/**
 * Adds a comment anchored to a JSON Pointer of the package (`''` for the
 * whole package) to a request in any state. Comments change neither the
 * recorded package nor an approval.
 */
export async function commentRequest(ctx: ReviewContext, id: string, pointer: string, text: string): Promise<ReviewFile> {
  if (!JSON_POINTER.test(pointer)) {
    throw new WorkbenchError('invalid_request', `'${pointer.slice(0, 140)}' is not a JSON Pointer: use '' for the whole package or a path like /description`, { details: { pointer: '/pointer' } });
  }
  if (text.trim().length === 0) throw new WorkbenchError('invalid_request', 'a comment needs some text', { details: { pointer: '/text' } });
  const doc = await readRequest(ctx.root, id);
  const at = nowIso(ctx);
  doc.comments.push({ pointer, author: ctx.actor, at, text });
  record(doc, ctx, 'commented', { comment: pointer ? `${pointer}: ${text}` : text });
  await writeRequest(ctx.root, doc);
  return doc;
}

/** Marks a request stale with the reason, and returns the 412 to throw. */
async function markStale(ctx: ReviewContext, doc: ReviewFile, reason: string, details: Record<string, unknown> = {}): Promise<WorkbenchError> {
  doc.status = 'stale';
  record(doc, ctx, 'stale', { comment: reason });
  await writeRequest(ctx.root, doc);
  return new WorkbenchError('precondition_failed', `review ${doc.id} is stale: ${reason}; nothing was published. File a new request.`, { details: { reason: 'stale', ...details } });
}

/**
 * Publishes an approved request: exactly the approved bytes, If-Match the
 * recorded ETag. Anything changed since the approval, or a 412 from the store,
 * marks the request stale and publishes nothing.
 */
export async function publishRequest(ctx: ReviewContext, id: string, store: SkillStore, options: { idempotencyKey: string }): Promise<{ request: ReviewFile; result: PublishResult }> {
  const doc = await readRequest(ctx.root, id);
  if (doc.status === 'stale') throw new WorkbenchError('precondition_failed', `review ${id} is stale: file a new request`, { details: { reason: 'stale' } });
  transition(doc, ['approved'], 'published (it needs an approval)');
  const reason = await staleReason(ctx.root, doc, store.limits, ctx.drafts);
  if (reason) throw await markStale(ctx, doc, reason);
  let result: PublishResult;
  try {
    result = await publishConditional(store, { id: doc.skill, body: doc.package_text, base: doc.base, idempotencyKey: options.idempotencyKey, actor: ctx.actor }, (request) =>
      publishApproved(store, request),
    );
  } catch (error) {
    if (isStoreError(error, 'precondition_failed')) {
      throw await markStale(ctx, doc, `${skillKey(doc.skill)} changed in the store since the request was filed (base ${doc.base ? `v${doc.base.version}` : 'none'})`, {
        ...(error.details?.['current_etag'] !== undefined && { current_etag: error.details['current_etag'] }),
      });
    }
    throw error;
  }
  if (result.manifest_hash !== doc.manifest_hash) {
    throw new WorkbenchError('integrity_mismatch', `the store recorded manifest hash ${result.manifest_hash} for review ${id}, not the approved ${doc.manifest_hash}`);
  }
  doc.status = 'published';
  doc.published = { version: result.version, etag: result.etag, manifest_hash: result.manifest_hash, at: nowIso(ctx) };
  record(doc, ctx, 'published', { hash: result.manifest_hash });
  await writeRequest(ctx.root, doc);
  return { request: doc, result };
}

/** Every request of the workspace, newest first, optionally of one status (stale computed now). */
export async function listRequests(root: string, limits: SkillAuthoringLimits, status?: ReviewStatus, drafts?: DraftReader): Promise<{ doc: ReviewFile; stale: boolean }[]> {
  let names: string[] = [];
  try {
    // The folder's real place, inside the workspace (a link leading out is refused).
    names = (await readdir(await resolveInside(root, REVIEWS_DIR))).filter((n) => n.endsWith('.json') && ID.test(n.slice(0, -5)));
  } catch (error) {
    if (!(error instanceof WorkbenchError && error.code === 'not_found')) throw error;
  }
  const out: { doc: ReviewFile; stale: boolean }[] = [];
  for (const name of names) {
    const doc = await readRequest(root, name.slice(0, -5));
    const stale = await isStale(root, doc, limits, drafts);
    const effective: ReviewStatus = stale ? 'stale' : doc.status;
    if (status === undefined || effective === status) out.push({ doc, stale });
  }
  return out.sort((a, b) => b.doc.created_at.localeCompare(a.doc.created_at));
}

/** A request as the list shows it. */
export function summaryOf(doc: ReviewFile, stale: boolean): ReviewSummary {
  return {
    id: doc.id,
    connection: doc.connection,
    skill: doc.skill,
    status: stale ? 'stale' : doc.status,
    author: doc.author,
    note: doc.note,
    created_at: doc.created_at,
    updated_at: doc.updated_at,
    stale,
  };
}

/** A request as the reviewer's view shows it. */
export function viewOf(doc: ReviewFile, stale: boolean, viewer: string): ReviewRequest {
  return {
    ...summaryOf(doc, stale),
    file: `${REVIEWS_DIR}/${doc.id}.json`,
    base: doc.base,
    package: JSON.parse(doc.package_text) as SkillPackage,
    manifest_hash: doc.manifest_hash,
    validation: doc.validation,
    eval: doc.eval,
    approvals: doc.approvals.map((a) => ({ reviewer: a.reviewer, at: a.at, hash: a.hash, stale: stale || a.hash !== doc.manifest_hash, ...(a.comment !== undefined && { comment: a.comment }) })),
    comments: doc.comments,
    history: doc.history,
    viewer,
    viewer_is_author: viewer === doc.author,
  };
}
