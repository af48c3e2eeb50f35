/** The version history's commands: open it, pick, compare and delete versions. */
import type { KeymapContribution } from '../shell/keymap';

export const versionsKeymap: KeymapContribution = {
  id: 'versions',
  scopes: { versions: 'Version history' },
  entries: [
    { command: 'view.versions', category: 'View', title: 'Open Version History of Active Skill', keys: ['Mod+Shift+H'], when: 'global' },
    { command: 'versions.next', category: 'History', title: 'Next Version', keys: ['ArrowDown'], when: 'versions', paletteHidden: true },
    { command: 'versions.previous', category: 'History', title: 'Previous Version', keys: ['ArrowUp'], when: 'versions', paletteHidden: true },
    { command: 'versions.open', category: 'History', title: 'Open Selected Version', keys: ['Enter'], when: 'versions' },
    { command: 'versions.toggleSelect', category: 'History', title: 'Select for Comparison', keys: ['Space'], when: 'versions', inTextField: false },
    { command: 'versions.compare', category: 'History', title: 'Compare Selected Versions', keys: ['Mod+Enter'], when: 'versions' },
    { command: 'versions.delete', category: 'History', title: 'Delete Selected Version…', keys: ['Delete'], when: 'versions', inTextField: false },
    { command: 'versions.deleteRange', category: 'History', title: 'Delete a Range of Versions…', when: 'versions' },
    { command: 'versions.toggleTombstones', category: 'History', title: 'Show or Hide Tombstones', when: 'versions' },
    { command: 'versions.loadMore', category: 'History', title: 'Load Older Versions', when: 'versions' },
  ],
};
