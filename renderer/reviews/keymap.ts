/** The review view's commands: step through changed fields, mark them viewed, approve. */
import type { KeymapContribution } from '../shell/keymap';

export const reviewsKeymap: KeymapContribution = {
  id: 'reviews',
  scopes: { review: 'Review' },
  entries: [
    { command: 'review.nextField', category: 'Review', title: 'Next Changed Field', keys: [']'], when: 'review' },
    { command: 'review.previousField', category: 'Review', title: 'Previous Changed Field', keys: ['['], when: 'review' },
    { command: 'review.toggleViewed', category: 'Review', title: 'Mark Field as Viewed', keys: ['V'], when: 'review' },
    { command: 'review.approve', category: 'Review', title: 'Approve Request', keys: ['Mod+Enter'], when: 'review' },
  ],
};
