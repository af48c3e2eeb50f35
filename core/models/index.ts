/**
 * The model layer's entry point: turn a spec (`openai:fast`,
 * `chain:openai:fast,anthropic:fast`, `baseline:embedding`, ...) into a
 * {@link ModelClient}, and describe what can be configured for a UI.
 *
 * Node-only. Heavy parts (AI SDK packages, the HTTP transport and undici, the
 * sentence encoder, llama.cpp) are loaded on first use, so opening a baseline
 * does not load the SDK and vice versa, and a process that opens no model
 * (`skillbench serve` until an evaluation starts) loads none of them.
 */
import type { Dispatcher } from 'undici';
import { BUILTIN_MODELS, MODEL_ALIASES, PRICES_AS_OF, aliasEnvVar, resolveModelId } from './aliases';
import { createChainClient, type ModelBackend, type RetryPolicy } from './chain';
import { loadSentenceEncoder, createEmbeddingBaseline } from './embedding';
import { KEY_ENV_VARS, envKeySource, type KeySource } from './keys';
import { createLexicalBaseline } from './lexical';
import type { LlamaCppOptions } from './llamaCpp';
import { BASE_URL_ENV_VARS, DEFAULT_BASE_URLS, createHostedBackend, loadProviderSdk } from './providers';
import { parseModelSpec, type LlamaCppSpec, type ModelSpec } from './spec';
import type * as Transport from './transport';
import type { ModelClient, ProviderDescription } from './types';

export { ModelError, ModelSpecError, classifyError, isModelError } from './errors';
export { parseModelSpec, safeParseModelSpec } from './spec';
export type { ModelSpec } from './spec';
export { MODEL_ALIASES, BUILTIN_MODELS, resolveModelId, costOf, priceOf } from './aliases';
export { envKeySource, KEY_ENV_VARS } from './keys';
export type { KeySource } from './keys';
export { DEFAULT_RETRY_POLICY } from './chain';
export type { RetryPolicy } from './chain';
export type { TransportOptions } from './transport';
export type { AliasDescription, ProviderDescription } from './types';

let transportModule: Promise<typeof Transport> | undefined;
/** core/models/transport (and undici), imported once, when the first hosted model opens. */
const transport = (): Promise<typeof Transport> => (transportModule ??= import('./transport'));

/** Closes the process-wide dispatchers, e.g. before the CLI exits (none when no hosted model was opened). */
export async function closeSharedDispatcher(): Promise<void> {
  // A transport that failed to load opened nothing.
  await (await transportModule?.catch(() => undefined))?.closeSharedDispatcher();
}

/** Options of {@link openModel}. */
export interface OpenModelOptions {
  /** Environment for keys, base URLs and alias overrides (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where keys come from (default: the environment). */
  keys?: KeySource;
  /** HTTP dispatcher to use (not closed by the client). Default: the shared one, or a private one built from `transport`. */
  dispatcher?: Dispatcher;
  /** Builds a private dispatcher for this client (closed by `close()`). Ignored when `dispatcher` is given. */
  transport?: Transport.TransportOptions;
  /** Per-attempt timeout in ms (default 60 s). */
  timeoutMs?: number;
  /** Budget of one `generate` call in ms across retries and failover (default none). */
  deadlineMs?: number;
  retries?: Partial<RetryPolicy>;
  /** Random source for backoff jitter. */
  random?: () => number;
  /** Settings for `llama-cpp:` models besides the spec's own `grammar` and `seed`. */
  llamaCpp?: Omit<LlamaCppOptions, 'grammar' | 'seed'>;
}

/**
 * Opens a client for `spec`. Throws a {@link ModelSpecError} for a bad spec;
 * hosted providers are not contacted until the first `generate` (a missing key
 * surfaces there as an `auth` failure, so a chain can move past it).
 */
export async function openModel(spec: string, options: OpenModelOptions = {}): Promise<ModelClient> {
  return openParsed(parseModelSpec(spec), options);
}

/** Opens several clients; every spec is parsed before any is opened, and a failure closes those already open. */
export async function openModels(specs: readonly string[], options: OpenModelOptions = {}): Promise<ModelClient[]> {
  const parsed = specs.map((s) => parseModelSpec(s));
  const clients: ModelClient[] = [];
  try {
    for (const p of parsed) clients.push(await openParsed(p, options));
  } catch (error) {
    await Promise.allSettled(clients.map((c) => c.close?.()));
    throw error;
  }
  return clients;
}

async function openParsed(spec: ModelSpec, options: OpenModelOptions): Promise<ModelClient> {
  switch (spec.kind) {
    case 'baseline':
      if (spec.baseline === 'lexical') return createLexicalBaseline();
      // Load now: a broken install fails at open, and the first answer's latency is not the load time.
      await loadSentenceEncoder();
      return createEmbeddingBaseline();
    case 'llama-cpp':
      return openLlama(spec, options);
    case 'hosted':
    case 'chain': {
      const env = options.env ?? process.env;
      const { createDispatcher, fetchVia, sharedDispatcher } = await transport();
      const owned = options.dispatcher === undefined && options.transport !== undefined ? createDispatcher(options.transport, env) : undefined;
      const dispatcher = options.dispatcher ?? owned ?? sharedDispatcher(env);
      const ctx = { env, keys: options.keys ?? envKeySource(env), fetch: fetchVia(dispatcher) };
      const backends: ModelBackend[] = [];
      try {
        for (const member of spec.kind === 'chain' ? spec.members : [spec]) {
          if (member.kind === 'hosted') {
            backends.push(createHostedBackend(member, ctx));
            await loadProviderSdk(member.provider);
          } else {
            backends.push(llamaBackend(await openLlama(member, options)));
          }
        }
      } catch (error) {
        await Promise.allSettled(backends.map((b) => b.close?.()));
        await owned?.close();
        throw error;
      }
      const client = createChainClient(spec.spec, backends, {
        ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
        ...(options.deadlineMs !== undefined && { deadlineMs: options.deadlineMs }),
        ...(options.retries !== undefined && { retries: options.retries }),
        ...(options.random !== undefined && { random: options.random }),
      });
      return {
        spec: client.spec,
        isBaseline: false,
        generate: (request) => client.generate(request),
        async close() {
          await client.close?.();
          await owned?.close();
        },
      };
    }
  }
}

async function openLlama(spec: LlamaCppSpec, options: OpenModelOptions): Promise<ModelClient> {
  const { openLlamaCppModel } = await import('./llamaCpp');
  return openLlamaCppModel(spec.path, {
    ...options.llamaCpp,
    ...(spec.grammar !== undefined && { grammar: spec.grammar }),
    ...(spec.seed !== undefined && { seed: spec.seed }),
  });
}

/** A local model as a chain member: the chain adds its timeout, attempt records and failover. */
function llamaBackend(client: ModelClient): ModelBackend {
  let model = client.spec.slice(client.spec.lastIndexOf('/') + 1);
  return {
    provider: 'llama-cpp',
    get model() {
      return model;
    },
    async call(request, signal) {
      const result = await client.generate({ ...request, signal });
      model = result.model;
      return {
        text: result.text,
        usage: result.usage,
        warnings: result.warnings ?? [],
        costUsd: result.costUsd,
        ...(result.finishReason !== undefined && { finishReason: result.finishReason }),
      };
    },
    close: () => client.close?.() ?? Promise.resolve(),
  };
}

/** Everything a model picker needs: providers, their aliases as resolved now, and whether keys are present. */
export async function describeProviders(
  options: { env?: Readonly<Record<string, string | undefined>>; keys?: KeySource } = {},
): Promise<ProviderDescription[]> {
  const env = options.env ?? process.env;
  const keys = options.keys ?? envKeySource(env);
  const named = ['openai', 'anthropic', 'groq'] as const;
  const labels = { openai: 'OpenAI', anthropic: 'Anthropic', groq: 'Groq' };
  const out: ProviderDescription[] = [];
  for (const id of named) {
    out.push({
      id,
      label: labels[id],
      kind: 'hosted',
      specExample: `${id}:fast`,
      keyEnvVar: KEY_ENV_VARS[id],
      keyConfigured: Boolean(await keys.getKey(id)),
      baseUrlEnvVar: BASE_URL_ENV_VARS[id],
      baseUrl: withoutCredentials(env[BASE_URL_ENV_VARS[id]]?.trim() || DEFAULT_BASE_URLS[id]),
      aliases: MODEL_ALIASES.map((alias) => {
        const resolved = resolveModelId(id, alias, env)!;
        const builtin = BUILTIN_MODELS[id][alias];
        const price = resolved.model === builtin.id ? builtin.price : undefined;
        return {
          alias,
          model: resolved.model,
          source: resolved.source === 'env' ? 'env' : 'builtin',
          envVar: aliasEnvVar(id, alias),
          ...(price && { price }),
        };
      }),
      isBaseline: false,
      pricesAsOf: PRICES_AS_OF,
    });
  }
  out.push({
    id: 'openai-compatible',
    label: 'OpenAI-compatible server (Ollama, vLLM, LM Studio, llama.cpp server)',
    kind: 'hosted',
    specExample: 'openai-compatible:http://127.0.0.1:11434/v1#llama3.1:8b',
    keyEnvVar: KEY_ENV_VARS['openai-compatible'],
    keyConfigured: Boolean(await keys.getKey('openai-compatible')),
    aliases: MODEL_ALIASES.map((alias) => {
      const resolved = resolveModelId('openai-compatible', alias, env);
      const envVar = aliasEnvVar('openai-compatible', alias);
      return resolved ? { alias, model: resolved.model, source: 'env' as const, envVar } : { alias, source: 'unmapped' as const, envVar };
    }),
    isBaseline: false,
  });
  out.push({
    id: 'llama-cpp',
    label: 'Local GGUF model (llama.cpp, in process)',
    kind: 'local',
    specExample: 'llama-cpp:models/model.gguf?grammar=1&seed=0',
    aliases: [],
    isBaseline: false,
  });
  out.push({
    id: 'baseline',
    label: 'Deterministic baselines (not language models): baseline:lexical (BM25), baseline:embedding (sentence encoder)',
    kind: 'baseline',
    specExample: 'baseline:embedding',
    aliases: [],
    isBaseline: true,
  });
  return out;
}

function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '(invalid URL)';
  }
}
