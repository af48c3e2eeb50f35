/**
 * Intents: what one view asks another to do, without importing it. The catalog
 * asks to "edit this skill"; whichever module handles `skill.edit` opens its
 * tab. A feature declares the intents it carries out in its own `intents.ts`
 * (collected in `renderer/intents.ts`) and lists its handlers in
 * `ViewModule.intents`; a view asks with {@link useIntent}, which also says
 * whether anyone handles the intent, so a button can be disabled with the
 * reason instead of doing nothing.
 */
import { useCallback } from 'react';
import { UNAVAILABLE_INTENTS } from '../intents';
import { useRegistry, type ViewRegistry } from './views';

/**
 * Every intent and its payload. Empty here: each feature adds the intents it
 * carries out from its own `intents.ts` (declaration merging), and
 * `renderer/intents.ts` collects their messages.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface Intents {}

/** The name of an intent. */
export type IntentName = keyof Intents;

/** A module's handlers, by intent. */
export type IntentHandlers = { [K in IntentName]?: (payload: Intents[K]) => void };

/** What a view is told when intents `K` have no handler in the build. */
export type IntentMessages<K extends IntentName> = { readonly [N in K]: string };

/** Intent `name` of `registry` as a function, or why it is not available. */
export function intentOf<K extends IntentName>(registry: ViewRegistry, name: K): ((payload: Intents[K]) => void) | string {
  for (const module of registry.modules) {
    const handler = module.intents?.[name];
    if (handler) return handler as (payload: Intents[K]) => void;
  }
  return UNAVAILABLE_INTENTS[name];
}

/** Intent `name` as a function, or a string saying why it is not available. */
export function useIntent<K extends IntentName>(name: K): ((payload: Intents[K]) => void) | string {
  const registry = useRegistry();
  const handler = intentOf(registry, name);
  const call = useCallback((payload: Intents[K]) => (typeof handler === 'function' ? handler(payload) : undefined), [handler]);
  return typeof handler === 'function' ? call : handler;
}
