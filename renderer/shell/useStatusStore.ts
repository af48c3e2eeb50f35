/**
 * What the status bar shows about each tab. Views write their own entry (the
 * package editor writes problem counts, the base revision and the token meter
 * from its validation result); the status bar reads the active tab's entry, so
 * the bar and the view can never disagree.
 */
import { create } from 'zustand';

/** A token or size meter against a limit. */
export interface Meter {
  used: number;
  limit: number;
  /** Unit shown after the numbers, e.g. `tok`. */
  unit: string;
  /** What is measured, for the tooltip ("Catalog entry against the agent's 2,000-token budget"). */
  label: string;
}

/** The primary cursor of a text view (1-based), with what is selected. */
export interface Cursor {
  line: number;
  column: number;
  /** Characters selected by all selections together. */
  selected: number;
  /** How many cursors there are (more than one with multi-cursor editing). */
  selections: number;
}

/** Where the cursor is, as VS Code words it: `Ln 12, Col 5 (51 selected)`, or `3 selections (12 selected)`. */
export function cursorText(cursor: Cursor): string {
  const where = cursor.selections > 1 ? `${cursor.selections} selections` : `Ln ${cursor.line}, Col ${cursor.column}`;
  return cursor.selected > 0 ? `${where} (${cursor.selected} selected)` : where;
}

/** One tab's status entry; every field optional. */
export interface TabStatus {
  problems?: { errors: number; warnings: number };
  /** The published revision the tab's draft is based on. */
  base?: { version: number; label?: string } | { none: string };
  meter?: Meter;
  /** Where the text cursor is, in a view showing text; shown at the right as `Ln 12, Col 5`. */
  cursor?: Cursor;
  /** Language or mode of the view, shown at the right (`JSON`, `Form`). */
  mode?: string;
  /** Why publishing is not possible right now, when a view knows better than the connection state. */
  publishBlocked?: string;
}

interface StatusState {
  byTab: Record<string, TabStatus>;
  /** Merges `patch` into the tab's entry. */
  set(tabId: string, patch: TabStatus): void;
  clear(tabId: string): void;
}

export const useStatusStore = create<StatusState>((set, get) => ({
  byTab: {},
  set(tabId, patch) {
    set({ byTab: { ...get().byTab, [tabId]: { ...get().byTab[tabId], ...patch } } });
  },
  clear(tabId) {
    const { [tabId]: _gone, ...rest } = get().byTab;
    set({ byTab: rest });
  },
}));
