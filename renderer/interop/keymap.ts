/** Importing a SKILL.md into the workspace. */
import type { KeymapContribution } from '../shell/keymap';

export const interopKeymap: KeymapContribution = {
  id: 'interop',
  entries: [
    { command: 'interop.import', category: 'Workspace', title: 'Import SKILL.md…', when: 'global' },
  ],
};
