/**
 * Our hosted-provider client against provider bodies recorded from the
 * providers' own published examples and SDK test fixtures, served unchanged
 * (byte for byte, with their recorded status) by a local emulated server. Each
 * case names its source; test/fixtures/providers/sources.json holds the
 * repository, path and commit. If a provider or SDK changes the wire format in
 * a way our client misreads, the answer text, token counts, model id, finish
 * reason or error kind read here stops matching the recording.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isModelError, openModel } from '../../../../core/models/index';
import { createDispatcher } from '../../../../core/models/transport';
import type { GenerateRequest, ModelClient, ModelErrorKind } from '../../../../core/models/types';
import { fill, recorded, slotValue, type RecordedName } from '../../../helpers/providerFixtures';
import { recordedReply, startEmulator, type Emulator } from '../../../helpers/modelEmulator';

const dispatcher = createDispatcher({}, {});
afterAll(async () => {
  await dispatcher.close();
});

const REQUEST: GenerateRequest = {
  messages: [{ role: 'user', content: 'Which skill books a train to Porto?' }],
  temperature: 0.01,
  maxOutputTokens: 512,
};

type Provider = 'openai' | 'anthropic' | 'groq' | 'openai-compatible';

/** How to reach each provider adapter at an emulator. */
function target(provider: Provider, emulator: Emulator): { spec: string; env: Record<string, string> } {
  switch (provider) {
    case 'openai':
      return { spec: 'openai:fast', env: { OPENAI_API_KEY: 'sk-proj-RECORDEDbodies1234567890', OPENAI_BASE_URL: `${emulator.origin}/v1` } };
    case 'anthropic':
      return { spec: 'anthropic:fast', env: { ANTHROPIC_API_KEY: 'sk-ant-api03-RECORDEDbodies12345', ANTHROPIC_BASE_URL: `${emulator.origin}/v1` } };
    case 'groq':
      return { spec: 'groq:fast', env: { GROQ_API_KEY: 'gsk_RECORDEDbodies1234567890abcd', GROQ_BASE_URL: `${emulator.origin}/openai/v1` } };
    case 'openai-compatible':
      return { spec: `openai-compatible:${emulator.origin}/v1#fast`, env: { TRUVAG3_OPENAI_COMPATIBLE_MODEL_FAST: 'llama3.1:8b' } };
  }
}

let emulator: Emulator;
let client: ModelClient | undefined;
beforeAll(async () => {
  emulator = await startEmulator({ status: 500, raw: 'no reply queued' });
});
afterEach(async () => {
  await client?.close?.();
  client = undefined;
  emulator.requests.length = 0;
});
afterAll(async () => {
  await emulator.close();
});

async function open(provider: Provider): Promise<ModelClient> {
  const { spec, env } = target(provider, emulator);
  client = await openModel(spec, { env, dispatcher, retries: { baseDelayMs: 1, maxDelayMs: 5 } });
  return client;
}

const ANSWERS: Array<{ provider: Provider; body: RecordedName }> = [
  { provider: 'openai', body: 'openai-responses.json' },
  { provider: 'anthropic', body: 'anthropic-message.json' },
  { provider: 'groq', body: 'groq-chat-completion.json' },
  { provider: 'openai-compatible', body: 'openai-chat-completion.json' },
];

describe.each(ANSWERS.map((c) => ({ ...c, cite: recorded(c.body).cite })))('$provider reads the recorded answer $body (emulated server; source $cite)', ({ provider, body }) => {
  it('returns its text, token counts, model id and finish reason as recorded', async () => {
    emulator.enqueue(recordedReply(body));
    const model = await open(provider);
    const result = await model.generate(REQUEST);
    expect(emulator.requests).toHaveLength(1);
    expect(result.text).toBe(slotValue(body, 'text'));
    expect(result.text.length).toBeGreaterThan(0);
    expect(result.usage).toEqual({ inputTokens: slotValue(body, 'inputTokens'), outputTokens: slotValue(body, 'outputTokens') });
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.model).toBe(slotValue(body, 'model'));
    // Every recording here is a natural end: `completed` (Responses), `end_turn` (Messages), `stop` (Chat Completions).
    expect(result.finishReason).toBe('stop');
    expect(result.attempts).toEqual([{ provider, model: expect.any(String), ok: true, latencyMs: expect.any(Number) }]);
  });

  it('reads an answer written into the recorded text slot, as the other emulated tests serve it', async () => {
    const text = '{"activate":["travel/rail-booking"]}';
    emulator.enqueue({ status: 200, json: fill(body, { text }) });
    const result = await (await open(provider)).generate(REQUEST);
    expect(result.text).toBe(text);
    expect(result.usage.outputTokens).toBe(slotValue(body, 'outputTokens'));
  });
});

const ERRORS: Array<{ provider: Provider; body: RecordedName; kind: ModelErrorKind }> = [
  // OpenAI reports billing exhaustion as a 429; it must not be retried as a rate limit.
  { provider: 'openai', body: 'openai-error-insufficient-quota.json', kind: 'quota' },
  { provider: 'groq', body: 'openai-error-insufficient-quota.json', kind: 'quota' },
  { provider: 'openai-compatible', body: 'openai-error-insufficient-quota.json', kind: 'quota' },
  { provider: 'openai', body: 'openai-error-unsupported-parameter.json', kind: 'malformed_input' },
  { provider: 'openai-compatible', body: 'openai-error-unsupported-parameter.json', kind: 'malformed_input' },
  { provider: 'anthropic', body: 'anthropic-error-overloaded.json', kind: 'server' },
  { provider: 'anthropic', body: 'anthropic-error-invalid-request.json', kind: 'malformed_input' },
];

describe.each(ERRORS.map((c) => ({ ...c, cite: recorded(c.body).cite, status: recorded(c.body).status })))(
  '$provider reads the recorded error $body, HTTP $status (emulated server; source $cite)',
  ({ provider, body, kind, status }) => {
    it(`classifies it as ${kind} with the status and the provider's own message`, async () => {
      emulator.fallback = recordedReply(body);
      try {
        const model = await open(provider);
        const failure = await model.generate(REQUEST).catch((e: unknown) => e);
        expect(isModelError(failure, kind)).toBe(true);
        if (!isModelError(failure)) throw failure;
        expect(failure.status).toBe(status);
        // The message comes out of the body's error object, so a misread envelope loses it.
        expect(failure.message).toContain(String(slotValue(body, 'message')).slice(0, 60));
        expect(failure.attempts.length).toBe(emulator.requests.length);
        expect(failure.attempts.every((a) => a.errorKind === kind && a.status === status)).toBe(true);
      } finally {
        emulator.fallback = { status: 500, raw: 'no reply queued' };
      }
    });
  },
);
