/**
 * Each hosted provider adapter against a local server that emulates its
 * documented wire format. These are emulations, not the real services: they
 * prove request shape, answer decoding, error classification, retries and
 * timeouts, not model quality. Every answer is a recorded body (sources in
 * test/fixtures/providers/sources.json) with the test's text filled in.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isModelError, openModel, type OpenModelOptions } from '../../../../core/models/index';
import { createDispatcher } from '../../../../core/models/transport';
import type { GenerateRequest, ModelClient } from '../../../../core/models/types';
import {
  anthropicError,
  anthropicMessage,
  chatCompletion,
  groqChatCompletion,
  openaiResponse,
  openaiStatusError,
  startEmulator,
  type Emulator,
  type RecordedRequest,
  type Reply,
} from '../../../helpers/modelEmulator';

const dispatcher = createDispatcher({}, {});
afterAll(async () => {
  await dispatcher.close();
});

const REQUEST: GenerateRequest = {
  messages: [
    { role: 'system', content: 'You select skills. Answer with JSON only.' },
    { role: 'user', content: 'Request: will it rain in Lisbon tomorrow?' },
  ],
  temperature: 0.01,
  maxOutputTokens: 512,
};
const ANSWER = '{"selected":["travel/weather-assessment"]}';

interface ProviderCase {
  label: string;
  spec: (emulator: Emulator) => string;
  env: (emulator: Emulator) => Record<string, string>;
  key: string;
  /** The model id `fast` must resolve to (built in), sent on the wire. */
  fastModel: string;
  /** Path the adapter must POST to. */
  path: string;
  ok: (text: string, model: string, usage: { input: number; output: number }) => Reply;
  error: (status: number, message: string, headers?: Record<string, string>) => Reply;
  /** The request-body field carrying the output ceiling. */
  maxTokensField: string;
  /** Asserts the body carries no provider-native response format. */
  expectNoResponseFormat: (body: Record<string, unknown>) => void;
  authHeader: (request: RecordedRequest) => string | undefined;
  /** List price per million tokens of `fastModel`, or null when unpriced. */
  price: { input: number; output: number } | null;
}

const OPENAI_KEY = 'sk-proj-EMULATED0penAiKey1234567890';
const ANTHROPIC_KEY = 'sk-ant-api03-EMULATEDanthropicKey123456';
const GROQ_KEY = 'gsk_EMULATEDgroqKey12345678901234';
const COMPAT_KEY = 'local-server-token-abcdef123456';

const CASES: ProviderCase[] = [
  {
    label: 'OpenAI provider (emulated Responses API wire format on a local server)',
    spec: () => 'openai:fast',
    env: (e) => ({ OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: `${e.origin}/v1` }),
    key: OPENAI_KEY,
    fastModel: 'gpt-4.1-mini',
    path: '/v1/responses',
    ok: (text, model, usage) => openaiResponse(text, model, usage),
    error: (status, message, headers) => openaiStatusError(status, message, headers),
    maxTokensField: 'max_output_tokens',
    expectNoResponseFormat: (body) => expect(body['text']).toBeUndefined(),
    authHeader: (r) => r.headers['authorization'],
    price: { input: 0.4, output: 1.6 },
  },
  {
    label: 'Anthropic provider (emulated Messages API wire format on a local server)',
    spec: () => 'anthropic:fast',
    env: (e) => ({ ANTHROPIC_API_KEY: ANTHROPIC_KEY, ANTHROPIC_BASE_URL: `${e.origin}/v1` }),
    key: ANTHROPIC_KEY,
    fastModel: 'claude-haiku-4-5',
    path: '/v1/messages',
    ok: (text, model, usage) => anthropicMessage(text, model, usage),
    error: (status, message, headers) => anthropicError(status, message, headers),
    maxTokensField: 'max_tokens',
    expectNoResponseFormat: (body) => {
      expect(body['output_format']).toBeUndefined();
      expect(body['output_config']).toBeUndefined();
      expect(body['tools']).toBeUndefined();
    },
    authHeader: (r) => r.headers['x-api-key'] as string | undefined,
    price: { input: 1, output: 5 },
  },
  {
    label: 'Groq provider (emulated OpenAI-style Chat Completions wire format on a local server)',
    spec: () => 'groq:fast',
    env: (e) => ({ GROQ_API_KEY: GROQ_KEY, GROQ_BASE_URL: `${e.origin}/openai/v1` }),
    key: GROQ_KEY,
    fastModel: 'llama-3.1-8b-instant',
    path: '/openai/v1/chat/completions',
    ok: (text, model, usage) => groqChatCompletion(text, model, usage),
    error: (status, message, headers) => openaiStatusError(status, message, headers),
    maxTokensField: 'max_tokens',
    expectNoResponseFormat: (body) => expect(body['response_format']).toBeUndefined(),
    authHeader: (r) => r.headers['authorization'],
    price: { input: 0.05, output: 0.08 },
  },
  {
    label: 'OpenAI-compatible provider (emulated Chat Completions server, Ollama-style)',
    spec: (e) => `openai-compatible:${e.origin}/v1#fast`,
    env: () => ({ OPENAI_COMPATIBLE_API_KEY: COMPAT_KEY, TRUVAG3_OPENAI_COMPATIBLE_MODEL_FAST: 'llama3.1:8b' }),
    key: COMPAT_KEY,
    fastModel: 'llama3.1:8b',
    path: '/v1/chat/completions',
    ok: (text, model, usage) => chatCompletion(text, model, usage),
    error: (status, message, headers) => openaiStatusError(status, message, headers),
    maxTokensField: 'max_tokens',
    expectNoResponseFormat: (body) => expect(body['response_format']).toBeUndefined(),
    authHeader: (r) => r.headers['authorization'],
    price: null,
  },
];

describe.each(CASES)('$label', (c) => {
  let emulator: Emulator;
  let client: ModelClient | undefined;
  const open = async (options: Partial<OpenModelOptions> = {}, env: Record<string, string> = {}) => {
    client = await openModel(c.spec(emulator), {
      env: { ...c.env(emulator), ...env },
      dispatcher,
      retries: { baseDelayMs: 10, maxDelayMs: 50 },
      ...options,
    });
    return client;
  };

  beforeAll(async () => {
    emulator = await startEmulator((r) => c.ok(ANSWER, String(r.body['model']), { input: 120, output: 9 }));
  });
  afterEach(async () => {
    await client?.close?.();
    client = undefined;
    emulator.requests.length = 0;
  });
  afterAll(async () => {
    await emulator.close();
  });

  it('returns the answer with usage, cost, latency and one attempt', async () => {
    const model = await open();
    const result = await model.generate(REQUEST);
    expect(result.text).toBe(ANSWER);
    expect(result.usage).toEqual({ inputTokens: 120, outputTokens: 9 });
    expect(result.finishReason).toBe('stop');
    expect(result.model).toBe(c.fastModel);
    expect(result.provider).toBe(c.spec(emulator).split(':')[0]);
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
    const expectedCost = c.price === null ? null : (120 * c.price.input + 9 * c.price.output) / 1e6;
    if (expectedCost === null) expect(result.costUsd).toBeNull();
    else expect(result.costUsd).toBeCloseTo(expectedCost, 12);
    expect(result.attempts).toEqual([{ provider: result.provider, model: c.fastModel, ok: true, latencyMs: expect.any(Number) }]);
    expect(model.isBaseline).toBe(false);
  });

  it('reports the model the server says answered, not only the one requested', async () => {
    emulator.enqueue(c.ok(ANSWER, `${c.fastModel}-2026-01-01`, { input: 120, output: 9 }));
    const model = await open();
    const result = await model.generate(REQUEST);
    expect(emulator.requests[0]!.body['model']).toBe(c.fastModel);
    expect(result.model).toBe(`${c.fastModel}-2026-01-01`);
  });

  it('sends the alias-resolved model, temperature 0.01, the token ceiling and no response format', async () => {
    const model = await open();
    await model.generate(REQUEST);
    expect(emulator.requests).toHaveLength(1);
    const sent = emulator.requests[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe(c.path);
    expect(sent.body['model']).toBe(c.fastModel);
    expect(sent.body['temperature']).toBe(0.01);
    expect(sent.body[c.maxTokensField]).toBe(512);
    c.expectNoResponseFormat(sent.body);
    expect(c.authHeader(sent)).toContain(c.key);
    expect(JSON.stringify(sent.body)).toContain('will it rain in Lisbon tomorrow?');
    expect(JSON.stringify(sent.body)).toContain('You select skills.');
  });

  it('resolves the alias from TRUVAG3_<PROVIDER>_MODEL_<ALIAS> when set, and keeps FAST literal', async () => {
    const provider = c.spec(emulator).split(':')[0]!.toUpperCase().replace('-', '_');
    const model = await open({}, { [`TRUVAG3_${provider}_MODEL_FAST`]: 'team-approved-model' });
    const result = await model.generate(REQUEST);
    expect(emulator.requests[0]!.body['model']).toBe('team-approved-model');
    expect(result.model).toBe('team-approved-model');
    expect(result.costUsd).toBeNull();
    await model.close?.();
    if (!c.spec(emulator).startsWith('openai-compatible')) {
      const literal = await openModel(c.spec(emulator).replace(':fast', ':FAST'), { env: c.env(emulator), dispatcher });
      await literal.generate(REQUEST);
      expect(emulator.requests[1]!.body['model']).toBe('FAST');
    }
  });

  it('waits for Retry-After on a 429, then succeeds on the same provider', async () => {
    emulator.enqueue(c.error(429, 'Rate limit reached, try again in 1s', { 'retry-after': '1' }));
    const model = await open();
    const result = await model.generate(REQUEST);
    expect(result.text).toBe(ANSWER);
    expect(emulator.requests).toHaveLength(2);
    const waited = emulator.requests[1]!.at - emulator.requests[0]!.at;
    expect(waited).toBeGreaterThanOrEqual(950);
    // Generous ceiling: the machine may be loaded; the point is one Retry-After wait, not backoff on top.
    expect(waited).toBeLessThan(4000);
    expect(result.attempts.map((a) => [a.ok, a.errorKind, a.status])).toEqual([
      [false, 'rate_limit', 429],
      [true, undefined, undefined],
    ]);
  });

  it('retries a 5xx with backoff and succeeds', async () => {
    emulator.enqueue(c.error(500, 'internal error'), c.error(503, 'overloaded'));
    const model = await open();
    const result = await model.generate(REQUEST);
    expect(result.text).toBe(ANSWER);
    expect(result.attempts.map((a) => a.errorKind ?? 'ok')).toEqual(['server', 'server', 'ok']);
    expect(result.attempts.map((a) => a.status)).toEqual([500, 503, undefined]);
  });

  it('classifies a malformed JSON body as a server error instead of crashing', async () => {
    emulator.enqueue({ raw: '{"id": "broken", "output": [' }, { raw: '<html>bad gateway</html>' }, { raw: 'null' });
    const model = await open();
    const failure = await model.generate(REQUEST).catch((e: unknown) => e);
    expect(isModelError(failure, 'server')).toBe(true);
    if (!isModelError(failure)) throw failure;
    expect(failure.status).toBe(200);
    expect(failure.attempts).toHaveLength(3);
    expect(failure.message).toMatch(/could not be read/);
  });

  it('times out an attempt when the server never answers', async () => {
    emulator.enqueue({ hang: true });
    const model = await open({ timeoutMs: 300 });
    const started = performance.now();
    const failure = await model.generate(REQUEST).catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    expect(isModelError(failure, 'timeout')).toBe(true);
    expect(elapsed).toBeGreaterThanOrEqual(290);
    // The emulator never answers: only the attempt timeout can have ended the wait.
    expect(elapsed).toBeLessThan(60_000);
    expect(emulator.requests).toHaveLength(1);
  });

  it('reports a 401 as auth without the key in any message', async () => {
    // Real providers echo part of a wrong key; the emulator echoes all of it.
    emulator.enqueue(c.error(401, `Incorrect API key provided: ${c.key}. Header was Authorization: Bearer ${c.key}`));
    const model = await open();
    const failure = await model.generate(REQUEST).catch((e: unknown) => e);
    expect(isModelError(failure, 'auth')).toBe(true);
    if (!isModelError(failure)) throw failure;
    expect(failure.status).toBe(401);
    const everything = [failure.message, JSON.stringify(failure.toJSON()), String((failure.cause as Error | undefined)?.message), String(failure.stack)].join('\n');
    expect(everything).not.toContain(c.key);
    expect(everything).not.toContain(c.key.slice(4, 20));
    expect(emulator.requests).toHaveLength(1);
  });
});

describe('JSON Schema response format (emulated OpenAI and compatible servers)', () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator((r) =>
      r.path.endsWith('/responses') ? openaiResponse('not json at all', 'gpt-4.1-mini', { input: 5, output: 3 }) : chatCompletion('not json at all', 'qwen', { input: 5, output: 3 }),
    );
  });
  afterAll(async () => {
    await emulator.close();
  });
  const schema = { type: 'object', properties: { selected: { type: 'array', items: { type: 'string' } } }, required: ['selected'], additionalProperties: false };

  it('sets the provider-native format only when the request carries a schema, and returns the raw text', async () => {
    const openai = await openModel('openai:fast', { env: { OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: `${emulator.origin}/v1` }, dispatcher });
    const result = await openai.generate({ ...REQUEST, jsonSchema: schema });
    // The selector decodes and revalidates; the adapter must not swallow a non-JSON answer.
    expect(result.text).toBe('not json at all');
    const format = (emulator.requests[0]!.body['text'] as { format: Record<string, unknown> }).format;
    expect(format['type']).toBe('json_schema');
    expect(format['schema']).toMatchObject({ properties: { selected: { type: 'array' } } });

    const compatible = await openModel(`openai-compatible:${emulator.origin}/v1#qwen`, { env: {}, dispatcher });
    await compatible.generate({ ...REQUEST, jsonSchema: schema });
    const sent = emulator.requests[1]!;
    expect(sent.headers['authorization']).toBeUndefined();
    expect((sent.body['response_format'] as Record<string, unknown>)['type']).toBe('json_schema');
  });
});
