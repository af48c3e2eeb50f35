/**
 * The workbench's intents, collected once. Each feature declares the intents it
 * carries out, with their payloads and the message a view gets when the feature
 * is not in the build, in its own `intents.ts`; to add one, write that file and
 * list it here (beside listing its module in `App.tsx`). The type below fails
 * to compile when a declared intent has no message.
 */
import { catalogIntents } from './catalog/intents';
import { diffIntents } from './diff/intents';
import { editorIntents } from './editor/intents';
import { evalsIntents } from './evals/intents';
import { reviewsIntents } from './reviews/intents';
import type { IntentName } from './shell/intents';
import { versionsIntents } from './versions/intents';

/** Why each intent is unavailable when no registered module carries it out. */
export const UNAVAILABLE_INTENTS: Readonly<Record<IntentName, string>> = {
  ...catalogIntents,
  ...diffIntents,
  ...editorIntents,
  ...evalsIntents,
  ...reviewsIntents,
  ...versionsIntents,
};
