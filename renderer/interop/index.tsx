/**
 * The Agent Skills module: "Import SKILL.md…" (palette, desktop File menu) and
 * "Export as SKILL.md" on a package (editor toolbar and palette). Both show
 * the conversion report of `core/interop` before anything is written.
 */
import { provideEditorActions } from '../editor/actions';
import { useCommands } from '../shell/commands';
import { useShellRoot, type ViewModule } from '../shell/views';
import { ExportDialog } from './ExportDialog';
import { ImportDialog } from './ImportDialog';
import { openInterop, useInteropStore } from './useInteropStore';
import './interop.css';

provideEditorActions({ exportSkillMd: (editor) => openInterop({ kind: 'export', editor }) });

/** The global command and the open dialog. */
function InteropHost() {
  useCommands(useShellRoot(), { 'interop.import': () => openInterop({ kind: 'import' }) });
  const dialog = useInteropStore((s) => s.dialog);
  if (!dialog) return null;
  return dialog.kind === 'import' ? <ImportDialog /> : <ExportDialog key={dialog.editor.tabId} editor={dialog.editor} />;
}

export const interopModule: ViewModule = {
  id: 'interop',
  extensions: [InteropHost],
};
