import { describe, expect, it } from 'vitest';
import { BUILTIN_MODELS, MODEL_ALIASES, aliasEnvVar, costOf, isModelAlias, priceOf, resolveModelId } from '../../../../core/models/aliases';

describe('model aliases', () => {
  it('maps each portable alias to the built-in model of each provider', () => {
    for (const provider of ['openai', 'anthropic', 'groq'] as const) {
      for (const alias of MODEL_ALIASES) {
        expect(resolveModelId(provider, alias, {})).toEqual({ model: BUILTIN_MODELS[provider][alias].id, alias, source: 'builtin' });
      }
    }
    expect(resolveModelId('openai', 'fast', {})!.model).toBe('gpt-4.1-mini');
    expect(resolveModelId('anthropic', 'smart', {})!.model).toBe('claude-opus-4-5');
    expect(resolveModelId('groq', 'default', {})!.model).toBe('llama-3.3-70b-versatile');
  });

  it('prefers TRUVAG3_<PROVIDER>_MODEL_<ALIAS>, ignoring blank values', () => {
    const env = { TRUVAG3_OPENAI_MODEL_FAST: ' gpt-5.6-luna ', TRUVAG3_GROQ_MODEL_SMART: '   ' };
    expect(resolveModelId('openai', 'fast', env)).toEqual({ model: 'gpt-5.6-luna', alias: 'fast', source: 'env', envVar: 'TRUVAG3_OPENAI_MODEL_FAST' });
    expect(resolveModelId('openai', 'smart', env)!.source).toBe('builtin');
    expect(resolveModelId('groq', 'smart', env)!.model).toBe('openai/gpt-oss-120b');
    expect(resolveModelId('anthropic', 'fast', env)!.model).toBe('claude-haiku-4-5');
  });

  it('is case-sensitive: FAST and Fast are literal model ids', () => {
    const env = { TRUVAG3_OPENAI_MODEL_FAST: 'override' };
    expect(isModelAlias('FAST')).toBe(false);
    expect(resolveModelId('openai', 'FAST', env)).toEqual({ model: 'FAST', source: 'literal' });
    expect(resolveModelId('openai', 'Fast', env)).toEqual({ model: 'Fast', source: 'literal' });
    expect(resolveModelId('openai', 'gpt-4o', env)).toEqual({ model: 'gpt-4o', source: 'literal' });
  });

  it('resolves openai-compatible aliases only through their variable', () => {
    expect(aliasEnvVar('openai-compatible', 'fast')).toBe('TRUVAG3_OPENAI_COMPATIBLE_MODEL_FAST');
    expect(resolveModelId('openai-compatible', 'fast', {})).toBeUndefined();
    expect(resolveModelId('openai-compatible', 'fast', { TRUVAG3_OPENAI_COMPATIBLE_MODEL_FAST: 'qwen3:8b' })!.model).toBe('qwen3:8b');
    expect(resolveModelId('openai-compatible', 'qwen3:8b', {})).toEqual({ model: 'qwen3:8b', source: 'literal' });
  });

  it('prices the built-in models per million tokens and returns null for others', () => {
    expect(priceOf('openai', 'gpt-4.1-mini')).toEqual({ inputPerMTok: 0.4, outputPerMTok: 1.6 });
    // 1,000 input tokens at $0.40/M plus 500 output tokens at $1.60/M.
    expect(costOf('openai', 'gpt-4.1-mini', { inputTokens: 1000, outputTokens: 500 })).toBeCloseTo(0.0004 + 0.0008, 12);
    expect(costOf('anthropic', 'claude-haiku-4-5', { inputTokens: 2_000_000, outputTokens: 0 })).toBeCloseTo(2, 12);
    expect(costOf('openai', 'gpt-unknown', { inputTokens: 1, outputTokens: 1 })).toBeNull();
    expect(costOf('openai-compatible', 'gpt-4.1-mini', { inputTokens: 1, outputTokens: 1 })).toBeNull();
    // A model priced for one provider is not priced for another.
    expect(priceOf('groq', 'gpt-4.1-mini')).toBeUndefined();
  });
});
