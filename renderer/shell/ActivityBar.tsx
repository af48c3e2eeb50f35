/**
 * The activity bar: one button per registered activity, drawn with VS Code's
 * codicons, each with a tooltip naming it and its shortcut; the command
 * palette and the help sheet at the bottom.
 */
import { Glyph, Icon } from './icons';
import { keymapEntry } from '../keymap';
import { keysOf } from './keymap';
import { currentPlatform, formatChord } from './keys';
import { useLayoutStore } from './useLayoutStore';
import { usePaletteStore } from './usePaletteStore';
import { useRegistry, type Activity } from './views';

function tooltip(activity: Pick<Activity, 'title' | 'command'>): string {
  if (!activity.command) return activity.title;
  const key = keysOf(keymapEntry(activity.command), currentPlatform())[0];
  return key ? `${activity.title} (${formatChord(key, currentPlatform())})` : activity.title;
}

export function ActivityBar() {
  const { activities } = useRegistry();
  const selected = useLayoutStore((s) => s.activity);
  const sidebarVisible = useLayoutStore((s) => s.sidebarVisible);
  const setActivity = useLayoutStore((s) => s.setActivity);
  const setSidebarVisible = useLayoutStore((s) => s.setSidebarVisible);
  const show = usePaletteStore((s) => s.show);
  return (
    <nav className="activity-bar" aria-label="Activities" data-testid="activity-bar">
      {activities.map((activity) => {
        const pressed = activity.panel ? sidebarVisible && selected === activity.id : undefined;
        return (
          <button
            key={activity.id}
            type="button"
            className="activity-item"
            title={tooltip(activity)}
            aria-label={activity.title}
            aria-pressed={pressed}
            data-testid={`activity-${activity.id}`}
            onClick={() => {
              if (!activity.panel) return activity.run?.();
              if (pressed) setSidebarVisible(false);
              else setActivity(activity.id);
            }}
          >
            <Glyph glyph={activity.icon} size={22} />
          </button>
        );
      })}
      <span className="spacer" />
      <button
        type="button"
        className="activity-item"
        title={tooltip({ title: 'Command palette', command: 'palette.show' })}
        aria-label="Command palette"
        data-testid="activity-palette"
        onClick={() => show({ kind: 'commands' })}
      >
        <Icon name="terminal" size={22} />
      </button>
      <button
        type="button"
        className="activity-item"
        title={tooltip({ title: 'Keyboard shortcuts', command: 'help.shortcuts' })}
        aria-label="Keyboard shortcuts"
        data-testid="activity-help"
        onClick={() => show({ kind: 'help' })}
      >
        <Icon name="question" size={22} />
      </button>
    </nav>
  );
}
