import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitMiddle, MODEL_LABEL_MAX, modelLabels } from '../../../../core/report/modelLabels';

const length = (s: string): number => [...s].length;

/** Specs shaped like real ones: providers, local servers on ports, model names that share long prefixes. */
const realisticSpec = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 65535 }), fc.constantFrom('v1', 'api/v1'), fc.stringMatching(/^[a-z][a-z0-9.-]{0,30}$/)).map(([port, path, name]) => `openai-compatible:http://127.0.0.1:${port}/${path}#${name}`),
  fc.tuple(fc.constantFrom('openai', 'anthropic', 'gemini'), fc.stringMatching(/^[a-z][a-z0-9.-]{0,40}$/)).map(([p, name]) => `${p}:${name}`),
  fc.stringMatching(/^[a-z0-9_-]{1,30}$/).map((f) => `llama-cpp:models/${f}.gguf`),
  fc.constantFrom('baseline:lexical', 'baseline:always', 'baseline:never'),
);

describe('modelLabels', () => {
  it('gives distinct specs distinct labels, equal specs equal labels, none longer than the limit', () => {
    for (const spec of [realisticSpec, fc.string({ unit: 'grapheme', maxLength: 60 }), fc.string({ maxLength: 40 })]) {
      fc.assert(
        fc.property(fc.array(spec, { maxLength: 12 }), fc.integer({ min: 8, max: 40 }), (specs, max) => {
          const labels = modelLabels(specs, max);
          expect(labels).toHaveLength(specs.length);
          for (let i = 0; i < specs.length; i++) {
            expect(length(labels[i]!)).toBeLessThanOrEqual(max);
            for (let j = 0; j < i; j++) expect(labels[i] === labels[j]).toBe(specs[i] === specs[j]);
          }
        }),
        { numRuns: 300 },
      );
    }
  });

  it('tells apart servers of one model by where their specs differ', () => {
    const specs = ['openai-compatible:http://127.0.0.1:41234/v1#gpt-x', 'openai-compatible:http://127.0.0.1:41235/v1#gpt-x', 'openai-compatible:http://127.0.0.1:41234/v1#gpt-y'];
    expect(modelLabels(specs)).toEqual(['gpt-x @41234', 'gpt-x @41235', 'gpt-y']);
  });

  it('keeps the name alone when it is unique, and adds the provider when providers share it', () => {
    expect(modelLabels(['openai-compatible:http://127.0.0.1:9/v1#alpha', 'openai-compatible:http://127.0.0.1:9/v1#beta', 'openai:gpt-x', 'baseline:lexical', 'llama-cpp:/models/q4.gguf'])).toEqual([
      'alpha',
      'beta',
      'gpt-x',
      'baseline:lexical',
      'q4.gguf',
    ]);
    expect(modelLabels(['openai:fast', 'anthropic:fast'])).toEqual(['openai:fast', 'anthropic:fast']);
    expect(modelLabels(['openai:gpt-x', 'openai-compatible:http://127.0.0.1:9/v1#gpt-x'])).toEqual(['openai:gpt-x', 'openai-compatible:gpt-x']);
  });

  it('cuts a long name in the middle, keeping both ends', () => {
    const long = 'openai:meta-llama-3.1-70b-instruct-turbo-2024-07-18';
    const [label] = modelLabels([long]);
    expect(length(label!)).toBe(MODEL_LABEL_MAX);
    expect(label!.startsWith('meta-llama')).toBe(true);
    expect(label!.endsWith('07-18')).toBe(true);
    expect(label).toContain('…');
  });

  it('numbers labels only when nothing shorter than the limit tells the specs apart', () => {
    const a = `openai:${'x'.repeat(20)}a${'y'.repeat(20)}`;
    const b = `openai:${'x'.repeat(20)}b${'y'.repeat(20)}`;
    const labels = modelLabels([a, b], 10);
    expect(new Set(labels).size).toBe(2);
    expect(labels.every((l) => /~\d+$/.test(l) && length(l) <= 10)).toBe(true);
  });
});

describe('fitMiddle', () => {
  it('never exceeds the limit and keeps text that fits', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), fc.integer({ min: 1, max: 60 }), (text, max) => {
        const out = fitMiddle(text, max);
        expect(length(out)).toBeLessThanOrEqual(max);
        if (length(text) <= max) expect(out).toBe(text);
      }),
    );
  });
});
