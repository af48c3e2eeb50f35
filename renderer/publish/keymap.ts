/** The merge view's commands: step through conflicts and publish the merge. */
import type { KeymapContribution } from '../shell/keymap';

export const publishKeymap: KeymapContribution = {
  id: 'publish',
  scopes: { merge: 'Merge' },
  entries: [
    { command: 'merge.nextConflict', category: 'Merge', title: 'Go to Next Conflict', keys: ['F7'], when: 'merge' },
    { command: 'merge.previousConflict', category: 'Merge', title: 'Go to Previous Conflict', keys: ['Shift+F7'], when: 'merge' },
    { command: 'merge.complete', category: 'Merge', title: 'Complete Merge and Publish', keys: ['Mod+Shift+Enter'], when: 'merge' },
  ],
};
