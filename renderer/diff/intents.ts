/**
 * The diff view's intents: what other views may ask of it (see
 * `shell/intents.ts`), and what a view that asks is told when this module is
 * not in the build.
 */
import type { SkillId } from '../../core/package/types';
import type { IntentMessages } from '../shell/intents';

/**
 * One side of a comparison, in the WorkbenchApi's package-source terms: a
 * stored revision (on any connection), a draft, or a workspace file.
 */
export type PackageSourceRef =
  | { kind: 'stored'; connection: string; skill: SkillId; version: 'published' | number }
  | { kind: 'draft'; draft: string }
  | { kind: 'file'; path: string };

declare module '../shell/intents' {
  interface Intents {
    /** Compare two packages; either side may be a draft, a file, or a revision on any connection. */
    'skill.diff': { before: PackageSourceRef; after: PackageSourceRef };
  }
}

/** Why each intent is unavailable when this module is not registered. */
export const diffIntents: IntentMessages<'skill.diff'> = {
  'skill.diff': 'The diff view is not part of this build',
};
