/**
 * The one keymap table of the workbench. Every command a person can run is a row
 * here: the palette lists it with its shortcut, the help sheet is rendered from
 * it, the key dispatcher matches against it, and the end-to-end tests press the
 * keys it names. A row's `when` is the view scope (the `data-scope` of the
 * focused view or one of its ancestors) in which the row applies, so one chord
 * can mean different things in different views without overriding each other.
 *
 * Views attach the behaviour with `useCommands` (see `commands.ts`); a row with
 * no handler mounted in the focused scope is not offered in the palette.
 *
 * Browsers keep a few chords for themselves (Ctrl+W, Ctrl+PgUp/PgDn close and
 * switch browser tabs), so those rows carry an Alt twin that works in
 * `skillbench serve` too; the desktop shell receives both.
 */

/** A view scope; `global` applies everywhere. */
export type Scope = 'global' | 'catalog' | 'versions' | 'connections' | 'editor' | 'diff' | 'merge' | 'evals' | 'review';

/** One row of the keymap table. */
export interface KeymapEntry {
  /** Stable command id, `area.verb`. */
  command: string;
  /** Palette category, shown as a prefix ("Catalog: Open Skill"). */
  category: string;
  title: string;
  /** Chords in table spelling (`Mod+Shift+P`); the first is the one shown. */
  keys?: string[];
  /** macOS chords when they differ from `keys`. */
  macKeys?: string[];
  when: Scope;
  /**
   * Whether the chord also fires while a text field has focus. Defaults to true
   * for chords with a modifier, function keys, Escape and arrows; false for bare
   * printable keys (a `?` typed into a search box is text).
   */
  inTextField?: boolean;
  /** Listed in the help sheet but not in the palette (row navigation keys). */
  paletteHidden?: boolean;
}

/** The keymap table. Keep rows grouped by scope; a duplicate chord within one scope fails its unit test. */
export const KEYMAP: readonly KeymapEntry[] = [
  // global
  { command: 'palette.show', category: 'View', title: 'Show All Commands', keys: ['Mod+Shift+P'], when: 'global' },
  { command: 'quickOpen.show', category: 'Go', title: 'Go to Skill…', keys: ['Mod+P'], when: 'global' },
  { command: 'connection.switch', category: 'Connection', title: 'Switch Connection…', keys: ['Mod+E'], when: 'global' },
  { command: 'connection.add', category: 'Connection', title: 'Add Connection…', when: 'global' },
  { command: 'connection.editActive', category: 'Connection', title: 'Edit Active Connection…', when: 'global' },
  { command: 'connection.testActive', category: 'Connection', title: 'Test Active Connection', when: 'global' },
  { command: 'connection.refresh', category: 'Connection', title: 'Refresh Connection States', when: 'global' },
  { command: 'view.catalog', category: 'View', title: 'Open Catalog', keys: ['Mod+Shift+E'], when: 'global' },
  { command: 'catalog.showHealth', category: 'Catalog', title: 'Show Catalog Health', when: 'global' },
  { command: 'view.versions', category: 'View', title: 'Open Version History of Active Skill', keys: ['Mod+Shift+H'], when: 'global' },
  { command: 'tab.close', category: 'View', title: 'Close Tab', keys: ['Mod+W', 'Alt+W'], when: 'global' },
  { command: 'tab.next', category: 'View', title: 'Next Tab', keys: ['Mod+PageDown', 'Alt+PageDown'], when: 'global' },
  { command: 'tab.previous', category: 'View', title: 'Previous Tab', keys: ['Mod+PageUp', 'Alt+PageUp'], when: 'global' },
  { command: 'tab.pin', category: 'View', title: 'Keep Tab Open', when: 'global' },
  { command: 'sidebar.toggle', category: 'View', title: 'Toggle Sidebar', keys: ['Mod+B'], when: 'global' },
  { command: 'focus.sidebar', category: 'View', title: 'Focus Sidebar', keys: ['Mod+0'], when: 'global' },
  { command: 'focus.main', category: 'View', title: 'Focus Active Tab', keys: ['Mod+1'], when: 'global' },
  { command: 'theme.dark', category: 'Preferences', title: 'Color Theme: Dark', when: 'global' },
  { command: 'theme.light', category: 'Preferences', title: 'Color Theme: Light', when: 'global' },
  { command: 'theme.system', category: 'Preferences', title: 'Color Theme: Follow System', when: 'global' },
  { command: 'help.shortcuts', category: 'Help', title: 'Keyboard Shortcuts', keys: ['?'], when: 'global' },
  { command: 'interop.import', category: 'Workspace', title: 'Import SKILL.md…', when: 'global' },

  // catalog
  { command: 'catalog.search', category: 'Catalog', title: 'Search Skills', keys: ['Mod+F', '/'], when: 'catalog' },
  { command: 'catalog.clearSearch', category: 'Catalog', title: 'Clear Search', keys: ['Escape'], when: 'catalog' },
  { command: 'catalog.next', category: 'Catalog', title: 'Next Skill', keys: ['ArrowDown'], when: 'catalog', paletteHidden: true },
  { command: 'catalog.previous', category: 'Catalog', title: 'Previous Skill', keys: ['ArrowUp'], when: 'catalog', paletteHidden: true },
  { command: 'catalog.pageDown', category: 'Catalog', title: 'Page Down', keys: ['PageDown'], when: 'catalog', paletteHidden: true },
  { command: 'catalog.pageUp', category: 'Catalog', title: 'Page Up', keys: ['PageUp'], when: 'catalog', paletteHidden: true },
  { command: 'catalog.first', category: 'Catalog', title: 'First Skill', keys: ['Mod+Home'], when: 'catalog', paletteHidden: true },
  { command: 'catalog.last', category: 'Catalog', title: 'Last Skill', keys: ['Mod+End'], when: 'catalog', paletteHidden: true },
  { command: 'catalog.open', category: 'Catalog', title: 'Open Selected Skill', keys: ['Enter'], when: 'catalog' },
  { command: 'catalog.openNewTab', category: 'Catalog', title: 'Open Selected Skill in a New Tab', keys: ['Mod+Enter'], when: 'catalog' },
  { command: 'catalog.preview', category: 'Catalog', title: 'Toggle Preview', keys: ['Space'], when: 'catalog', inTextField: false },
  { command: 'catalog.diff', category: 'Catalog', title: 'Diff Selected Skill (Draft Against Published)', keys: ['Mod+D'], when: 'catalog' },
  { command: 'catalog.evaluate', category: 'Catalog', title: 'Evaluate Selected Skill', when: 'catalog' },
  { command: 'catalog.history', category: 'Catalog', title: 'Show History of Selected Skill', keys: ['Mod+H'], when: 'catalog' },
  { command: 'catalog.scanMore', category: 'Catalog', title: 'Scan More', when: 'catalog' },
  { command: 'catalog.refresh', category: 'Catalog', title: 'Reload Catalog', when: 'catalog' },

  // versions
  { command: 'versions.next', category: 'History', title: 'Next Version', keys: ['ArrowDown'], when: 'versions', paletteHidden: true },
  { command: 'versions.previous', category: 'History', title: 'Previous Version', keys: ['ArrowUp'], when: 'versions', paletteHidden: true },
  { command: 'versions.open', category: 'History', title: 'Open Selected Version', keys: ['Enter'], when: 'versions' },
  { command: 'versions.toggleSelect', category: 'History', title: 'Select for Comparison', keys: ['Space'], when: 'versions', inTextField: false },
  { command: 'versions.compare', category: 'History', title: 'Compare Selected Versions', keys: ['Mod+Enter'], when: 'versions' },
  { command: 'versions.delete', category: 'History', title: 'Delete Selected Version…', keys: ['Delete'], when: 'versions', inTextField: false },
  { command: 'versions.deleteRange', category: 'History', title: 'Delete a Range of Versions…', when: 'versions' },
  { command: 'versions.toggleTombstones', category: 'History', title: 'Show or Hide Tombstones', when: 'versions' },
  { command: 'versions.loadMore', category: 'History', title: 'Load Older Versions', when: 'versions' },

  // editor
  { command: 'editor.nextProblem', category: 'Editor', title: 'Go to Next Problem', keys: ['F8'], when: 'editor' },
  { command: 'editor.previousProblem', category: 'Editor', title: 'Go to Previous Problem', keys: ['Shift+F8'], when: 'editor' },
  { command: 'editor.showProblems', category: 'Editor', title: 'Focus Problems Filter', keys: ['Mod+Shift+M'], when: 'editor' },
  { command: 'editor.focusText', category: 'Editor', title: 'Focus Package Text', keys: ['Mod+Shift+J'], when: 'editor' },
  { command: 'editor.toggleForm', category: 'Editor', title: 'Toggle Form / JSON View', keys: ['Mod+Shift+F'], when: 'editor' },
  { command: 'editor.saveDraft', category: 'Editor', title: 'Save Draft', keys: ['Mod+S'], when: 'editor' },
  { command: 'editor.diffPublished', category: 'Editor', title: 'Diff Draft Against Published', keys: ['Mod+Alt+D'], when: 'editor' },
  { command: 'editor.diffVersion', category: 'Editor', title: 'Diff Draft Against a Version…', when: 'editor' },
  { command: 'editor.diffConnection', category: 'Editor', title: 'Diff Draft Against Another Connection…', when: 'editor' },
  { command: 'editor.publish', category: 'Editor', title: 'Publish Draft', keys: ['Mod+Shift+Enter'], when: 'editor' },
  { command: 'editor.analyze', category: 'Editor', title: 'Analyze with the Advisor', when: 'editor' },
  { command: 'editor.requestReview', category: 'Editor', title: 'Request Review…', when: 'editor' },
  { command: 'editor.improveDescription', category: 'Editor', title: 'Improve Description…', when: 'editor' },
  { command: 'editor.exportSkillMd', category: 'Editor', title: 'Export as SKILL.md', when: 'editor' },

  // diff
  { command: 'diff.nextChange', category: 'Diff', title: 'Go to Next Change', keys: ['F7'], when: 'diff' },
  { command: 'diff.previousChange', category: 'Diff', title: 'Go to Previous Change', keys: ['Shift+F7'], when: 'diff' },
  { command: 'diff.toggleInline', category: 'Diff', title: 'Toggle Side by Side / Inline', keys: ['Mod+Alt+I'], when: 'diff' },
  { command: 'diff.toggleUnchanged', category: 'Diff', title: 'Hide or Show Unchanged Regions', keys: ['Mod+Alt+U'], when: 'diff' },

  // merge
  { command: 'merge.nextConflict', category: 'Merge', title: 'Go to Next Conflict', keys: ['F7'], when: 'merge' },
  { command: 'merge.previousConflict', category: 'Merge', title: 'Go to Previous Conflict', keys: ['Shift+F7'], when: 'merge' },
  { command: 'merge.complete', category: 'Merge', title: 'Complete Merge and Publish', keys: ['Mod+Shift+Enter'], when: 'merge' },

  // review
  { command: 'review.nextField', category: 'Review', title: 'Next Changed Field', keys: [']'], when: 'review' },
  { command: 'review.previousField', category: 'Review', title: 'Previous Changed Field', keys: ['['], when: 'review' },
  { command: 'review.toggleViewed', category: 'Review', title: 'Mark Field as Viewed', keys: ['V'], when: 'review' },
  { command: 'review.approve', category: 'Review', title: 'Approve Request', keys: ['Mod+Enter'], when: 'review' },

  // evaluations
  { command: 'evals.new', category: 'Eval', title: 'New Evaluation…', when: 'global' },
  { command: 'evals.showRuns', category: 'Eval', title: 'Show Evaluation Runs', when: 'global' },
  { command: 'evals.run', category: 'Eval', title: 'Run', keys: ['Mod+Enter'], when: 'evals' },
  { command: 'evals.stopAll', category: 'Eval', title: 'Stop All Models', when: 'evals' },
  { command: 'evals.resume', category: 'Eval', title: 'Resume Run', when: 'evals' },
  { command: 'evals.search', category: 'Eval', title: 'Filter Cases by Regular Expression', keys: ['/'], when: 'evals' },
  { command: 'evals.next', category: 'Eval', title: 'Next Case', keys: ['ArrowDown'], when: 'evals', paletteHidden: true, inTextField: false },
  { command: 'evals.previous', category: 'Eval', title: 'Previous Case', keys: ['ArrowUp'], when: 'evals', paletteHidden: true, inTextField: false },
  { command: 'evals.right', category: 'Eval', title: 'Next Model', keys: ['ArrowRight'], when: 'evals', paletteHidden: true, inTextField: false },
  { command: 'evals.left', category: 'Eval', title: 'Previous Model', keys: ['ArrowLeft'], when: 'evals', paletteHidden: true, inTextField: false },
  { command: 'evals.openTrace', category: 'Eval', title: 'Open Trace of Selected Cell', keys: ['Enter'], when: 'evals', inTextField: false },
  { command: 'evals.closeTrace', category: 'Eval', title: 'Close Trace or Clear Filter', keys: ['Escape'], when: 'evals' },
  { command: 'evals.showAll', category: 'Eval', title: 'Display: All Cases', keys: ['Alt+1'], when: 'evals' },
  { command: 'evals.showFailures', category: 'Eval', title: 'Display: Failures', keys: ['Alt+2'], when: 'evals' },
  { command: 'evals.showErrors', category: 'Eval', title: 'Display: Errors', keys: ['Alt+3'], when: 'evals' },
  { command: 'evals.showFlaky', category: 'Eval', title: 'Display: Flaky', keys: ['Alt+4'], when: 'evals' },
  { command: 'evals.showDifferent', category: 'Eval', title: 'Display: Different', keys: ['Alt+5'], when: 'evals' },
  { command: 'evals.exportJson', category: 'Eval', title: 'Export JSON Report', when: 'evals' },
  { command: 'evals.exportJunit', category: 'Eval', title: 'Export JUnit Report', when: 'evals' },
  { command: 'evals.exportMarkdown', category: 'Eval', title: 'Export Markdown Report', when: 'evals' },
  { command: 'evals.exportHtml', category: 'Eval', title: 'Export HTML Report', when: 'evals' },
];

/** A human label for a scope, as the help sheet groups rows. */
export const SCOPE_LABELS: Record<Scope, string> = {
  global: 'Everywhere',
  catalog: 'Catalog',
  versions: 'Version history',
  connections: 'Connections',
  editor: 'Package editor',
  diff: 'Diff',
  merge: 'Merge',
  evals: 'Evaluation',
  review: 'Review',
};

const BY_COMMAND = new Map(KEYMAP.map((entry) => [entry.command, entry]));

/** The row of `command`; throws for an unknown id so a typo fails fast. */
export function keymapEntry(command: string): KeymapEntry {
  const entry = BY_COMMAND.get(command);
  if (!entry) throw new Error(`Unknown command '${command}': add it to the keymap table`);
  return entry;
}

/** The chords of a row on a platform. */
export function keysOf(entry: KeymapEntry, platform: 'mac' | 'other'): string[] {
  return (platform === 'mac' ? entry.macKeys : undefined) ?? entry.keys ?? [];
}
