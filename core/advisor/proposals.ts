/**
 * The host's check of an advisor's proposals (guide 5.3: the advisor cannot
 * make an invalid package valid or publish a mutation). Every proposal is
 * applied on its own to a copy of the normalized package and the result is
 * validated again; it is kept only when
 *
 * - it is a JSON Patch document (RFC 6902) of at most {@link MAX_PATCH_OPERATIONS} operations,
 * - it applies (every path exists, every `test` holds),
 * - the patched package passes deterministic validation,
 * - it changes something, and
 * - it leaves resource bodies and `change_reason` as they were: the advisor
 *   never saw them, so an edit to them would be blind.
 *
 * Otherwise it is dropped with its reason. Nothing is ever written.
 *
 * Isomorphic: no `node:` imports.
 */
import type { AdvisorProposal } from '../admin/types';
import { diffPackages } from '../package/diff';
import { applyJsonPatch, jsonEqual, parseJsonPatch, type JsonPatchOperation } from '../package/jsonPatch';
import type { Finding, SkillAuthoringLimits, SkillId, SkillPackage } from '../package/types';
import { validatePackage } from '../package/validate';
import type { CheckedProposal, DroppedProposal } from '../store/httpWire';

/** Proposals checked per analysis; later ones are dropped as `too_many`. */
export const MAX_PROPOSALS = 8;
/** Operations one proposal may have. */
export const MAX_PATCH_OPERATIONS = 64;

/** Options of {@link checkProposals}. */
export interface ProposalCheckOptions {
  /** The identity the package is validated under. */
  id: SkillId;
  /** The host's authoring limits. */
  limits?: Partial<SkillAuthoringLimits>;
}

/** The proposals kept and those dropped, each in the advisor's order. */
export interface ProposalCheck {
  proposals: CheckedProposal[];
  dropped: DroppedProposal[];
}

const findingKey = (f: Finding) => `${f.code}\u0000${f.path}`;

/**
 * Checks one proposal against `pkg`; `id` is its number in the answer (`p1`,
 * ...). `warnings` are the package's own warnings when already known.
 */
export function checkProposal(pkg: SkillPackage, proposal: AdvisorProposal, id: string, options: ProposalCheckOptions, warnings?: readonly Finding[]): CheckedProposal | DroppedProposal {
  const base = { id, title: proposal.title, rationale: proposal.rationale };
  const drop = (reason: DroppedProposal['reason'], message: string, findings?: Finding[]): DroppedProposal => ({
    ...base,
    patch: proposal.patch,
    reason,
    message,
    ...(findings && { findings }),
  });
  const parsed = parseJsonPatch(proposal.patch);
  if (!parsed.ok) return drop('patch_invalid', parsed.error.index === undefined ? parsed.error.message : `operation ${parsed.error.index}: ${parsed.error.message}`);
  const patch: JsonPatchOperation[] = parsed.patch;
  if (patch.length === 0) return drop('no_change', 'the patch has no operation');
  if (patch.length > MAX_PATCH_OPERATIONS) return drop('patch_invalid', `the patch has ${patch.length} operations; a proposal may have at most ${MAX_PATCH_OPERATIONS}`);
  const applied = applyJsonPatch(pkg, patch);
  if (!applied.ok) return drop('patch_failed', `operation ${applied.error.index ?? 0} does not apply: ${applied.error.message}`);
  const check = validate(applied.value, options);
  if (!check.valid || check.normalized === undefined) {
    const first = check.errors[0];
    return drop('validation_failed', `the patched package is invalid${first ? `: ${first.path || '(document)'}: ${first.message}` : ''}`, check.errors);
  }
  const after = check.normalized;
  const diff = diffPackages(pkg, after);
  if (diff.identical) return drop('no_change', 'the patched package is the same package');
  if (after.change_reason !== pkg.change_reason) return drop('withheld_content', 'the patch changes change_reason, which is the author\'s audit note and was never shown to the advisor');
  const blind = diff.resources.changed.filter((r) => r.changes.some((c) => c.field === 'content')).map((r) => r.name);
  if (blind.length > 0) {
    return drop('withheld_content', `the patch rewrites the body of ${blind.map((n) => `resource "${n}"`).join(', ')}, which was never shown to the advisor`);
  }
  const beforeWarnings = warnings ?? validate(pkg, options).warnings;
  const beforeKeys = new Set(beforeWarnings.map(findingKey));
  const afterKeys = new Set(check.warnings.map(findingKey));
  return {
    ...base,
    patch,
    changes: diff.summary.lines,
    warnings_resolved: beforeWarnings.filter((w) => !afterKeys.has(findingKey(w))),
    warnings_added: check.warnings.filter((w) => !beforeKeys.has(findingKey(w))),
    metrics: check.metrics,
  };
}

function validate(value: unknown, options: ProposalCheckOptions) {
  return validatePackage(value, { id: options.id, ...(options.limits && { limits: options.limits }) });
}

/** Checks every proposal of an answer (see the module comment). */
export function checkProposals(pkg: SkillPackage, proposals: readonly AdvisorProposal[], options: ProposalCheckOptions): ProposalCheck {
  const out: ProposalCheck = { proposals: [], dropped: [] };
  const warnings = proposals.length > 0 ? validate(pkg, options).warnings : [];
  proposals.forEach((proposal, i) => {
    const id = `p${i + 1}`;
    if (i >= MAX_PROPOSALS) {
      out.dropped.push({ id, title: proposal.title, rationale: proposal.rationale, patch: proposal.patch, reason: 'too_many', message: `only the first ${MAX_PROPOSALS} proposals are checked` });
      return;
    }
    const result = checkProposal(pkg, proposal, id, options, warnings);
    if ('reason' in result) out.dropped.push(result);
    else out.proposals.push(result);
  });
  return out;
}

/** Result of {@link composeProposals}. */
export interface ComposedPatch {
  /** One JSON Patch: the operations of every proposal that composed, in order. */
  patch: JsonPatchOperation[];
  /** Ids of the proposals in `patch`. */
  applied: string[];
  /** Proposals that no longer applied, or broke validation, after the ones before them. */
  skipped: { id: string; message: string }[];
  /** The normalized package after the whole patch. */
  result: SkillPackage;
}

/**
 * Composes checked proposals into one patch: each is applied after the ones
 * before it, and left out when it then fails to apply or to validate (two
 * proposals may edit the same field, or shift the same list).
 */
export function composeProposals(pkg: SkillPackage, proposals: readonly CheckedProposal[], options: ProposalCheckOptions): ComposedPatch {
  const out: ComposedPatch = { patch: [], applied: [], skipped: [], result: pkg };
  let current: unknown = pkg;
  for (const proposal of proposals) {
    const applied = applyJsonPatch(current, proposal.patch);
    if (!applied.ok) {
      out.skipped.push({ id: proposal.id, message: `does not apply after ${out.applied.join(', ')}: ${applied.error.message}` });
      continue;
    }
    const check = validate(applied.value, options);
    if (!check.valid || check.normalized === undefined) {
      out.skipped.push({ id: proposal.id, message: `the package is invalid with ${[...out.applied, proposal.id].join(' and ')} together: ${check.errors[0]?.message ?? 'invalid'}` });
      continue;
    }
    current = applied.value;
    out.result = check.normalized;
    out.patch.push(...proposal.patch);
    out.applied.push(proposal.id);
  }
  return out;
}

/**
 * Whether `patch`, written against the normalized package, also does the
 * right thing to `source` (the document as the author wrote it): it applies,
 * and the result normalizes to `expected`. A source that is not in normalized
 * form (unsorted tags, omitted optional fields) can shift what a path means.
 */
export function patchFitsSource(source: unknown, patch: readonly JsonPatchOperation[], expected: SkillPackage, options: ProposalCheckOptions): boolean {
  const applied = applyJsonPatch(source, patch);
  if (!applied.ok) return false;
  const check = validate(applied.value, options);
  return check.normalized !== undefined && jsonEqual(check.normalized, expected);
}
