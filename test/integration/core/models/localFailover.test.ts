/**
 * A chain that falls back from an emulated hosted provider (a local server
 * replaying the OpenAI Responses wire format, here unreachable) to an
 * in-process GGUF model: the local model is a real chain member with its own
 * attempt record. The GGUF is the tiny generated test model, so only the
 * plumbing is checked, not answer quality.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openModel } from '../../../../core/models/index';
import { createDispatcher } from '../../../../core/models/transport';
import type { GenerateRequest } from '../../../../core/models/types';
import { writeTinyLlamaGguf } from '../../../helpers/gguf';
import { closedPort } from '../../../helpers/modelEmulator';

const REQUEST: GenerateRequest = {
  messages: [{ role: 'user', content: 'Restart the api pods.' }],
  temperature: 0.01,
  maxOutputTokens: 8,
  seed: 7,
};

describe('Failover from an emulated hosted provider to a local llama-cpp model', () => {
  let dir: string;
  let path: string;
  const dispatcher = createDispatcher({}, {});

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbench-chain-llama-'));
    path = (await writeTinyLlamaGguf(join(dir, 'tiny.gguf'), { seed: 5 })).path;
  });
  afterAll(async () => {
    await dispatcher.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers from the local model after the hosted one is unreachable, recording both attempts', async () => {
    const port = await closedPort();
    const env = { OPENAI_API_KEY: 'sk-proj-LOCALfailover123456789', OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` };
    const client = await openModel(`chain:openai:fast,llama-cpp:${path}?seed=3`, { env, dispatcher });
    try {
      const result = await client.generate(REQUEST);
      expect(result.provider).toBe('llama-cpp');
      expect(result.model).toBe('tiny.gguf');
      expect(result.costUsd).toBe(0);
      expect(result.usage.inputTokens).toBeGreaterThan(0);
      expect(result.usage.outputTokens).toBeGreaterThan(0);
      expect(result.attempts.map((a) => `${a.provider}:${a.ok ? 'ok' : a.errorKind}`)).toEqual(['openai:outage', 'llama-cpp:ok']);
      // Same request, same seed, same local answer.
      expect((await client.generate(REQUEST)).text).toBe(result.text);
    } finally {
      await client.close?.();
    }
  });

  it('opens a single llama-cpp spec with the spec options', async () => {
    const client = await openModel(`llama-cpp:${path}?seed=3`);
    try {
      expect(client.isBaseline).toBe(false);
      const result = await client.generate({ ...REQUEST, seed: undefined });
      expect(result.provider).toBe('llama-cpp');
      const again = await client.generate({ ...REQUEST, seed: undefined });
      expect(again.text).toBe(result.text);
    } finally {
      await client.close?.();
    }
  });
});
