/**
 * Portable model aliases (`default`, `fast`, `smart`) and what each provider maps
 * them to, plus list prices for those models: the one table to edit when a
 * provider ships or reprices a model. Aliases are lower-case and case-sensitive:
 * `FAST` is passed through as a literal model id (guide 9.4).
 */
import type { HostedProviderId } from './spec';

/** The portable aliases every provider resolves itself. */
export const MODEL_ALIASES = ['default', 'fast', 'smart'] as const;

/** A portable alias. */
export type ModelAlias = (typeof MODEL_ALIASES)[number];

/** List price in US dollars per million tokens. */
export interface TokenPrice {
  inputPerMTok: number;
  outputPerMTok: number;
}

/** A built-in alias target. */
export interface BuiltinModel {
  id: string;
  price: TokenPrice;
}

/** Providers with built-in alias mappings. */
export type NamedProviderId = 'openai' | 'anthropic' | 'groq';

/** Month the prices below were copied from the providers' public price lists. */
export const PRICES_AS_OF = '2025-11';

/**
 * Built-in alias mappings with list prices. The `fast` models accept a
 * temperature (selectors run at 0.01); `openai:smart` is a reasoning model,
 * for which the OpenAI API ignores temperature (reported as a warning).
 */
export const BUILTIN_MODELS: Readonly<Record<NamedProviderId, Readonly<Record<ModelAlias, BuiltinModel>>>> = {
  openai: {
    default: { id: 'gpt-4.1', price: { inputPerMTok: 2, outputPerMTok: 8 } },
    fast: { id: 'gpt-4.1-mini', price: { inputPerMTok: 0.4, outputPerMTok: 1.6 } },
    smart: { id: 'gpt-5.1', price: { inputPerMTok: 1.25, outputPerMTok: 10 } },
  },
  anthropic: {
    default: { id: 'claude-sonnet-4-5', price: { inputPerMTok: 3, outputPerMTok: 15 } },
    fast: { id: 'claude-haiku-4-5', price: { inputPerMTok: 1, outputPerMTok: 5 } },
    smart: { id: 'claude-opus-4-5', price: { inputPerMTok: 5, outputPerMTok: 25 } },
  },
  groq: {
    default: { id: 'llama-3.3-70b-versatile', price: { inputPerMTok: 0.59, outputPerMTok: 0.79 } },
    fast: { id: 'llama-3.1-8b-instant', price: { inputPerMTok: 0.05, outputPerMTok: 0.08 } },
    smart: { id: 'openai/gpt-oss-120b', price: { inputPerMTok: 0.15, outputPerMTok: 0.75 } },
  },
};

/** True for the three portable aliases (exact, lower-case). */
export function isModelAlias(value: string): value is ModelAlias {
  return (MODEL_ALIASES as readonly string[]).includes(value);
}

/** The environment variable that overrides an alias for a provider, e.g. `TRUVAG3_OPENAI_MODEL_FAST`. */
export function aliasEnvVar(provider: HostedProviderId, alias: ModelAlias): string {
  return `TRUVAG3_${provider.toUpperCase().replace(/-/g, '_')}_MODEL_${alias.toUpperCase()}`;
}

/** How a model id was arrived at. */
export type ModelIdSource = 'literal' | 'builtin' | 'env';

/** A resolved model id. */
export interface ResolvedModel {
  /** The id sent to the provider. */
  model: string;
  /** The alias requested, when one was. */
  alias?: ModelAlias;
  source: ModelIdSource;
  /** The overriding variable, when `source` is `env`. */
  envVar?: string;
}

/**
 * Resolves `modelOrAlias` for `provider`: an alias maps to its
 * `TRUVAG3_<PROVIDER>_MODEL_<ALIAS>` value when set, else to the built-in
 * table; anything else is a literal id. Returns `undefined` for an alias the
 * provider cannot resolve (an `openai-compatible` alias without its variable).
 */
export function resolveModelId(
  provider: HostedProviderId,
  modelOrAlias: string,
  env: Readonly<Record<string, string | undefined>>,
): ResolvedModel | undefined {
  if (!isModelAlias(modelOrAlias)) return { model: modelOrAlias, source: 'literal' };
  const envVar = aliasEnvVar(provider, modelOrAlias);
  const fromEnv = env[envVar]?.trim();
  if (fromEnv) return { model: fromEnv, alias: modelOrAlias, source: 'env', envVar };
  if (provider === 'openai-compatible') return undefined;
  return { model: BUILTIN_MODELS[provider][modelOrAlias].id, alias: modelOrAlias, source: 'builtin' };
}

/** The list price of a model, or `undefined` when it is not in the table. */
export function priceOf(provider: string, model: string): TokenPrice | undefined {
  if (provider !== 'openai' && provider !== 'anthropic' && provider !== 'groq') return undefined;
  for (const alias of MODEL_ALIASES) {
    const entry = BUILTIN_MODELS[provider][alias];
    if (entry.id === model) return entry.price;
  }
  return undefined;
}

/** Cost in US dollars of a call, or `null` when the model's price is unknown. */
export function costOf(provider: string, model: string, usage: { inputTokens: number; outputTokens: number }): number | null {
  const price = priceOf(provider, model);
  if (!price) return null;
  return (usage.inputTokens * price.inputPerMTok + usage.outputTokens * price.outputPerMTok) / 1_000_000;
}
