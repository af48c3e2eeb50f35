/** The sidebar: the selected activity's panel, resizable by drag or arrow keys. */
import { useRef } from 'react';
import { SIDEBAR_MAX, SIDEBAR_MIN, useLayoutStore } from './useLayoutStore';
import { useRegistry } from './views';

export function Sidebar() {
  const { activities, sidebarSections } = useRegistry();
  const visible = useLayoutStore((s) => s.sidebarVisible);
  const width = useLayoutStore((s) => s.sidebarWidth);
  const selected = useLayoutStore((s) => s.activity);
  const setWidth = useLayoutStore((s) => s.setSidebarWidth);
  const dragging = useRef<{ x: number; width: number } | null>(null);
  const panels = activities.filter((a) => a.panel);
  const activity = panels.find((a) => a.id === selected) ?? panels[0];
  if (!visible || !activity?.panel) return <div className="sidebar" style={{ width: 0, borderRight: 0 }} aria-hidden="true" />;
  const Panel = activity.panel;
  return (
    <aside className="sidebar" style={{ width }} aria-label={activity.title} data-testid={`sidebar-${activity.id}`} data-sidebar>
      <div className="sidebar-scroll">
        <Panel />
        {sidebarSections
          .filter((section) => section.activity === activity.id)
          .map((section, i) => (
            <section.component key={i} />
          ))}
      </div>
      <div
        className="sidebar-resizer"
        role="separator"
        aria-orientation="vertical"
        aria-label="Resize sidebar"
        aria-valuemin={SIDEBAR_MIN}
        aria-valuemax={SIDEBAR_MAX}
        aria-valuenow={width}
        tabIndex={0}
        onKeyDown={(e) => {
          if (e.key === 'ArrowLeft') setWidth(width - 16);
          if (e.key === 'ArrowRight') setWidth(width + 16);
        }}
        onPointerDown={(e) => {
          dragging.current = { x: e.clientX, width };
          e.currentTarget.setPointerCapture(e.pointerId);
        }}
        onPointerMove={(e) => {
          if (dragging.current) setWidth(dragging.current.width + e.clientX - dragging.current.x);
        }}
        onPointerUp={() => {
          dragging.current = null;
        }}
      />
    </aside>
  );
}
