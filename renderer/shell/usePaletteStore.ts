/**
 * The palette's state: closed, the command palette, quick open, or a pick list
 * another command asked for (switch connection...). `origin` is the element
 * that had focus when it opened: commands are listed for its scopes and run
 * with the focus given back to it.
 */
import { create } from 'zustand';

/** One choice of a pick list. */
export interface PickItem {
  id: string;
  label: string;
  detail?: string;
  /** Environment colour shown as a stripe. */
  color?: string;
  /** Marks the current choice. */
  current?: boolean;
}

/** What the palette shows. */
export type PaletteMode =
  | { kind: 'commands' }
  | { kind: 'quickOpen' }
  | { kind: 'pick'; title: string; placeholder: string; items: PickItem[]; resolve: (item: PickItem | undefined) => void }
  | { kind: 'help' };

interface PaletteState {
  mode: PaletteMode | undefined;
  origin: Element | null;
  show(mode: PaletteMode): void;
  close(): void;
}

export const usePaletteStore = create<PaletteState>((set, get) => ({
  mode: undefined,
  origin: null,
  show(mode) {
    const current = get().mode;
    if (current?.kind === 'pick') current.resolve(undefined);
    const active = document.activeElement;
    // Keep the original origin when switching between palette modes.
    const origin = current ? get().origin : active && active !== document.body ? active : null;
    set({ mode, origin });
  },
  close() {
    const current = get().mode;
    if (current?.kind === 'pick') current.resolve(undefined);
    set({ mode: undefined });
  },
}));

/** Shows a pick list and resolves with the chosen item (undefined when dismissed). */
export function pick(title: string, placeholder: string, items: PickItem[]): Promise<PickItem | undefined> {
  return new Promise((resolve) => {
    usePaletteStore.getState().show({
      kind: 'pick',
      title,
      placeholder,
      items,
      resolve: (item) => {
        resolve(item);
      },
    });
  });
}
