/**
 * The model picker: providers, aliases and checked specs.
 *
 * Isomorphic: no `node:` imports (the renderer and the preload import it).
 */
import { z } from 'zod';
import type { ProviderDescription } from '../../models/types';
import type { WorkbenchErrorData } from './errors';
import { empty, method } from './internal';

// The model picker's providers are described by the model layer (core/models/index.ts `describeProviders`), declared once there.
export type { AliasDescription, ProviderDescription } from '../../models/types';

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
  'models.list': method<{ providers: ProviderDescription[] }>()(empty),
  /** Checks a model spec without calling the model. */
  'models.check': method<ModelCheck>()(z.strictObject({ spec: z.string().min(1).max(2048) })),
} as const;
