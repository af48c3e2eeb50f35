/**
 * Failover chains over emulated providers on local servers (emulations of the
 * OpenAI Responses, Anthropic Messages and Groq Chat Completions wire formats):
 * which failures move on, which stop, and what the result records. The bodies
 * are recorded ones (test/fixtures/providers/sources.json names each source).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isModelError, openModel, type KeySource } from '../../../../core/models/index';
import { createDispatcher } from '../../../../core/models/transport';
import type { GenerateRequest, ModelClient } from '../../../../core/models/types';
import {
  anthropicError,
  anthropicMessage,
  closedPort,
  groqChatCompletion,
  openaiError,
  openaiResponse,
  recordedReply,
  startEmulator,
  type Emulator,
} from '../../../helpers/modelEmulator';

const REQUEST: GenerateRequest = {
  messages: [{ role: 'user', content: 'Select the skills for: book a flight to Oslo' }],
  temperature: 0.01,
  maxOutputTokens: 512,
};
const OPENAI_KEY = 'sk-proj-CHAINopenaiKey0987654321abc';
const ANTHROPIC_KEY = 'sk-ant-api03-CHAINanthropicKey0987654';
const GROQ_KEY = 'gsk_CHAINgroqKey0987654321abcdef';

describe('Failover chain (emulated providers on local servers)', () => {
  const dispatcher = createDispatcher({}, {});
  let openai: Emulator;
  let anthropic: Emulator;
  let groq: Emulator;
  let client: ModelClient | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    openai = await startEmulator((r) => openaiResponse('{"from":"openai"}', String(r.body['model']), { input: 50, output: 5 }));
    anthropic = await startEmulator((r) => anthropicMessage('{"from":"anthropic"}', String(r.body['model']), { input: 60, output: 6 }));
    groq = await startEmulator((r) => groqChatCompletion('{"from":"groq"}', String(r.body['model']), { input: 70, output: 7 }));
    env = {
      OPENAI_API_KEY: OPENAI_KEY,
      OPENAI_BASE_URL: `${openai.origin}/v1`,
      ANTHROPIC_API_KEY: ANTHROPIC_KEY,
      ANTHROPIC_BASE_URL: `${anthropic.origin}/v1`,
      GROQ_API_KEY: GROQ_KEY,
      GROQ_BASE_URL: `${groq.origin}/openai/v1`,
    };
  });
  afterEach(async () => {
    await client?.close?.();
    client = undefined;
    for (const e of [openai, anthropic, groq]) e.requests.length = 0;
  });
  afterAll(async () => {
    await Promise.all([openai.close(), anthropic.close(), groq.close()]);
    await dispatcher.close();
  });

  const open = async (spec: string, extra: Record<string, string> = {}, options: { timeoutMs?: number; deadlineMs?: number; keys?: KeySource } = {}) => {
    client = await openModel(spec, { env: { ...env, ...extra }, dispatcher, retries: { baseDelayMs: 10, maxDelayMs: 40 }, ...options });
    return client;
  };

  it('moves past an unreachable provider (outage) and records both attempts', async () => {
    const port = await closedPort();
    const model = await open('chain:openai:fast,anthropic:fast', { OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` });
    const result = await model.generate(REQUEST);
    expect(result.text).toBe('{"from":"anthropic"}');
    expect(result.provider).toBe('anthropic');
    expect(result.model).toBe('claude-haiku-4-5');
    expect(result.usage).toEqual({ inputTokens: 60, outputTokens: 6 });
    expect(result.costUsd).toBeCloseTo((60 * 1 + 6 * 5) / 1e6, 12);
    expect(result.attempts.map((a) => [a.provider, a.model, a.ok, a.errorKind ?? null])).toEqual([
      ['openai', 'gpt-4.1-mini', false, 'outage'],
      ['anthropic', 'claude-haiku-4-5', true, null],
    ]);
    expect(model.spec).toBe('chain:openai:fast,anthropic:fast');
  });

  it('moves on after auth, quota, exhausted rate-limit retries and server errors, in order', async () => {
    openai.enqueue(openaiError(401, 'invalid key', 'invalid_request_error', 'invalid_api_key'));
    anthropic.enqueue(
      anthropicError(429, 'slow down', { 'retry-after': '0' }),
      anthropicError(429, 'slow down', { 'retry-after': '0' }),
      anthropicError(429, 'slow down', { 'retry-after': '0' }),
    );
    const model = await open('chain:openai:fast,anthropic:fast,groq:fast');
    const result = await model.generate(REQUEST);
    expect(result.provider).toBe('groq');
    expect(result.attempts.map((a) => `${a.provider}:${a.errorKind ?? 'ok'}`)).toEqual([
      'openai:auth',
      'anthropic:rate_limit',
      'anthropic:rate_limit',
      'anthropic:rate_limit',
      'groq:ok',
    ]);

    openai.enqueue(recordedReply('openai-error-insufficient-quota.json'));
    anthropic.enqueue(anthropicError(529, 'Overloaded'), anthropicError(529, 'Overloaded'), anthropicError(500, 'boom'));
    const second = await model.generate(REQUEST);
    expect(second.attempts.map((a) => `${a.provider}:${a.errorKind ?? 'ok'}:${a.status ?? '-'}`)).toEqual([
      'openai:quota:429',
      'anthropic:server:529',
      'anthropic:server:529',
      'anthropic:server:500',
      'groq:ok:-',
    ]);
  });

  it('fails over instead of waiting when Retry-After exceeds the maximum wait', async () => {
    openai.enqueue(openaiError(429, 'rate limited', 'requests', null, { 'retry-after': '3600' }));
    const model = await open('chain:openai:fast,groq:fast');
    const started = performance.now();
    const result = await model.generate(REQUEST);
    // Waiting would take an hour; failing over takes milliseconds (generous ceiling for a loaded machine).
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(result.attempts.map((a) => `${a.provider}:${a.errorKind ?? 'ok'}`)).toEqual(['openai:rate_limit', 'groq:ok']);
  });

  it('moves past a provider that times out', async () => {
    openai.enqueue({ hang: true });
    // The timeout applies to the answering provider too: far above a loaded machine's
    // slowest local answer, so only the hanging provider reaches it.
    const model = await open('chain:openai:fast,anthropic:fast', {}, { timeoutMs: 5000 });
    const result = await model.generate(REQUEST);
    expect(result.provider).toBe('anthropic');
    expect(result.attempts[0]).toMatchObject({ provider: 'openai', ok: false, errorKind: 'timeout' });
    expect(result.attempts[0]!.latencyMs).toBeGreaterThanOrEqual(4990);
  });

  it('moves past a provider without a key (auth) to the next one', async () => {
    const model = await open('chain:openai:fast,groq:fast', { OPENAI_API_KEY: '' });
    const result = await model.generate(REQUEST);
    expect(result.provider).toBe('groq');
    expect(result.attempts[0]).toMatchObject({ provider: 'openai', errorKind: 'auth' });
    expect(openai.requests).toHaveLength(0);
  });

  it('stops at once on malformed input (400) without trying the next provider', async () => {
    openai.enqueue(openaiError(400, "Invalid value for 'temperature'.", 'invalid_request_error', 'invalid_value'));
    const model = await open('chain:openai:fast,anthropic:fast');
    const failure = await model.generate(REQUEST).catch((e: unknown) => e);
    expect(isModelError(failure, 'malformed_input')).toBe(true);
    if (!isModelError(failure)) throw failure;
    expect(failure.status).toBe(400);
    expect(failure.attempts.map((a) => `${a.provider}:${a.errorKind}`)).toEqual(['openai:malformed_input']);
    expect(anthropic.requests).toHaveLength(0);
  });

  it('stops at once when the caller cancels, without trying the next provider', async () => {
    openai.enqueue({ hang: true });
    const model = await open('chain:openai:fast,anthropic:fast');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const started = performance.now();
    const failure = await model.generate({ ...REQUEST, signal: controller.signal }).catch((e: unknown) => e);
    expect(isModelError(failure, 'cancelled')).toBe(true);
    if (!isModelError(failure)) throw failure;
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(failure.attempts.map((a) => `${a.provider}:${a.errorKind}`)).toEqual(['openai:cancelled']);
    expect(anthropic.requests).toHaveLength(0);
  });

  it('stops with deadline when the caller signal is a timeout or the deadline budget runs out', async () => {
    openai.enqueue({ hang: true });
    const model = await open('chain:openai:fast,anthropic:fast');
    const failure = await model.generate({ ...REQUEST, signal: AbortSignal.timeout(150) }).catch((e: unknown) => e);
    expect(isModelError(failure, 'deadline')).toBe(true);
    expect(anthropic.requests).toHaveLength(0);
    await model.close?.();

    openai.enqueue({ hang: true });
    const budgeted = await open('chain:openai:fast,anthropic:fast', {}, { deadlineMs: 200, timeoutMs: 120_000 });
    const started = performance.now();
    const second = await budgeted.generate(REQUEST).catch((e: unknown) => e);
    expect(isModelError(second, 'deadline')).toBe(true);
    // The attempt timeout is two minutes; the 200 ms deadline must cut it short (the bound
    // is far from both, so a busy machine cannot decide it).
    expect(performance.now() - started).toBeLessThan(60_000);
    expect(anthropic.requests).toHaveLength(0);
  });

  it('gives every provider the same alias and lets each resolve it, env overrides included', async () => {
    const model = await open('chain:openai:fast,anthropic:fast,groq:fast', { TRUVAG3_ANTHROPIC_MODEL_FAST: 'claude-approved-fast', TRUVAG3_GROQ_MODEL_FAST: 'groq-approved-fast' });
    openai.enqueue(openaiError(503, 'unavailable', 'server_error'), openaiError(503, 'unavailable', 'server_error'), openaiError(503, 'unavailable', 'server_error'));
    anthropic.enqueue(anthropicError(401, 'invalid x-api-key'));
    const result = await model.generate(REQUEST);
    expect(openai.requests.map((r) => r.body['model'])).toEqual(['gpt-4.1-mini', 'gpt-4.1-mini', 'gpt-4.1-mini']);
    expect(anthropic.requests.map((r) => r.body['model'])).toEqual(['claude-approved-fast']);
    expect(groq.requests.map((r) => r.body['model'])).toEqual(['groq-approved-fast']);
    expect(result.model).toBe('groq-approved-fast');
    expect(result.costUsd).toBeNull();
  });

  it('reports the last failure with all attempts when every provider fails, keys redacted', async () => {
    openai.enqueue(openaiError(401, `Incorrect API key provided: ${OPENAI_KEY}`, 'invalid_request_error', 'invalid_api_key'));
    anthropic.enqueue(anthropicError(403, `key ${ANTHROPIC_KEY} may not use this model`));
    const model = await open('chain:openai:fast,anthropic:fast');
    const failure = await model.generate(REQUEST).catch((e: unknown) => e);
    expect(isModelError(failure, 'auth')).toBe(true);
    if (!isModelError(failure)) throw failure;
    expect(failure.provider).toBe('anthropic');
    expect(failure.attempts.map((a) => `${a.provider}:${a.status}`)).toEqual(['openai:401', 'anthropic:403']);
    expect(failure.message).toMatch(/^no model answered: openai .*; anthropic /);
    const text = `${failure.message}\n${JSON.stringify(failure.toJSON())}`;
    for (const key of [OPENAI_KEY, ANTHROPIC_KEY, GROQ_KEY]) expect(text).not.toContain(key);
  });

  it('takes keys from a KeySource instead of the environment', async () => {
    const asked: string[] = [];
    const keys: KeySource = {
      async getKey(provider) {
        asked.push(provider);
        return provider === 'groq' ? 'gsk_FROMKEYCHAIN1234567890' : undefined;
      },
    };
    const model = await open('chain:openai:fast,groq:fast', {}, { keys });
    const result = await model.generate(REQUEST);
    expect(asked).toEqual(['openai', 'groq']);
    expect(result.provider).toBe('groq');
    expect(groq.requests[0]!.headers['authorization']).toBe('Bearer gsk_FROMKEYCHAIN1234567890');
  });
});
