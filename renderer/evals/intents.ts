/**
 * The evaluation area's intents: what other views may ask of it (see
 * `shell/intents.ts`), and what a view that asks is told when this module is
 * not in the build.
 */
import type { SkillId } from '../../core/package/types';
import type { IntentMessages } from '../shell/intents';

declare module '../shell/intents' {
  interface Intents {
    /** Set up an evaluation of a skill. */
    'skill.evaluate': { connection: string; skill: SkillId };
  }
}

/** Why each intent is unavailable when this module is not registered. */
export const evalsIntents: IntentMessages<'skill.evaluate'> = {
  'skill.evaluate': 'Evaluation is not part of this build yet',
};
