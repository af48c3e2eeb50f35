/**
 * The publish module: the editor's Publish (precondition from the recorded
 * base, one idempotency key per attempt), the result dialog, and the merge tab
 * a 412 opens.
 */
import { provideEditorActions } from '../editor/actions';
import { useTabsStore } from '../shell/useTabsStore';
import { lazyView, type ViewModule } from '../shell/views';
import { onPublishConflict, requestPublish } from './publish';
import { PublishDialog } from './PublishDialog';
import './publish.css';

/** The parameters of a merge tab: the editor whose draft is merged. */
export interface MergeTabParams {
  editorTabId: string;
}

declare module '../shell/useTabsStore' {
  interface TabParamsByKind {
    merge: MergeTabParams;
  }
}

provideEditorActions({ publish: requestPublish });

onPublishConflict((request) => {
  useTabsStore.getState().open({
    id: `merge:${request.editorTabId}`,
    kind: 'merge',
    title: `merge ${request.skill.name}`,
    description: `Merge ${request.skill.namespace}/${request.skill.name} with v${request.conflict.theirs.version} @ ${request.connection}`,
    connectionId: request.connection,
    params: { editorTabId: request.editorTabId },
  });
});

export const publishModule: ViewModule = {
  id: 'publish',
  tabViews: [{ kind: 'merge', scope: 'merge', component: lazyView(async () => (await import('./MergeView')).MergeView), icon: 'git-merge' }],
  extensions: [PublishDialog],
};
