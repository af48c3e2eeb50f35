/**
 * The version history's intents: what other views may ask of it (see
 * `shell/intents.ts`), and what a view that asks is told when this module is
 * not in the build.
 */
import type { SkillId } from '../../core/package/types';
import type { IntentMessages } from '../shell/intents';

declare module '../shell/intents' {
  interface Intents {
    /** Show one retained revision read-only. */
    'skill.view': { connection: string; skill: SkillId; version: 'published' | number; preview?: boolean };
    /** Open the body-free version history. */
    'skill.history': { connection: string; skill: SkillId };
  }
}

/** Why each intent is unavailable when this module is not registered. */
export const versionsIntents: IntentMessages<'skill.view' | 'skill.history'> = {
  'skill.view': 'Viewing a revision is not part of this build',
  'skill.history': 'The version history is not part of this build',
};
