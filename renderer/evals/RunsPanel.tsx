/** The sidebar list of evaluation runs, from the run folder, newest first, with live progress. */
import { formatCount } from '../../core/report/format';
import { messageOf } from '../shell/useNotificationsStore';
import { openRunTab, openSetupTab } from './tabs';
import { useEvalRuns, useEvalsStore } from './useEvalsStore';

const STATUS_CLASS = { running: 'neutral', stopping: 'neutral', complete: 'ok', incomplete: 'warn', failed: 'err' } as const;

export function RunsPanel() {
  const { data: runs = [], error: listError, refetch } = useEvalRuns();
  const views = useEvalsStore((s) => s.views);
  const error = listError ? messageOf(listError) : null;
  return (
    <div className="sidebar-section eval-runs" data-testid="eval-runs">
      <div className="section-header">
        <span className="title">Evaluation runs</span>
        <button type="button" className="icon-btn" title="New evaluation" aria-label="New evaluation" onClick={() => openSetupTab()} data-testid="eval-new">
          +
        </button>
        <button type="button" className="icon-btn" title="Reload runs" aria-label="Reload runs" onClick={() => void refetch()}>
          ↻
        </button>
      </div>
      {error && <div className="inline-error">{error}</div>}
      {runs.length === 0 && !error && <p className="muted eval-runs-empty">No run yet. Start one with “New evaluation”.</p>}
      <ul className="eval-run-list">
        {runs.map((r0) => {
          const r = views[r0.run] ?? r0;
          return (
            <li key={r.run}>
              <button type="button" className="eval-run-item" onClick={() => openRunTab(r.run, `${r.skills.join(', ')} · ${r.config_hash.slice(0, 8)}`)} data-testid="eval-run-item" data-run={r.run} data-status={r.status}>
                <span className="ellipsis">{r.skills.join(', ')}</span>
                <span className={`badge ${r.status === 'complete' && r.progress.errors > 0 ? 'warn' : STATUS_CLASS[r.status]}`}>{r.status === 'complete' && r.progress.errors > 0 ? `${formatCount(r.progress.errors)} err` : r.status}</span>
                <span className="faint mono">{r.config_hash.slice(0, 12)}</span>
                <span className="faint">
                  {formatCount(r.progress.done)}/{formatCount(r.progress.total)} · {r.models.length} model{r.models.length === 1 ? '' : 's'} · {new Date(r.started_at).toLocaleString()}
                </span>
              </button>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
