/**
 * A modal dialog: traps Tab inside itself, focuses its first field (or the
 * element marked `data-autofocus`, its primary action), again when its content
 * changes and the focus is left on the frame, and gives focus back on close. Escape and a
 * click outside dismiss it only when `onDismiss` is given, so a dialog guarding
 * unsaved work can insist on an explicit choice.
 */
import { useEffect, useRef, type ReactNode } from 'react';

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** Props of {@link Modal}. */
export interface ModalProps {
  /** Accessible name, shown as the heading. */
  title: ReactNode;
  children: ReactNode;
  onDismiss?: () => void;
  testId: string;
  wide?: boolean;
  /** Replaces the default `.dialog` frame (the palette draws its own). */
  className?: string;
  /** Renders no heading (the content has its own). */
  bare?: boolean;
}

export function Modal({ title, children, onDismiss, testId, wide, className, bare }: ModalProps) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    const root = ref.current;
    const first = root?.querySelector<HTMLElement>('[data-autofocus]') ?? root?.querySelector<HTMLElement>(FOCUSABLE);
    (first ?? root)?.focus();
    return () => {
      if (previous && previous.isConnected) previous.focus();
    };
  }, []);
  // When the content changes (progress, then a result with its buttons), a focus left on the frame moves to the primary action.
  useEffect(() => {
    const root = ref.current;
    if (!root || (document.activeElement !== root && root.contains(document.activeElement))) return;
    const target = root.querySelector<HTMLElement>('[data-autofocus]') ?? root.querySelector<HTMLElement>(FOCUSABLE);
    target?.focus();
  });
  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.stopPropagation();
      event.preventDefault();
      onDismiss?.();
      return;
    }
    if (event.key !== 'Tab' || !ref.current) return;
    const items = [...ref.current.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.offsetParent !== null);
    if (items.length === 0) {
      event.preventDefault();
      return;
    }
    const first = items[0]!;
    const last = items[items.length - 1]!;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };
  const labelId = `${testId}-title`;
  return (
    <div
      className="scrim"
      data-testid={`${testId}-scrim`}
      onMouseDown={(event) => {
        if (event.target === event.currentTarget) {
          event.preventDefault();
          onDismiss?.();
        }
      }}
    >
      <div
        ref={ref}
        role="dialog"
        aria-modal="true"
        aria-labelledby={labelId}
        data-scope="dialog"
        data-testid={testId}
        tabIndex={-1}
        className={className ?? `dialog${wide ? ' wide' : ''}`}
        onKeyDown={onKeyDown}
      >
        {bare ? (
          <span id={labelId} hidden>
            {title}
          </span>
        ) : (
          <h2 id={labelId}>{title}</h2>
        )}
        {children}
      </div>
    </div>
  );
}
