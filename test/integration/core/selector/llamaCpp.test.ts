/**
 * The selector pipeline end to end on real llama.cpp inference: the example
 * skills in a local registry, a tiny random-weight model in-process. The model
 * answers noise, so these tests check what must hold whatever it says.
 */
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLlamaCppModel } from '../../../../core/models/llamaCpp';
import type { ModelClient } from '../../../../core/models/types';
import { parseBindings } from '../../../../core/selector/bindings';
import { selectForRequest, type SelectionResult } from '../../../../core/selector/select';
import type { SkillBinding } from '../../../../core/selector/types';
import { openLocalStore } from '../../../../core/store/local';
import { seedExamples } from '../../../../core/store/seed';
import type { SkillStore } from '../../../../core/store/types';
import { writeTinyLlamaGguf } from '../../../helpers/gguf';

const EXAMPLES = fileURLToPath(new URL('../../../../examples/', import.meta.url));
const REQUESTS = [
  'The payments deployment is failing its readiness probes after the last rollout; roll it back safely.',
  'Plan a three-day trip to Lisbon next week and tell me whether the weather will be good.',
];

let dir: string;
let store: SkillStore;
let withGrammar: ModelClient;
let withoutGrammar: ModelClient;
let devopsBindings: SkillBinding[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbench-select-llama-'));
  store = await openLocalStore(join(dir, 'registry'));
  const seeded = await seedExamples(store, join(EXAMPLES, 'skills', 'packages'));
  expect(seeded.published.length).toBeGreaterThan(0);
  const parsed = parseBindings(await readFile(join(EXAMPLES, 'bindings', 'devops.json'), 'utf8'));
  if (!parsed.ok) throw new Error(`example bindings do not parse: ${JSON.stringify(parsed.issues)}`);
  devopsBindings = [...parsed.bindings];
  // Selector prompts carry the whole body-free catalog; one token per character needs room.
  const model = await writeTinyLlamaGguf(join(dir, 'tiny.gguf'), { seed: 3, contextLength: 8192 });
  withGrammar = await openLlamaCppModel(model.path, { grammar: true });
  withoutGrammar = await openLlamaCppModel(model.path);
});

afterAll(async () => {
  await withGrammar?.close?.();
  await withoutGrammar?.close?.();
  await store?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function pinnedIds(result: SelectionResult): Set<string> {
  return new Set(result.trace.pinning.filter((p) => p.status === 'pinned').map((p) => p.skill));
}

function expectSoundResult(result: SelectionResult, modelName: string): void {
  const pinned = pinnedIds(result);
  expect(pinned.size).toBeGreaterThan(0);
  for (const id of result.activated) expect(pinned).toContain(id);
  expect(result.trace.calls.length).toBeGreaterThan(0);
  for (const call of result.trace.calls) {
    expect(call.provider).toBe('llama-cpp');
    expect(call.model).toBe(modelName);
    expect(call.messages.map((m) => m.role)).toEqual(expect.arrayContaining(['system', 'user']));
    expect(call.messages.every((m) => m.content.length > 0)).toBe(true);
    expect(call.attempts.length).toBeGreaterThan(0);
    for (const attempt of call.attempts) {
      // Every attempt reached the model: no transport or adapter failure hides behind a diagnostic.
      expect(typeof attempt.raw).toBe('string');
      expect(attempt.usage?.inputTokens).toBeGreaterThan(0);
      expect(attempt.latencyMs).toBeGreaterThan(0);
    }
    expect(typeof call.raw).toBe('string');
    expect(call.usage.inputTokens).toBeGreaterThan(0);
    expect(call.usage.outputTokens).toBeGreaterThan(0);
    expect(call.latencyMs).toBeGreaterThan(0);
    for (const id of call.accepted) expect(call.candidates).toContain(id);
  }
  expect(result.trace.usage.inputTokens).toBe(result.trace.calls.reduce((n, c) => n + c.usage.inputTokens, 0));
}

describe('selectForRequest on an in-process llama.cpp model', () => {
  it('with grammar decoding, every answer decodes and activates only pinned candidates', async () => {
    for (const request of REQUESTS) {
      const result = await selectForRequest({ request, registry: store, model: withGrammar });
      expectSoundResult(result, 'tiny.gguf');
      for (const call of result.trace.calls) {
        // The grammar admits only the answer shape with offered identities: decoding never fails.
        expect(call.decision).not.toBeNull();
        expect(call.attempts[0]?.outcome).not.toBe('malformed');
      }
      const activation = result.trace.calls.find((c) => c.kind === 'activation');
      expect(activation).toBeDefined();
      expect(JSON.parse(activation!.raw!)).toHaveProperty('activate');
      // Resources come only from active skills, and only ones offered at this boundary.
      for (const r of result.resources) {
        expect(result.activated).toContain(r.skill);
        expect(result.trace.resourceCatalog).toContain(`${r.skill}#${r.name}`);
      }
    }
  });

  it('with grammar decoding and example bindings, required always-on skills stay active', async () => {
    const result = await selectForRequest({ request: REQUESTS[0]!, registry: store, model: withGrammar, bindings: devopsBindings });
    expectSoundResult(result, 'tiny.gguf');
    for (const b of devopsBindings.filter((x) => x.activation === 'always')) {
      expect(result.activated).toContain(`${b.namespace}/${b.name}`);
    }
  });

  it('without grammar, whatever the model says, the pipeline reports instead of crashing', async () => {
    // A short output ceiling keeps the two attempts of noise cheap; the pipeline's handling is the same.
    const result = await selectForRequest({ request: REQUESTS[0]!, registry: store, model: withoutGrammar, limits: { resolutionMaxTokens: 48 } });
    expectSoundResult(result, 'tiny.gguf');
    const activation = result.trace.calls.find((c) => c.kind === 'activation');
    expect(activation).toBeDefined();
    for (const attempt of activation!.attempts) expect(attempt.usage?.outputTokens).toBeLessThanOrEqual(48);
    if (activation!.decision === null) {
      // Noise is not an answer: the correction attempt runs, then the omission is a diagnostic.
      expect(activation!.attempts.map((a) => a.outcome)).toEqual(['malformed', 'malformed']);
      expect(activation!.attempts[1]?.correction).toBe(true);
      expect(activation!.diagnostics.map((d) => d.code)).toContain('skill_activation_selection_invalid');
      expect(result.activated).toEqual([]);
    } else {
      // The noise happened to parse: then it was an answer the pipeline accepted on a well-formed attempt, naming only offered candidates.
      expect(activation!.attempts.at(-1)?.outcome).toBe('ok');
      const decision = activation!.decision;
      expect(decision).toHaveProperty('activate');
      for (const skill of 'activate' in decision ? decision.activate : []) expect(activation!.candidates).toContain(skill);
    }
  });
});
