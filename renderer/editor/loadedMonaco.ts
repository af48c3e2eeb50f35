/**
 * Monaco once an editor has loaded it, for code outside the editor's chunk
 * (the authoring panels writing an accepted change into the open draft).
 * Importing `monaco.ts` from there would put Monaco back into the first
 * download; and when Monaco is not loaded yet, no editor is open, so there is
 * no model to reach.
 */
import type * as Monaco from 'monaco-editor/editor/editor.api';

let loaded: typeof Monaco | undefined;

/** Called by `monaco.ts` as it loads. */
export function monacoLoaded(api: typeof Monaco): void {
  loaded = api;
}

/** Monaco, or undefined while no editor has opened. */
export function loadedMonaco(): typeof Monaco | undefined {
  return loaded;
}
