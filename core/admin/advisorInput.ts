/** What the authoring advisor is given: the manifest's content and the findings, never resource bodies. */
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
    package: {
      display_name: pkg.display_name,
      description: pkg.description,
      domains: [...pkg.domains],
      tags: [...pkg.tags],
      planning_instructions: [...pkg.planning_instructions],
      response_instructions: [...pkg.response_instructions],
      tool_hints: [...pkg.tool_hints],
      activation_examples: {
        should_activate: [...pkg.activation_examples.should_activate],
        should_not_activate: [...pkg.activation_examples.should_not_activate],
      },
      // Body-free on purpose: the advisor never sees resource content or change_reason.
      resources: pkg.resources.map((r) => ({
        name: r.name,
        description: r.description,
        load_when: r.load_when,
        applies_to: [...r.applies_to],
        required_when_selected: r.required_when_selected,
        content_type: r.content_type,
      })),
    },
    validation,
  };
}
