/** The summary beside the editor: one bar per meter, amber from 80 % of the limit, red over it. */
import type { PackageMeter } from './meters';

function format(n: number, unit: string): string {
  if (unit === 'B') return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : `${(n / 1024).toFixed(1)} KB`;
  return `${n.toLocaleString('en')}${unit ? ` ${unit}` : ''}`;
}

export function Meters({ meters, onSelect }: { meters: PackageMeter[]; onSelect(pointer: string): void }) {
  return (
    <section className="meters" aria-label="Summary" data-testid="meters">
      <strong className="meters-title">Summary</strong>
      {meters.map((m) => {
        const share = m.used === null || m.limit <= 0 ? 0 : Math.min(1, m.used / m.limit);
        return (
          <button
            type="button"
            key={m.id}
            className={`meter-row ${m.level}`}
            title={m.title}
            data-testid={`meter-${m.id}`}
            data-level={m.level}
            data-used={m.used ?? ''}
            data-limit={m.limit}
            onClick={() => onSelect(m.pointer)}
          >
            <span className="meter-label">{m.label}</span>
            <span className="meter-figures">
              {m.used === null ? '—' : m.unit === 'B' ? format(m.used, m.unit) : m.used.toLocaleString('en')} / {format(m.limit, m.unit)}
            </span>
            <span className={`meter ${m.level === 'ok' ? '' : m.level}`} aria-hidden="true">
              <span style={{ width: `${share * 100}%` }} />
            </span>
          </button>
        );
      })}
    </section>
  );
}
