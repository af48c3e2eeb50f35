/**
 * Approval enforcement of the reference host (`skillbench registry serve
 * --require-approval NS_GLOB... --allowed-signers FILE`): a publish or delete
 * of a matching skill is refused with 403 `approval_required` unless it
 * carries an approval attestation (`X-Skillbench-Approval`, this host's
 * extension of the V1 API, docs/admin-api.md) that verifies against the
 * host's allowed signers, is signed by a key other than the author's, and
 * binds the skill, the If-Match ETag (or a create), the SHA-256 of the body
 * and this host's identity. The allowed-signers file is the host's own
 * configuration; a client's workspace never supplies it.
 *
 * This is a control only where the host alone holds the write credential of
 * its store (for Redis: the only ACL user with write commands).
 *
 * Node-only: verification spawns ssh-keygen.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { WorkbenchError } from '../errors';
import type { SkillId } from '../package/types';
import { ADMIN_HEADERS } from '../store/httpWire';
import { checkAttestation, decodeAttestation, type WriteFacts } from '../review/verify';
import { header } from './body';
import { HttpFailure } from './httpErrors';

/** What a host enforces. */
export interface ApprovalPolicy {
  /**
   * Skills that need an approval: a namespace glob (`travel`, `prod-*`, `*`) or
   * a `namespace/name` glob (`travel/currency-*`); `*` and `?` stay within one segment.
   */
  patterns: readonly string[];
  /** The host's allowed-signers file (git's `gpg.ssh.allowedSignersFile` format). */
  allowedSigners: string;
  /** This host's identity as clients' statements name it (its base URL); read at check time. */
  registry?: () => string | undefined;
  /** The environment ssh-keygen runs with. */
  env: Record<string, string | undefined>;
}

function globPart(glob: string): string {
  return glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]');
}

/** Checks the patterns; throws with the offending one when it is not a namespace or `namespace/name` glob. */
export function checkApprovalPatterns(patterns: readonly string[]): void {
  for (const p of patterns) {
    if (!/^[a-z0-9*?-]+(?:\/[a-z0-9*?-]+)?$/.test(p)) throw new Error(`'${p}' is not a namespace glob (travel, prod-*) or a namespace/name glob (travel/currency-*)`);
  }
}

/** Whether a write of `id` needs an approval under `policy`. */
export function approvalRequired(policy: ApprovalPolicy, id: SkillId): boolean {
  return policy.patterns.some((p) => {
    const [ns, name] = p.split('/');
    const matches = (glob: string, value: string) => new RegExp(`^${globPart(glob)}$`).test(value);
    return matches(ns!, id.namespace) && (name === undefined || matches(name, id.name));
  });
}

function refuse(message: string): HttpFailure {
  return new HttpFailure(403, 'approval_required', message);
}

/** Refuses at once (before a body is read) a write of a guarded skill that carries no attestation at all. */
export function requireAttestationHeader(policy: ApprovalPolicy, req: IncomingMessage, id: SkillId): string | undefined {
  if (!approvalRequired(policy, id)) return undefined;
  const value = header(req, ADMIN_HEADERS.approval);
  if (value === undefined || value.trim().length === 0) {
    throw refuse(`${id.namespace}/${id.name} is guarded on this host: a publish or delete needs an approved review request (skillbench review publish sends its ${ADMIN_HEADERS.approval} attestation)`);
  }
  return value.trim();
}

/** `sha256:<hex>` of a request body. */
export function bodyDigest(bytes: Uint8Array | string): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/**
 * Checks an attestation against the write it came with (see the module
 * comment); 403 `approval_required` with the reason otherwise.
 */
export async function checkApprovalHeader(policy: ApprovalPolicy, value: string, facts: Omit<WriteFacts, 'registry'>): Promise<void> {
  const attestation = decodeAttestation(value);
  if (!attestation) throw refuse(`the ${ADMIN_HEADERS.approval} header is not an approval attestation`);
  const registry = policy.registry?.();
  let verdict;
  try {
    verdict = await checkAttestation(attestation, { ...facts, ...(registry !== undefined && { registry }) }, policy.allowedSigners, policy.env);
  } catch (error) {
    // The host's own file is unreadable: say so without naming its path to the client.
    if (error instanceof WorkbenchError && error.code === 'forbidden') throw refuse('this host cannot check approvals now: its allowed signers file cannot be read');
    throw error;
  }
  if (!verdict.ok) throw refuse(`the approval does not allow this ${facts.action === 'publish' ? 'publish' : 'delete'}: ${verdict.reason}`);
}
