/**
 * Intents: what one view asks another to do, without importing it. The catalog
 * asks to "edit this skill"; whichever module handles `skill.edit` opens its
 * tab. A module lists its handlers in `ViewModule.intents`; a view asks with
 * {@link useIntent}, which also says whether anyone handles the intent, so a
 * button can be disabled with the reason instead of doing nothing.
 */
import { useCallback } from 'react';
import type { SkillId } from '../../core/package/types';
import { useRegistry, type ViewRegistry } from './views';

/**
 * One side of a comparison, in the WorkbenchApi's package-source terms: a
 * stored revision (on any connection), a draft, or a workspace file.
 */
export type PackageSourceRef =
  | { kind: 'stored'; connection: string; skill: SkillId; version: 'published' | number }
  | { kind: 'draft'; draft: string }
  | { kind: 'file'; path: string };

/** Every intent and its payload. */
export interface Intents {
  /** Open the package editor on a skill of a connection (its draft, or a new draft of the published revision). */
  'skill.edit': { connection: string; skill: SkillId; preview?: boolean };
  /** Open the package editor on a workspace file. */
  'file.edit': { path: string; preview?: boolean };
  /** Show one retained revision read-only. */
  'skill.view': { connection: string; skill: SkillId; version: 'published' | number; preview?: boolean };
  /** Compare two packages; either side may be a draft, a file, or a revision on any connection. */
  'skill.diff': { before: PackageSourceRef; after: PackageSourceRef };
  /** Open the body-free version history. */
  'skill.history': { connection: string; skill: SkillId };
  /** Set up an evaluation of a skill. */
  'skill.evaluate': { connection: string; skill: SkillId };
  /** Open the catalog of a connection. */
  'catalog.open': { connection: string };
}

/** The name of an intent. */
export type IntentName = keyof Intents;

/** A module's handlers, by intent. */
export type IntentHandlers = { [K in IntentName]?: (payload: Intents[K]) => void };

const UNAVAILABLE: Record<IntentName, string> = {
  'skill.edit': 'The package editor is not part of this build',
  'file.edit': 'The package editor is not part of this build',
  'skill.view': 'Viewing a revision is not part of this build',
  'skill.diff': 'The diff view is not part of this build',
  'skill.history': 'The version history is not part of this build',
  'skill.evaluate': 'Evaluation is not part of this build yet',
  'catalog.open': 'The catalog is not part of this build',
};

/** Intent `name` of `registry` as a function, or why it is not available. */
export function intentOf<K extends IntentName>(registry: ViewRegistry, name: K): ((payload: Intents[K]) => void) | string {
  for (const module of registry.modules) {
    const handler = module.intents?.[name];
    if (handler) return handler as (payload: Intents[K]) => void;
  }
  return UNAVAILABLE[name];
}

/** Intent `name` as a function, or a string saying why it is not available. */
export function useIntent<K extends IntentName>(name: K): ((payload: Intents[K]) => void) | string {
  const registry = useRegistry();
  const handler = intentOf(registry, name);
  const call = useCallback((payload: Intents[K]) => (typeof handler === 'function' ? handler(payload) : undefined), [handler]);
  return typeof handler === 'function' ? call : handler;
}
