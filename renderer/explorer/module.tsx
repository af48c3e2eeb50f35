/** The workspace area: its section in the sidebar, below the connections. */
import type { ViewModule } from '../shell/views';
import { WorkspaceSection } from './WorkspaceSection';

export const workspaceModule: ViewModule = {
  id: 'workspace',
  sidebarSections: [{ activity: 'connections', order: 10, component: WorkspaceSection }],
};
