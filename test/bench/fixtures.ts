/**
 * Synthetic skill packages for benches: one per topic, valid, with two small
 * resources. `detailed` adds the longer description and instructions a
 * realistic package carries; the lean form keeps prompts small where a bench
 * measures the runner rather than the prompt.
 */
import type { SkillPackage } from '../../core/package/types';

/** Package `i` of a synthetic catalog. */
export function benchPackage(i: number, options: { detailed: boolean; checklistLines: number }): SkillPackage {
  const topic = `topic${i}`;
  const { detailed, checklistLines } = options;
  return {
    display_name: `Skill ${i}`,
    description: `Use when a request asks about ${topic}: planning, checking and reporting on ${topic} for a trip or an operation${detailed ? ', including its risks and limits' : ''}.`,
    domains: ['bench'],
    tags: [topic, 'bench'],
    planning_instructions: [
      `Resolve every ${topic} detail before calling tools that depend on it.`,
      ...(detailed
        ? [`Prefer the authoritative ${topic} source and say which one was used.`, `When ${topic} data is older than a day, refresh it before relying on it.`]
        : []),
    ],
    response_instructions: [`State the ${topic} outcome first${detailed ? ', then the evidence for it' : ''}.`],
    tool_hints: [],
    resources: [0, 1].map((r) => ({
      name: `${topic}-ref-${r}`,
      description: `Reference ${r} for ${topic}.`,
      load_when: `Load when the ${topic} request involves case ${r}.`,
      applies_to: [],
      required_when_selected: false,
      content_type: 'text/markdown' as const,
      content: `# ${topic} reference ${r}\n\n${'- a checklist line about this topic.\n'.repeat(checklistLines)}`,
    })),
    activation_examples: { should_activate: [], should_not_activate: [] },
    change_reason: 'bench',
  };
}
