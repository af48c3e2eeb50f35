/**
 * The one function Monaco's language features take from its module
 * `vs/internal/common/workers.js`: `createWebWorker`, a language worker with
 * model syncing. That module also imports every editor contribution Monaco
 * has, for their side effects (73 modules: inline completions, sticky scroll,
 * colour picker, code actions, ...), so using the JSON language put the whole
 * of `editor.main` into the editor's chunk, whatever `monaco.ts` chose.
 * vite.config.ts resolves the language features' import of that module to
 * this one, and the editor ships the contributions `monaco.ts` names.
 */
import { editor, type Environment } from 'monaco-editor/editor/editor.api';

/** What a language's worker manager passes (Monaco's `createWebWorker` options, less the two this page has no use for). */
export interface LanguageWorkerOptions {
  /** The worker's label: the language id, which `MonacoEnvironment.getWorker` (set by `monaco.ts`) maps to a worker script. */
  label?: string;
  /** Passed to the worker's `create()`. */
  createData?: unknown;
  /** Methods the worker may call back on the main thread. */
  host?: Record<string, (...args: never[]) => unknown>;
  keepIdleModels?: boolean;
}

/** Starts the worker for `opts.label` and returns Monaco's proxy to it. */
export function createWebWorker<T extends object>(opts: LanguageWorkerOptions): editor.MonacoWebWorker<T> {
  const label = opts.label ?? 'monaco-editor-worker';
  const getWorker = (globalThis as { MonacoEnvironment?: Environment }).MonacoEnvironment?.getWorker;
  if (!getWorker) throw new Error(`no worker for Monaco's ${label} language: MonacoEnvironment.getWorker is not defined`);
  const worker = Promise.resolve(getWorker('workerMain.js', label)).then((w) => {
    // The worker's bootstrap protocol: a first message it skips, then the data for its create().
    w.postMessage('ignore');
    w.postMessage(opts.createData);
    return w;
  });
  return editor.createWebWorker<T>({ worker, ...(opts.host && { host: opts.host }), ...(opts.keepIdleModels !== undefined && { keepIdleModels: opts.keepIdleModels }) });
}
