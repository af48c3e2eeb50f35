/**
 * The authoring module: the editor's "Improve description" (the description
 * optimizer) and "Analyze" (the authoring advisor) panels, opened from the
 * editor's toolbar and the palette. Both change the editor's draft only when
 * the author clicks "Apply to draft"; nothing is published from here.
 */
import { provideEditorActions } from '../editor/actions';
import { Modal } from '../shell/Modal';
import type { ViewModule } from '../shell/views';
import { AnalyzePanel } from './AnalyzePanel';
import { ImprovePanel } from './ImprovePanel';
import { closePanel, openPanel, useAuthoringStore } from './store';
import './optimize.css';

provideEditorActions({
  improve: (editor) => openPanel('improve', editor),
  analyze: (editor) => openPanel('analyze', editor),
});

/** Renders the open panel (one at a time). */
export function AuthoringHost() {
  const panel = useAuthoringStore((s) => s.panel);
  if (!panel) return null;
  const title = panel.kind === 'improve' ? 'Improve description' : 'Analyze with the advisor';
  return (
    <Modal title={title} testId={`${panel.kind}-dialog`} onDismiss={closePanel} className="dialog authoring-dialog">
      {panel.kind === 'improve' ? <ImprovePanel key={panel.editor.tabId} editor={panel.editor} /> : <AnalyzePanel key={panel.editor.tabId} editor={panel.editor} />}
      <div className="actions">
        <button type="button" className="btn" onClick={closePanel} data-testid={`${panel.kind}-close`}>
          Close
        </button>
      </div>
    </Modal>
  );
}

export const authoringModule: ViewModule = {
  id: 'authoring',
  extensions: [AuthoringHost],
};
