/**
 * The evaluation's disk cache of model answers.
 *
 * A key covers everything that can change an answer: the provider and model
 * spec, the full prompt (every message), the sampling parameters, the grammar,
 * and the repeat index — so a rerun of an evaluation costs nothing, while the
 * repeats of one case are separate calls and never one cached answer counted n
 * times. Entries are content-addressed files written atomically, so concurrent
 * runners and a kill mid-write never leave a torn entry.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../core/fs/atomic';
import type { GenerateRequest, GenerateResult, ModelClient } from '../core/models/types';

/** Bump when the key derivation or the entry format changes: old entries are then ignored. */
export const CACHE_FORMAT = 1;

/** What is stored per entry: the answer and its accounting, never a key or header. */
interface CacheEntry {
  format: number;
  key: string;
  result: Omit<GenerateResult, 'latencyMs'> & { latencyMs: number };
  storedAt: string;
}

/** Cache statistics of one run. */
export interface CacheStats {
  hits: number;
  misses: number;
  writes: number;
}

/** The parts of a call that decide its answer. */
export function cacheKey(spec: string, request: GenerateRequest, repeat: number): string {
  const material = JSON.stringify({
    f: CACHE_FORMAT,
    spec,
    messages: request.messages,
    temperature: request.temperature,
    maxOutputTokens: request.maxOutputTokens,
    seed: request.seed ?? null,
    jsonSchema: request.jsonSchema ?? null,
    // Baselines answer from the structured task, so its options are part of the key.
    task: request.task ? { kind: request.task.kind, request: request.task.request, context: request.task.context ?? null, options: request.task.options } : null,
    repeat,
  });
  return createHash('sha256').update(material).digest('hex');
}

/** A directory of cached answers. */
export class AnswerCache {
  readonly stats: CacheStats = { hits: 0, misses: 0, writes: 0 };

  constructor(readonly dir: string) {}

  private path(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  /** The cached result for `key`, or undefined (a corrupt or foreign-format entry is a miss). */
  async get(key: string): Promise<GenerateResult | undefined> {
    let text: string;
    try {
      text = await readFile(this.path(key), 'utf8');
    } catch {
      this.stats.misses++;
      return undefined;
    }
    try {
      const entry = JSON.parse(text) as CacheEntry;
      if (entry.format !== CACHE_FORMAT || entry.key !== key) throw new Error('stale entry');
      this.stats.hits++;
      return entry.result;
    } catch {
      this.stats.misses++;
      return undefined;
    }
  }

  /**
   * Stores `result` under `key` atomically. Not flushed: an entry lost or torn by a
   * power cut only reads as a miss, and a flush per answer would slow every run.
   */
  async put(key: string, result: GenerateResult): Promise<void> {
    const entry: CacheEntry = { format: CACHE_FORMAT, key, result, storedAt: new Date().toISOString() };
    await writeFileAtomic(this.path(key), JSON.stringify(entry), { mkdirs: true, durable: false });
    this.stats.writes++;
  }
}

/**
 * A view of `model` for one repeat index that answers from `cache` when it can.
 * Cached answers report the original call's latency and usage, marked by
 * `cached: true` on the returned result so reports can tell them apart.
 */
export function cachedModel(model: ModelClient, cache: AnswerCache, repeat: number): ModelClient {
  return {
    spec: model.spec,
    isBaseline: model.isBaseline,
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const key = cacheKey(model.spec, request, repeat);
      const hit = await cache.get(key);
      if (hit) return { ...hit, cached: true };
      const result = await model.generate(request);
      await cache.put(key, result);
      return result;
    },
  };
}
