/** The corner notices. */
import { useNotificationsStore } from './useNotificationsStore';

export function Notices() {
  const notices = useNotificationsStore((s) => s.notices);
  const dismiss = useNotificationsStore((s) => s.dismiss);
  if (notices.length === 0) return null;
  return (
    <div className="notices" role="status" aria-live="polite">
      {notices.map((n) => (
        <div key={n.id} className={`notice ${n.kind}`} data-testid={`notice-${n.kind}`}>
          <span className="text isolate">{n.text}</span>
          <button type="button" className="icon-btn" aria-label="Dismiss" onClick={() => dismiss(n.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
