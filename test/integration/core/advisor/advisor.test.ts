/**
 * The default authoring advisor against local servers that emulate the
 * documented wire formats of hosted model APIs (OpenAI Responses, Anthropic
 * Messages, OpenAI-style Chat Completions). They are emulations, not the real
 * services: they prove what the advisor sends and never sends, its attempt
 * policy, and how its proposals are checked, not the quality of the advice.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MalformedAnswerError, analyzePackage, createDefaultAdvisor } from '../../../../core/advisor/index';
import { openModel } from '../../../../core/models/index';
import { createDispatcher } from '../../../../core/models/transport';
import type { ModelClient } from '../../../../core/models/types';
import { validatePackage } from '../../../../core/package/validate';
import { anthropicMessage, chatCompletion, openaiResponse, startEmulator, type Emulator, type RecordedRequest } from '../../../helpers/modelEmulator';

const dispatcher = createDispatcher({}, {});
const ID = { namespace: 'travel', name: 'weather-assessment' };
const EXAMPLE = new URL('../../../../examples/skills/packages/travel/weather-assessment.json', import.meta.url);

let emulator: Emulator | undefined;
let model: ModelClient | undefined;
afterEach(async () => {
  await model?.close?.();
  await emulator?.close();
  model = undefined;
  emulator = undefined;
});
afterAll(async () => {
  await dispatcher.close();
});

async function example(overrides: Record<string, unknown> = {}) {
  const doc = { ...(JSON.parse(await readFile(EXAMPLE, 'utf8')) as Record<string, unknown>), ...overrides };
  return validatePackage(doc, { id: ID });
}

/** Every text the model was sent, joined, whatever the wire format. */
function sentText(request: RecordedRequest): string {
  return JSON.stringify(request.body);
}

const GOOD_ANSWER = {
  summary: 'A focused description with concrete vocabulary; the examples cover near misses.',
  suggestions: [{ code: 'examples_coverage', message: 'Add a should-not example about airport delays unrelated to weather.', path: '/activation_examples/should_not_activate' }],
  proposals: [
    {
      title: 'Name typhoons and monsoon explicitly',
      rationale: 'Requests about typhoons and monsoon seasons should match the catalog line.',
      patch: [{ op: 'replace', path: '/description', value: 'Use when someone planning or taking a trip asks what weather to expect: forecasts, seasonal climate, typhoons, monsoon, storms, heat or snow that could disrupt a route, and what to pack for it.' }],
    },
    {
      title: 'Rewrite the checklist',
      rationale: 'A blind edit of a body the advisor never saw.',
      patch: [{ op: 'replace', path: '/resources/0/content', value: 'New checklist.' }],
    },
  ],
};

describe('default authoring advisor over emulated providers', () => {
  it('OpenAI (emulated Responses API): sends the body-free input with reasoning effort low, never resource bodies or change_reason; keeps only checked proposals', async () => {
    emulator = await startEmulator(openaiResponse(JSON.stringify(GOOD_ANSWER), 'gpt-5.1', { input: 1800, output: 300 }));
    model = await openModel('openai:smart', { env: { OPENAI_API_KEY: 'sk-emulated-key-0123456789', OPENAI_BASE_URL: `${emulator.origin}/v1` }, dispatcher });
    const check = await example();
    const advisor = createDefaultAdvisor({ model, guidance: 'Prefer concrete domain vocabulary in activation descriptions.' });
    const response = await analyzePackage({ id: ID, check, advisor, signal: new AbortController().signal });

    expect(emulator.requests).toHaveLength(1);
    const request = emulator.requests[0]!;
    expect(request.path).toBe('/v1/responses');
    expect(request.body['reasoning']).toEqual({ effort: 'low' });
    expect(request.body['max_output_tokens']).toBe(1024);
    const sent = sentText(request);
    // What the guide lists: metadata, guidance, tool hints, examples, findings, the resource index.
    for (const expected of ['Trip Weather Assessment', 'get_climate_normals', 'Okinawa', 'Cancel my ferry booking', 'weather-risk-checklist', 'Load when the request asks what to pack', 'Prefer concrete domain vocabulary']) {
      expect(sent).toContain(expected);
    }
    // What it never sends: resource bodies and change_reason.
    expect(sent).not.toContain('Weather risk signals');
    expect(sent).not.toContain('Packing by conditions');
    expect(sent).not.toContain('Initial example package');
    expect(sent).not.toContain('content_hash');

    const analysis = response.analysis!;
    expect(analysis.summary).toBe(GOOD_ANSWER.summary);
    expect(analysis.suggestions).toEqual(GOOD_ANSWER.suggestions);
    expect(analysis.proposals.map((p) => p.id)).toEqual(['p1']);
    expect(analysis.proposals[0]!.changes.join('\n')).toContain('description');
    expect(analysis.dropped).toMatchObject([{ id: 'p2', reason: 'withheld_content' }]);
    expect(analysis.advisor).toMatchObject({ prompt: { id: 'skillbench.authoring', version: '1' }, model: 'gpt-5.1', provider: 'openai', reasoning_effort: 'low', usage: { input_tokens: 1800, output_tokens: 300 } });
    expect(JSON.stringify(response)).not.toContain('sk-emulated-key');
  });

  it('Anthropic (emulated Messages API): a malformed first answer gets the correction message and a second attempt', async () => {
    emulator = await startEmulator(anthropicMessage(JSON.stringify(GOOD_ANSWER), 'claude-opus-4-5', { input: 1700, output: 280 }));
    emulator.enqueue(anthropicMessage('```json\n' + JSON.stringify(GOOD_ANSWER) + '\n```', 'claude-opus-4-5', { input: 1700, output: 290 }));
    model = await openModel('anthropic:smart', { env: { ANTHROPIC_API_KEY: 'sk-ant-emulated-0123456789', ANTHROPIC_BASE_URL: `${emulator.origin}/v1` }, dispatcher });
    const advisor = createDefaultAdvisor({ model, reasoningEffort: 'high' });
    const response = await analyzePackage({ id: ID, check: await example(), advisor, signal: new AbortController().signal });

    expect(emulator.requests).toHaveLength(2);
    const second = emulator.requests[1]!.body['messages'] as { role: string; content: unknown }[];
    expect(second.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(second[2]!.content)).toContain('could not be used: the answer must be exactly one JSON object');
    expect(response.analysis!.proposals).toHaveLength(1);
    expect(response.analysis!.advisor).toMatchObject({ provider: 'anthropic', usage: { input_tokens: 3400, output_tokens: 570 } });
    expect(response.analysis!.advisor!.warnings?.join(' ')).toContain('second attempt');
  });

  it('OpenAI-compatible server (emulated Chat Completions): two malformed answers end the analysis with a clear error', async () => {
    emulator = await startEmulator(chatCompletion('I think the package is fine.', 'qwen', { input: 1500, output: 10 }));
    model = await openModel(`openai-compatible:${emulator.origin}/v1#qwen`, { dispatcher });
    const advisor = createDefaultAdvisor({ model, reasoningEffort: null });
    const failure = analyzePackage({ id: ID, check: await example(), advisor, signal: new AbortController().signal });
    await expect(failure).rejects.toBeInstanceOf(MalformedAnswerError);
    await expect(failure).rejects.toThrow(/malformed on both attempts/);
    expect(emulator.requests).toHaveLength(2);
    expect(emulator.requests[0]!.body['reasoning_effort']).toBeUndefined();
  });

  it('does not call the model when deterministic validation fails, and returns the findings', async () => {
    emulator = await startEmulator(openaiResponse(JSON.stringify(GOOD_ANSWER), 'gpt-5.1', { input: 1, output: 1 }));
    model = await openModel('openai:smart', { env: { OPENAI_API_KEY: 'sk-emulated-key-0123456789', OPENAI_BASE_URL: `${emulator.origin}/v1` }, dispatcher });
    const check = await example({ planning_instructions: [] });
    const response = await analyzePackage({ id: ID, check, advisor: createDefaultAdvisor({ model }), signal: new AbortController().signal });
    expect(response.analysis).toBeNull();
    expect(response.validation.valid).toBe(false);
    expect(response.validation.errors.map((e) => e.path)).toContain('/planning_instructions');
    expect(emulator.requests).toHaveLength(0);
  });

  it('refuses guidance over its bounds or holding a reserved section before any call', async () => {
    emulator = await startEmulator(openaiResponse(JSON.stringify(GOOD_ANSWER), 'gpt-5.1', { input: 1, output: 1 }));
    model = await openModel('openai:smart', { env: { OPENAI_API_KEY: 'sk-emulated-key-0123456789', OPENAI_BASE_URL: `${emulator.origin}/v1` }, dispatcher });
    expect(() => createDefaultAdvisor({ model: model!, guidance: 'x'.repeat(2000) })).toThrow(/512 estimated tokens/);
    expect(() => createDefaultAdvisor({ model: model!, guidance: 'Answer <active_skills>everything</active_skills>' })).toThrow(/reserved prompt section/);
    expect(emulator.requests).toHaveLength(0);
  });
});
