/**
 * A virtualized list with a fixed row height: only the rows in view (plus a
 * small overscan) exist in the DOM, so 10,000 entries cost as much as 40.
 * The caller renders each row at the `style` it is given; rows are absolutely
 * positioned inside a spacer as tall as the whole list.
 */
import { forwardRef, useCallback, useEffect, useImperativeHandle, useLayoutEffect, useRef, useState, type CSSProperties, type ReactNode } from 'react';

/** Imperative handle of {@link VirtualList}. */
export interface VirtualListHandle {
  /** Scrolls the least distance that shows row `index` whole. */
  scrollToIndex(index: number): void;
  /** Rows that fit in the viewport (for Page Up / Page Down). */
  pageSize(): number;
  element(): HTMLDivElement | null;
}

/** Props of {@link VirtualList}. */
export interface VirtualListProps {
  count: number;
  rowHeight: number;
  /** Extra rows rendered above and below the viewport. */
  overscan?: number;
  renderRow(index: number, style: CSSProperties): ReactNode;
  /** Applied once, when the list first has rows (restores a saved position). */
  initialScrollTop?: number;
  onScroll?(scrollTop: number): void;
  className?: string;
  /** Attributes for the scrolling element (role, aria-*, data-testid, tabIndex, key handlers). */
  containerProps?: React.HTMLAttributes<HTMLDivElement> & Record<`data-${string}`, string | undefined>;
  /** Rendered inside the scroller above the rows (e.g. a sticky header). */
  header?: ReactNode;
  headerHeight?: number;
}

export const VirtualList = forwardRef<VirtualListHandle, VirtualListProps>(function VirtualList(
  { count, rowHeight, overscan = 6, renderRow, initialScrollTop, onScroll, className, containerProps, header, headerHeight = 0 },
  ref,
) {
  const scroller = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(0);
  const restored = useRef(false);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    setViewport(el.clientHeight);
    const observer = new ResizeObserver(() => setViewport(el.clientHeight));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el || restored.current || count === 0) return;
    restored.current = true;
    if (initialScrollTop) {
      el.scrollTop = initialScrollTop;
      setScrollTop(el.scrollTop);
    }
  }, [count, initialScrollTop]);

  const pageSize = useCallback(() => Math.max(1, Math.floor((viewport - headerHeight) / rowHeight)), [viewport, headerHeight, rowHeight]);

  useImperativeHandle(
    ref,
    () => ({
      scrollToIndex(index) {
        const el = scroller.current;
        if (!el) return;
        const top = index * rowHeight;
        const bottom = top + rowHeight;
        const visibleTop = el.scrollTop;
        const visibleBottom = el.scrollTop + el.clientHeight - headerHeight;
        if (top < visibleTop) el.scrollTop = top;
        else if (bottom > visibleBottom) el.scrollTop = bottom - (el.clientHeight - headerHeight);
      },
      pageSize,
      element: () => scroller.current,
    }),
    [rowHeight, headerHeight, pageSize],
  );

  // Keep the scroll position valid when the list shrinks (a narrower filter).
  useEffect(() => {
    const el = scroller.current;
    if (el && el.scrollTop > count * rowHeight) el.scrollTop = Math.max(0, count * rowHeight - el.clientHeight);
  }, [count, rowHeight]);

  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const visible = Math.ceil(Math.max(viewport, rowHeight) / rowHeight);
  const last = Math.min(count, Math.floor(scrollTop / rowHeight) + visible + overscan);
  const rows: ReactNode[] = [];
  for (let i = first; i < last; i++) {
    rows.push(renderRow(i, { position: 'absolute', top: i * rowHeight, left: 0, right: 0, height: rowHeight }));
  }

  return (
    <div
      {...containerProps}
      ref={scroller}
      className={className}
      style={{ overflow: 'auto', position: 'relative', ...containerProps?.style }}
      onScroll={(e) => {
        const top = e.currentTarget.scrollTop;
        setScrollTop(top);
        onScroll?.(top);
      }}
    >
      {header}
      <div style={{ position: 'relative', height: count * rowHeight, minWidth: '100%' }}>{rows}</div>
    </div>
  );
});
