/**
 * The workbench: the shell and the view modules it shows. To add a view, write
 * its module (a `ViewModule`, see `shell/views.ts`) and list it here; its
 * commands (`<feature>/keymap.ts`) and intents (`<feature>/intents.ts`) are
 * listed in `keymap.ts` and `intents.ts` beside this file.
 */
import { catalogModule } from './catalog/module';
import { connectionsModule } from './connections/module';
import { diffModule } from './diff/index';
import { authoringModule } from './optimize/index';
import { editorModule } from './editor/index';
import { evalsModule } from './evals/module';
import { interopModule } from './interop/index';
import { publishModule } from './publish/index';
import { reviewsModule } from './reviews/index';
import { QueryClientProvider } from '@tanstack/react-query';
import { Shell } from './shell/Shell';
import { queryClient } from './storeData/queries';
import { storeDataModule } from './storeData/module';
import { createRegistry, RegistryContext } from './shell/views';
import { versionsModule } from './versions/module';
import { workspaceModule } from './explorer/module';

const registry = createRegistry([storeDataModule, connectionsModule, catalogModule, editorModule, diffModule, publishModule, versionsModule, evalsModule, authoringModule, reviewsModule, workspaceModule, interopModule]);

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <RegistryContext.Provider value={registry}>
        <Shell />
      </RegistryContext.Provider>
    </QueryClientProvider>
  );
}
