/**
 * The keyboard shortcut sheet, rendered from the keymap table itself so it can
 * never drift from what the keys do.
 */
import { useState } from 'react';
import { KEYMAP, SCOPE_LABELS } from '../keymap';
import { keysOf } from './keymap';
import { currentPlatform, formatChord } from './keys';
import { Modal } from './Modal';
import { usePaletteStore } from './usePaletteStore';

export function HelpSheet() {
  const mode = usePaletteStore((s) => s.mode);
  // Mounted afresh on every opening, so the sheet never opens on the last filter.
  return mode?.kind === 'help' ? <HelpSheetBody /> : null;
}

function HelpSheetBody() {
  const close = usePaletteStore((s) => s.close);
  const [filter, setFilter] = useState('');
  const platform = currentPlatform();
  const needle = filter.trim().toLowerCase();
  const scopes = [...new Set(KEYMAP.map((e) => e.when))];
  const matches = (e: (typeof KEYMAP)[number]) => keysOf(e, platform).length > 0 && (!needle || `${e.category} ${e.title} ${keysOf(e, platform).join(' ')}`.toLowerCase().includes(needle));
  const none = !KEYMAP.some(matches);
  return (
    <Modal title="Keyboard shortcuts" testId="help-sheet" wide onDismiss={close}>
      <input
        className="input"
        placeholder="Filter shortcuts"
        aria-label="Filter shortcuts"
        value={filter}
        onChange={(e) => setFilter(e.target.value)}
        data-autofocus
        data-testid="help-filter"
      />
      <div className="help-sheet">
        {none && (
          <p className="muted help-empty" role="status" data-testid="help-no-matches">
            No shortcut matches “{filter.trim()}”.
          </p>
        )}
        <table>
          {scopes.map((scope) => {
            const rows = KEYMAP.filter((e) => e.when === scope && matches(e));
            if (rows.length === 0) return null;
            return (
              <tbody key={scope} data-testid={`help-scope-${scope}`}>
                <tr>
                  <th colSpan={2}>{SCOPE_LABELS[scope]}</th>
                </tr>
                {rows.map((entry) => (
                  <tr key={entry.command} data-testid={`help-row-${entry.command}`} data-command={entry.command}>
                    <td>
                      <span className="muted">{entry.category}: </span>
                      {entry.title}
                    </td>
                    <td className="keys">
                      {keysOf(entry, platform).map((k) => (
                        <kbd key={k} data-chord={k}>
                          {formatChord(k, platform)}
                        </kbd>
                      ))}
                    </td>
                  </tr>
                ))}
              </tbody>
            );
          })}
        </table>
      </div>
    </Modal>
  );
}
