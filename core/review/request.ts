/**
 * Publication requests: a draft's package (or a deletion of old versions),
 * signed by its author, approved with a signature by someone else, and
 * carried out on a connection exactly as approved.
 *
 * A request is a file of the workspace, `skills/reviews/<id>.json`, so it
 * travels through Git with the packages. It records the target connection (a
 * saved profile name) and that store's identity, the skill, the base version
 * and ETag read when it was filed, the normalized package text and its
 * manifest hash, the validation result, the eval run when one is named,
 * author, note, status, approvals, comments and history. The author's
 * signature and each approval's are SSH signatures (SSHSIG, as git signs
 * commits) over one canonical statement (`statement.ts`): registry, skill,
 * base, manifest hash, SHA-256 of the bytes to send, request id, decision.
 *
 * The file's word counts for nothing at publish time. Publishing recomputes
 * every bound field from what it is about to send (the target profile's
 * identity, the skill, the If-Match ETag, the bytes and their manifest hash)
 * and publishes only when the author's signature and an approval's verify
 * against the allowed signers for exactly those fields, the approval is not
 * signed by the author's key or principal, and the draft still holds the
 * approved content. Nothing is sent before every check passed; the write
 * carries the two signed statements (`X-Skillbench-Approval`) so a host that
 * enforces approvals checks them again.
 *
 * Node-only: reads and writes workspace files, spawns ssh-keygen.
 */
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { WorkbenchError } from '../errors';
import type { ReviewEvent, ReviewRequest, ReviewSignatureView, ReviewStatus, ReviewSummary } from './types';
import { computeIntegrity, resolveLimits, sha256Hex, validatePackage } from '../package/index';
import type { SkillAuthoringLimits, SkillId, SkillPackage, ValidationResult } from '../package/types';
import { skillKey } from '../package/types';
import { StoreError, isStoreError } from '../store/errors';
import { checkDeleteRequest } from '../store/history';
import { publishConditional } from '../store/publication';
import type { DeleteResult, PublishResult, SkillStore } from '../store/types';
import { readInside, resolveInside, writeInside } from '../workspace/confine';
import { identityFromPath } from '../workspace/identity';
import { deleteApproved, publishApproved } from '../connections/open';
import { findEvalEvidence, type RunsPlace } from './evalRun';
import { allowedSignersOf, sessionPrincipal, signStatement, type Signer } from './signer';
import { deleteAction, statementText, type Statement } from './statement';
import { checkSigned, encodeAttestation, ownApproval, type SignatureCheck, type SignedStatement } from './verify';

/** Folder of the requests, relative to the workspace root. */
export const REVIEWS_DIR = 'skills/reviews';

const FORMAT = 'skillbench.review/v1';
const MAX_REQUEST_BYTES = 8 * 1024 * 1024;
const MAX_PACKAGE_BYTES = 4 * 1024 * 1024;
const ID = /^[A-Za-z0-9._-]{1,128}$/;

/** A signature as the file records it: the statement signed, the armored SSHSIG, and the key's fingerprint (for people). */
export interface RecordedSignature extends SignedStatement {
  key: string;
}

/** An approval as the file records it. */
export interface ReviewApproval extends RecordedSignature {
  /** The principal the reviewer's key verified for when it was signed. */
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
  /** A saved connection profile name: only that profile's host ever gets a credential for it. */
  connection: string;
  /** The identity of the connection's store when the request was filed (what the statements bind). */
  registry?: string;
  skill: SkillId;
  /** `publish` (absent in older files) or `delete`. */
  action?: 'publish' | 'delete';
  /** The versions a deletion request removes, and the audit reason. */
  delete?: { from: number; to: number; reason: string };
  /**
   * The workspace file the request was made from, or that the draft it was
   * made from edits (`/` separators, relative); null for a draft of a stored skill.
   */
  source: string | null;
  /** The draft the request was made from, when it was made from one (its autosaved text, not the file). */
  draft?: string;
  base: { version: number; etag: string } | null;
  /** The normalized package as pretty JSON: exactly what publishing sends (empty for a deletion). */
  package_text: string;
  /** The package's manifest hash (a deletion: the published revision's). */
  manifest_hash: string;
  validation: ValidationResult;
  eval: ReviewRequest['eval'];
  /** The principal the author's key verified for when the request was signed. */
  author: string;
  /** The author's signature over the request statement. */
  signature?: RecordedSignature;
  note: string;
  status: ReviewStatus;
  created_at: string;
  updated_at: string;
  approvals: ReviewApproval[];
  comments: ReviewRequest['comments'];
  history: ReviewEvent[];
  /** What was published, once it was. */
  published?: { version: number; etag: string; manifest_hash: string; at: string };
  /** What was deleted, once it was. */
  deleted?: { versions: number[]; etag: string; at: string };
}

/** A draft's current text by id; undefined when this host holds no such draft. */
export type DraftReader = (id: string) => Promise<string | undefined>;

/** Where requests live, who signs, and what the connections of requests are. */
export interface ReviewContext {
  /** The workspace root. */
  root: string;
  /** The session's signing key and allowed signers. */
  signer: Signer;
  /**
   * The identity a statement binds for the connection of a request: the
   * registry identity of the saved profile of that name. Anything that is not
   * a saved profile (a connection string) is refused (403).
   */
  registry: (connection: string) => Promise<string>;
  /** The drafts of this host: a request made from a draft is checked against the draft's text while it exists. */
  drafts?: DraftReader;
  /** Who the history names for a publish when the session has no key in the allowed signers (a CI job). */
  fallbackActor?: string;
  now?: () => Date;
}

function nowIso(ctx: Pick<ReviewContext, 'now'>): string {
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

function validationOf(check: ReturnType<typeof validatePackage>): ValidationResult {
  return { valid: check.valid, errors: check.errors, warnings: check.warnings, metrics: check.metrics };
}

/** Validates a package text into its normalized form and manifest hash, or throws the 422 with located findings. */
async function normalize(text: string, id: SkillId, limits: SkillAuthoringLimits, label: string): Promise<{ pkg: SkillPackage; validation: ValidationResult; hash: string }> {
  const check = validatePackage(text, { id, limits });
  const validation = validationOf(check);
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
  if (
    !doc ||
    doc.format !== FORMAT ||
    doc.id !== id ||
    typeof doc.connection !== 'string' ||
    typeof doc.package_text !== 'string' ||
    typeof doc.manifest_hash !== 'string' ||
    !doc.skill ||
    typeof doc.skill.namespace !== 'string' ||
    typeof doc.skill.name !== 'string' ||
    !Array.isArray(doc.history) ||
    !Array.isArray(doc.approvals) ||
    !Array.isArray(doc.comments)
  ) {
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

function record(doc: ReviewFile, ctx: Pick<ReviewContext, 'now'>, actor: string, action: ReviewEvent['action'], extra: { comment?: string; hash?: string } = {}): void {
  const at = nowIso(ctx);
  doc.updated_at = at;
  doc.history.push({ at, actor, action, ...(extra.comment !== undefined && extra.comment.length > 0 && { comment: extra.comment }), ...(extra.hash && { hash: extra.hash }) });
}

/** The principal of the session's key; 403 when it has none in the allowed signers (a usage error when no key is set at all). */
async function actorOf(ctx: ReviewContext): Promise<string> {
  const principal = await sessionPrincipal(ctx.signer);
  if (principal !== null) return principal;
  if (!ctx.signer.key) throw new WorkbenchError('usage', 'who is acting? set git config user.signingkey to your SSH key (gpg.format ssh), or SKILLBENCH_SIGNING_KEY');
  await allowedSignersOf(ctx.signer);
  throw new WorkbenchError('forbidden', `your signing key (${ctx.signer.keySource}) is not in the allowed signers file (${ctx.signer.allowedSignersSource}), or cannot sign`, { details: { reason: 'unknown_signer' } });
}

function isDelete(doc: ReviewFile): boolean {
  return doc.action === 'delete';
}

/** The action line of a request's statements. */
function actionOf(doc: ReviewFile): string {
  if (!isDelete(doc)) return 'publish';
  if (!doc.delete) throw new WorkbenchError('invalid_request', `${REVIEWS_DIR}/${doc.id}.json is a deletion request without the versions to delete`);
  return deleteAction(doc.delete.from, doc.delete.to);
}

/** The bytes a request sends: the package text, or nothing for a deletion. */
function bytesOf(doc: ReviewFile): string {
  return isDelete(doc) ? '' : doc.package_text;
}

/** Options of {@link createRequest}: a workspace `file` or a `draft`. */
export interface CreateRequestOptions {
  /** The package file, relative to the workspace root. */
  file?: string;
  /** A draft: its id, identity, current (autosaved) text and the workspace file it edits, if any. */
  draft?: { id: string; skill: SkillId; text: string; file?: string };
  /** A saved connection profile name. */
  connection: string;
  /** The target store (its limits validate; its published revision is the base). */
  store: Pick<SkillStore, 'limits' | 'getPublished'>;
  note?: string;
  /** The eval run backing the change, and the folders that may hold it: its summary and verdict are recorded. */
  evalRun?: { run: string; places: readonly RunsPlace[] };
}

function newId(skill: SkillId, at: string): string {
  const stamp = at.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${skill.namespace}.${skill.name}.${stamp}.${randomBytes(3).toString('hex')}`;
}

/** Signs the request statement as its author and writes the request. */
async function fileRequest(ctx: ReviewContext, doc: Omit<ReviewFile, 'author' | 'signature' | 'registry'>): Promise<ReviewFile> {
  const registry = await ctx.registry(doc.connection);
  const statement = statementText({
    decision: 'request',
    request: doc.id,
    registry,
    skill: doc.skill,
    action: actionOf(doc as ReviewFile),
    base: doc.base,
    manifest: doc.manifest_hash,
    bytes: await sha256Hex(bytesOf(doc as ReviewFile)),
  });
  const signed = await signStatement(ctx.signer, statement);
  const full: ReviewFile = { ...doc, registry, author: signed.principal, signature: { statement, signature: signed.signature, key: signed.fingerprint } };
  record(full, ctx, signed.principal, 'created', { hash: full.manifest_hash, ...(full.note ? { comment: full.note } : {}) });
  await writeRequest(ctx.root, full);
  return full;
}

/**
 * Files a request for a workspace package or a draft: validated, with the base
 * read from the store now, signed by the session's key. A draft's request
 * records exactly the draft's text as given (normalized), whatever the file on
 * disk holds.
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
  // The connection and the key are checked before anything is read from the store.
  await ctx.registry(options.connection);
  await actorOf(ctx);
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
  return fileRequest(ctx, {
    format: FORMAT,
    id: newId(id, at),
    connection: options.connection,
    skill: id,
    action: 'publish',
    source,
    ...(options.draft && { draft: options.draft.id }),
    base,
    package_text: requestPackageText(pkg),
    manifest_hash: hash,
    validation,
    eval: evidence,
    ...openState(options.note, at),
  });
}

/**
 * What a request reads of a saved local profile whose registry does not exist
 * yet: nothing is published there, so the base is none (a create), and filing
 * the request creates nothing.
 */
export function absentStore(connection: string): Pick<SkillStore, 'limits' | 'getPublished'> {
  return {
    limits: resolveLimits(),
    getPublished: async () => {
      throw new StoreError('not_found', `${connection} has no registry yet`);
    },
  };
}

/** The fields every newly filed request starts with: open, with no approval, comment or history yet. */
function openState(note: string | undefined, at: string): Pick<ReviewFile, 'note' | 'status' | 'created_at' | 'updated_at' | 'approvals' | 'comments' | 'history'> {
  return { note: note ?? '', status: 'open', created_at: at, updated_at: at, approvals: [], comments: [], history: [] };
}

/** Options of {@link createDeleteRequest}. */
export interface CreateDeleteRequestOptions {
  skill: SkillId;
  from: number;
  to: number;
  reason: string;
  /** A saved connection profile name. */
  connection: string;
  /** The target store: its published revision is the base the deletion is conditional on. */
  store: Pick<SkillStore, 'limits' | 'getPublished'>;
  note?: string;
}

/**
 * Files a request to delete versions `from..to` of a published skill, signed
 * by the session's key: once approved, `publishRequest` deletes them with
 * If-Match the ETag read now.
 */
export async function createDeleteRequest(ctx: ReviewContext, options: CreateDeleteRequestOptions): Promise<ReviewFile> {
  const { skill, from, to, reason } = options;
  checkDeleteRequest({ id: skill, from, to, reason, ifMatch: '"-"' });
  await ctx.registry(options.connection);
  await actorOf(ctx);
  const published = await options.store.getPublished(skill);
  const at = nowIso(ctx);
  return fileRequest(ctx, {
    format: FORMAT,
    id: newId(skill, at),
    connection: options.connection,
    skill,
    action: 'delete',
    delete: { from, to, reason: reason.trim() },
    source: null,
    base: { version: published.version, etag: published.etag },
    package_text: '',
    manifest_hash: published.manifest_hash,
    // The revision that stays published, as validation sees it now: the reviewer's context.
    validation: validationOf(validatePackage(JSON.stringify(published.package), { id: skill, limits: options.store.limits })),
    eval: null,
    ...openState(options.note, at),
  });
}

/**
 * What the request's content is now, and its manifest hash (null when it is
 * gone or no longer valid): the draft's text while this host holds the draft
 * the request was made from, else the workspace file it edits. Undefined when
 * neither is at hand here (a draft of a stored skill, filed in another
 * workbench): then the signed package text alone stands.
 */
async function currentContent(root: string, doc: ReviewFile, limits: SkillAuthoringLimits, drafts: DraftReader | undefined): Promise<{ what: string; hash: string | null } | undefined> {
  const hashOf = (text: string) => normalize(text, doc.skill, limits, 'the draft').then((n) => n.hash, () => null);
  if (doc.draft !== undefined && drafts) {
    const text = await drafts(doc.draft).catch(() => undefined);
    if (text !== undefined) return { what: 'the draft', hash: await hashOf(text) };
  }
  if (doc.source === null) return undefined;
  try {
    return { what: doc.source, hash: await hashOf(await readText(root, doc.source, MAX_PACKAGE_BYTES)) };
  } catch {
    return { what: doc.source, hash: null };
  }
}

/**
 * Why an approved request may not publish as the file stands, or undefined:
 * the recorded package no longer matches the approval's hashes, or the draft
 * (or file) it was made from changed since. Claims of the file only; the
 * signatures are checked by {@link inspectRequest}.
 */
async function staleReason(root: string, doc: ReviewFile, limits: SkillAuthoringLimits, drafts: DraftReader | undefined): Promise<string | undefined> {
  const approval = doc.approvals.at(-1);
  if (!approval) return undefined;
  if (doc.status === 'stale') return 'the request was marked stale';
  if ((await sha256Hex(bytesOf(doc))) !== approval.bytes_sha256) return `the package recorded in ${REVIEWS_DIR}/${doc.id}.json changed after it was approved`;
  if (isDelete(doc)) return doc.manifest_hash !== approval.hash ? 'the request changed after it was approved' : undefined;
  const recorded = await normalize(doc.package_text, doc.skill, limits, `${REVIEWS_DIR}/${doc.id}.json`).catch(() => undefined);
  if (!recorded || recorded.hash !== approval.hash || doc.manifest_hash !== approval.hash) return 'the recorded package no longer hashes to the approved manifest hash';
  const current = await currentContent(root, doc, limits, drafts);
  if (current && current.hash !== approval.hash) return `${current.what} changed after the approval (${current.hash === null ? 'it is missing or invalid now' : 'its manifest hash differs'})`;
  return undefined;
}

/** Whether the request is stale now (approved, but the draft or the request changed since). */
export async function isStale(root: string, doc: ReviewFile, limits: SkillAuthoringLimits, drafts?: DraftReader): Promise<boolean> {
  if (doc.status === 'stale') return true;
  if (doc.status !== 'approved') return false;
  return (await staleReason(root, doc, limits, drafts)) !== undefined;
}

/** The statement fields recomputed from the request and its target: what every signature must bind. */
interface Bound {
  registry: string;
  statement: Omit<Statement, 'decision'>;
}

/** Recomputes what the request would send: the target's identity, the skill, the base, the bytes and their manifest hash. */
async function boundFields(ctx: ReviewContext, doc: ReviewFile, limits: SkillAuthoringLimits): Promise<Bound> {
  const registry = await ctx.registry(doc.connection);
  let manifest = doc.manifest_hash;
  if (!isDelete(doc)) {
    const normalized = await normalize(doc.package_text, doc.skill, limits, `${REVIEWS_DIR}/${doc.id}.json`).catch(() => undefined);
    // A text that does not validate binds nothing: no statement can name this value.
    manifest = normalized?.hash ?? 'invalid';
  }
  return {
    registry,
    statement: { request: doc.id, registry, skill: doc.skill, action: actionOf(doc), base: doc.base, manifest, bytes: await sha256Hex(bytesOf(doc)) },
  };
}

/** One signature of a request, checked. */
export interface CheckedSignature extends SignatureCheck {
  role: 'author' | 'approval';
  /** Who the file says signed. */
  claimed: string;
  at: string;
  /** Whether it stands: an author's that binds the request, or an approval that may publish. */
  counts: boolean;
}

/** A request's signatures checked against what it would send. */
export interface Inspection {
  /** The target is not a saved profile, or nothing can be verified: why. */
  unverifiable?: string;
  author: CheckedSignature | undefined;
  approvals: CheckedSignature[];
  /** The first approval that stands, if any. */
  approval: CheckedSignature | undefined;
}

const noSignature = (role: 'author' | 'approval', claimed: string, at: string, problem: string): CheckedSignature => ({
  role,
  claimed,
  at,
  counts: false,
  verified: false,
  principal: null,
  fingerprint: null,
  key: null,
  statement: undefined,
  problem,
  mismatched: [],
});

/**
 * Checks the author's signature and every approval's against the fields
 * recomputed from the request and its target (never the file's own claims):
 * an approval counts when it verifies, binds exactly those fields, and is not
 * signed by the author's key or principal.
 */
export async function inspectRequest(ctx: ReviewContext, doc: ReviewFile, limits: SkillAuthoringLimits): Promise<Inspection> {
  let bound: Bound;
  let allowed: string;
  try {
    bound = await boundFields(ctx, doc, limits);
    allowed = await allowedSignersOf(ctx.signer);
  } catch (error) {
    if (!(error instanceof WorkbenchError) || (error.code !== 'forbidden' && error.code !== 'not_found')) throw error;
    const reason = error.message;
    return {
      unverifiable: reason,
      author: noSignature('author', doc.author, doc.created_at, reason),
      approvals: doc.approvals.map((a) => noSignature('approval', a.reviewer, a.at, reason)),
      approval: undefined,
    };
  }
  const check = async (role: 'author' | 'approval', signed: RecordedSignature | undefined, claimed: string, at: string): Promise<CheckedSignature> => {
    if (!signed || typeof signed.statement !== 'string' || typeof signed.signature !== 'string') return noSignature(role, claimed, at, 'it is not signed');
    const result = await checkSigned(signed, { decision: role === 'author' ? 'request' : 'approve', ...bound.statement }, allowed, ctx.signer.env);
    return { ...result, role, claimed, at, counts: result.problem === undefined };
  };
  const author = await check('author', doc.signature, doc.author, doc.created_at);
  const approvals: CheckedSignature[] = [];
  for (const a of doc.approvals) {
    const checked = await check('approval', a, a.reviewer, a.at);
    const own = checked.verified && author.verified ? ownApproval(author, checked) : undefined;
    if (own) approvals.push({ ...checked, counts: false, problem: checked.problem ? `${checked.problem}; ${own}` : own });
    else approvals.push({ ...checked, counts: checked.counts && author.counts });
  }
  return { author, approvals, approval: approvals.find((a) => a.counts) };
}

function transition(doc: ReviewFile, allowed: ReviewStatus[], action: string): void {
  if (!allowed.includes(doc.status)) {
    throw new WorkbenchError('conflict', `review ${doc.id} is ${doc.status}: it cannot be ${action}`, { details: { status: doc.status } });
  }
}

/**
 * Approves the request with a signature of the session's key over the
 * request's statement. Refused (403) when the author's signature does not
 * stand for the request as it is, or when the approver is the author (the
 * same key or the same principal).
 */
export async function approveRequest(ctx: ReviewContext, id: string, comment?: string, limits: SkillAuthoringLimits = resolveLimits()): Promise<ReviewFile> {
  const doc = await readRequest(ctx.root, id);
  transition(doc, ['open', 'changes_requested'], 'approved');
  const inspection = await inspectRequest(ctx, doc, limits);
  if (inspection.unverifiable) throw new WorkbenchError('forbidden', `review ${id} cannot be approved: ${inspection.unverifiable}`, { details: { reason: 'unverifiable' } });
  if (!inspection.author?.counts) {
    throw new WorkbenchError('forbidden', `review ${id} cannot be approved: the author's signature does not stand for it (${inspection.author?.problem ?? 'not signed'})`, {
      details: { reason: 'author_signature' },
    });
  }
  const me = await sessionPrincipal(ctx.signer);
  if (me !== null && me === inspection.author.principal) {
    throw new WorkbenchError('forbidden', `${me} is the author of review ${id}: someone else must approve it`, { details: { reason: 'own_request' } });
  }
  const bound = inspection.author.statement!;
  const statement = statementText({ ...bound, decision: 'approve' });
  const signed = await signStatement(ctx.signer, statement);
  if (signed.principal === inspection.author.principal || signed.fingerprint === inspection.author.fingerprint) {
    throw new WorkbenchError('forbidden', `${signed.principal} is the author of review ${id}: someone else must approve it`, { details: { reason: 'own_request' } });
  }
  const approval: ReviewApproval = {
    reviewer: signed.principal,
    at: nowIso(ctx),
    hash: doc.manifest_hash,
    bytes_sha256: bound.bytes,
    statement,
    signature: signed.signature,
    key: signed.fingerprint,
    ...(comment && { comment }),
  };
  doc.approvals.push(approval);
  doc.status = 'approved';
  record(doc, ctx, signed.principal, 'approved', { hash: doc.manifest_hash, ...(comment !== undefined && { comment }) });
  await writeRequest(ctx.root, doc);
  return doc;
}

/** Rejects a request (or asks for changes), as the session's principal. */
export async function rejectRequest(ctx: ReviewContext, id: string, comment: string | undefined, kind: 'rejected' | 'changes_requested' = 'rejected'): Promise<ReviewFile> {
  const doc = await readRequest(ctx.root, id);
  transition(doc, ['open', 'changes_requested', 'approved', 'stale'], kind === 'rejected' ? 'rejected' : 'sent back');
  const actor = await actorOf(ctx);
  doc.status = kind;
  record(doc, ctx, actor, kind, comment !== undefined ? { comment } : {});
  await writeRequest(ctx.root, doc);
  return doc;
}

/** RFC 6901: empty (the whole package), or `/`-separated tokens where `~` only starts `~0` or `~1`. */
const JSON_POINTER = /^(?:\/(?:[^~/]|~[01])*)*$/;

/**
 * Adds a comment anchored to a JSON Pointer of the package (`''` for the
 * whole package) to a request in any state, as the session's principal.
 * Comments change neither the recorded package nor an approval.
 */
export async function commentRequest(ctx: ReviewContext, id: string, pointer: string, text: string): Promise<ReviewFile> {
  if (!JSON_POINTER.test(pointer)) {
    throw new WorkbenchError('invalid_request', `'${pointer.slice(0, 140)}' is not a JSON Pointer: use '' for the whole package or a path like /description`, { details: { pointer: '/pointer' } });
  }
  if (text.trim().length === 0) throw new WorkbenchError('invalid_request', 'a comment needs some text', { details: { pointer: '/text' } });
  const doc = await readRequest(ctx.root, id);
  const actor = await actorOf(ctx);
  const at = nowIso(ctx);
  doc.comments.push({ pointer, author: actor, at, text });
  record(doc, ctx, actor, 'commented', { comment: pointer ? `${pointer}: ${text}` : text });
  await writeRequest(ctx.root, doc);
  return doc;
}

/** Marks a request stale with the reason. */
async function markStale(ctx: ReviewContext, doc: ReviewFile, actor: string, reason: string): Promise<void> {
  doc.status = 'stale';
  record(doc, ctx, actor, 'stale', { comment: reason });
  await writeRequest(ctx.root, doc);
}

function staleError(doc: ReviewFile, reason: string, details: Record<string, unknown> = {}): WorkbenchError {
  return new WorkbenchError('precondition_failed', `review ${doc.id} is stale: ${reason}; nothing was published. File a new request.`, { details: { reason: 'stale', ...details } });
}

function refused(doc: ReviewFile, why: string, reason: string): WorkbenchError {
  return new WorkbenchError('forbidden', `review ${doc.id} cannot be carried out: ${why}; nothing was sent`, { details: { reason } });
}

/** The outcome of carrying out a request: a publication, or a deletion. */
export type RequestOutcome = { kind: 'publish'; result: PublishResult } | { kind: 'delete'; result: DeleteResult };

/** The session's principal, else the fallback actor: who the history names for a publish. */
async function publisherOf(ctx: ReviewContext): Promise<string> {
  return (await sessionPrincipal(ctx.signer)) ?? ctx.fallbackActor ?? 'unknown';
}

/**
 * Carries out an approved request on `store`, which the caller opened from
 * the saved profile the request names (and only that profile): exactly the
 * approved bytes with If-Match the recorded ETag, or the approved deletion.
 * Every check runs before anything is sent, and on any failure nothing is:
 *
 * - 403 (`forbidden`) when the status says approved but no approval stands:
 *   none verifies against the allowed signers, one is the author's own, or
 *   it (or the author's signature) names another registry, skill, base or
 *   bytes than the ones about to be sent. A package text edited after the
 *   approval also marks the request stale;
 * - 412 (stale) when the draft changed after the approval, or the store
 *   answers 412 because the skill moved on;
 * - 409 when the request is not approved at all.
 */
export async function carryOutRequest(ctx: ReviewContext, id: string, store: SkillStore, options: { idempotencyKey: string }): Promise<{ request: ReviewFile; outcome: RequestOutcome }> {
  const doc = await readRequest(ctx.root, id);
  if (doc.status === 'stale') throw new WorkbenchError('precondition_failed', `review ${id} is stale: file a new request`, { details: { reason: 'stale' } });
  transition(doc, ['approved'], 'carried out (it needs an approval)');
  const actor = await publisherOf(ctx);
  const inspection = await inspectRequest(ctx, doc, store.limits);
  if (inspection.unverifiable) throw refused(doc, inspection.unverifiable, 'unverifiable');
  // A genuine signature over other bytes: the package text was changed after it, which leaves the request stale for good.
  const textChanged = [inspection.author, ...inspection.approvals].some((c) => c?.verified && c.mismatched.length > 0 && c.mismatched.every((f) => f === 'bytes' || f === 'manifest'));
  const refuse = async (why: string, reason: string): Promise<never> => {
    if (textChanged) await markStale(ctx, doc, actor, `the package recorded in ${REVIEWS_DIR}/${doc.id}.json changed after it was signed`);
    throw refused(doc, why, reason);
  };
  if (!inspection.author?.counts) await refuse(`the author's signature does not stand for what would be sent: ${inspection.author?.problem ?? 'not signed'}`, 'author_signature');
  const approval = inspection.approval;
  if (!approval) {
    const reasons = inspection.approvals.map((a) => `the approval of ${a.principal ?? a.claimed}: ${a.problem ?? 'it does not stand'}`);
    const why = reasons.length === 0 ? 'its status says approved, but no approval is recorded' : `its status says approved, but no approval stands (${reasons.join('; ')})`;
    return refuse(why, inspection.approvals.some((a) => a.verified && a.principal === inspection.author?.principal) ? 'own_request' : 'no_valid_approval');
  }
  const reason = await staleReason(ctx.root, doc, store.limits, ctx.drafts);
  if (reason) {
    await markStale(ctx, doc, actor, reason);
    throw staleError(doc, reason);
  }
  const chosen = doc.approvals[inspection.approvals.indexOf(approval)]!;
  const attestation = encodeAttestation({ request: { statement: doc.signature!.statement, signature: doc.signature!.signature }, approval: { statement: chosen.statement, signature: chosen.signature } });
  let outcome: RequestOutcome;
  try {
    if (isDelete(doc)) {
      const range = doc.delete!;
      outcome = {
        kind: 'delete',
        result: await deleteApproved(store, { id: doc.skill, from: range.from, to: range.to, ifMatch: doc.base!.etag, reason: range.reason, actor, approval: attestation }),
      };
    } else {
      outcome = {
        kind: 'publish',
        result: await publishConditional(store, { id: doc.skill, body: doc.package_text, base: doc.base, idempotencyKey: options.idempotencyKey, actor }, (request) =>
          publishApproved(store, { ...request, approval: attestation }),
        ),
      };
    }
  } catch (error) {
    if (isStoreError(error, 'precondition_failed')) {
      const why = `${skillKey(doc.skill)} changed in the store since the request was filed (base ${doc.base ? `v${doc.base.version}` : 'none'})`;
      await markStale(ctx, doc, actor, why);
      throw staleError(doc, why, error.details?.['current_etag'] !== undefined ? { current_etag: error.details['current_etag'] } : {});
    }
    throw error;
  }
  if (outcome.kind === 'publish') {
    const result = outcome.result;
    if (result.manifest_hash !== doc.manifest_hash) {
      throw new WorkbenchError('integrity_mismatch', `the store recorded manifest hash ${result.manifest_hash} for review ${id}, not the approved ${doc.manifest_hash}`);
    }
    doc.status = 'published';
    doc.published = { version: result.version, etag: result.etag, manifest_hash: result.manifest_hash, at: nowIso(ctx) };
    record(doc, ctx, actor, 'published', { hash: result.manifest_hash });
  } else {
    doc.status = 'published';
    doc.deleted = { versions: [...outcome.result.deleted, ...outcome.result.already_deleted].sort((a, b) => a - b), etag: outcome.result.etag, at: nowIso(ctx) };
    record(doc, ctx, actor, 'published', { comment: `deleted v${doc.delete!.from}${doc.delete!.to !== doc.delete!.from ? `-${doc.delete!.to}` : ''}` });
  }
  await writeRequest(ctx.root, doc);
  return { request: doc, outcome };
}

/** {@link carryOutRequest} for a publication request: 409 for a deletion request. */
export async function publishRequest(ctx: ReviewContext, id: string, store: SkillStore, options: { idempotencyKey: string }): Promise<{ request: ReviewFile; result: PublishResult }> {
  const { request, outcome } = await carryOutRequest(ctx, id, store, options);
  if (outcome.kind !== 'publish') throw new WorkbenchError('internal', 'a deletion request was carried out as a publication');
  return { request, result: outcome.result };
}

/** Every request of the workspace, newest first, optionally of one status (stale computed now from the file's claims). */
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
    action: isDelete(doc) ? 'delete' : 'publish',
    status: stale ? 'stale' : doc.status,
    author: doc.author,
    note: doc.note,
    created_at: doc.created_at,
    updated_at: doc.updated_at,
    stale,
  };
}

function signatureView(s: CheckedSignature): ReviewSignatureView {
  return {
    role: s.role,
    claimed: s.claimed,
    principal: s.principal,
    fingerprint: s.fingerprint,
    verified: s.verified,
    counts: s.counts,
    at: s.at,
    ...(s.problem !== undefined && { problem: s.problem }),
  };
}

/**
 * A request as the reviewer's view shows it, with each signature checked:
 * its principal, whether it verifies, and whether it stands for the request
 * as it is. `viewer` is the session's principal (null without a key in the
 * allowed signers).
 */
export function viewOf(doc: ReviewFile, stale: boolean, viewer: string | null, inspection?: Inspection): ReviewRequest {
  const author = inspection?.author;
  const authorName = author?.verified ? author.principal! : doc.author;
  return {
    ...summaryOf(doc, stale),
    author: authorName,
    file: `${REVIEWS_DIR}/${doc.id}.json`,
    registry: doc.registry ?? null,
    base: doc.base,
    package: isDelete(doc) ? null : (JSON.parse(doc.package_text) as SkillPackage),
    ...(doc.delete && { delete: doc.delete }),
    manifest_hash: doc.manifest_hash,
    validation: doc.validation,
    eval: doc.eval,
    approvals: doc.approvals.map((a, i) => {
      const checked = inspection?.approvals[i];
      return {
        reviewer: checked?.verified ? checked.principal! : a.reviewer,
        at: a.at,
        hash: a.hash,
        stale: stale || a.hash !== doc.manifest_hash,
        verified: checked?.counts ?? false,
        ...(a.comment !== undefined && { comment: a.comment }),
      };
    }),
    signatures: inspection ? [...(inspection.author ? [signatureView(inspection.author)] : []), ...inspection.approvals.map(signatureView)] : [],
    verified_approval: inspection?.approval !== undefined,
    ...(inspection?.unverifiable !== undefined && { unverifiable: inspection.unverifiable }),
    comments: doc.comments,
    history: doc.history,
    viewer,
    viewer_is_author: viewer !== null && (viewer === authorName || viewer === doc.author),
  };
}
