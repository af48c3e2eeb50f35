/** The connection commands: switch, add, edit, test and refresh saved connections. */
import type { KeymapContribution } from '../shell/keymap';

export const connectionsKeymap: KeymapContribution = {
  id: 'connections',
  scopes: { connections: 'Connections' },
  entries: [
    { command: 'connection.switch', category: 'Connection', title: 'Switch Connection…', keys: ['Mod+E'], when: 'global' },
    { command: 'connection.add', category: 'Connection', title: 'Add Connection…', when: 'global' },
    { command: 'connection.editActive', category: 'Connection', title: 'Edit Active Connection…', when: 'global' },
    { command: 'connection.testActive', category: 'Connection', title: 'Test Active Connection', when: 'global' },
    { command: 'connection.refresh', category: 'Connection', title: 'Refresh Connection States', when: 'global' },
  ],
};
