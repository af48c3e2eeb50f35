import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnswerCache, cacheKey, cachedModel } from '../../../evals/cache';
import type { GenerateRequest, GenerateResult, ModelClient } from '../../../core/models/types';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'sb-cache-'));
  dirs.push(d);
  return d;
}

/** A counting model of our own interface: answers `answer-N` for the Nth call. */
function countingModel(): ModelClient & { calls: number } {
  const m = {
    spec: 'test:counting',
    isBaseline: false,
    calls: 0,
    async generate(): Promise<GenerateResult> {
      m.calls++;
      return { text: `answer-${m.calls}`, usage: { inputTokens: 10, outputTokens: 2 }, model: 'counting', provider: 'test', latencyMs: 5, costUsd: null, attempts: [] };
    },
  };
  return m;
}

const request: GenerateRequest = { messages: [{ role: 'user', content: 'Will it rain in Oslo?' }], temperature: 0.01, maxOutputTokens: 512 };

describe('AnswerCache', () => {
  it('answers a rerun from disk without calling the model', async () => {
    const cache = new AnswerCache(await tempDir());
    const model = countingModel();
    const first = await cachedModel(model, cache, 0).generate(request);
    const again = await cachedModel(model, new AnswerCache(cache.dir), 0).generate(request);
    expect(model.calls).toBe(1);
    expect(again.text).toBe(first.text);
    expect(again.cached).toBe(true);
  });

  it('never answers two repeats from one cached call', async () => {
    const cache = new AnswerCache(await tempDir());
    const model = countingModel();
    const a = await cachedModel(model, cache, 0).generate(request);
    const b = await cachedModel(model, cache, 1).generate(request);
    expect(model.calls).toBe(2);
    expect(a.text).not.toBe(b.text);
  });

  it('keys on the full prompt and the parameters', () => {
    const base = cacheKey('openai:fast', request, 0);
    expect(cacheKey('openai:fast', { ...request, temperature: 0.5 }, 0)).not.toBe(base);
    expect(cacheKey('openai:fast', { ...request, maxOutputTokens: 100 }, 0)).not.toBe(base);
    expect(cacheKey('openai:fast', { ...request, messages: [{ role: 'user', content: 'Will it rain in Oslo? ' }] }, 0)).not.toBe(base);
    expect(cacheKey('anthropic:fast', request, 0)).not.toBe(base);
    expect(cacheKey('openai:fast', { ...request, seed: 7 }, 0)).not.toBe(base);
    expect(cacheKey('openai:fast', request, 0)).toBe(base);
  });

  it('treats a corrupt entry as a miss and repairs it', async () => {
    const dir = await tempDir();
    const cache = new AnswerCache(dir);
    const model = countingModel();
    await cachedModel(model, cache, 0).generate(request);
    const sub = (await readdir(dir))[0]!;
    const file = (await readdir(join(dir, sub)))[0]!;
    await writeFile(join(dir, sub, file), '{"format":1,"key":"tru');
    const fresh = new AnswerCache(dir);
    await cachedModel(model, fresh, 0).generate(request);
    expect(model.calls).toBe(2);
    expect(fresh.stats).toEqual({ hits: 0, misses: 1, writes: 1 });
    await cachedModel(model, fresh, 0).generate(request);
    expect(model.calls).toBe(2);
  });

  it('stores into a cache folder that does not exist yet or was removed while in use', async () => {
    const dir = join(await tempDir(), 'not', 'yet');
    const cache = new AnswerCache(dir);
    const model = countingModel();
    await cachedModel(model, cache, 0).generate(request);
    await rm(dir, { recursive: true });
    await cachedModel(model, cache, 1).generate(request);
    await cachedModel(model, cache, 1).generate(request);
    expect(model.calls).toBe(2);
    expect(cache.stats).toEqual({ hits: 1, misses: 2, writes: 2 });
    expect(await readdir(dir)).toHaveLength(1);
  });
});
