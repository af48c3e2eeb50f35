/**
 * The workbench's keymap: the shell's rows and each feature's, collected once.
 * Each feature keeps its commands, chords and scopes in its own `keymap.ts`;
 * to add a view's commands, write that file and list it here (beside listing
 * its module in `App.tsx`). Data only and free of the DOM, so the desktop
 * menu and the end-to-end tests read the same table the palette does.
 */
import { catalogKeymap } from './catalog/keymap';
import { connectionsKeymap } from './connections/keymap';
import { diffKeymap } from './diff/keymap';
import { editorKeymap } from './editor/keymap';
import { evalsKeymap } from './evals/keymap';
import { interopKeymap } from './interop/keymap';
import { publishKeymap } from './publish/keymap';
import { reviewsKeymap } from './reviews/keymap';
import { collectKeymap, shellKeymap, type Keymap, type KeymapEntry, type Scope } from './shell/keymap';
import { versionsKeymap } from './versions/keymap';

/** The contributions, in the order the help sheet shows their scopes. */
export const KEYMAP_CONTRIBUTIONS = [shellKeymap, connectionsKeymap, catalogKeymap, versionsKeymap, editorKeymap, diffKeymap, publishKeymap, reviewsKeymap, evalsKeymap, interopKeymap];

const keymap = collectKeymap(KEYMAP_CONTRIBUTIONS);

/** The collected keymap of the workbench. */
export function workbenchKeymap(): Keymap {
  return keymap;
}

/** Every row of the workbench's keymap. */
export const KEYMAP: readonly KeymapEntry[] = keymap.entries;

/** A human label for each scope, as the help sheet groups rows. */
export const SCOPE_LABELS: Readonly<Record<Scope, string>> = keymap.scopeLabels;

/** The row of `command`; throws for an unknown id so a typo fails fast. */
export function keymapEntry(command: string): KeymapEntry {
  return keymap.entry(command);
}
