/**
 * Checking signed review statements against what is about to happen, shared
 * by the client (`review publish`, `reviews.publish`, the views) and the
 * approval-enforcing host (`registry serve --require-approval`).
 *
 * A signed statement stands for a write only when ssh-keygen verifies it
 * against the allowed signers AND every field it binds equals the value
 * recomputed from the write itself. The approval attestation a publish
 * carries (`X-Skillbench-Approval`) is the request's signed statement and the
 * approval's, so a host can also see that the approver is not the author.
 *
 * Node-only: verification spawns ssh-keygen.
 */
import type { SkillId } from '../package/types';
import { signatureKey, verifySignature } from './sshsig';
import { baseLabel, parseStatement, type Decision, type Statement } from './statement';

/** A statement and its armored signature, as files and headers carry them. */
export interface SignedStatement {
  statement: string;
  signature: string;
}

/** The fields a check expects; absent ones are not compared. */
export type Expected = Partial<Omit<Statement, 'decision' | 'base'>> & { decision: Decision; base?: Statement['base'] | { etag: string } };

/** The outcome of checking one signed statement. */
export interface SignatureCheck {
  /** ssh-keygen verified the signature for `principal`. */
  verified: boolean;
  principal: string | null;
  /** `SHA256:…` of the signing key (read from the signature, verified or not). */
  fingerprint: string | null;
  /** The signing key's public blob (base64), to tell one key from another. */
  key: string | null;
  statement: Statement | undefined;
  /** Why it does not stand for the expected write, in words; undefined when it does. */
  problem?: string;
  /** Which bound fields differ from the expected ones. */
  mismatched: string[];
}

/** The bound fields of `actual` that differ from `expected`, each with a sentence. */
function mismatches(expected: Expected, actual: Statement): { field: string; says: string }[] {
  const out: { field: string; says: string }[] = [];
  if (actual.decision !== expected.decision) out.push({ field: 'decision', says: `it is a '${actual.decision}' statement, not '${expected.decision}'` });
  if (expected.request !== undefined && actual.request !== expected.request) out.push({ field: 'request', says: `it is for request ${actual.request}, not ${expected.request}` });
  if (expected.registry !== undefined && actual.registry !== expected.registry) out.push({ field: 'registry', says: `it names registry ${actual.registry}, not ${expected.registry}` });
  const key = (id: SkillId) => `${id.namespace}/${id.name}`;
  if (expected.skill !== undefined && key(actual.skill) !== key(expected.skill)) out.push({ field: 'skill', says: `it names skill ${key(actual.skill)}, not ${key(expected.skill)}` });
  if (expected.action !== undefined && actual.action !== expected.action) out.push({ field: 'action', says: `it approves '${actual.action}', not '${expected.action}'` });
  if (expected.base !== undefined) {
    const e = expected.base;
    const same = e === null ? actual.base === null : actual.base !== null && actual.base.etag === e.etag && (!('version' in e) || actual.base.version === e.version);
    if (!same) out.push({ field: 'base', says: `it names base ${baseLabel(actual.base)}, not ${e === null ? baseLabel(null) : 'version' in e ? baseLabel(e) : e.etag}` });
  }
  if (expected.manifest !== undefined && actual.manifest !== expected.manifest) out.push({ field: 'manifest', says: `it covers manifest ${actual.manifest}, not ${expected.manifest}` });
  if (expected.bytes !== undefined && actual.bytes !== expected.bytes) out.push({ field: 'bytes', says: `it covers other bytes (${actual.bytes.slice(0, 19)}…, not ${expected.bytes.slice(0, 19)}…)` });
  return out;
}

/**
 * Checks one signed statement: its text is a canonical statement, ssh-keygen
 * verifies its signature against `allowedSigners`, and it binds exactly the
 * `expected` fields.
 */
export async function checkSigned(signed: SignedStatement, expected: Expected, allowedSigners: string, env: Record<string, string | undefined>): Promise<SignatureCheck> {
  const key = typeof signed.signature === 'string' ? signatureKey(signed.signature) : undefined;
  const base = { principal: null, fingerprint: key?.fingerprint ?? null, key: key?.blob ?? null, mismatched: [] as string[] };
  const statement = typeof signed.statement === 'string' ? parseStatement(signed.statement) : undefined;
  if (!statement) return { ...base, verified: false, statement: undefined, problem: 'the signed text is not a review statement' };
  const verdict = await verifySignature(signed.statement, signed.signature, allowedSigners, env);
  const differ = mismatches(expected, statement);
  if (!verdict.ok) return { ...base, verified: false, statement, problem: `its signature does not verify: ${verdict.reason}`, mismatched: differ.map((d) => d.field) };
  const check: SignatureCheck = { ...base, verified: true, principal: verdict.principal, statement, mismatched: differ.map((d) => d.field) };
  if (differ.length > 0) check.problem = differ.map((d) => d.says).join('; ');
  return check;
}

/** Why `approval` may not stand beside `author`'s request: the same person or key approving their own. */
export function ownApproval(author: SignatureCheck, approval: SignatureCheck): string | undefined {
  if (approval.key !== null && approval.key === author.key) return `it is signed with the author's own key (${approval.fingerprint}${approval.principal !== null ? `, ${approval.principal}` : ''})`;
  if (approval.principal !== null && approval.principal === author.principal) return `it is signed by the author, ${approval.principal}`;
  return undefined;
}

/** The approval attestation a write carries: the request's signed statement and the approval's. */
export interface Attestation {
  request: SignedStatement;
  approval: SignedStatement;
}

const MAX_ATTESTATION_CHARS = 12 * 1024;

/** The `X-Skillbench-Approval` header value: base64url of `{"v":1,"request":…,"approval":…}`. */
export function encodeAttestation(attestation: Attestation): string {
  return Buffer.from(JSON.stringify({ v: 1, request: attestation.request, approval: attestation.approval }), 'utf8').toString('base64url');
}

/** Reads a header value back; undefined when it is not an attestation. */
export function decodeAttestation(value: string): Attestation | undefined {
  if (value.length > MAX_ATTESTATION_CHARS || !/^[A-Za-z0-9_-]+$/.test(value)) return undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const d = doc as { v?: unknown; request?: Partial<SignedStatement>; approval?: Partial<SignedStatement> } | null;
  const signed = (s: Partial<SignedStatement> | undefined): s is SignedStatement => !!s && typeof s.statement === 'string' && typeof s.signature === 'string';
  if (!d || d.v !== 1 || !signed(d.request) || !signed(d.approval)) return undefined;
  return { request: { statement: d.request.statement, signature: d.request.signature }, approval: { statement: d.approval.statement, signature: d.approval.signature } };
}

/** What a host recomputes from the write it received. */
export interface WriteFacts {
  /** The host's own identity, when it is configured to check it. */
  registry?: string;
  skill: SkillId;
  /** `publish`, or `delete FROM-TO`. */
  action: string;
  /** The If-Match ETag, or null for a create (`If-None-Match: *`). */
  base: { etag: string } | null;
  /** `sha256:<hex>` of the request body (the empty body for a delete). */
  bytes: string;
}

/** The principals of a valid attestation, or why it does not stand for the write. */
export type AttestationVerdict = { ok: true; author: string; approver: string } | { ok: false; reason: string };

/**
 * Checks an attestation against the write it came with: both signatures
 * verify against `allowedSigners`, the approval is not signed by the
 * author's key or principal, both statements are for the same request, and
 * they bind the skill, the action, the If-Match ETag (or a create), the body's
 * SHA-256 and, when given, this host's identity.
 */
export async function checkAttestation(attestation: Attestation, facts: WriteFacts, allowedSigners: string, env: Record<string, string | undefined>): Promise<AttestationVerdict> {
  const expected = { skill: facts.skill, action: facts.action, base: facts.base, bytes: facts.bytes, ...(facts.registry !== undefined && { registry: facts.registry }) };
  const author = await checkSigned(attestation.request, { decision: 'request', ...expected }, allowedSigners, env);
  if (author.problem) return { ok: false, reason: `the request statement does not stand: ${author.problem}` };
  const s = author.statement!;
  const approval = await checkSigned(attestation.approval, { decision: 'approve', ...expected, request: s.request, registry: s.registry, manifest: s.manifest, base: s.base }, allowedSigners, env);
  if (approval.problem) return { ok: false, reason: `the approval does not stand: ${approval.problem}` };
  const own = ownApproval(author, approval);
  if (own) return { ok: false, reason: `the approval does not stand: ${own}` };
  return { ok: true, author: author.principal!, approver: approval.principal! };
}
