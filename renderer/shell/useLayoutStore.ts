/**
 * Layout and preferences that survive a reload: the sidebar, the selected
 * activity, the colour theme, and the palette's recently used commands.
 */
import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';

/** `system` follows the operating system's light/dark setting. */
export type ThemePreference = 'system' | 'dark' | 'light';

interface LayoutState {
  sidebarVisible: boolean;
  sidebarWidth: number;
  activity: string;
  theme: ThemePreference;
  /** Most recent first, at most 8. */
  recentCommands: string[];
  setSidebarVisible(visible: boolean): void;
  setSidebarWidth(width: number): void;
  setActivity(id: string): void;
  setTheme(theme: ThemePreference): void;
  noteCommand(command: string): void;
}

export const SIDEBAR_MIN = 200;
export const SIDEBAR_MAX = 520;

export const useLayoutStore = create<LayoutState>()(
  persist(
    (set, get) => ({
      sidebarVisible: true,
      sidebarWidth: 280,
      activity: 'explorer',
      theme: 'system',
      recentCommands: [],
      setSidebarVisible: (sidebarVisible) => set({ sidebarVisible }),
      setSidebarWidth: (width) => set({ sidebarWidth: Math.min(SIDEBAR_MAX, Math.max(SIDEBAR_MIN, Math.round(width))) }),
      setActivity: (activity) => set({ activity, sidebarVisible: true }),
      setTheme: (theme) => set({ theme }),
      noteCommand: (command) => {
        if (command === 'palette.show') return;
        set({ recentCommands: [command, ...get().recentCommands.filter((c) => c !== command)].slice(0, 8) });
      },
    }),
    { name: 'skillbench.layout', version: 1, storage: createJSONStorage(() => localStorage) },
  ),
);
