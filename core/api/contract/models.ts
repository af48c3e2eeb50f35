/**
 * The model picker: providers, aliases and checked specs.
 *
 * Isomorphic: no `node:` imports (the renderer and the preload import it).
 */
import { z } from 'zod';
import type { WorkbenchErrorData } from './errors';
import { empty, method } from './internal';

/** One provider or backend family of the model picker. */
export interface ProviderView {
  id: 'openai' | 'anthropic' | 'groq' | 'openai-compatible' | 'llama-cpp' | 'baseline';
  label: string;
  kind: 'hosted' | 'local' | 'baseline';
  specExample: string;
  keyEnvVar?: string;
  /** Whether a key is available now (its value never crosses). */
  keyConfigured?: boolean;
  baseUrlEnvVar?: string;
  baseUrl?: string;
  aliases: {
    alias: 'default' | 'fast' | 'smart';
    model?: string;
    source: 'builtin' | 'env' | 'unmapped';
    envVar: string;
    price?: { inputPerMTok: number; outputPerMTok: number };
  }[];
  isBaseline: boolean;
  pricesAsOf?: string;
}

/** A checked model spec. */
export interface ModelCheck {
  spec: string;
  ok: boolean;
  isBaseline: boolean;
  /** Why the spec is not usable, when `ok` is false. */
  error?: WorkbenchErrorData;
}

/** This domain's methods of {@link METHODS}, with their parameter schemas. */
export const modelMethods = {
  /** Providers, aliases as resolved now, prices, and whether keys are present. */
  'models.list': method<{ providers: ProviderView[] }>()(empty),
  /** Checks a model spec without calling the model. */
  'models.check': method<ModelCheck>()(z.strictObject({ spec: z.string().min(1).max(2048) })),
} as const;
