/**
 * A context menu: opened by a right click, Shift+F10 or the Menu key on a
 * row, it takes the focus, moves with the arrow keys, Home and End, runs an
 * item with Enter or Space, and closes with Escape, Tab or a click outside,
 * giving the focus back to the row.
 */
import { useEffect, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';

/** One item of a context menu; `disabled` says why it cannot run now. */
export interface MenuItem {
  id: string;
  label: string;
  run: () => void;
  disabled?: string;
  /** Drawn in the error colour (Remove...). */
  danger?: boolean;
}

/** Where a menu opens and what it offers. */
export interface OpenMenu {
  x: number;
  y: number;
  items: MenuItem[];
  /** The element that gets the focus back when the menu closes. */
  returnFocus: HTMLElement | null;
  label: string;
}

/** State and handlers for one menu; spread `triggerProps(items)` on the element it belongs to. */
export function useContextMenu(label: string) {
  const [menu, setMenu] = useState<OpenMenu | undefined>();
  const openAt = (x: number, y: number, items: MenuItem[], returnFocus: HTMLElement | null) => setMenu({ x, y, items, returnFocus, label });
  return {
    menu,
    close: () => setMenu(undefined),
    triggerProps: (items: () => MenuItem[]) => ({
      onContextMenu: (event: MouseEvent<HTMLElement>) => {
        event.preventDefault();
        openAt(event.clientX, event.clientY, items(), event.currentTarget);
      },
      onKeyDown: (event: KeyboardEvent<HTMLElement>) => {
        if (event.key === 'ContextMenu' || (event.key === 'F10' && event.shiftKey)) {
          event.preventDefault();
          const box = event.currentTarget.getBoundingClientRect();
          openAt(box.left + 16, box.bottom, items(), event.currentTarget);
        }
      },
    }),
  };
}

export function ContextMenu({ menu, onClose }: { menu: OpenMenu | undefined; onClose: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  const [position, setPosition] = useState<{ left: number; top: number } | undefined>();

  useEffect(() => {
    if (!menu) return;
    const root = ref.current;
    if (!root) return;
    // Kept inside the window.
    const box = root.getBoundingClientRect();
    setPosition({ left: Math.max(4, Math.min(menu.x, window.innerWidth - box.width - 4)), top: Math.max(4, Math.min(menu.y, window.innerHeight - box.height - 4)) });
    root.querySelector<HTMLElement>('[role="menuitem"]:not([aria-disabled="true"])')?.focus();
    const outside = (event: Event) => {
      if (!root.contains(event.target as Node)) onClose();
    };
    document.addEventListener('mousedown', outside, true);
    return () => document.removeEventListener('mousedown', outside, true);
  }, [menu, onClose]);

  if (!menu) return null;
  const close = (refocus: boolean) => {
    onClose();
    if (refocus) setTimeout(() => menu.returnFocus?.focus(), 0);
  };
  const move = (direction: 1 | -1 | 'first' | 'last') => {
    const items = [...(ref.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    const next = direction === 'first' ? 0 : direction === 'last' ? items.length - 1 : (at + direction + items.length) % items.length;
    items[next]?.focus();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const keys: Record<string, () => void> = {
      ArrowDown: () => move(1),
      ArrowUp: () => move(-1),
      Home: () => move('first'),
      End: () => move('last'),
      Escape: () => close(true),
      Tab: () => close(true),
    };
    const action = keys[event.key];
    if (!action) return;
    event.preventDefault();
    event.stopPropagation();
    action();
  };
  return (
    <div
      ref={ref}
      role="menu"
      aria-label={menu.label}
      className="context-menu"
      data-testid="context-menu"
      style={position ?? { left: menu.x, top: menu.y, visibility: 'hidden' }}
      onKeyDown={onKeyDown}
    >
      {menu.items.map((item) => (
        <div
          key={item.id}
          role="menuitem"
          tabIndex={-1}
          aria-disabled={item.disabled ? true : undefined}
          title={item.disabled}
          className={`context-menu-item${item.danger ? ' danger' : ''}`}
          data-testid={`menu-${item.id}`}
          onClick={() => {
            if (item.disabled) return;
            close(true);
            item.run();
          }}
          onKeyDown={(event) => {
            if ((event.key === 'Enter' || event.key === ' ') && !item.disabled) {
              event.preventDefault();
              close(true);
              item.run();
            }
          }}
        >
          {item.label}
        </div>
      ))}
    </div>
  );
}
