/**
 * The native menu of the desktop shell: every workbench item names a command
 * of the UI's keymap table, hands exactly that id on when chosen, and shows
 * the table's shortcut without registering it (the page's key dispatcher stays
 * the one place a chord is interpreted).
 */
import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it } from 'vitest';
import { MENU_COMMANDS, acceleratorOf, menuTemplate } from '../../../electron/menu';
import { KEYMAP } from '../../../renderer/keymap';

function items(template: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return template.flatMap((item) => [item, ...(Array.isArray(item.submenu) ? items(item.submenu) : [])]);
}

function click(item: MenuItemConstructorOptions): void {
  (item.click as unknown as () => void)();
}

describe('the native menu', () => {
  it.each(['linux', 'win32', 'darwin'] as const)('on %s, each workbench item runs its keymap command and nothing else', (platform) => {
    const chosen: string[] = [];
    const template = menuTemplate({ platform, appName: 'Skillbench', choose: (c) => chosen.push(c) });
    const commandItems = items(template).filter((i) => i.click);
    const ids = commandItems.map((i) => i.id);
    expect(ids.sort()).toEqual(Object.values(MENU_COMMANDS).flat().sort());
    for (const item of commandItems) {
      const entry = KEYMAP.find((e) => e.command === item.id);
      expect(entry, item.id).toBeDefined();
      expect(item.label).toBe(entry!.title);
      chosen.length = 0;
      click(item);
      expect(chosen).toEqual([item.id]);
    }
  });

  it('shows the keymap shortcut in Electron spelling, unregistered', () => {
    const template = menuTemplate({ platform: 'linux', appName: 'Skillbench', choose: () => undefined });
    const byId = new Map(items(template).map((i) => [i.id, i]));
    expect(byId.get('palette.show')).toMatchObject({ accelerator: 'CmdOrCtrl+Shift+P', registerAccelerator: false });
    expect(byId.get('tab.next')).toMatchObject({ accelerator: 'CmdOrCtrl+PageDown', registerAccelerator: false });
    expect(byId.get('connection.add')?.accelerator).toBeUndefined();
    for (const item of items(template)) if (item.accelerator !== undefined && item.id) expect(item.registerAccelerator).toBe(false);
  });

  it('spells chords the way Electron accelerators do', () => {
    expect(acceleratorOf('Mod+Shift+E')).toBe('CmdOrCtrl+Shift+E');
    expect(acceleratorOf('Alt+W')).toBe('Alt+W');
    expect(acceleratorOf('Ctrl+ArrowUp')).toBe('Control+Up');
    expect(acceleratorOf('?')).toBe('?');
    expect(acceleratorOf('Escape')).toBe('Esc');
  });

  it('has the macOS application menu with Quit there, and Quit under File elsewhere', () => {
    const roles = (platform: NodeJS.Platform) => items(menuTemplate({ platform, appName: 'Skillbench', choose: () => undefined })).map((i) => i.role).filter(Boolean);
    const mac = menuTemplate({ platform: 'darwin', appName: 'Skillbench', choose: () => undefined });
    expect(mac[0]!.label).toBe('Skillbench');
    expect(roles('darwin')).toContain('quit');
    expect(roles('linux')).toContain('quit');
    expect(roles('linux')).toEqual(expect.arrayContaining(['copy', 'paste', 'undo', 'zoomIn']));
    expect(roles('linux')).not.toContain('toggleDevTools');
    expect(items(menuTemplate({ platform: 'linux', appName: 'S', developer: true, choose: () => undefined })).map((i) => i.role)).toContain('toggleDevTools');
  });
});
