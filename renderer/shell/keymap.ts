/**
 * The keymap's shape, the shell's own rows and the collector that joins the
 * rows each feature contributes from its folder (`<feature>/keymap.ts`, listed
 * in `renderer/keymap.ts`) into the one table the palette lists, the help sheet
 * renders, the key dispatcher matches against and the end-to-end tests press.
 * A row's `when` is the view scope (the `data-scope` of the focused view or one
 * of its ancestors) in which the row applies, so one chord can mean different
 * things in different views without overriding each other.
 *
 * Views attach the behaviour with `useCommands` (see `commands.ts`); a row with
 * no handler mounted in the focused scope is not offered in the palette.
 *
 * Browsers keep a few chords for themselves (Ctrl+W, Ctrl+PgUp/PgDn close and
 * switch browser tabs), so those rows carry an Alt twin that works in
 * `skillbench serve` too; the desktop shell receives both.
 */
import { parseChord } from './keys';

/** A view scope, declared by the contribution that owns it; `global` applies everywhere. */
export type Scope = string;

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

/** What one feature adds to the keymap: the scopes it owns (with the help sheet's label) and its rows. */
export interface KeymapContribution {
  /** Who contributes, named in conflict reports. */
  id: string;
  scopes?: Record<Scope, string>;
  entries: readonly KeymapEntry[];
}

/** The collected table. */
export interface Keymap {
  entries: readonly KeymapEntry[];
  /** Every declared scope with its label, in declaration order. */
  scopeLabels: Readonly<Record<Scope, string>>;
  /** The row of `command`; throws for an unknown id so a typo fails fast. */
  entry(command: string): KeymapEntry;
}

/** The shell's own commands: the palette, quick open, tabs, layout, theme and help. */
export const shellKeymap: KeymapContribution = {
  id: 'shell',
  scopes: { global: 'Everywhere' },
  entries: [
    { command: 'palette.show', category: 'View', title: 'Show All Commands', keys: ['Mod+Shift+P'], when: 'global' },
    { command: 'quickOpen.show', category: 'Go', title: 'Go to Skill…', keys: ['Mod+P'], when: 'global' },
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
  ],
};

/** The chords of a row on a platform. */
export function keysOf(entry: KeymapEntry, platform: 'mac' | 'other'): string[] {
  return (platform === 'mac' ? entry.macKeys : undefined) ?? entry.keys ?? [];
}

/**
 * Everything wrong with a set of contributions, one sentence each: a scope or
 * command declared twice, a row in an undeclared scope, a chord that does not
 * parse, and two rows giving one chord (on either platform) in one scope.
 */
export function keymapConflicts(contributions: readonly KeymapContribution[]): string[] {
  const problems: string[] = [];
  const scopeOwner = new Map<Scope, string>();
  for (const c of contributions) {
    for (const scope of Object.keys(c.scopes ?? {})) {
      const owner = scopeOwner.get(scope);
      if (owner !== undefined) problems.push(`Scope '${scope}' is declared by ${owner} and ${c.id}`);
      else scopeOwner.set(scope, c.id);
    }
  }
  const commandOwner = new Map<string, string>();
  const chordOwner = new Map<string, { command: string; by: string }>();
  for (const c of contributions) {
    for (const entry of c.entries) {
      const owner = commandOwner.get(entry.command);
      if (owner !== undefined) problems.push(`Command '${entry.command}' is contributed by ${owner} and ${c.id}`);
      commandOwner.set(entry.command, c.id);
      if (!scopeOwner.has(entry.when)) problems.push(`Command '${entry.command}' of ${c.id} is in the undeclared scope '${entry.when}'`);
      for (const platform of ['other', 'mac'] as const) {
        for (const text of keysOf(entry, platform)) {
          let id: string;
          try {
            const chord = parseChord(text);
            id = `${platform}|${entry.when}|${[...chord.mods].sort().join('+')}+${chord.key}`;
          } catch (error) {
            problems.push(`Command '${entry.command}' of ${c.id}: ${(error as Error).message}`);
            continue;
          }
          const previous = chordOwner.get(id);
          if (previous && previous.command !== entry.command) {
            problems.push(`${text} in scope '${entry.when}' is bound to '${previous.command}' (${previous.by}) and '${entry.command}' (${c.id})`);
          } else chordOwner.set(id, { command: entry.command, by: c.id });
        }
      }
    }
  }
  return problems;
}

/**
 * Joins the contributions into one table, grouped by scope in the order each
 * scope's first row appears, rows in contribution order (as the help sheet
 * lists them). A conflict (see
 * {@link keymapConflicts}) is a programming error and throws, listing them all.
 */
export function collectKeymap(contributions: readonly KeymapContribution[]): Keymap {
  const problems = keymapConflicts(contributions);
  if (problems.length > 0) throw new Error(`The keymap has conflicts:\n${problems.join('\n')}`);
  // Grouped by scope (in the order scopes first appear), as the help sheet shows them.
  const rows = contributions.flatMap((c) => c.entries);
  const scopeOrder = [...new Set(rows.map((e) => e.when))];
  const entries = scopeOrder.flatMap((scope) => rows.filter((e) => e.when === scope));
  const scopeLabels: Record<Scope, string> = Object.assign({}, ...contributions.map((c) => c.scopes ?? {}));
  const byCommand = new Map(entries.map((entry) => [entry.command, entry]));
  return {
    entries,
    scopeLabels,
    entry(command) {
      const entry = byCommand.get(command);
      if (!entry) throw new Error(`Unknown command '${command}': add it to the keymap table of its feature`);
      return entry;
    },
  };
}
