/**
 * `baseline:lexical`: a deterministic keyword baseline, NOT a language model.
 * It ranks each option's catalog text against the request with Okapi BM25
 * (k1 = 1.2, b = 0.75) and selects every option whose score is positive and at
 * least {@link LEXICAL_RELATIVE_THRESHOLD} of the best score. When no request
 * term occurs in any option, nothing is selected. Reports use it as a floor: a
 * selector model should beat plain word overlap.
 */
import { ModelError } from './errors';
import type { GenerateRequest, GenerateResult, ModelClient, SelectionTask } from './types';

/** BM25 term-frequency saturation. */
export const BM25_K1 = 1.2;
/** BM25 length normalisation. */
export const BM25_B = 0.75;
/** An option is selected when its score is at least this share of the best score. */
export const LEXICAL_RELATIVE_THRESHOLD = 0.5;

/** Common English words that carry no topic. Small on purpose: domain words must survive. */
const STOP_WORDS = new Set(
  (
    'a an and are as at be been but by can could do does did for from had has have how i if in into is it its ' +
    'me my of on or our please should so some such than that the their them then there these they this to ' +
    'was we were what when where which while who why will with would you your'
  ).split(' '),
);

/**
 * Light suffix stemming: plural and verb endings only, so "bookings", "booked"
 * and "booking" meet at "book". Deliberately conservative; no dictionary.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = undouble(w.slice(0, -3));
  else if (w.length > 4 && w.endsWith('ed')) w = undouble(w.slice(0, -2));
  if (w.length > 4 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/** "planned" → "plann" → "plan"; l, s and z doubles are real ("fill", "pass"). */
function undouble(w: string): string {
  return /([^aeiouylsz])\1$/.test(w) ? w.slice(0, -1) : w;
}

/** Lower-cases, splits on anything that is not a letter or digit, drops stop words, stems. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (raw.length === 0 || STOP_WORDS.has(raw)) continue;
    out.push(stem(raw));
  }
  return out;
}

/**
 * BM25 score of `query` against each document, in document order. IDF is the
 * non-negative form ln(1 + (N − n + 0.5) / (n + 0.5)); each distinct query term
 * counts once.
 */
export function bm25Scores(query: string, documents: readonly string[], k1: number = BM25_K1, b: number = BM25_B): number[] {
  const docs = documents.map(tokenize);
  const n = docs.length;
  if (n === 0) return [];
  const avgLength = docs.reduce((sum, d) => sum + d.length, 0) / n || 1;
  const docFreq = new Map<string, number>();
  const termFreqs = docs.map((tokens) => {
    const tf = new Map<string, number>();
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const t of tf.keys()) docFreq.set(t, (docFreq.get(t) ?? 0) + 1);
    return tf;
  });
  const terms = [...new Set(tokenize(query))];
  return termFreqs.map((tf, i) => {
    const length = docs[i]!.length;
    let score = 0;
    for (const term of terms) {
      const f = tf.get(term);
      if (!f) continue;
      const df = docFreq.get(term) ?? 0;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      score += (idf * (f * (k1 + 1))) / (f + k1 * (1 - b + (b * length) / avgLength));
    }
    return score;
  });
}

/** The ids {@link LEXICAL_RELATIVE_THRESHOLD} selects for `task`, in option order. */
export function lexicalSelect(task: SelectionTask, relativeThreshold: number = LEXICAL_RELATIVE_THRESHOLD): string[] {
  const query = task.context ? `${task.request}\n${task.context}` : task.request;
  const scores = bm25Scores(query, task.options.map((o) => o.text));
  const best = Math.max(0, ...scores);
  if (best <= 0) return [];
  return task.options.filter((_, i) => (scores[i] ?? 0) > 0 && (scores[i] ?? 0) >= relativeThreshold * best).map((o) => o.id);
}

/** Shared by both baselines: checks the task and wraps the answer as a model result. */
export function baselineResult(model: string, text: string, started: number): GenerateResult {
  const latencyMs = Math.round(performance.now() - started);
  return {
    text,
    usage: { inputTokens: 0, outputTokens: 0 },
    model,
    provider: 'baseline',
    latencyMs,
    costUsd: 0,
    attempts: [{ provider: 'baseline', model, ok: true, latencyMs }],
  };
}

/** The task of a baseline request, or a malformed_input error when the caller sent none. */
export function requireTask(request: GenerateRequest, model: string): SelectionTask {
  if (request.signal?.aborted) throw new ModelError('cancelled', `baseline (${model}): the call was cancelled`, { provider: 'baseline', model });
  if (!request.task) {
    throw new ModelError(
      'malformed_input',
      `baseline (${model}): a baseline decides from the structured selection task, and the request has none`,
      { provider: 'baseline', model },
    );
  }
  return request.task;
}

/** `baseline:lexical` as a {@link ModelClient}. */
export function createLexicalBaseline(): ModelClient {
  const spec = 'baseline:lexical';
  return {
    spec,
    isBaseline: true,
    async generate(request) {
      const started = performance.now();
      const task = requireTask(request, 'lexical-bm25');
      return baselineResult('lexical-bm25', task.renderAnswer(lexicalSelect(task)), started);
    },
  };
}
