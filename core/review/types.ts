/**
 * The review domain's types: publication requests, their history and their
 * signatures, as the review store records them and the API returns them.
 *
 * Isomorphic: no `node:` imports (the API contract, the renderer and the
 * preload import it).
 */
import type { EvalSummary } from '../report/evalResults';
import type { SkillId, SkillPackage, ValidationResult } from '../package/types';
import type { StoreWarning } from '../store/types';

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
    summary: EvalSummary | null;
    verdict: { passed: boolean; status?: EvalSummary['verdict']['status']; message: string } | null;
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
