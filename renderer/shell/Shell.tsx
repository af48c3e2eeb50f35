/**
 * The application shell: activity bar, sidebar, tabs, status bar, and the
 * overlays (palette, quick open, help sheet, unsaved-changes guard, notices).
 * It owns the global commands of the keymap table; the views own theirs.
 */
import { useEffect, useRef } from 'react';
import { inDesktopShell, workbenchClient } from '../api/client';
import { ActivityBar } from './ActivityBar';
import { executeCommand, installKeyDispatcher, useCommands } from './commands';
import { closeTabs } from './guard';
import { GuardDialog } from './GuardDialog';
import { HelpSheet } from './HelpSheet';
import { keymapEntry } from '../keymap';
import { keysOf } from './keymap';
import { currentPlatform, formatChord } from './keys';
import { Notices } from './Notices';
import { Palette } from './Palette';
import { activeTabPanel, focusActiveTab } from './shellFocus';
import { Sidebar } from './Sidebar';
import { StatusBar } from './StatusBar';
import { TabHost, TabStrip } from './Tabs';
import { useThemeSync } from './theme';
import { useLayoutStore } from './useLayoutStore';
import { messageOf, useNotificationsStore } from './useNotificationsStore';
import { usePaletteStore } from './usePaletteStore';
import { useTabsStore } from './useTabsStore';
import { ShellRootContext, useRegistry } from './views';

function Shortcut({ command }: { command: string }) {
  const key = keysOf(keymapEntry(command), currentPlatform())[0];
  return key ? <kbd>{formatChord(key, currentPlatform())}</kbd> : null;
}

/** The first page: each row is an action, run as its shortcut would run it. */
function Welcome({ root }: { root: React.RefObject<HTMLDivElement | null> }) {
  const rows: [string, string][] = [
    ['view.catalog', 'Browse the catalog of the active connection'],
    ['quickOpen.show', 'Go to a skill by name'],
    ['connection.switch', 'Switch connection'],
    ['palette.show', 'Show every command'],
    ['help.shortcuts', 'Keyboard shortcuts'],
  ];
  const run = (command: string) => {
    const result = executeCommand(command, root.current, (error) => useNotificationsStore.getState().push('error', messageOf(error)));
    if (result !== true) useNotificationsStore.getState().push('info', `${keymapEntry(command).title}: ${result}`);
  };
  return (
    <div className="empty-state welcome" data-testid="welcome">
      <strong>Skillbench</strong>
      <span>Author, evaluate and publish agent skill packages.</span>
      <div className="welcome-actions" role="list" aria-label="Start">
        {rows.map(([command, text]) => (
          <button key={command} type="button" role="listitem" className="welcome-row" onClick={() => run(command)} data-testid={`welcome-${command}`}>
            <span className="welcome-text">{text}</span>
            <Shortcut command={command} />
          </button>
        ))}
      </div>
    </div>
  );
}

export function Shell() {
  const root = useRef<HTMLDivElement>(null);
  const registry = useRegistry();
  const show = usePaletteStore((s) => s.show);
  const setTheme = useLayoutStore((s) => s.setTheme);
  useThemeSync();

  useEffect(
    () =>
      installKeyDispatcher({
        platform: currentPlatform(),
        fallback: () => activeTabPanel() ?? root.current,
        onError: (error) => useNotificationsStore.getState().push('error', messageOf(error)),
        onRun: (command) => useLayoutStore.getState().noteCommand(command),
        onDisabled: (entry, reason) => useNotificationsStore.getState().push('info', `${entry.title}: ${reason}`),
      }),
    [],
  );

  // The desktop shell's native menu names keymap commands; they run as if their key were pressed.
  useEffect(() => {
    if (!inDesktopShell()) return undefined;
    return workbenchClient().on('menu.selected', ({ command }) => {
      const active = document.activeElement;
      const start = active && active !== document.body ? active : (activeTabPanel() ?? root.current);
      const result = executeCommand(command, start, (error) => useNotificationsStore.getState().push('error', messageOf(error)));
      if (result !== true) useNotificationsStore.getState().push('info', result);
    });
  }, []);

  // A browser tab closing with unsaved edits asks the browser's own question.
  useEffect(() => {
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      if (useTabsStore.getState().tabs.some((t) => t.dirty)) event.preventDefault();
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, []);

  const activeTab = () => {
    const { tabs, activeId } = useTabsStore.getState();
    return tabs.find((t) => t.id === activeId);
  };
  const noTab = () => (activeTab() ? true : 'No tab is open');

  useCommands(root, {
    'palette.show': () => show({ kind: 'commands' }),
    'quickOpen.show': () => show({ kind: 'quickOpen' }),
    'help.shortcuts': () => show({ kind: 'help' }),
    'tab.close': {
      enabled: noTab,
      run: async () => {
        const tab = activeTab();
        if (tab && (await closeTabs([tab.id], `Closing ${tab.title}.`))) setTimeout(focusActiveTab, 0);
      },
    },
    'tab.next': {
      enabled: noTab,
      run: () => {
        useTabsStore.getState().cycle(1);
        setTimeout(focusActiveTab, 0);
      },
    },
    'tab.previous': {
      enabled: noTab,
      run: () => {
        useTabsStore.getState().cycle(-1);
        setTimeout(focusActiveTab, 0);
      },
    },
    'tab.pin': {
      enabled: () => (!activeTab() ? 'No tab is open' : activeTab()?.preview ? true : 'The active tab is already kept open'),
      run: () => {
        const tab = activeTab();
        if (tab) useTabsStore.getState().keep(tab.id);
      },
    },
    'sidebar.toggle': () => {
      const layout = useLayoutStore.getState();
      layout.setSidebarVisible(!layout.sidebarVisible);
    },
    'focus.sidebar': () => {
      const layout = useLayoutStore.getState();
      if (!layout.sidebarVisible) layout.setSidebarVisible(true);
      setTimeout(() => {
        const sidebar = document.querySelector<HTMLElement>('[data-sidebar]');
        (sidebar?.querySelector<HTMLElement>('[data-autofocus], [tabindex="0"], button, input') ?? sidebar)?.focus();
      }, 0);
    },
    'focus.main': { enabled: noTab, run: focusActiveTab },
    'theme.dark': () => setTheme('dark'),
    'theme.light': () => setTheme('light'),
    'theme.system': () => setTheme('system'),
  });

  return (
    <ShellRootContext.Provider value={root}>
      <div className="shell" ref={root} data-scope="global" data-testid="shell">
        <ActivityBar />
        <Sidebar />
        <main className="main" aria-label="Tabs">
          <TabStrip />
          <TabHost empty={<Welcome root={root} />} />
        </main>
        <StatusBar />
        {registry.extensions.map((Extension, i) => (
          <Extension key={i} />
        ))}
        <Palette />
        <HelpSheet />
        <GuardDialog />
        <Notices />
      </div>
    </ShellRootContext.Provider>
  );
}
