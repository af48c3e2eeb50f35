/**
 * The desktop shell's native menu. Every item that does something in the
 * workbench names a command of the UI's keymap table (`renderer/keymap.ts`)
 * and, when chosen, hands that id to the page (the `menu.selected` event), which
 * runs it exactly as the palette or its key would: one command table, whichever
 * way a person reaches it. Titles and shortcuts come from the same table; the
 * shortcuts are shown but not registered, so the page's key dispatcher stays
 * the one place a chord is interpreted (as in the browser).
 *
 * The remaining items are Electron roles (clipboard, zoom, window, quit).
 *
 * No Electron import at run time: the main process builds the menu from this
 * template, and tests read it.
 */
import type { MenuItemConstructorOptions } from 'electron';
import { keymapEntry } from '../renderer/keymap';
import { keysOf } from '../renderer/shell/keymap';

/** Options of {@link menuTemplate}. */
export interface MenuOptions {
  platform: NodeJS.Platform;
  /** Shown in the macOS application menu. */
  appName: string;
  /** Hands a command id to the focused workbench window. */
  choose: (command: string) => void;
  /** Adds the developer tools item (unpackaged runs). */
  developer?: boolean;
}

/** Electron's accelerator spelling of a keymap chord (`Mod+Shift+P` → `CmdOrCtrl+Shift+P`). */
export function acceleratorOf(chord: string): string {
  const parts = chord === '+' ? ['+'] : chord.split('+');
  return parts
    .map((part) => {
      if (part === 'Mod') return 'CmdOrCtrl';
      if (part === 'Ctrl') return 'Control';
      if (part === 'Meta') return 'Super';
      if (part === 'ArrowUp' || part === 'ArrowDown' || part === 'ArrowLeft' || part === 'ArrowRight') return part.slice('Arrow'.length);
      if (part === 'Escape') return 'Esc';
      if (part === ' ' || part === 'Space') return 'Space';
      return part.length === 1 ? part.toUpperCase() : part;
    })
    .join('+');
}

/** The command ids of the menu, in menu order (for tests and the docs). */
export const MENU_COMMANDS = Object.freeze({
  file: ['quickOpen.show', 'interop.import', 'connection.add', 'connection.switch', 'tab.close'],
  view: ['palette.show', 'view.catalog', 'view.versions', 'sidebar.toggle', 'focus.sidebar', 'focus.main', 'tab.next', 'tab.previous', 'tab.pin'],
  theme: ['theme.dark', 'theme.light', 'theme.system'],
  connection: ['connection.testActive', 'connection.editActive', 'connection.refresh'],
  help: ['help.shortcuts'],
} as const);

/** The menu template. */
export function menuTemplate(options: MenuOptions): MenuItemConstructorOptions[] {
  const mac = options.platform === 'darwin';
  const command = (id: string): MenuItemConstructorOptions => {
    const entry = keymapEntry(id);
    // A bare key (`?`) would fire while typing were it registered; only shown anyway.
    const chord = keysOf(entry, mac ? 'mac' : 'other')[0];
    return {
      id,
      label: entry.title,
      ...(chord !== undefined && { accelerator: acceleratorOf(chord), registerAccelerator: false }),
      click: () => options.choose(id),
    };
  };
  const separator: MenuItemConstructorOptions = { type: 'separator' };
  const file = MENU_COMMANDS.file.map(command);
  const template: MenuItemConstructorOptions[] = [];
  if (mac) {
    template.push({
      label: options.appName,
      submenu: [{ role: 'about' }, separator, { role: 'services' }, separator, { role: 'hide' }, { role: 'hideOthers' }, { role: 'unhide' }, separator, { role: 'quit' }],
    });
  }
  template.push(
    { label: '&File', submenu: [file[0]!, file[1]!, separator, file[2]!, file[3]!, separator, file[4]!, ...(mac ? [] : [separator, { role: 'quit' } as const])] },
    { label: '&Edit', submenu: [{ role: 'undo' }, { role: 'redo' }, separator, { role: 'cut' }, { role: 'copy' }, { role: 'paste' }, { role: 'selectAll' }] },
    {
      label: '&View',
      submenu: [
        ...MENU_COMMANDS.view.slice(0, 3).map(command),
        separator,
        ...MENU_COMMANDS.view.slice(3, 6).map(command),
        separator,
        ...MENU_COMMANDS.view.slice(6).map(command),
        separator,
        { label: 'Color Theme', submenu: MENU_COMMANDS.theme.map(command) },
        separator,
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        separator,
        { role: 'togglefullscreen' },
        ...(options.developer ? [separator, { role: 'toggleDevTools' } as const] : []),
      ],
    },
    { label: '&Connection', submenu: MENU_COMMANDS.connection.map(command) },
    { role: 'windowMenu' },
    { role: 'help', label: '&Help', submenu: MENU_COMMANDS.help.map(command) },
  );
  return template;
}
