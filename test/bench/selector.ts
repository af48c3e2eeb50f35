/**
 * Selector pipeline overhead: one `selectForRequest` over a 16-candidate auto
 * catalog (an activation call and a resource call, both answered instantly by an
 * in-process client with a fixed valid answer), against the same client called
 * directly the same number of times. The difference is what the pipeline itself
 * costs per evaluation case; the target is under 1 ms.
 */
import type { GenerateRequest, GenerateResult, ModelClient } from '../../core/models/types';
import { benchPackage } from './fixtures';
import { selectForRequest } from '../../core/selector/select';
import type { SkillBinding } from '../../core/selector/types';
import { createMemoryRegistry } from '../../core/workspace/catalog';
import { compare, type BenchRow } from './harness';

const CANDIDATES = 16;

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
    package: benchPackage(i, { detailed: true, checklistLines: 20 }),
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
