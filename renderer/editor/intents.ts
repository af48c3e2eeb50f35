/**
 * The package editor's intents: what other views may ask of it (see
 * `shell/intents.ts`), and what a view that asks is told when this module is
 * not in the build.
 */
import type { SkillId } from '../../core/package/types';
import type { IntentMessages } from '../shell/intents';

declare module '../shell/intents' {
  interface Intents {
    /** Open the package editor on a skill of a connection (its draft, or a new draft of the published revision). */
    'skill.edit': { connection: string; skill: SkillId; preview?: boolean };
  }
}

/** Why each intent is unavailable when this module is not registered. */
export const editorIntents: IntentMessages<'skill.edit'> = {
  'skill.edit': 'The package editor is not part of this build',
};
