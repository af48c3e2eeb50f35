/**
 * Opening a skill for editing and keeping its draft: the host's draft when it
 * keeps drafts (`packages.open`, autosaved through `drafts.save`), otherwise
 * the published revision held in the page only, said so plainly. The base
 * revision recorded here is what publish sends as its precondition.
 */
import type { WorkbenchClient } from '../../core/api/client';
import type { DraftView } from '../../core/api/contract';
import type { SkillId } from '../../core/package/types';
import { skillKey } from '../../core/package/types';

/** The revision a draft was opened from (null: a skill the store does not have yet). */
export type DraftBase = { version: number; etag: string } | null;

/** A skill opened for editing. */
export interface OpenedDocument {
  connection: string;
  skill: SkillId;
  text: string;
  base: DraftBase;
  /** The host's draft id; absent when the host keeps no drafts. */
  draftId?: string;
  /** Whether the host's draft holds edits not yet published (an autosaved draft offered back). */
  restored: boolean;
  /** When the host's draft was last saved (ISO 8601). */
  updatedAt?: string;
  /** Why edits are not autosaved, when they are not. */
  autosaveUnavailable?: string;
  /** The base moved underneath an autosaved draft. */
  conflict?: DraftView['conflict'];
}

function codeOf(error: unknown): string | undefined {
  return error && typeof error === 'object' && 'code' in error ? String((error as { code: unknown }).code) : undefined;
}

/** A 404 about the skill itself, not about the connection or another parameter. */
function skillNotFound(error: unknown): boolean {
  if (codeOf(error) !== 'not_found') return false;
  const pointer = (error as { details?: { pointer?: unknown }; data?: { pointer?: unknown; details?: { pointer?: unknown } } }).data;
  const at = pointer?.pointer ?? pointer?.details?.pointer ?? (error as { details?: { pointer?: unknown } }).details?.pointer;
  return at === undefined || at === '/skill';
}

/** The text of a package the store does not have yet. */
export function newPackageText(skill: SkillId): string {
  const pkg = {
    display_name: skill.name.replace(/-/g, ' ').replace(/^./, (c) => c.toUpperCase()),
    description: `Use when the user asks about ${skill.name.replace(/-/g, ' ')}.`,
    domains: [skill.namespace],
    tags: [],
    planning_instructions: ['Describe the first step.'],
    response_instructions: [],
    tool_hints: [],
    resources: [],
    activation_examples: { should_activate: [], should_not_activate: [] },
    change_reason: `Create ${skillKey(skill)}`,
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

/**
 * Opens `skill` of `connection`: its draft when the host keeps drafts, or a
 * page-held copy of the published revision when it does not, or a new package
 * when the store does not have the skill.
 */
export async function openDocument(api: WorkbenchClient, connection: string, skill: SkillId): Promise<OpenedDocument> {
  try {
    const draft = await api['packages.open']({ connection, skill });
    const base = draft.origin.kind === 'store' ? draft.origin.base : null;
    return {
      connection,
      skill,
      text: draft.text,
      base: base ? { version: base.version, etag: base.etag } : null,
      draftId: draft.id,
      restored: draft.dirty,
      updatedAt: draft.updated_at,
      ...(draft.conflict ? { conflict: draft.conflict } : {}),
    };
  } catch (error) {
    if (codeOf(error) !== 'not_implemented') throw error;
  }
  const autosaveUnavailable = 'This host keeps no drafts: edits live in this page until they are published.';
  try {
    const revision = await api['packages.get']({ connection, skill });
    return { connection, skill, text: revision.text, base: { version: revision.version, etag: revision.etag }, restored: false, autosaveUnavailable };
  } catch (error) {
    if (!skillNotFound(error)) throw error;
    return { connection, skill, text: newPackageText(skill), base: null, restored: false, autosaveUnavailable };
  }
}

/**
 * Saves a draft's text after edits settle: at most one save in flight, the
 * latest text always saved last. `onState` reports `saving`, `saved` or
 * `failed` (with the reason).
 */
export function createAutosaver(options: {
  save: (text: string) => Promise<void>;
  delayMs: number;
  onState: (state: 'saving' | 'saved' | 'failed', message?: string) => void;
}) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let pending: string | undefined;
  let inFlight: Promise<void> | undefined;

  const flush = async (): Promise<void> => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (inFlight) await inFlight;
    const text = pending;
    if (text === undefined) return;
    pending = undefined;
    options.onState('saving');
    inFlight = options.save(text).then(
      () => {
        if (pending === undefined) options.onState('saved');
      },
      (error: unknown) => {
        options.onState('failed', error instanceof Error ? error.message : String(error));
      },
    );
    await inFlight;
    inFlight = undefined;
    if (pending !== undefined) await flush();
  };

  return {
    /** Notes an edit; the save happens `delayMs` after the last one. */
    edited(text: string) {
      pending = text;
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(() => void flush(), options.delayMs);
    },
    /** Saves now (Mod+S, closing the tab). */
    flush,
    /** Whether an edit is not saved yet. */
    get dirty() {
      return pending !== undefined || inFlight !== undefined;
    },
    cancel() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      pending = undefined;
    },
  };
}
