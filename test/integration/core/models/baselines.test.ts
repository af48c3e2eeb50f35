/**
 * The deterministic baselines on two labeled activation sets: our own
 * ten-skill catalog (fixtures/activationSet.json, whose calibration half chose
 * the embedding thresholds) and requests against the example skill packages
 * (fixtures/exampleSkillsActivationSet.json, entirely held out). The embedding
 * baseline (real sentence encoder, loaded from node_modules) must beat the
 * lexical one on held-out requests.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMBEDDING_RELATIVE_THRESHOLD, EMBEDDING_THRESHOLD, embeddingScores } from '../../../../core/models/embedding';
import { isModelError, openModel } from '../../../../core/models/index';
import type { GenerateRequest, ModelClient, SelectionOption, SelectionTask } from '../../../../core/models/types';

interface LabeledItem {
  split: 'calibration' | 'evaluation';
  request: string;
  expected: string[];
}
const SET = JSON.parse(readFileSync(new URL('./fixtures/activationSet.json', import.meta.url), 'utf8')) as {
  options: SelectionOption[];
  items: LabeledItem[];
};

const EXAMPLES = JSON.parse(readFileSync(new URL('./fixtures/exampleSkillsActivationSet.json', import.meta.url), 'utf8')) as {
  packages: string[];
  items: Array<{ request: string; expected: string[] }>;
};

/** The catalog text of an example package: what an activation selector reads (display name and description). */
function exampleOption(id: string): SelectionOption {
  const url = new URL(`../../../../examples/skills/packages/${id}.json`, import.meta.url);
  const pkg = JSON.parse(readFileSync(url, 'utf8')) as { display_name: string; description: string };
  return { id, text: `${pkg.display_name}. ${pkg.description}` };
}

function task(request: string, options: SelectionOption[] = SET.options): SelectionTask {
  return {
    kind: 'activation',
    request,
    options,
    renderAnswer: (ids) => JSON.stringify({ selected_skills: ids.map((id) => ({ id, reason: 'baseline' })) }),
  };
}

function ask(item: { request: string }, options?: SelectionOption[]): GenerateRequest {
  return { messages: [{ role: 'user', content: item.request }], temperature: 0.01, maxOutputTokens: 512, task: task(item.request, options) };
}

interface Scores {
  f1: number;
  precision: number;
  recall: number;
  /** Share of requests whose selected set is exactly the expected one. */
  exactMatch: number;
}

/** Per-option decisions pooled over the requests (micro-averaged), plus exact-set accuracy. */
function score(items: Array<{ expected: string[] }>, predictions: string[][]): Scores {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let exact = 0;
  items.forEach((item, i) => {
    const expected = new Set(item.expected);
    const predicted = new Set(predictions[i]);
    for (const id of predicted) {
      if (expected.has(id)) tp++;
      else fp++;
    }
    for (const id of expected) if (!predicted.has(id)) fn++;
    if (expected.size === predicted.size && [...expected].every((id) => predicted.has(id))) exact++;
  });
  const precision = tp + fp === 0 ? 0 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 0 : tp / (tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { f1, precision, recall, exactMatch: exact / items.length };
}

async function run(client: ModelClient, items: Array<{ request: string }>, options?: SelectionOption[]): Promise<string[][]> {
  const out: string[][] = [];
  for (const item of items) {
    const result = await client.generate(ask(item, options));
    const parsed = JSON.parse(result.text) as { selected_skills: Array<{ id: string }> };
    out.push(parsed.selected_skills.map((s) => s.id));
  }
  return out;
}

describe('Deterministic baselines on the labeled activation set', () => {
  let lexical: ModelClient;
  let embedding: ModelClient;
  const evaluation = SET.items.filter((i) => i.split === 'evaluation');
  const calibration = SET.items.filter((i) => i.split === 'calibration');

  beforeAll(async () => {
    lexical = await openModel('baseline:lexical');
    embedding = await openModel('baseline:embedding');
  });
  afterAll(async () => {
    await lexical.close?.();
    await embedding.close?.();
  });

  it('labels both as baselines and answers through task.renderAnswer', async () => {
    expect(lexical.isBaseline).toBe(true);
    expect(embedding.isBaseline).toBe(true);
    const result = await lexical.generate(ask({ request: 'What is the weather forecast for my trip?' }));
    expect(JSON.parse(result.text)).toEqual({ selected_skills: [{ id: 'travel/weather-assessment', reason: 'baseline' }] });
    expect(result).toMatchObject({ provider: 'baseline', costUsd: 0, usage: { inputTokens: 0, outputTokens: 0 } });
    expect(result.attempts).toHaveLength(1);
  });

  it('rejects a request without a task as malformed input', async () => {
    for (const client of [lexical, embedding]) {
      const failure = await client.generate({ messages: [{ role: 'user', content: 'hi' }], temperature: 0.01, maxOutputTokens: 512 }).catch((e: unknown) => e);
      expect(isModelError(failure, 'malformed_input')).toBe(true);
    }
  });

  it('is deterministic: the same request gives the same answer', async () => {
    const item = evaluation[1]!;
    for (const client of [lexical, embedding]) {
      const a = await client.generate(ask(item));
      const b = await client.generate(ask(item));
      expect(a.text).toBe(b.text);
    }
  });

  const report = (name: string, n: number, skills: number, lex: Scores, emb: Scores) =>
    console.info(
      `${name}: ${n} held-out requests x ${skills} skills: ` +
        `lexical F1 ${lex.f1.toFixed(3)} (P ${lex.precision.toFixed(2)} R ${lex.recall.toFixed(2)}, exact ${lex.exactMatch.toFixed(2)}); ` +
        `embedding F1 ${emb.f1.toFixed(3)} (P ${emb.precision.toFixed(2)} R ${emb.recall.toFixed(2)}, exact ${emb.exactMatch.toFixed(2)})`,
    );

  it('beats the lexical baseline with the embedding baseline on the held-out half of our catalog', async () => {
    const lex = score(evaluation, await run(lexical, evaluation));
    const emb = score(evaluation, await run(embedding, evaluation));
    report('own catalog', evaluation.length, SET.options.length, lex, emb);
    expect(emb.f1).toBeGreaterThan(lex.f1);
    expect(emb.exactMatch).toBeGreaterThan(lex.exactMatch);
  });

  it('beats the lexical baseline with the embedding baseline on requests against the example skills', async () => {
    const options = EXAMPLES.packages.map(exampleOption);
    const lex = score(EXAMPLES.items, await run(lexical, EXAMPLES.items, options));
    const emb = score(EXAMPLES.items, await run(embedding, EXAMPLES.items, options));
    report('example skills', EXAMPLES.items.length, options.length, lex, emb);
    expect(emb.f1).toBeGreaterThan(lex.f1);
    expect(emb.exactMatch).toBeGreaterThan(lex.exactMatch);
  });

  it('uses the threshold pair that maximises F1 on the calibration half', async () => {
    const scores = await Promise.all(calibration.map((item) => embeddingScores(task(item.request))));
    const predict = (floor: number, ratio: number) =>
      scores.map((s) => {
        const best = Math.max(...s);
        return SET.options.filter((_, j) => s[j]! >= floor && s[j]! >= ratio * best).map((o) => o.id);
      });
    const chosen = score(calibration, predict(EMBEDDING_THRESHOLD, EMBEDDING_RELATIVE_THRESHOLD)).f1;
    let best = 0;
    for (let floor = 0.2; floor <= 0.5501; floor += 0.025) {
      for (let ratio = 0.5; ratio <= 1.0001; ratio += 0.05) best = Math.max(best, score(calibration, predict(floor, ratio)).f1);
    }
    expect(chosen).toBeCloseTo(best, 10);
  });
});
