/** The package editor's commands: problems, form and text, save, diff and publish. */
import type { KeymapContribution } from '../shell/keymap';

export const editorKeymap: KeymapContribution = {
  id: 'editor',
  scopes: { editor: 'Package editor' },
  entries: [
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
  ],
};
