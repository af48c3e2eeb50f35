/**
 * Hosted providers through their AI SDK packages: OpenAI (Responses API, the
 * SDK's default), Anthropic (Messages), Groq and any OpenAI-compatible server
 * (Chat Completions). One non-streaming `generateText` call per attempt, no SDK
 * retries (the chain owns retries), and no provider-native response format
 * unless the request carries a JSON Schema.
 */
import type * as AiSdkModule from 'ai';
import type { LanguageModel, OutputInterface } from 'ai';
import { resolveModelId } from './aliases';
import type { BackendAnswer, ModelBackend } from './chain';
import { ModelError, ModelSpecError, classifyError } from './errors';
import { KEY_ENV_VARS, type KeySource } from './keys';
import type { HostedProviderId, HostedSpec } from './spec';
import type { FetchFunction } from './transport';
import type { GenerateRequest } from './types';

/** Default API base URL of each named provider. */
export const DEFAULT_BASE_URLS: Readonly<Record<'openai' | 'anthropic' | 'groq', string>> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com/v1',
  groq: 'https://api.groq.com/openai/v1',
};

/** The variable that overrides each named provider's base URL (also how tests reach local emulators). */
export const BASE_URL_ENV_VARS: Readonly<Record<'openai' | 'anthropic' | 'groq', string>> = {
  openai: 'OPENAI_BASE_URL',
  anthropic: 'ANTHROPIC_BASE_URL',
  groq: 'GROQ_BASE_URL',
};

/** What a hosted backend needs from its surroundings. */
export interface HostedContext {
  env: Readonly<Record<string, string | undefined>>;
  keys: KeySource;
  fetch: FetchFunction;
}

/**
 * A backend for one hosted spec, with its alias resolved now (from `ctx.env`).
 * Throws a {@link ModelSpecError} for an `openai-compatible` alias that has no
 * `TRUVAG3_OPENAI_COMPATIBLE_MODEL_<ALIAS>` mapping.
 */
export function createHostedBackend(spec: HostedSpec, ctx: HostedContext): ModelBackend {
  const resolved = resolveModelId(spec.provider, spec.model, ctx.env);
  if (!resolved) {
    throw new ModelSpecError(
      spec.spec,
      spec.spec.length - spec.model.length,
      `openai-compatible servers have no built-in model for alias '${spec.model}'; set TRUVAG3_OPENAI_COMPATIBLE_MODEL_${spec.model.toUpperCase()} or name the model`,
    );
  }
  const provider = spec.provider;
  const model = resolved.model;
  const baseURL = baseUrlOf(spec, ctx.env);
  const keyVar = KEY_ENV_VARS[provider];
  // The SDK provider object is built once per key, not per call: building it
  // (and its schemas) costs more than an answer from a fast local server.
  let cached: { key: string | undefined; model: LanguageModel } | undefined;
  const languageModelFor = async (key: string | undefined): Promise<LanguageModel> => {
    if (cached?.key !== key || cached === undefined) {
      cached = { key, model: await createLanguageModel(provider, model, baseURL, key, ctx.fetch) };
    }
    return cached.model;
  };
  return {
    provider,
    model,
    async call(request: GenerateRequest, signal: AbortSignal): Promise<BackendAnswer> {
      const key = await ctx.keys.getKey(provider);
      if (!key && provider !== 'openai-compatible') {
        throw new ModelError('auth', `${provider} (${model}): no API key; set ${keyVar}`, { provider, model });
      }
      const secrets = key ? [key] : [];
      try {
        const { generateText } = await aiSdk();
        const languageModel = await languageModelFor(key);
        const output = request.jsonSchema ? await rawJsonOutput(request.jsonSchema) : undefined;
        const result = await generateText({
          model: languageModel,
          // A copy: the selector's messages are frozen, and the SDK's parameter type is a mutable array.
          messages: [...request.messages],
          allowSystemInMessages: true,
          temperature: request.temperature,
          maxOutputTokens: request.maxOutputTokens,
          ...(request.seed !== undefined && { seed: request.seed }),
          ...(output && { output }),
          providerOptions: providerOptionsFor(provider, request),
          maxRetries: 0,
          abortSignal: signal,
        });
        return {
          text: result.text,
          usage: { inputTokens: result.usage.inputTokens ?? 0, outputTokens: result.usage.outputTokens ?? 0 },
          warnings: result.warnings?.map(formatWarning) ?? [],
          ...(result.response?.modelId ? { model: result.response.modelId } : {}),
          finishReason: result.finishReason,
        };
      } catch (error) {
        throw classifyError(error, { provider, model, secrets, authHint: `check ${keyVar}` });
      }
    },
  };
}

function baseUrlOf(spec: HostedSpec, env: Readonly<Record<string, string | undefined>>): string {
  if (spec.provider === 'openai-compatible') return spec.baseUrl;
  const fromEnv = env[BASE_URL_ENV_VARS[spec.provider]]?.trim();
  return (fromEnv ? fromEnv : DEFAULT_BASE_URLS[spec.provider]).replace(/\/+$/, '');
}

type AiSdk = typeof AiSdkModule;
let aiModule: Promise<AiSdk> | undefined;
/** The AI SDK, imported once per process (a dynamic import per call is measurable at hundreds of calls per second). */
function aiSdk(): Promise<AiSdk> {
  aiModule ??= import('ai');
  return aiModule;
}

/**
 * Loads the AI SDK and one provider package. `openModel` calls it so the first
 * attempt's latency (and its timeout) measures the provider, not module loading.
 */
export async function loadProviderSdk(provider: HostedProviderId): Promise<void> {
  await Promise.all([
    aiSdk(),
    provider === 'openai'
      ? import('@ai-sdk/openai')
      : provider === 'anthropic'
        ? import('@ai-sdk/anthropic')
        : provider === 'groq'
          ? import('@ai-sdk/groq')
          : import('@ai-sdk/openai-compatible'),
  ]);
}

/**
 * Builds the SDK model for one attempt. Every setting is passed explicitly so
 * the SDK never falls back to reading `process.env` behind our `env` option.
 */
async function createLanguageModel(
  provider: HostedProviderId,
  model: string,
  baseURL: string,
  apiKey: string | undefined,
  fetch: FetchFunction,
): Promise<LanguageModel> {
  switch (provider) {
    case 'openai': {
      const { createOpenAI } = await import('@ai-sdk/openai');
      return createOpenAI({ baseURL, apiKey: apiKey ?? '', fetch }).responses(model);
    }
    case 'anthropic': {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      return createAnthropic({ baseURL, apiKey: apiKey ?? '', fetch })(model);
    }
    case 'groq': {
      const { createGroq } = await import('@ai-sdk/groq');
      return createGroq({ baseURL, apiKey: apiKey ?? '', fetch })(model);
    }
    case 'openai-compatible': {
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
      // Ollama, vLLM, LM Studio and llama.cpp's server all accept a json_schema response format.
      return createOpenAICompatible({ name: 'openai-compatible', baseURL, ...(apiKey && { apiKey }), fetch, supportsStructuredOutputs: true })(model);
    }
  }
}

type ProviderOptions = Record<string, Record<string, string | boolean>>;

function providerOptionsFor(provider: HostedProviderId, request: GenerateRequest): ProviderOptions {
  switch (provider) {
    case 'openai':
      // store:false keeps prompts out of OpenAI's stored responses; nothing here needs them later.
      return { openai: { store: false, ...(request.reasoningEffort && { reasoningEffort: request.reasoningEffort }) } };
    case 'groq':
      return request.reasoningEffort ? { groq: { reasoningEffort: request.reasoningEffort } } : {};
    default:
      return {};
  }
}

/**
 * A JSON-Schema response format that hands back the raw text: the selector
 * decodes and revalidates answers itself, and an SDK-side parse failure would
 * throw the text away.
 */
async function rawJsonOutput(schema: Record<string, unknown>): Promise<OutputInterface<string, string, never>> {
  const { jsonSchema } = await aiSdk();
  const wrapped = jsonSchema(schema);
  return {
    name: 'text',
    responseFormat: Promise.resolve(wrapped.jsonSchema).then((resolved) => ({ type: 'json' as const, schema: resolved, name: 'answer' })),
    parseCompleteOutput: async ({ text }) => text,
    parsePartialOutput: async ({ text }) => ({ partial: text }),
    createElementStreamTransform: () => undefined,
  };
}

function formatWarning(warning: unknown): string {
  if (typeof warning !== 'object' || warning === null) return String(warning);
  const w = warning as { type?: string; feature?: string; details?: string; message?: string };
  if (w.message) return w.message;
  if (w.feature) return w.details ? `${w.feature}: ${w.details}` : `${w.feature} is not supported`;
  return w.type ?? 'warning';
}

// Core does not print: SDK warnings are returned in GenerateResult.warnings instead.
(globalThis as { AI_SDK_LOG_WARNINGS?: unknown }).AI_SDK_LOG_WARNINGS ??= false;
