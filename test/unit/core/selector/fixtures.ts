/**
 * Test fixtures for the selector: packages built in code, a real in-memory
 * registry with real hashes, and a scripted ModelClient (a test double of our
 * own interface) that answers from a queue per task kind and records requests.
 */
import type { GenerateRequest, GenerateResult, ModelClient } from '../../../../core/models/types';
import type { SkillPackage, SkillResource } from '../../../../core/package/types';
import type { SkillBinding } from '../../../../core/selector/types';
import { createMemoryRegistry, type MemoryRegistry } from '../../../../core/workspace/catalog';

/** A complete, normalized package with sensible defaults. */
export function pkg(overrides: Partial<SkillPackage> = {}): SkillPackage {
  return {
    display_name: 'Test Skill',
    description: 'Use when a test needs a skill.',
    domains: [],
    tags: [],
    planning_instructions: ['Plan carefully.'],
    response_instructions: ['Answer clearly.'],
    tool_hints: [],
    resources: [],
    activation_examples: { should_activate: [], should_not_activate: [] },
    change_reason: 'test',
    ...overrides,
  };
}

/** A resource with defaults. */
export function resource(name: string, overrides: Partial<SkillResource> = {}): SkillResource {
  return {
    name,
    description: `The ${name} resource.`,
    load_when: `Load when ${name} matters.`,
    applies_to: [],
    required_when_selected: false,
    content_type: 'text/markdown',
    content: `Content of ${name}.`,
    ...overrides,
  };
}

/** Builds a memory registry from `namespace/name` → package. */
export async function registryOf(packages: Record<string, SkillPackage>): Promise<MemoryRegistry> {
  return createMemoryRegistry(
    Object.entries(packages).map(([id, p]) => {
      const [namespace, name] = id.split('/') as [string, string];
      return { id: { namespace, name }, package: p };
    }),
  );
}

/** A binding with defaults (auto, published, optional). */
export function bind(id: string, overrides: Partial<SkillBinding> = {}): SkillBinding {
  const [namespace, name] = id.split('/') as [string, string];
  return { namespace, name, version: 'published', activation: 'auto', required: false, ...overrides };
}

/** One scripted answer: text, a thrown error, or a function of the request. */
export type Script = string | Error | ((request: GenerateRequest) => string);

/** A ModelClient answering from per-kind queues; an exhausted queue throws. */
export class ScriptedModel implements ModelClient {
  readonly spec: string;
  readonly isBaseline = false;
  readonly requests: GenerateRequest[] = [];
  private readonly queues: { activation: Script[]; resource: Script[] };

  constructor(scripts: { activation?: Script[]; resource?: Script[] } = {}, spec = 'scripted:test') {
    this.queues = { activation: [...(scripts.activation ?? [])], resource: [...(scripts.resource ?? [])] };
    this.spec = spec;
  }

  /** Requests of one kind, in order. */
  calls(kind: 'activation' | 'resource'): GenerateRequest[] {
    return this.requests.filter((r) => r.task?.kind === kind);
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    this.requests.push(request);
    const kind = request.task?.kind ?? 'activation';
    const next = this.queues[kind].shift();
    if (next === undefined) throw new Error(`no scripted ${kind} answer left`);
    if (next instanceof Error) throw next;
    const text = typeof next === 'function' ? next(request) : next;
    return { text, usage: { inputTokens: 100, outputTokens: 7 }, model: 'scripted-model-1', provider: 'scripted', latencyMs: 3, costUsd: null, attempts: [] };
  }
}

/** An error shaped like a ModelError of the given kind. */
export function modelError(kind: string, message = `model ${kind}`): Error {
  return Object.assign(new Error(message), { kind, provider: 'scripted', details: { kind } });
}
