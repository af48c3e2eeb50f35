/** The diff view's commands: step through changes, layout and unchanged regions. */
import type { KeymapContribution } from '../shell/keymap';

export const diffKeymap: KeymapContribution = {
  id: 'diff',
  scopes: { diff: 'Diff' },
  entries: [
    { command: 'diff.nextChange', category: 'Diff', title: 'Go to Next Change', keys: ['F7'], when: 'diff' },
    { command: 'diff.previousChange', category: 'Diff', title: 'Go to Previous Change', keys: ['Shift+F7'], when: 'diff' },
    { command: 'diff.toggleInline', category: 'Diff', title: 'Toggle Side by Side / Inline', keys: ['Mod+Alt+I'], when: 'diff' },
    { command: 'diff.toggleUnchanged', category: 'Diff', title: 'Hide or Show Unchanged Regions', keys: ['Mod+Alt+U'], when: 'diff' },
  ],
};
