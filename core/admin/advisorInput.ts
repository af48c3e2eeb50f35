/** What the authoring advisor is given: the manifest's content and the findings, never resource bodies. */
import { bodyFreePackage } from '../package/integrity';
import type { SkillId, SkillPackage, ValidationResult } from '../package/types';
import type { AdvisorInput } from './types';

/** The findings of a deterministic check, without its normalized package: what the advisor and the wire are given. */
export function validationOf(check: Pick<ValidationResult, 'valid' | 'errors' | 'warnings' | 'metrics'>): ValidationResult {
  return { valid: check.valid, errors: check.errors, warnings: check.warnings, metrics: check.metrics };
}

/** The advisor's input for a package that passed validation (guide section 5.3). */
export function advisorInput(id: SkillId, pkg: SkillPackage, validation: ValidationResult): AdvisorInput {
  return {
    id: { namespace: id.namespace, name: id.name },
    // Body-free on purpose: the advisor never sees resource content or change_reason.
    package: bodyFreePackage(pkg),
    validation,
  };
}
