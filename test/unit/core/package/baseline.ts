/**
 * A valid package with no findings, and helpers to mutate it and to find
 * where a piece of text sits in its JSON source.
 */
import type { Finding } from '../../../../core/package/types';

/** A fresh copy of a valid V1 package (no errors, no warnings). */
export function baseline(): Record<string, unknown> & {
  resources: Record<string, unknown>[];
  planning_instructions: string[];
  activation_examples: { should_activate: string[]; should_not_activate: string[] };
} {
  return {
    display_name: 'Rollout Safety Review',
    description: 'Use when a request plans a production rollout, a scaling change or a namespace-wide operation and the plan needs a risk check first.',
    domains: ['devops'],
    tags: ['risk', 'rollout'],
    planning_instructions: [
      'List the workloads the change touches before proposing any step.',
      'Prefer a staged rollout with a health check after each stage.',
    ],
    response_instructions: ['State which checks passed and which still need a human decision.'],
    tool_hints: ['get_deployment', 'list_pods'],
    resources: [
      {
        name: 'stage-checklist',
        description: 'Checks to run between rollout stages, with the metrics that gate progress.',
        load_when: 'Load when the plan rolls a change out in more than one stage.',
        applies_to: ['planning', 'continuation'],
        required_when_selected: false,
        content_type: 'text/markdown',
        content: '## Between stages\n\n- Error rate below the agreed threshold.\n- Latency within budget for ten minutes.\n',
      },
    ],
    activation_examples: {
      should_activate: ['Roll out the new payments build to production'],
      should_not_activate: ['What time is it in Tokyo?'],
    },
    change_reason: 'First version',
  };
}

/** Pretty JSON text of a value, as an author's file would look. */
export function source(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** 1-based line and column of the `occurrence`-th (0-based) occurrence of `needle` in `text`. */
export function positionOf(text: string, needle: string, occurrence = 0): { line: number; column: number } {
  let index = -1;
  for (let i = 0; i <= occurrence; i++) {
    index = text.indexOf(needle, index + 1);
    if (index === -1) throw new Error(`'${needle}' occurs fewer than ${occurrence + 1} times`);
  }
  const before = text.slice(0, index);
  return { line: before.split('\n').length, column: index - before.lastIndexOf('\n') };
}

/** The findings of a result with one code. */
export function withCode(findings: Finding[], code: string): Finding[] {
  return findings.filter((f) => f.code === code);
}
