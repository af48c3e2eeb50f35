/**
 * Monaco, bundled: the editor core, the contributions the workbench uses, the
 * JSON language, and both workers as `?worker` imports (no loader, no CDN, so
 * the page's CSP stays `script-src 'self'`). Link detection and opening are
 * left out on purpose: package text never becomes something to click.
 */
import * as monaco from 'monaco-editor/editor/editor.api';
import 'monaco-editor/editor/contrib/bracketMatching/browser/bracketMatching';
import 'monaco-editor/editor/contrib/clipboard/browser/clipboard';
import 'monaco-editor/editor/contrib/comment/browser/comment';
import 'monaco-editor/editor/contrib/contextmenu/browser/contextmenu';
import 'monaco-editor/editor/contrib/cursorUndo/browser/cursorUndo';
import 'monaco-editor/editor/browser/widget/diffEditor/diffEditor.contribution';
import 'monaco-editor/editor/contrib/folding/browser/folding';
import 'monaco-editor/editor/contrib/format/browser/formatActions';
import 'monaco-editor/editor/contrib/gotoError/browser/gotoError';
import 'monaco-editor/editor/contrib/hover/browser/hoverContribution';
import 'monaco-editor/editor/contrib/indentation/browser/indentation';
import 'monaco-editor/editor/contrib/linesOperations/browser/linesOperations';
import 'monaco-editor/editor/contrib/multicursor/browser/multicursor';
import 'monaco-editor/editor/contrib/smartSelect/browser/smartSelect';
import 'monaco-editor/editor/contrib/snippet/browser/snippetController2';
import 'monaco-editor/editor/contrib/wordHighlighter/browser/wordHighlighter';
import 'monaco-editor/editor/contrib/wordOperations/browser/wordOperations';
import 'monaco-editor/editor/contrib/wordPartOperations/browser/wordPartOperations';
import 'monaco-editor/editor/contrib/caretOperations/browser/caretOperations';
import 'monaco-editor/editor/contrib/caretOperations/browser/transpose';
import 'monaco-editor/editor/contrib/lineSelection/browser/lineSelection';
// Flags invisible and confusable characters in a package's text (the editor's unicodeHighlight option).
import 'monaco-editor/editor/contrib/unicodeHighlighter/browser/unicodeHighlighter';
// Ctrl+M: Tab moves focus instead of indenting, so a keyboard can leave the editor.
import 'monaco-editor/editor/contrib/toggleTabFocusMode/browser/toggleTabFocusMode';
import 'monaco-editor/editor/contrib/readOnlyMessage/browser/contribution';
import 'monaco-editor/editor/contrib/diffEditorBreadcrumbs/browser/contribution';
import 'monaco-editor/editor/browser/coreCommands';
import 'monaco-editor/editor/contrib/find/browser/findController';
import 'monaco-editor/editor/contrib/suggest/browser/suggestController';
import 'monaco-editor/editor/common/standaloneStrings';
// Services the contributions above (and the diff editor) look up; editor.main registers them through contributions left out here.
import 'monaco-editor/editor/browser/services/inlineCompletionsService';
import 'monaco-editor/editor/common/services/semanticTokensStylingService';
import 'monaco-editor/editor/common/services/treeViewsDndService';
import 'monaco-editor/editor/contrib/codelens/browser/codeLensCache';
import 'monaco-editor/editor/contrib/documentSymbols/browser/outlineModel';
import 'monaco-editor/editor/contrib/editorState/browser/keybindingCancellation';
import 'monaco-editor/editor/contrib/gotoError/browser/markerNavigationService';
import 'monaco-editor/editor/contrib/gotoSymbol/browser/symbolNavigation';
import 'monaco-editor/editor/contrib/peekView/browser/peekView';
import 'monaco-editor/editor/contrib/suggest/browser/suggestMemory';
// The package's exports map names scripts only, so its two stylesheets are imported by file.
import '../../node_modules/monaco-editor/esm/vs/base/browser/ui/codicons/codicon/codicon.css';
import '../../node_modules/monaco-editor/esm/vs/base/browser/ui/codicons/codicon/codicon-modifiers.css';
import { jsonDefaults } from 'monaco-editor/languages/features/json/register';
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';
import JsonWorker from 'monaco-editor/languages/features/json/json.worker?worker';
import { monacoLoaded } from './loadedMonaco';

(globalThis as { MonacoEnvironment?: monaco.Environment }).MonacoEnvironment = {
  getWorker: (_id: string, label: string) => (label === 'json' ? new JsonWorker() : new EditorWorker()),
};

/** The URI scheme of package documents; the JSON schema is bound to it. */
export const PACKAGE_SCHEME = 'skill';

/** The id of the package JSON Schema registered with the JSON language. */
const SCHEMA_URI = 'urn:skillbench:package-schema';

/**
 * Binds the package JSON Schema (with a connection's limits) to every package
 * document, for completion and hovers. Monaco's own JSON diagnostics stay off:
 * the registry's validator is the one verdict the editor shows.
 */
export function usePackageSchema(schema: Record<string, unknown>): void {
  jsonDefaults.setDiagnosticsOptions({
    validate: true,
    allowComments: false,
    enableSchemaRequest: false,
    schemaValidation: 'ignore',
    schemaRequest: 'ignore',
    trailingCommas: 'ignore',
    comments: 'ignore',
    schemas: [{ uri: SCHEMA_URI, fileMatch: ['*'], schema }],
  });
  jsonDefaults.setModeConfiguration({
    documentFormattingEdits: true,
    documentRangeFormattingEdits: true,
    completionItems: true,
    hovers: true,
    documentSymbols: true,
    tokens: true,
    colors: false,
    foldingRanges: true,
    diagnostics: false,
    selectionRanges: true,
  });
}

/** The Monaco theme of the workbench theme now. */
export function monacoTheme(): 'vs' | 'vs-dark' {
  return document.documentElement.dataset['theme'] === 'light' ? 'vs' : 'vs-dark';
}

// Monaco's theme is global: one switch recolours every editor, diff and merge pane at once.
// The workbench theme lives on <html data-theme>, so the editors follow that attribute
// whoever sets it (the theme commands, the OS under "follow system").
if (typeof MutationObserver === 'function' && typeof document !== 'undefined') {
  let applied = monacoTheme();
  monaco.editor.setTheme(applied);
  new MutationObserver(() => {
    const next = monacoTheme();
    if (next === applied) return;
    applied = next;
    monaco.editor.setTheme(next);
  }).observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
}

monacoLoaded(monaco);

export { monaco };
