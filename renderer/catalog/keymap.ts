/** The catalog's commands: open it and its health, browse, search, preview and open skills. */
import type { KeymapContribution } from '../shell/keymap';

export const catalogKeymap: KeymapContribution = {
  id: 'catalog',
  scopes: { catalog: 'Catalog' },
  entries: [
    { command: 'view.catalog', category: 'View', title: 'Open Catalog', keys: ['Mod+Shift+E'], when: 'global' },
    { command: 'catalog.showHealth', category: 'Catalog', title: 'Show Catalog Health', when: 'global' },
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
  ],
};
