/**
 * The catalog's intents: what other views may ask of it (see
 * `shell/intents.ts`), and what a view that asks is told when this module is
 * not in the build.
 */
import type { IntentMessages } from '../shell/intents';

declare module '../shell/intents' {
  interface Intents {
    /** Open the catalog of a connection. */
    'catalog.open': { connection: string };
  }
}

/** Why each intent is unavailable when this module is not registered. */
export const catalogIntents: IntentMessages<'catalog.open'> = {
  'catalog.open': 'The catalog is not part of this build',
};
