import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ModelSpecError } from '../../../../core/models/errors';
import { parseModelSpec, safeParseModelSpec } from '../../../../core/models/spec';

function failure(spec: unknown): ModelSpecError {
  const result = safeParseModelSpec(spec);
  if (result.success) throw new Error(`expected '${String(spec)}' to be rejected`);
  return result.error;
}

describe('parseModelSpec', () => {
  it('parses hosted providers with aliases and literal ids', () => {
    expect(parseModelSpec('openai:fast')).toEqual({ kind: 'hosted', provider: 'openai', model: 'fast', spec: 'openai:fast' });
    expect(parseModelSpec('anthropic:claude-sonnet-4-5')).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(parseModelSpec('groq:openai/gpt-oss-120b')).toMatchObject({ provider: 'groq', model: 'openai/gpt-oss-120b' });
    expect(parseModelSpec('openai:FAST')).toMatchObject({ model: 'FAST' });
  });

  it('parses openai-compatible servers, keeping colons in the model id', () => {
    expect(parseModelSpec('openai-compatible:http://127.0.0.1:11434/v1#llama3.1:8b')).toEqual({
      kind: 'hosted',
      provider: 'openai-compatible',
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'llama3.1:8b',
      spec: 'openai-compatible:http://127.0.0.1:11434/v1#llama3.1:8b',
    });
    expect(parseModelSpec('openai-compatible:https://vllm.internal/v1/#Qwen/Qwen3-8B')).toMatchObject({ baseUrl: 'https://vllm.internal/v1', model: 'Qwen/Qwen3-8B' });
  });

  it('parses llama-cpp paths and options', () => {
    expect(parseModelSpec('llama-cpp:models/qwen.gguf')).toEqual({ kind: 'llama-cpp', path: 'models/qwen.gguf', spec: 'llama-cpp:models/qwen.gguf' });
    expect(parseModelSpec('llama-cpp:/m/a.GGUF?grammar=1&seed=42')).toMatchObject({ path: '/m/a.GGUF', grammar: true, seed: 42 });
    expect(parseModelSpec('llama-cpp:a.gguf?grammar=0')).toMatchObject({ grammar: false });
  });

  it('parses baselines and chains', () => {
    expect(parseModelSpec('baseline:lexical')).toEqual({ kind: 'baseline', baseline: 'lexical', spec: 'baseline:lexical' });
    const chain = parseModelSpec('chain:openai:fast,anthropic:fast,openai-compatible:http://h:1/v1#m,llama-cpp:x.gguf');
    expect(chain.kind).toBe('chain');
    if (chain.kind !== 'chain') return;
    expect(chain.members.map((m) => m.spec)).toEqual(['openai:fast', 'anthropic:fast', 'openai-compatible:http://h:1/v1#m', 'llama-cpp:x.gguf']);
  });

  it.each([
    ['', 0, /empty/],
    ['openai', 6, /expected ':' after 'openai'/],
    ['opena:fast', 0, /unknown provider 'opena'/],
    ['openai:', 7, /missing model/],
    [' openai:fast', 0, /whitespace/],
    ['openai:fast ', 11, /whitespace/],
    ['openai:fa\u0007st', 9, /control character/],
    ['openai:fast,anthropic:fast', 11, /separates chain members/],
    ['openai:fast|anthropic:fast', 11, /not a separator/],
    ['chain:', 6, /at least one model/],
    ['chain:openai:fast,,groq:fast', 18, /empty chain member/],
    ['chain:openai:fast,', 18, /empty chain member/],
    ['chain:openai:fast,chain:groq:fast', 18, /cannot be nested/],
    ['chain:openai:fast,baseline:lexical', 18, /baseline is not a language model/],
    ['chain:openai:fast,groq', 22, /expected ':' after 'groq'/],
    ['baseline:bm25', 9, /unknown baseline/],
    ['openai-compatible:http://h:1/v1', 31, /#<model>/],
    ['openai-compatible:ftp://h/v1#m', 18, /http or https/],
    ['openai-compatible:not a url#m', 21, /whitespace/],
    ['openai-compatible:nota-url#m', 18, /not a URL/],
    ['openai-compatible:http://user:secret@h/v1#m', 36, /credentials/],
    ['openai-compatible:http://h/v1#', 30, /missing model/],
    ['llama-cpp:', 10, /missing path/],
    ['llama-cpp:model.bin', 19, /\.gguf/],
    ['llama-cpp:m.gguf?', 17, /empty query/],
    ['llama-cpp:m.gguf?temp=1', 17, /unknown option 'temp'/],
    ['llama-cpp:m.gguf?grammar=yes', 25, /grammar takes 0 or 1/],
    ['llama-cpp:m.gguf?seed=1&seed=2', 24, /given twice/],
    ['llama-cpp:m.gguf?grammar=1&seed=-1', 32, /seed takes an integer/],
    ['llama-cpp:m.gguf?seed=99999999999', 22, /seed takes an integer/],
  ])('rejects %j at offset %i', (spec, position, reason) => {
    const error = failure(spec);
    expect(error).toBeInstanceOf(ModelSpecError);
    expect(error.position).toBe(position);
    expect(error.message).toMatch(reason);
    expect(error.message).toContain(`column ${position + 1}`);
    expect(error.code).toBe('invalid_request');
  });

  it('rejects non-strings with a typed error', () => {
    expect(failure(42).position).toBe(0);
    expect(failure(undefined).message).toMatch(/must be a string/);
  });

  it('never throws anything but a ModelSpecError, and positions stay inside the spec', () => {
    const pieces = fc.constantFrom(
      'openai', 'anthropic', 'groq', 'openai-compatible', 'llama-cpp', 'baseline', 'chain', ':', ',', '#', '?', '&', '=', '|',
      'fast', 'http://127.0.0.1:8080/v1', 'a.gguf', 'grammar', 'seed', '1', 'lexical', ' ', '\n', '@', '/', 'x',
    );
    const specs = fc.oneof(fc.string(), fc.array(pieces, { maxLength: 12 }).map((p) => p.join('')));
    fc.assert(
      fc.property(specs, (spec) => {
        try {
          const parsed = parseModelSpec(spec);
          expect(parsed.spec).toBe(spec);
        } catch (error) {
          expect(error).toBeInstanceOf(ModelSpecError);
          const position = (error as ModelSpecError).position;
          expect(position).toBeGreaterThanOrEqual(0);
          expect(position).toBeLessThanOrEqual(spec.length);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('round-trips generated valid specs', () => {
    const modelId = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,30}$/);
    const hosted = fc.tuple(fc.constantFrom('openai', 'anthropic', 'groq'), modelId).map(([p, m]) => `${p}:${m}`);
    const compatible = fc.tuple(fc.integer({ min: 1, max: 65535 }), modelId).map(([port, m]) => `openai-compatible:http://127.0.0.1:${port}/v1#${m}`);
    const single = fc.oneof(hosted, compatible);
    fc.assert(
      fc.property(fc.array(single, { minLength: 1, maxLength: 4 }), (members) => {
        const spec = members.length === 1 ? members[0]! : `chain:${members.join(',')}`;
        const parsed = parseModelSpec(spec);
        const specs = parsed.kind === 'chain' ? parsed.members.map((m) => m.spec) : [parsed.spec];
        expect(specs).toEqual(members);
        for (const [i, m] of specs.entries()) {
          const member = parsed.kind === 'chain' ? parsed.members[i]! : parsed;
          if (member.kind === 'hosted') expect(m.endsWith(member.model)).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});
