/**
 * The model layer's contract: one interface every provider adapter, the local
 * llama.cpp model and the deterministic baselines implement. The selector
 * (core/selector) depends on these types only, never on an adapter.
 *
 * Types only: this file is imported by isomorphic modules.
 */
import type { ModelAlias, TokenPrice } from './aliases';

/** One chat message sent to a model. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A candidate as the deterministic baselines see it (the same body-free data the prompt renders). */
export interface SelectionOption {
  /** `namespace/name` for activation, `namespace/name#resource` for resources. */
  id: string;
  /** The catalog text a selector judges relevance by (display name, description, taxonomy or load_when). */
  text: string;
}

/**
 * Structured view of a selector task, sent alongside the rendered prompt.
 * Language models ignore it (they read the prompt); deterministic baselines
 * decide from it and answer in the same JSON format as a model would, so the
 * pipeline's decoding and revalidation still run on their answers.
 */
export interface SelectionTask {
  kind: 'activation' | 'resource';
  request: string;
  /** Extra bounded lifecycle context (objective, prior results), already rendered as text. */
  context?: string;
  options: SelectionOption[];
  /** Renders the task's answer for the chosen ids, in the prompt template's output format. */
  renderAnswer(selectedIds: string[]): string;
}

/** Everything a model call needs. */
export interface GenerateRequest {
  messages: readonly ChatMessage[];
  /** Selector calls use 0.01 (guide 9.4). */
  temperature: number;
  /** Output ceiling (guide 9.10: 512 for selectors). */
  maxOutputTokens: number;
  /** Deterministic seed where the backend supports one. */
  seed?: number;
  /**
   * Optional grammar-constrained decoding (JSON Schema). Off by default: the
   * runtime sets no provider-native response format, so neither do we unless asked.
   */
  jsonSchema?: Record<string, unknown>;
  /**
   * Reasoning effort for reasoning models (guide 9.4 pins `low` for selectors);
   * passed to providers that take one (OpenAI, Groq), ignored by the others.
   */
  reasoningEffort?: 'low' | 'medium' | 'high';
  /** Structured task for deterministic baselines. */
  task?: SelectionTask;
  signal?: AbortSignal;
}

/** Token usage of one call. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/**
 * Why the model stopped: its natural end (`stop`), the output ceiling
 * (`length`, so the text may be cut short), a content filter, a tool call, an
 * error the provider reported inside a successful answer, or something else.
 */
export type FinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other';

/** A successful model call. */
export interface GenerateResult {
  text: string;
  usage: TokenUsage;
  /** The model that actually answered (after alias resolution and failover). */
  model: string;
  /** The provider that answered, e.g. `openai`. */
  provider: string;
  latencyMs: number;
  /** Cost in US dollars when the price is known, else null. */
  costUsd: number | null;
  /** Every attempt made, including failed ones before failover or retry. */
  attempts: ModelAttempt[];
  /** True when an evaluation cache answered instead of the model (usage and latency are the original call's). */
  cached?: boolean;
  /** Settings the backend ignored or adjusted (e.g. temperature on a reasoning model); absent when none. */
  warnings?: string[];
  /** Why the model stopped, when the backend says (hosted providers do). */
  finishReason?: FinishReason;
}

/** Why a model call failed; decides failover and retry (guide 9.4 error policy). */
export type ModelErrorKind =
  | 'outage' // connection refused, DNS, reset: move on
  | 'auth' // 401/403: move on
  | 'rate_limit' // 429: retry with backoff / move on
  | 'server' // 5xx: move on
  | 'quota' // billing or quota exhausted: move on
  | 'timeout' // our per-attempt timeout: move on
  | 'cancelled' // caller aborted: stop
  | 'deadline' // overall deadline exhausted: stop
  | 'malformed_input'; // the request itself is invalid (400): stop

/** One attempt against one provider. */
export interface ModelAttempt {
  provider: string;
  model: string;
  ok: boolean;
  errorKind?: ModelErrorKind;
  status?: number;
  latencyMs: number;
}

/** A client for one model spec (or a failover chain of them). */
export interface ModelClient {
  /** The spec this client was created from, e.g. `openai:fast` (never contains a key). */
  readonly spec: string;
  /** True for deterministic baselines that are not language models (reports label them). */
  readonly isBaseline: boolean;
  generate(request: GenerateRequest): Promise<GenerateResult>;
  close?(): Promise<void>;
}

/** One alias of a provider, as a settings screen shows it. */
export interface AliasDescription {
  alias: ModelAlias;
  /** The model it resolves to now, or undefined when it has no mapping. */
  model?: string;
  source: 'builtin' | 'env' | 'unmapped';
  /** The variable that overrides it. */
  envVar: string;
  /** List price of the resolved model, when known. */
  price?: TokenPrice;
}

/** A provider or backend family, as the model picker shows it (`models.list`). */
export interface ProviderDescription {
  id: 'openai' | 'anthropic' | 'groq' | 'openai-compatible' | 'llama-cpp' | 'baseline';
  label: string;
  kind: 'hosted' | 'local' | 'baseline';
  /** A spec to start from. */
  specExample: string;
  /** Variable holding the key; `keyConfigured` says whether a key is available now (its value is never exposed). */
  keyEnvVar?: string;
  keyConfigured?: boolean;
  /** Variable overriding the base URL, and the URL in effect (credentials removed). */
  baseUrlEnvVar?: string;
  baseUrl?: string;
  aliases: AliasDescription[];
  /** True for deterministic baselines, which are not language models. */
  isBaseline: boolean;
  /** When the built-in prices were taken. */
  pricesAsOf?: string;
}
