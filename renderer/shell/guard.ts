/**
 * The unsaved-changes guard. Closing tabs (one, a connection's, or the window's)
 * goes through {@link closeTabs}: clean tabs close at once; when any tab is
 * dirty, a modal lists every dirty tab and offers Save / Don't Save / Cancel,
 * and ignores Escape and clicks outside it (Bruno's ConfirmRequestClose).
 *
 * A view that can hold unsaved edits registers how to save and how to discard
 * them with {@link useTabPersistence}; the guard calls those, never the view's
 * internals.
 */
import { useEffect, useRef } from 'react';
import { create } from 'zustand';
import { useTabsStore, type Tab } from './useTabsStore';

/** How a dirty tab saves or drops its edits. */
export interface TabPersistence {
  /** Saves; resolves false (or throws) when it could not, which keeps the tab open. */
  save(): Promise<boolean>;
  /** Drops the unsaved edits. */
  discard(): Promise<void> | void;
}

const persistence = new Map<string, () => TabPersistence>();

/** Registers how tab `tabId` saves and discards; returns the unregister function. */
export function registerTabPersistence(tabId: string, get: () => TabPersistence): () => void {
  persistence.set(tabId, get);
  return () => {
    if (persistence.get(tabId) === get) persistence.delete(tabId);
  };
}

/** Registers save/discard for a tab while the calling component is mounted. */
export function useTabPersistence(tabId: string, hooks: TabPersistence): void {
  const latest = useRef(hooks);
  latest.current = hooks;
  useEffect(() => registerTabPersistence(tabId, () => latest.current), [tabId]);
}

/** The decision a person makes in the guard. */
export type GuardChoice = 'save' | 'discard' | 'cancel';

/** The open guard dialog. */
export interface GuardRequest {
  /** Why the tabs are closing, e.g. "Switching to stage-http closes the tabs of prod-redis." */
  reason: string;
  dirty: Tab[];
  /** Set while saving, or when a save failed (shown in the dialog). */
  busy: boolean;
  error?: string;
  decide(choice: GuardChoice): void;
}

interface GuardState {
  request: GuardRequest | undefined;
}

export const useGuardStore = create<GuardState>(() => ({ request: undefined }));

async function saveAll(tabs: Tab[]): Promise<string | undefined> {
  for (const tab of tabs) {
    const hooks = persistence.get(tab.id)?.();
    if (!hooks) return `${tab.title} cannot be saved from here; open it and save it, or choose Don't Save.`;
    try {
      if (!(await hooks.save())) return `${tab.title} was not saved; its edits are kept.`;
    } catch (error) {
      return `${tab.title} was not saved: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  return undefined;
}

async function discardAll(tabs: Tab[]): Promise<void> {
  for (const tab of tabs) await persistence.get(tab.id)?.().discard();
}

/**
 * Closes `ids`, asking first when any of them is dirty. Resolves true when the
 * tabs are closed, false when the person cancelled or a save failed and they
 * then cancelled.
 */
export function closeTabs(ids: string[], reason: string): Promise<boolean> {
  const tabs = useTabsStore.getState().tabs.filter((t) => ids.includes(t.id));
  const dirty = tabs.filter((t) => t.dirty);
  const finish = () => {
    useTabsStore.getState().remove(tabs.map((t) => t.id));
    return true;
  };
  if (dirty.length === 0) return Promise.resolve(finish());
  if (useGuardStore.getState().request) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const settle = (result: boolean) => {
      useGuardStore.setState({ request: undefined });
      resolve(result ? finish() : false);
    };
    const request: GuardRequest = {
      reason,
      dirty,
      busy: false,
      decide(choice) {
        if (choice === 'cancel') return settle(false);
        const current = useGuardStore.getState().request;
        if (!current || current.busy) return;
        useGuardStore.setState({ request: { ...current, busy: true, error: undefined } });
        const work = choice === 'save' ? saveAll(dirty) : discardAll(dirty).then(() => undefined);
        work
          .then((error) => {
            if (error) useGuardStore.setState({ request: { ...current, busy: false, error } });
            else settle(true);
          })
          .catch((error: unknown) => {
            useGuardStore.setState({ request: { ...current, busy: false, error: error instanceof Error ? error.message : String(error) } });
          });
      },
    };
    useGuardStore.setState({ request });
  });
}
