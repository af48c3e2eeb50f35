/**
 * The reviews area's intents: what other views may ask of it (see
 * `shell/intents.ts`), and what a view that asks is told when this module is
 * not in the build.
 */
import type { SkillId } from '../../core/package/types';
import type { IntentMessages } from '../shell/intents';

declare module '../shell/intents' {
  interface Intents {
    /** File a publication request for a draft (the connection is the one suggested as its target). */
    'review.request': { connection: string; skill: SkillId; draft: string };
  }
}

/** Why each intent is unavailable when this module is not registered. */
export const reviewsIntents: IntentMessages<'review.request'> = {
  'review.request': 'Reviews are not part of this build',
};
