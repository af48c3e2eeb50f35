/**
 * Selector pipeline overhead: one `selectForRequest` over a 16-candidate auto
 * catalog (an activation call and a resource call, both answered instantly by an
 * in-process client with a fixed valid answer), against the same client called
 * directly the same number of times. The difference is what the pipeline itself
 * costs per evaluation case; the target is under 1 ms.
 */
import type { GenerateRequest, GenerateResult, ModelClient } from '../../core/models/types';
import type { SkillPackage } from '../../core/package/types';
import { selectForRequest } from '../../core/selector/select';
import type { SkillBinding } from '../../core/selector/types';
import { createMemoryRegistry } from '../../core/workspace/catalog';
import { compare, type BenchRow } from './harness';

const CANDIDATES = 16;

function benchPackage(i: number): SkillPackage {
  const topic = `topic${i}`;
  return {
    display_name: `Skill ${i}`,
    description: `Use when a request asks about ${topic}: planning, checking and reporting on ${topic} for a trip or an operation, including its risks and limits.`,
    domains: ['bench'],
    tags: [topic, 'bench'],
    planning_instructions: [
      `Resolve every ${topic} detail before calling tools that depend on it.`,
      `Prefer the authoritative ${topic} source and say which one was used.`,
      `When ${topic} data is older than a day, refresh it before relying on it.`,
    ],
    response_instructions: [`State the ${topic} outcome first, then the evidence for it.`],
    tool_hints: [],
    resources: [0, 1].map((r) => ({
      name: `${topic}-ref-${r}`,
      description: `Reference ${r} for ${topic}.`,
      load_when: `Load when the ${topic} request involves case ${r}.`,
      applies_to: [],
      required_when_selected: false,
      content_type: 'text/markdown' as const,
      content: `# ${topic} reference ${r}\n\n${'- a checklist line about this topic.\n'.repeat(20)}`,
    })),
    activation_examples: { should_activate: [], should_not_activate: [] },
    change_reason: 'bench',
  };
}

/** Answers instantly with a fixed valid answer per task kind. */
class InstantModel implements ModelClient {
  readonly spec = 'bench:instant';
  readonly isBaseline = true;
  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const text =
      request.task?.kind === 'resource'
        ? '{"resources":[{"skill":"bench/s03","name":"topic3-ref-0"}]}'
        : '{"activate":["bench/s03","bench/s07"]}';
    return { text, usage: { inputTokens: 0, outputTokens: 0 }, model: 'instant', provider: 'bench', latencyMs: 0, costUsd: null, attempts: [] };
  }
}

/** Bench rows of the `selector` suite. */
export async function bench(): Promise<BenchRow[]> {
  const entries = Array.from({ length: CANDIDATES }, (_, i) => ({
    id: { namespace: 'bench', name: `s${String(i).padStart(2, '0')}` },
    package: benchPackage(i),
  }));
  const registry = await createMemoryRegistry(entries);
  const bindings: SkillBinding[] = entries.map((e) => ({ ...e.id, version: 'published', activation: 'auto', required: false }));
  const model = new InstantModel();
  const request = 'Check topic3 and topic7 before the trip next week, and report the risks.';

  // Sanity check: the bench measures a real, successful selection.
  const check = await selectForRequest({ request, bindings, registry, model });
  if (check.activated.join(',') !== 'bench/s03,bench/s07' || check.resources.length !== 1 || check.trace.calls.length !== 2) {
    throw new Error(`selector bench fixture is not selecting as expected: ${JSON.stringify({ activated: check.activated, resources: check.resources })}`);
  }
  const calls = check.trace.calls.length;
  const direct = async () => {
    for (let i = 0; i < calls; i++) await model.generate({ messages: [], temperature: 0.01, maxOutputTokens: 512 });
  };
  const { subjectMs, baselineMs } = await compare(() => selectForRequest({ request, bindings, registry, model }), direct, { rounds: 25, batch: 200, warmup: 5 });
  const overhead = subjectMs - baselineMs;
  return [
    {
      suite: 'selector',
      name: `selectForRequest, ${CANDIDATES} candidates (2 model calls)`,
      medianMs: subjectMs,
      baselineName: `${calls} direct generate calls`,
      baselineMs,
      ratio: baselineMs > 0 ? subjectMs / baselineMs : Number.POSITIVE_INFINITY,
      target: 'overhead < 1 ms',
      met: overhead < 1,
      note: `overhead ${overhead.toFixed(3)} ms per call`,
    },
  ];
}
