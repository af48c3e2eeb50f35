/**
 * The status bar. Left: the connection of the active tab (or the active
 * connection) in its environment colour, Offline when it does not answer; the
 * problem counts and the base revision the active tab reports. Right: items
 * modules contribute, the text cursor, the tab's meter and mode. Colour means
 * error, warning or environment, nothing else.
 */
import { useConnection } from '../connections/queries';
import { colourOf, useConnectionsStore } from '../connections/useConnectionsStore';
import { textOn } from '../connections/env';
import { executeCommand } from './commands';
import { Icon } from './icons';
import { messageOf, useNotificationsStore } from './useNotificationsStore';
import { useActiveTab } from './useTabsStore';
import { cursorText, useStatusStore, type Meter } from './useStatusStore';
import { useRegistry } from './views';

function formatCount(n: number): string {
  return n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

/**
 * The error glyph as inline SVG: a circled cross that does not depend on the
 * fonts installed (U+24E7 is missing from common Linux font sets).
 */
function ErrorIcon() {
  return (
    <svg className="status-icon" data-testid="status-error-icon" width="12" height="12" viewBox="0 0 16 16" aria-hidden="true" focusable="false">
      <circle cx="8" cy="8" r="6.5" fill="none" stroke="currentColor" strokeWidth="1.5" />
      <path d="M5.5 5.5l5 5M10.5 5.5l-5 5" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" />
    </svg>
  );
}

function MeterItem({ meter }: { meter: Meter }) {
  const share = meter.limit > 0 ? meter.used / meter.limit : 0;
  const level = share > 1 ? 'red' : share >= 0.8 ? 'amber' : '';
  return (
    <span className="status-item" title={`${meter.label}: ${meter.used.toLocaleString()} of ${meter.limit.toLocaleString()} ${meter.unit}`} data-testid="status-meter" data-level={level || 'ok'}>
      <span className={`meter ${level}`} aria-hidden="true">
        <span style={{ width: `${Math.min(100, share * 100)}%` }} />
      </span>
      <span className={level === 'red' ? 'err' : level === 'amber' ? 'warn' : undefined}>
        {formatCount(meter.used)}/{formatCount(meter.limit)} {meter.unit}
      </span>
    </span>
  );
}

export function StatusBar() {
  const tab = useActiveTab();
  const activeName = useConnectionsStore((s) => s.activeName);
  const name = tab?.connectionId ?? activeName;
  const connection = useConnection(name);
  const reachability = useConnectionsStore((s) => (name ? s.reachability[name] : undefined));
  const status = useStatusStore((s) => (tab ? s.byTab[tab.id] : undefined));
  const { modules } = useRegistry();
  const offline = reachability?.status === 'down';
  const colour = colourOf(connection);
  const items = modules.flatMap((m) => m.statusItems ?? []);
  return (
    <footer className="status-bar" data-testid="status-bar" aria-label="Status">
      <button
        type="button"
        className={`status-item connection${offline ? ' offline' : ''}`}
        style={offline ? undefined : { background: colour, color: textOn(colour) }}
        title={offline ? `Offline: ${reachability?.message ?? 'the connection does not answer'}` : connection ? `${connection.label}: ${connection.description} (switch connection)` : 'No connection (add one)'}
        data-testid="status-connection"
        data-connection={name}
        data-colour={offline ? undefined : colour}
        data-offline={offline}
        onClick={(e) => {
          const result = executeCommand('connection.switch', e.currentTarget, (error) => useNotificationsStore.getState().push('error', messageOf(error)));
          if (result !== true) useNotificationsStore.getState().push('info', result);
        }}
      >
        {connection?.environment && !offline && <span>{connection.environment.label.toUpperCase()}</span>}
        {offline && <span data-testid="status-offline">Offline</span>}
        <span className="isolate">{connection ? connection.label : name ? name : 'No connection'}</span>
        {connection?.read_only && <span title="Read-only connection">read-only</span>}
        {connection?.protected && (
          <span role="img" aria-label="protected" title="Protected: publishes need an approved review" data-testid="status-protected">
            <Icon name="lock" size={12} />
          </span>
        )}
      </button>
      {status?.problems && (
        <span className="status-item" data-testid="status-problems" title={`${status.problems.errors} error${status.problems.errors === 1 ? '' : 's'}, ${status.problems.warnings} warning${status.problems.warnings === 1 ? '' : 's'}`}>
          <span className={status.problems.errors ? 'err' : undefined} data-testid="status-errors">
            <ErrorIcon /> {status.problems.errors}
          </span>
          <span className={status.problems.warnings ? 'warn' : undefined} data-testid="status-warnings">
            ⚠ {status.problems.warnings}
          </span>
        </span>
      )}
      {status?.base && (
        <span className="status-item" data-testid="status-base">
          {'none' in status.base ? status.base.none : `based on v${status.base.version}${status.base.label ? ` ${status.base.label}` : ''}`}
        </span>
      )}
      <span className="spacer" />
      {items.map((Item, i) => (
        <Item key={i} />
      ))}
      {status?.cursor && (
        <span className="status-item" data-testid="status-cursor" title="Cursor position">
          {cursorText(status.cursor)}
        </span>
      )}
      {status?.meter && <MeterItem meter={status.meter} />}
      {status?.mode && (
        <span className="status-item" data-testid="status-mode">
          {status.mode}
        </span>
      )}
    </footer>
  );
}
