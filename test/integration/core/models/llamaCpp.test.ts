import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readGgufFileInfo } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelError } from '../../../../core/models/errors';
import { grammarForTask, openLlamaCppModel } from '../../../../core/models/llamaCpp';
import type { ChatMessage, GenerateRequest, ModelClient, SelectionTask } from '../../../../core/models/types';
import { buildTinyLlamaGguf, writeTinyLlamaGguf, type WrittenTinyLlama } from '../../../helpers/gguf';

const MESSAGES: ChatMessage[] = [
  { role: 'system', content: 'You choose which skills apply. Reply with JSON only.' },
  { role: 'user', content: 'Roll the payments deployment back to the previous release.' },
];
const CANDIDATES = ['devops/kubernetes-safety', 'devops/incident-response', 'travel/itinerary'];
const SCHEMA = {
  type: 'object',
  properties: { activate: { type: 'array', items: { enum: CANDIDATES }, maxItems: CANDIDATES.length } },
};

/** Tokens of a ChatML rendering of `messages` under the test vocabulary: one per ASCII character, plus the specials. */
function chatMlTokenCount(messages: ChatMessage[]): number {
  let count = 1; // BOS
  for (const m of messages) count += 1 + m.role.length + 1 + m.content.length + 1 + 1; // <|im_start|>role\n content <|im_end|>\n
  return count + 1 + 'assistant'.length + 1; // <|im_start|>assistant\n
}

/** Resolves after the current turn of the event loop, its microtasks and the I/O already answered. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function isPrintableAscii(text: string): boolean {
  return /^[\x20-\x7e\t\n]*$/.test(text);
}

/** The answer checked against SCHEMA by hand: exactly one key, an array of known identities. */
function expectSchemaAnswer(text: string): string[] {
  const parsed = JSON.parse(text) as unknown;
  expect(typeof parsed).toBe('object');
  expect(Object.keys(parsed as object)).toEqual(['activate']);
  const list = (parsed as { activate: unknown }).activate;
  expect(Array.isArray(list)).toBe(true);
  for (const id of list as unknown[]) expect(CANDIDATES).toContain(id);
  expect((list as unknown[]).length).toBeLessThanOrEqual(CANDIDATES.length);
  return list as string[];
}

let dir: string;
let written: WrittenTinyLlama;
let client: ModelClient;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbench-llama-'));
  written = await writeTinyLlamaGguf(join(dir, 'tiny.gguf'), { seed: 11 });
  // The default options: what `llama-cpp:PATH` opens with when nothing else is asked for.
  client = await openLlamaCppModel(written.path);
});

afterAll(async () => {
  await client?.close?.();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('tiny GGUF writer', () => {
  it('writes about half a megabyte, all of it, with no temp file left beside it', async () => {
    expect(written.bytes.length).toBeGreaterThan(400_000);
    expect(written.bytes.length).toBeLessThan(700_000);
    expect(Buffer.from(await readFile(written.path)).equals(Buffer.from(written.bytes))).toBe(true);
    expect((await readdir(dir)).filter((f) => f.startsWith('tiny.gguf'))).toEqual(['tiny.gguf']);
  });

  it('is deterministic per seed', () => {
    const again = buildTinyLlamaGguf({ seed: 11 });
    const other = buildTinyLlamaGguf({ seed: 12 });
    expect(Buffer.from(again.bytes).equals(Buffer.from(written.bytes))).toBe(true);
    expect(other.bytes.length).toBe(written.bytes.length);
    expect(Buffer.from(other.bytes).equals(Buffer.from(written.bytes))).toBe(false);
  });

  it('writes F16 matrices that llama.cpp loads and runs', async () => {
    const half = await writeTinyLlamaGguf(join(dir, 'tiny-f16.gguf'), { seed: 11, tensorType: 'f16' });
    const info = await readGgufFileInfo(half.path, { logWarnings: false });
    const types = new Map((info.tensorInfo ?? []).map((t) => [t.name, t.ggmlType]));
    expect(types.get('token_embd.weight')).toBe(1);
    expect(types.get('blk.1.ffn_down.weight')).toBe(1);
    expect(types.get('output_norm.weight')).toBe(0);
    expect(half.bytes.length).toBeLessThan(written.bytes.length * 0.6);
    const model = await openLlamaCppModel(half.path);
    try {
      const result = await model.generate({ messages: MESSAGES, temperature: 0.01, maxOutputTokens: 8, seed: 1 });
      expect(result.usage.outputTokens).toBeGreaterThan(0);
      expect(result.usage.outputTokens).toBeLessThanOrEqual(8);
    } finally {
      await model.close?.();
    }
  });

  it('round-trips through node-llama-cpp’s GGUF reader', async () => {
    const info = await readGgufFileInfo(written.path, { logWarnings: false });
    expect(info.version).toBe(3);
    expect(info.tensorCount).toBe(written.tensors.length);
    const meta = info.metadata as unknown as Record<string, Record<string, unknown>>;
    const general = meta['general'] ?? {};
    const llama = meta['llama'] as Record<string, unknown> & { attention: Record<string, number>; rope: Record<string, number> };
    const tokenizer = (meta['tokenizer'] ?? {}) as { ggml: Record<string, unknown>; chat_template: string };
    expect(general['architecture']).toBe('llama');
    expect(general['alignment']).toBe(32);
    expect(llama['context_length']).toBe(512);
    expect(llama['embedding_length']).toBe(64);
    expect(llama['block_count']).toBe(2);
    expect(llama['feed_forward_length']).toBe(128);
    expect(llama.attention['head_count']).toBe(4);
    expect(llama.attention['head_count_kv']).toBe(4);
    expect(llama.attention['layer_norm_rms_epsilon']).toBeCloseTo(1e-5, 9);
    expect(llama.rope['dimension_count']).toBe(16);
    expect(llama.rope['freq_base']).toBe(10000);
    expect(tokenizer.ggml['model']).toBe('llama');
    expect(tokenizer.ggml['tokens']).toEqual(written.vocabulary.tokens);
    expect(tokenizer.ggml['token_type']).toEqual(written.vocabulary.tokenTypes);
    expect((tokenizer.ggml['scores'] as number[]).length).toBe(written.vocabulary.tokens.length);
    expect(tokenizer.ggml['bos_token_id']).toBe(written.vocabulary.bosId);
    expect(tokenizer.ggml['eos_token_id']).toBe(written.vocabulary.eosId);
    expect(tokenizer.ggml['unknown_token_id']).toBe(written.vocabulary.unkId);
    expect(tokenizer.chat_template).toContain('<|im_start|>');
    const tokens = written.vocabulary.tokens;
    expect(tokens.filter((t) => /^<0x[0-9A-F]{2}>$/.test(t))).toHaveLength(256);
    expect(written.vocabulary.tokenTypes[written.vocabulary.firstByteId]).toBe(6);
    expect(written.vocabulary.tokenTypes[written.vocabulary.imEndId]).toBe(3);
    expect((info.tensorInfo ?? []).map((t) => ({ name: t.name, dims: t.dimensions.map(Number) }))).toEqual(written.tensors);
    for (const t of info.tensorInfo ?? []) expect(Number(t.offset) % 32).toBe(0);
  });
});

describe('llama-cpp model client', () => {
  const request = (extra: Partial<GenerateRequest> = {}): GenerateRequest => ({
    messages: MESSAGES,
    temperature: 0.01,
    maxOutputTokens: 24,
    seed: 7,
    ...extra,
  });

  it('describes itself as a local, non-baseline model', () => {
    expect(client.spec).toBe(`llama-cpp:${written.path}`);
    expect(client.isBaseline).toBe(false);
  });

  it('generates bounded plain text with real token counts and zero cost', async () => {
    const result = await client.generate(request());
    expect(result.provider).toBe('llama-cpp');
    expect(result.model).toBe('tiny.gguf');
    expect(result.costUsd).toBe(0);
    expect(result.usage.inputTokens).toBe(chatMlTokenCount(MESSAGES));
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeLessThanOrEqual(24);
    // Every token of this vocabulary decodes to at most one character.
    expect(result.text.length).toBeLessThanOrEqual(result.usage.outputTokens);
    expect(result.latencyMs).toBeGreaterThan(0);
    expect(result.attempts).toEqual([{ provider: 'llama-cpp', model: 'tiny.gguf', ok: true, latencyMs: result.latencyMs }]);
  });

  it('with asciiOnly, samples only printable ASCII where the default path samples the whole vocabulary', async () => {
    const ascii = await openLlamaCppModel(written.path, { asciiOnly: true });
    try {
      const outsideAscii: string[] = [];
      for (const seed of [1, 2, 3]) {
        const hot = request({ temperature: 1.5, maxOutputTokens: 48, seed });
        const restricted = await ascii.generate(hot);
        expect(restricted.usage.outputTokens).toBeGreaterThan(0);
        expect(isPrintableAscii(restricted.text)).toBe(true);
        const unrestricted = await client.generate(hot);
        if (!isPrintableAscii(unrestricted.text)) outsideAscii.push(unrestricted.text);
      }
      // The noise model puts most of its mass on the 256 byte tokens: left alone, it leaves ASCII.
      expect(outsideAscii.length).toBeGreaterThan(0);
    } finally {
      await ascii.close?.();
    }
  });

  it('decodes under a JSON-schema grammar into a valid answer', async () => {
    for (const [temperature, seed] of [
      [0.01, 7],
      [1, 3],
      [1, 4],
    ] as const) {
      const result = await client.generate(request({ jsonSchema: SCHEMA, temperature, seed, maxOutputTokens: 512 }));
      expectSchemaAnswer(result.text);
      expect(result.usage.outputTokens).toBeLessThan(512);
    }
  });

  it('says why it stopped: the output ceiling, or the end of a grammar-complete answer', async () => {
    const cut = await client.generate(request({ temperature: 1, maxOutputTokens: 2, seed: 5 }));
    expect(cut.usage.outputTokens).toBe(2);
    expect(cut.finishReason).toBe('length');
    const whole = await client.generate(request({ jsonSchema: SCHEMA, maxOutputTokens: 512 }));
    expectSchemaAnswer(whole.text);
    expect(whole.finishReason).toBe('stop');
  });

  it('answers the same request and seed identically, and honours seed and temperature', async () => {
    const hot = (seed: number) => client.generate(request({ temperature: 1, maxOutputTokens: 32, seed }));
    const first = await hot(5);
    const second = await hot(5);
    expect(second.text).toBe(first.text);
    expect(second.usage).toEqual(first.usage);
    const others = await Promise.all([hot(6), hot(7), hot(8)]);
    expect(new Set([first.text, ...others.map((r) => r.text)]).size).toBeGreaterThan(1);
    // Greedy decoding ignores the seed.
    const greedy = await Promise.all([9, 10].map((seed) => client.generate(request({ temperature: 0, seed }))));
    expect(greedy[1]?.text).toBe(greedy[0]?.text);
  });

  it('serializes concurrent calls without one disturbing another', async () => {
    const alone = await client.generate(request({ jsonSchema: SCHEMA, seed: 21, temperature: 1, maxOutputTokens: 200 }));
    const together = await Promise.all([
      client.generate(request({ seed: 22, temperature: 1, maxOutputTokens: 40 })),
      client.generate(request({ jsonSchema: SCHEMA, seed: 21, temperature: 1, maxOutputTokens: 200 })),
      client.generate(request({ seed: 23, temperature: 1, maxOutputTokens: 40 })),
    ]);
    expect(together[1]?.text).toBe(alone.text);
  });

  it('caps the answer to the room left in the context and says so', async () => {
    const result = await client.generate(request({ maxOutputTokens: 4096, temperature: 0 }));
    expect(result.usage.inputTokens + result.usage.outputTokens).toBeLessThanOrEqual(512);
    expect(result.warnings?.join(' ')).toMatch(/maxOutputTokens lowered from 4096/);
  });

  it('rejects a prompt longer than the context as malformed input', async () => {
    const long = request({ messages: [{ role: 'user', content: 'x'.repeat(700) }] });
    await expect(client.generate(long)).rejects.toMatchObject({ kind: 'malformed_input', message: expect.stringMatching(/context holds 512/) });
  });

  it('rejects invalid requests before generating', async () => {
    await expect(client.generate(request({ messages: [] }))).rejects.toMatchObject({ kind: 'malformed_input' });
    await expect(client.generate(request({ maxOutputTokens: 0 }))).rejects.toMatchObject({ kind: 'malformed_input' });
    await expect(client.generate(request({ temperature: Number.NaN }))).rejects.toMatchObject({ kind: 'malformed_input' });
  });

  it('maps an abort to cancelled, whether running or queued, and keeps working afterwards', async () => {
    const before = new AbortController();
    before.abort();
    await expect(client.generate(request({ signal: before.signal }))).rejects.toMatchObject({ kind: 'cancelled' });

    const running = new AbortController();
    const long = client.generate(request({ temperature: 1, maxOutputTokens: 400, signal: running.signal }));
    const queued = new AbortController();
    const waiting = client.generate(request({ signal: queued.signal }));
    queued.abort();
    const settled = Promise.allSettled([long, waiting]);
    // After one turn of the event loop the first call is decoding (each decode step is native
    // work that completes in a later turn), so the abort lands mid-generation at any speed.
    await nextTurn();
    running.abort();
    const [longResult, waitingResult] = await settled;
    expect(longResult.status).toBe('rejected');
    expect((longResult as PromiseRejectedResult).reason).toBeInstanceOf(ModelError);
    expect((longResult as PromiseRejectedResult).reason).toMatchObject({ kind: 'cancelled', provider: 'llama-cpp' });
    expect(waitingResult.status).toBe('rejected');
    expect((waitingResult as PromiseRejectedResult).reason).toMatchObject({ kind: 'cancelled' });

    // A timeout is an abort whose reason is a TimeoutError, as AbortSignal.timeout() gives.
    const deadline = new AbortController();
    const timedOut = client.generate(request({ temperature: 1, maxOutputTokens: 400, signal: deadline.signal }));
    const timedOutSettled = Promise.allSettled([timedOut]);
    await nextTurn();
    deadline.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    const [timedOutResult] = await timedOutSettled;
    expect(timedOutResult.status).toBe('rejected');
    expect((timedOutResult as PromiseRejectedResult).reason).toMatchObject({ kind: 'timeout', provider: 'llama-cpp' });

    const after = await client.generate(request({ jsonSchema: SCHEMA }));
    expectSchemaAnswer(after.text);
  });

  it('with grammar on, answers a selector task with distinct offered options only, in offered order', async () => {
    const grammarClient = await openLlamaCppModel(written.path, { grammar: true, seed: 3 });
    try {
      const activation: SelectionTask = {
        kind: 'activation',
        request: MESSAGES[1]!.content,
        options: [...CANDIDATES, 'odd/quote"and\\backslash'].map((id) => ({ id, text: id })),
        renderAnswer: (ids) => JSON.stringify({ activate: ids }),
      };
      const offered = activation.options.map((o) => o.id);
      const pairs = [
        { skill: 'devops/kubernetes-safety', name: 'rollback-checklist' },
        { skill: 'devops/kubernetes-safety', name: 'drain-guide' },
        { skill: 'travel/itinerary', name: 'visa-notes' },
      ];
      const resource: SelectionTask = {
        kind: 'resource',
        request: MESSAGES[1]!.content,
        options: pairs.map((p) => ({ id: `${p.skill}#${p.name}`, text: p.name })),
        renderAnswer: (ids) => JSON.stringify({ resources: ids.map((id) => ({ skill: id.split('#')[0], name: id.split('#')[1] })) }),
      };
      const ascending = (positions: number[]) => [...new Set(positions)].sort((x, y) => x - y);
      let chosen = 0;
      for (const [temperature, seed] of [[0.01, 1], [1, 1], [1, 2], [1.5, 3], [1.5, 4]] as const) {
        const a = await grammarClient.generate({ messages: MESSAGES, temperature, seed, maxOutputTokens: 512, task: activation });
        const answer = JSON.parse(a.text) as { activate: string[] };
        expect(Object.keys(answer)).toEqual(['activate']);
        const positions = answer.activate.map((id) => offered.indexOf(id));
        expect(positions.every((p) => p >= 0)).toBe(true);
        expect(positions).toEqual(ascending(positions));
        const r = await grammarClient.generate({ messages: MESSAGES, temperature, seed, maxOutputTokens: 512, task: resource });
        const picked = (JSON.parse(r.text) as { resources: { skill: string; name: string }[] }).resources;
        const rPositions = picked.map((p) => pairs.findIndex((q) => q.skill === p.skill && q.name === p.name));
        expect(rPositions.every((p) => p >= 0)).toBe(true);
        expect(rPositions).toEqual(ascending(rPositions));
        chosen += positions.length + rPositions.length;
      }
      // Sampling explores the grammar: it is not stuck on the empty answer.
      expect(chosen).toBeGreaterThan(0);
      // Without a task the grammar still forces one JSON value.
      const free = await grammarClient.generate({ messages: MESSAGES, temperature: 0.01, maxOutputTokens: 64 });
      expect(free.text.trimStart()).toMatch(/^[[{"\d\-tfn]/);
    } finally {
      await grammarClient.close?.();
    }
  });

  it('derives no task grammar from answers it cannot tell apart or parse', () => {
    const base: SelectionTask = {
      kind: 'activation',
      request: 'r',
      options: [{ id: 'a/b', text: '' }, { id: 'c/d', text: '' }],
      renderAnswer: (ids) => JSON.stringify({ activate: ids }),
    };
    expect(grammarForTask(base)).toMatch(/^root ::= /);
    expect(grammarForTask({ ...base, renderAnswer: () => 'not json' })).toBeUndefined();
    expect(grammarForTask({ ...base, renderAnswer: (ids) => JSON.stringify({ activate: ids.map(() => 'same') }) })).toBeUndefined();
    expect(grammarForTask({ ...base, renderAnswer: (ids) => JSON.stringify(ids) })).toBeUndefined();
    expect(grammarForTask({ ...base, options: [] })).toBeUndefined();
  });

  it('refuses to run after close with an internal error (a caller bug, not a bad request)', async () => {
    const other = await openLlamaCppModel(written.path);
    await other.close?.();
    await other.close?.();
    await expect(other.generate(request())).rejects.toMatchObject({ kind: 'malformed_input', code: 'internal', message: expect.stringMatching(/closed/) });
    // The shared model is still alive for the first client.
    await expect(client.generate(request())).resolves.toMatchObject({ provider: 'llama-cpp' });
  });

  it('names the path when the model file is missing or not GGUF', async () => {
    const missing = join(dir, 'absent.gguf');
    const error = await openLlamaCppModel(missing).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ kind: 'malformed_input', code: 'not_found', provider: 'llama-cpp' });
    expect((error as ModelError).message).toContain(`model file not found: ${missing}`);

    const bogus = join(dir, 'bogus.gguf');
    await writeFile(bogus, 'definitely not a model');
    await expect(openLlamaCppModel(bogus)).rejects.toMatchObject({ kind: 'malformed_input', code: 'invalid_request', message: expect.stringContaining(`not a GGUF model file`) });
  });
});
