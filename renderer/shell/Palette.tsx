/**
 * The command palette (`Mod+Shift+P`), quick open (`Mod+P`) and pick lists.
 * Commands come from the keymap table, filtered to those with a handler in the
 * scopes around the focus the palette was opened from; each shows its shortcut.
 * Typing `>` in quick open switches to commands, as in VS Code.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { availableCommands, runCommand, type AvailableCommand } from './commands';
import { fuzzyMatch, highlightRuns } from './fuzzy';
import { keysOf } from './keymap';
import { currentPlatform, formatChord } from './keys';
import { Modal } from './Modal';
import { activeTabPanel, shellRoot } from './shellFocus';
import { useLayoutStore } from './useLayoutStore';
import { messageOf, useNotificationsStore } from './useNotificationsStore';
import { usePaletteStore, type PickItem } from './usePaletteStore';
import { useRegistry, type QuickOpenItem } from './views';

const MAX_ROWS = 200;

interface Row {
  key: string;
  label: string;
  positions: number[];
  detail?: string;
  shortcut?: string;
  color?: string;
  disabled?: string;
  current?: boolean;
  group?: string;
  testId: string;
  run(newTab: boolean): void;
}

function Highlighted({ text, positions }: { text: string; positions: number[] }) {
  return (
    <>
      {highlightRuns(text, positions).map((run, i) => (run.hit ? <mark key={i}>{run.text}</mark> : <span key={i}>{run.text}</span>))}
    </>
  );
}

function restoreFocus(origin: Element | null) {
  const target = origin && origin.isConnected ? (origin as HTMLElement) : activeTabPanel();
  target?.focus?.();
}

export function Palette() {
  const mode = usePaletteStore((s) => s.mode);
  if (!mode || mode.kind === 'help') return null;
  return <PaletteDialog key={mode.kind} />;
}

function PaletteDialog() {
  const mode = usePaletteStore((s) => s.mode)!;
  const origin = usePaletteStore((s) => s.origin);
  const close = usePaletteStore((s) => s.close);
  const show = usePaletteStore((s) => s.show);
  const recent = useLayoutStore((s) => s.recentCommands);
  const noteCommand = useLayoutStore((s) => s.noteCommand);
  const registry = useRegistry();
  const platform = currentPlatform();
  const [query, setQuery] = useState(mode.kind === 'commands' ? '>' : '');
  const [selected, setSelected] = useState(0);
  const listRef = useRef<HTMLUListElement>(null);
  // Quick open re-reads its providers when they say their items changed (a catalog page arrived).
  const [itemsVersion, setItemsVersion] = useState(0);
  useEffect(() => {
    if (mode.kind !== 'quickOpen') return;
    const bump = () => setItemsVersion((v) => v + 1);
    const unsubscribe = registry.quickOpen.map((p) => p.subscribe?.(bump));
    for (const provider of registry.quickOpen) provider.prepare?.();
    return () => unsubscribe.forEach((off) => off?.());
  }, [mode.kind, registry]);

  const commands = useMemo<AvailableCommand[]>(
    () => (mode.kind === 'commands' ? availableCommands(origin && origin.isConnected ? origin : (activeTabPanel() ?? shellRoot())) : []),
    [mode.kind, origin],
  );

  const isCommandQuery = mode.kind !== 'pick' && query.startsWith('>');
  const text = isCommandQuery ? query.slice(1) : query;

  const rows = useMemo<Row[]>(() => {
    const finish = (fn: () => void) => {
      close();
      restoreFocus(origin);
      // Let the focus settle before the command reads it.
      setTimeout(fn, 0);
    };
    if (mode.kind === 'pick') {
      return mode.items
        .map((item: PickItem) => ({ item, match: fuzzyMatch(text, `${item.label} ${item.detail ?? ''}`) }))
        .filter((x) => x.match)
        .sort((a, b) => (text ? b.match!.score - a.match!.score : 0))
        .map(({ item, match }) => ({
          key: item.id,
          label: item.label,
          positions: match!.positions.filter((p) => p < item.label.length),
          detail: item.detail,
          color: item.color,
          current: item.current,
          testId: `pick-item-${item.id}`,
          run: () => {
            mode.resolve(item);
            close();
            restoreFocus(origin);
          },
        }));
    }
    if (isCommandQuery) {
      const recentIndex = (id: string) => {
        const i = recent.indexOf(id);
        return i < 0 ? Number.MAX_SAFE_INTEGER : i;
      };
      return commands
        .filter((c) => !c.entry.paletteHidden)
        .map((c) => {
          const label = `${c.entry.category}: ${c.entry.title}`;
          return { c, label, match: fuzzyMatch(text, label) };
        })
        .filter((x) => x.match)
        .sort((a, b) => (text ? b.match!.score - a.match!.score : recentIndex(a.c.entry.command) - recentIndex(b.c.entry.command) || a.label.localeCompare(b.label)))
        .map(({ c, label, match }) => {
          const keys = keysOf(c.entry, platform);
          return {
            key: c.entry.command,
            label,
            positions: match!.positions,
            shortcut: keys[0] ? formatChord(keys[0], platform) : undefined,
            disabled: c.enabled === true ? undefined : c.enabled,
            group: !text && recent.includes(c.entry.command) ? 'recently used' : undefined,
            testId: `palette-command-${c.entry.command}`,
            run: () =>
              finish(() => {
                noteCommand(c.entry.command);
                runCommand(c, (error) => useNotificationsStore.getState().push('error', messageOf(error)));
              }),
          };
        });
    }
    const items: QuickOpenItem[] = registry.quickOpen.flatMap((p) => p.items(text, registry));
    const scored: { item: QuickOpenItem; score: number; positions: number[] }[] = [];
    for (const item of items) {
      const match = fuzzyMatch(text, item.keywords ? `${item.label} ${item.keywords}` : item.label);
      if (match) scored.push({ item, score: match.score, positions: match.positions.filter((p) => p < item.label.length) });
    }
    scored.sort((a, b) => b.score - a.score || a.item.label.localeCompare(b.item.label));
    return scored.slice(0, MAX_ROWS).map(({ item, positions }) => ({
      key: item.id,
      label: item.label,
      positions,
      detail: item.detail,
      color: item.color,
      testId: `quick-open-item-${item.id}`,
      run: (newTab: boolean) => finish(() => item.open({ newTab })),
    }));
    // itemsVersion: the providers' items changed.
  }, [mode, text, isCommandQuery, commands, recent, registry, platform, origin, close, noteCommand, itemsVersion]);

  useEffect(() => setSelected(0), [text, isCommandQuery]);
  useEffect(() => {
    listRef.current?.querySelector('[aria-selected="true"]')?.scrollIntoView({ block: 'nearest' });
  }, [selected]);

  const title = mode.kind === 'pick' ? mode.title : isCommandQuery ? 'Command palette' : 'Go to skill';
  const placeholder =
    mode.kind === 'pick' ? mode.placeholder : isCommandQuery ? 'Type a command' : 'Type a skill name, namespace or tag (type > for commands)';
  const dismiss = () => {
    close();
    restoreFocus(origin);
  };

  const onKeyDown = (event: React.KeyboardEvent<HTMLInputElement>) => {
    const count = rows.length;
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      setSelected((s) => (count ? (s + 1) % count : 0));
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      setSelected((s) => (count ? (s - 1 + count) % count : 0));
    } else if (event.key === 'PageDown') {
      event.preventDefault();
      setSelected((s) => Math.min(count - 1, s + 10));
    } else if (event.key === 'PageUp') {
      event.preventDefault();
      setSelected((s) => Math.max(0, s - 10));
    } else if (event.key === 'Enter') {
      event.preventDefault();
      const row = rows[selected];
      if (row && !row.disabled) row.run(event.ctrlKey || event.metaKey);
    }
  };

  const listId = 'palette-list';
  return (
    <Modal title={title} testId={mode.kind === 'pick' ? 'picker' : 'palette'} className="palette" bare onDismiss={dismiss}>
      <input
        className="input"
        data-testid="palette-input"
        role="combobox"
        aria-expanded="true"
        aria-controls={listId}
        aria-activedescendant={rows[selected] ? `palette-row-${selected}` : undefined}
        aria-label={title}
        placeholder={placeholder}
        value={query}
        spellCheck={false}
        autoComplete="off"
        data-autofocus
        onChange={(e) => {
          const value = e.target.value;
          // Deleting the `>` of the command palette turns it into quick open, and back.
          if (mode.kind === 'commands' && !value.startsWith('>')) show({ kind: 'quickOpen' });
          if (mode.kind === 'quickOpen' && value.startsWith('>')) show({ kind: 'commands' });
          setQuery(value);
        }}
        onKeyDown={onKeyDown}
      />
      <ul className="palette-list" role="listbox" id={listId} ref={listRef}>
        {rows.length === 0 && (
          <li className="palette-empty" data-testid="palette-empty">
            {isCommandQuery ? 'No matching command.' : mode.kind === 'pick' ? 'Nothing matches.' : 'No matching skill in the loaded catalogs.'}
          </li>
        )}
        {rows.map((row, i) => (
          <PaletteRow key={row.key} row={row} index={i} selected={i === selected} previousGroup={rows[i - 1]?.group} onHover={() => setSelected(i)} />
        ))}
      </ul>
    </Modal>
  );
}

function PaletteRow({ row, index, selected, previousGroup, onHover }: { row: Row; index: number; selected: boolean; previousGroup: string | undefined; onHover: () => void }) {
  return (
    <>
      {row.group && row.group !== previousGroup && <li className="palette-group" role="presentation">{row.group}</li>}
      <li
        id={`palette-row-${index}`}
        role="option"
        className="palette-item"
        aria-selected={selected}
        aria-disabled={row.disabled ? true : undefined}
        title={row.disabled}
        data-testid={row.testId}
        onMouseMove={onHover}
        onMouseDown={(e) => e.preventDefault()}
        onClick={(e) => !row.disabled && row.run(e.ctrlKey || e.metaKey)}
      >
        {row.color && <span className="env-stripe" style={{ background: row.color, flex: '0 0 4px', height: 16 }} />}
        <span className="label isolate">
          <Highlighted text={row.label} positions={row.positions} />
          {row.current && <span className="faint"> (current)</span>}
        </span>
        <span className="detail isolate">{row.disabled ? `— ${row.disabled}` : row.detail}</span>
        {row.shortcut && <kbd>{row.shortcut}</kbd>}
      </li>
    </>
  );
}
