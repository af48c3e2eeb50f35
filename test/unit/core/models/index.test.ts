import { describe, expect, it } from 'vitest';
import { ModelSpecError, describeProviders, openModel, openModels } from '../../../../core/models/index';

describe('openModel', () => {
  it('rejects a bad spec with its position before opening anything', async () => {
    const failure = await openModel('opena:fast').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ModelSpecError);
    expect((failure as ModelSpecError).position).toBe(0);
  });

  it('rejects an openai-compatible alias without a mapping, naming the variable', async () => {
    const failure = await openModel('openai-compatible:http://127.0.0.1:1/v1#fast', { env: {} }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ModelSpecError);
    expect((failure as Error).message).toContain('TRUVAG3_OPENAI_COMPATIBLE_MODEL_FAST');
  });

  it('opens hosted specs without contacting the provider, keeping the spec', async () => {
    const [a, b] = await openModels(['openai:fast', 'chain:anthropic:smart,groq:smart'], { env: {} });
    expect(a!.spec).toBe('openai:fast');
    expect(b!.spec).toBe('chain:anthropic:smart,groq:smart');
    expect(a!.isBaseline).toBe(false);
    await Promise.all([a!.close?.(), b!.close?.()]);
  });

  it('parses every spec before opening any', async () => {
    // Opening the first spec would fail (its alias has no mapping); the parse error of the second must come first.
    const failure = await openModels(['openai-compatible:http://127.0.0.1:1/v1#fast', 'groq:'], { env: {} }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ModelSpecError);
    expect((failure as Error).message).toContain("'groq:'");
    expect((failure as Error).message).not.toContain('TRUVAG3_OPENAI_COMPATIBLE_MODEL_FAST');
    expect((failure as ModelSpecError).position).toBe(5);
  });
});

describe('describeProviders', () => {
  it('lists providers, aliases as resolved now, and key presence without key values', async () => {
    const env = {
      OPENAI_API_KEY: 'sk-proj-DESCRIBEkey123456789',
      TRUVAG3_GROQ_MODEL_FAST: 'groq-team-fast',
      ANTHROPIC_BASE_URL: 'https://user:pw@proxy.example/v1',
      TRUVAG3_OPENAI_COMPATIBLE_MODEL_DEFAULT: 'qwen3:8b',
    };
    const providers = await describeProviders({ env });
    expect(providers.map((p) => p.id)).toEqual(['openai', 'anthropic', 'groq', 'openai-compatible', 'llama-cpp', 'baseline']);
    const byId = Object.fromEntries(providers.map((p) => [p.id, p]));
    expect(byId['openai']!.keyConfigured).toBe(true);
    expect(byId['anthropic']!.keyConfigured).toBe(false);
    expect(byId['anthropic']!.baseUrl).toBe('https://proxy.example/v1');
    expect(byId['groq']!.aliases.find((a) => a.alias === 'fast')).toEqual({ alias: 'fast', model: 'groq-team-fast', source: 'env', envVar: 'TRUVAG3_GROQ_MODEL_FAST' });
    expect(byId['openai']!.aliases.find((a) => a.alias === 'fast')).toMatchObject({ model: 'gpt-4.1-mini', source: 'builtin', price: { inputPerMTok: 0.4 } });
    expect(byId['openai-compatible']!.aliases.map((a) => a.source)).toEqual(['env', 'unmapped', 'unmapped']);
    expect(byId['baseline']!.isBaseline).toBe(true);
    const text = JSON.stringify(providers);
    expect(text).not.toContain('DESCRIBEkey');
    expect(text).not.toContain('pw@');
  });
});
