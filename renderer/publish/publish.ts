/**
 * Publishing a draft: the precondition comes from the base revision the draft
 * was opened from (If-Match its ETag, or create when there is none); one
 * idempotency key per attempt, kept across retries; a 422's findings go to the
 * problems panel at their locations; a 412 opens the merge view.
 */
import { create } from 'zustand';
import type { PublishConflict, PublishOutcome } from '../../core/api/contract';
import type { Finding, SkillId } from '../../core/package/types';
import { workbenchClient } from '../api/client';
import type { DraftBase } from '../editor/document';
import type { EditorRef } from '../editor/actions';
import { setValueEdit } from '../editor/formEdits';
import { useEditorStore } from '../editor/useEditorStore';
import { messageOf } from '../shell/useNotificationsStore';
import { PublishAttempts } from './attempt';

/** What the publish dialog shows. */
export type PublishDialogState =
  | { state: 'confirm'; tabId: string; skill: SkillId; connection: string; base: DraftBase }
  | { state: 'publishing'; tabId: string; skill: SkillId; connection: string; base: DraftBase; key: string; retry: boolean }
  | { state: 'done'; tabId: string; skill: SkillId; connection: string; outcome: PublishOutcome }
  | { state: 'refused'; tabId: string; skill: SkillId; connection: string; message: string; findings: Finding[] }
  | { state: 'failed'; tabId: string; skill: SkillId; connection: string; message: string; retryable: boolean; key?: string };

export const usePublishStore = create<{ dialog: PublishDialogState | undefined }>(() => ({ dialog: undefined }));

/** What a 412 hands the merge view. */
export interface MergeRequest {
  editorTabId: string;
  connection: string;
  skill: SkillId;
  conflict: PublishConflict;
  message: string;
}

export const useMergeStore = create<{ requests: Record<string, MergeRequest> }>(() => ({ requests: {} }));

const attempts = new Map<string, PublishAttempts>();

/** The attempts of one editor tab. */
export function attemptsOf(tabId: string): PublishAttempts {
  let a = attempts.get(tabId);
  if (!a) {
    a = new PublishAttempts();
    attempts.set(tabId, a);
  }
  return a;
}

function errorData(error: unknown): { code?: string; findings: Finding[]; conflict?: PublishConflict } {
  const e = error as { code?: string; data?: { findings?: Finding[]; conflict?: PublishConflict } } | null;
  return { ...(e?.code ? { code: e.code } : {}), findings: e?.data?.findings ?? [], ...(e?.data?.conflict ? { conflict: e.data.conflict } : {}) };
}

/** Hooks the merge module installs (opening its tab). */
let openMerge: (request: MergeRequest) => void = () => undefined;
export function onPublishConflict(open: (request: MergeRequest) => void): void {
  openMerge = open;
}

/**
 * Publishes `text` on `base` for the editor `tabId`. Used by the editor's
 * Publish and by a completed merge (then `base` is the newer revision).
 */
export async function publishText(target: { tabId: string; connection: string; skill: SkillId }, text: string, base: DraftBase): Promise<PublishOutcome | undefined> {
  const { tabId, connection, skill } = target;
  const attemptsForTab = attemptsOf(tabId);
  const retry = attemptsForTab.pending !== undefined;
  const attempt = attemptsForTab.begin(text, base);
  usePublishStore.setState({ dialog: { state: 'publishing', tabId, skill, connection, base, key: attempt.key, retry } });
  const doc = useEditorStore.getState().docs[tabId];
  try {
    const outcome = await workbenchClient()['publish.package']({
      connection,
      skill,
      text,
      base: base ? { version: base.version, etag: base.etag } : null,
      idempotency_key: attempt.key,
      ...(doc?.draftId ? { draft: doc.draftId } : {}),
    });
    attemptsForTab.settle({ ok: true });
    useEditorStore.getState().published(tabId, { version: outcome.version, etag: outcome.etag }, text);
    usePublishStore.setState({ dialog: { state: 'done', tabId, skill, connection, outcome } });
    return outcome;
  } catch (error) {
    attemptsForTab.settle({ ok: false, error });
    const data = errorData(error);
    if (data.code === 'validation_failed') {
      useEditorStore.getState().patch(tabId, { registryFindings: data.findings });
      usePublishStore.setState({ dialog: { state: 'refused', tabId, skill, connection, message: messageOf(error), findings: data.findings } });
    } else if (data.code === 'precondition_failed' && data.conflict) {
      usePublishStore.setState({ dialog: undefined });
      const request: MergeRequest = { editorTabId: tabId, connection, skill, conflict: data.conflict, message: messageOf(error) };
      useMergeStore.setState({ requests: { ...useMergeStore.getState().requests, [tabId]: request } });
      openMerge(request);
    } else {
      const pending = attemptsForTab.pending;
      usePublishStore.setState({
        dialog: { state: 'failed', tabId, skill, connection, message: messageOf(error), retryable: pending !== undefined, ...(pending ? { key: pending.key } : {}) },
      });
    }
    return undefined;
  }
}

/**
 * The editor's Publish: opens the publish dialog on the draft (its change
 * summary against the base, the change reason, the target), which publishes
 * with {@link publishWithReason} once confirmed.
 */
export function requestPublish(editor: EditorRef): void {
  const doc = useEditorStore.getState().docs[editor.tabId];
  if (!doc) return;
  usePublishStore.setState({ dialog: { state: 'confirm', tabId: editor.tabId, skill: editor.skill, connection: editor.connection, base: doc.base } });
}

/** `text` with its `change_reason` set to `reason` (an edit of that one value; the rest of the text is kept byte for byte). */
export function withChangeReason(text: string, reason: string): string {
  const edit = setValueEdit(text, '/change_reason', reason);
  return edit ? text.slice(0, edit.start) + edit.text + text.slice(edit.end) : text;
}

/**
 * Publishes the draft of `editor` with `reason` as its change reason: the
 * editor takes the reason first (one undoable edit), so what is published is
 * what the editor shows.
 */
export function publishWithReason(editor: EditorRef, reason: string): Promise<PublishOutcome | undefined> {
  const doc = useEditorStore.getState().docs[editor.tabId];
  if (!doc) return Promise.resolve(undefined);
  const text = withChangeReason(doc.text, reason);
  if (text !== doc.text) {
    useEditorStore.getState().replaceText(editor.tabId, text);
    useEditorStore.getState().patch(editor.tabId, { text });
  }
  return publishText(editor, text, doc.base);
}

/** Publishes the draft's current text on its recorded base (a retry of the same attempt). */
export function publishDraft(editor: EditorRef): Promise<PublishOutcome | undefined> {
  const doc = useEditorStore.getState().docs[editor.tabId];
  if (!doc) return Promise.resolve(undefined);
  return publishText(editor, doc.text, doc.base);
}
