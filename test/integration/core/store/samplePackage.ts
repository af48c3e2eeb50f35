/**
 * A valid V1 package for store tests, importable outside vitest (child processes).
 */

/** A valid V1 package; `seed` varies the versioned content. */
export function samplePackage(seed: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    display_name: `Conformance ${seed}`,
    description: `Use when a request asks for conformance checks of the ${seed} store behaviour.`,
    domains: ['testing'],
    tags: ['conformance', 'store'],
    planning_instructions: [`Check the ${seed} inputs before planning the next step.`],
    response_instructions: ['State which conformance checks ran and what they found.'],
    tool_hints: ['run_checks'],
    resources: [
      {
        name: 'checklist',
        description: 'A compact checklist for conformance reviews.',
        load_when: 'Load when the request asks for the detailed conformance checklist.',
        applies_to: ['planning'],
        required_when_selected: false,
        content_type: 'text/markdown',
        content: `Checklist body for ${seed}: verify inputs, outputs and error codes.`,
      },
    ],
    activation_examples: {
      should_activate: [`Run the ${seed} conformance checks`],
      should_not_activate: ['Book a flight to Oslo'],
    },
    change_reason: `Revision ${seed}`,
    ...overrides,
  };
}
