/**
 * One evaluation run: live progress per model (done, errors, rate, ETA, stop
 * per model or all), the case × model matrix filling as cells land, the trace
 * drawer following the selection, the engine's metrics and comparisons, the
 * verdict, and the report exports. Every figure is the host's (the runner's
 * progress, the engine's summary); the matrix's slot verdicts use the reports'
 * rule (core/report/repeats.ts).
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { EvalModelProgress, EvalRunView } from '../api/client';
import { describeRunCases } from '../../core/report/cases';
import { formatCount } from '../../core/report/format';
import { useCommands } from '../shell/commands';
import { messageOf, useNotificationsStore } from '../shell/useNotificationsStore';
import type { TabViewProps } from '../shell/views';
import type { VirtualListHandle } from '../shell/VirtualList';
import { DISPLAY_MODES, failureGroups, searchPattern, shortLabels, visibleRows, type DisplayMode } from './matrix';
import { MatrixGrid } from './MatrixGrid';
import { Comparisons, Metrics, Verdict } from './Results';
import { TraceDrawer } from './TraceDrawer';
import { evalsClient, useEvalsStore } from './useEvalsStore';
import { paramsOf } from '../shell/useTabsStore';
import { RUN_KIND } from './tabs';

type Section = 'matrix' | 'metrics' | 'comparison';

const STATUS_LABEL: Record<EvalRunView['status'], string> = { running: 'Running', stopping: 'Stopping', complete: 'Complete', incomplete: 'Incomplete', failed: 'Failed' };

function statusBadge(run: EvalRunView): { text: string; cls: string } {
  if (run.status === 'complete' && run.progress.errors > 0) return { text: `Finished with ${formatCount(run.progress.errors)} error${run.progress.errors === 1 ? '' : 's'}`, cls: 'warn' };
  if (run.status === 'complete') return { text: 'Complete', cls: 'ok' };
  if (run.status === 'failed') return { text: 'Failed', cls: 'err' };
  if (run.status === 'incomplete') return { text: 'Incomplete', cls: 'warn' };
  return { text: STATUS_LABEL[run.status], cls: 'neutral' };
}

function eta(ms: number | null): string {
  if (ms === null) return '—';
  if (ms === 0) return '0 s';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

const MODEL_STATUS: Record<EvalModelProgress['status'], string> = { pending: 'Pending', running: 'Running', stopped: 'Incomplete', complete: 'Done' };

function ModelProgressRow({ m, label, index, live, onStop }: { m: EvalModelProgress; label: string; index: number; live: boolean; onStop: () => void }) {
  const share = m.total === 0 ? 1 : m.done / m.total;
  const cls = m.status === 'stopped' ? 'stopped' : m.errors > 0 ? 'errors' : m.status === 'complete' ? 'done' : '';
  const running = m.status === 'running' || m.status === 'pending';
  return (
    <div className="eval-progress-row" data-testid={`model-progress-${index}`} data-status={m.status} data-model={m.spec}>
      <span className="mono ellipsis eval-progress-model" title={m.spec}>
        {label}
      </span>
      <span className={`eval-bar ${cls}`} role="progressbar" aria-valuemin={0} aria-valuemax={m.total} aria-valuenow={m.done} aria-label={`${m.spec} progress`}>
        <span style={{ transform: `scaleX(${share})` }} />
      </span>
      <span className="n" data-field="done">
        {formatCount(m.done)} / {formatCount(m.total)}
      </span>
      <span className={`n${m.errors > 0 ? ' error-text' : ' muted'}`} data-field="errors">
        {formatCount(m.errors)} err
      </span>
      {/* Rate, ETA and Stop mean something only while the model still has cells to run; a finished run drops their columns. */}
      {live && (
        <span className="n muted" data-field="rate">
          {running ? `${m.rate.toFixed(1)}/s` : ''}
        </span>
      )}
      {live && (
        <span className="n muted" data-field="eta">
          {running ? `ETA ${eta(m.eta_ms)}` : ''}
        </span>
      )}
      <span className={`badge ${m.status === 'stopped' ? 'warn' : m.status === 'complete' ? 'ok' : 'neutral'}`} data-field="status">
        {MODEL_STATUS[m.status]}
      </span>
      {live &&
        (running ? (
          <button type="button" className="btn small" disabled={m.status !== 'running'} onClick={onStop} data-testid={`stop-model-${index}`} title={`Stop ${m.spec}: no new cells; cells in flight are recorded`}>
            Stop
          </button>
        ) : (
          <span />
        ))}
    </div>
  );
}

async function download(run: string, format: 'json' | 'junit' | 'markdown' | 'html'): Promise<void> {
  try {
    const report = await evalsClient()['evals.export']({ run, format });
    const url = URL.createObjectURL(new Blob([report.text], { type: report.content_type }));
    const a = document.createElement('a');
    a.href = url;
    a.download = report.filename;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    useNotificationsStore.getState().push('info', `Exported ${report.filename}`);
  } catch (error) {
    useNotificationsStore.getState().push('error', messageOf(error));
  }
}

export function EvalRun({ tab, active }: TabViewProps) {
  const { run } = paramsOf(tab, RUN_KIND);
  const root = useRef<HTMLDivElement>(null);
  const list = useRef<VirtualListHandle>(null);
  const search = useRef<HTMLInputElement>(null);
  const opened = useEvalsStore((s) => s.open[run]);
  const view = useEvalsStore((s) => s.views[run]);
  const tick = useEvalsStore((s) => s.ticks[run] ?? 0);
  const [error, setError] = useState<string | null>(null);
  const [section, setSection] = useState<Section>('matrix');
  const [mode, setMode] = useState<DisplayMode>('all');
  const [query, setQuery] = useState('');
  const [group, setGroup] = useState<string | undefined>();
  const [selection, setSelection] = useState<{ row: number; col: number }>({ row: 0, col: 0 });
  const [drawer, setDrawer] = useState(false);

  useEffect(() => {
    useEvalsStore
      .getState()
      .load(run)
      .catch((e: unknown) => setError(messageOf(e)));
  }, [run]);

  // Live cells arrive ten times a second; the matrix and its derived lists redraw at most once per frame.
  const [frame, setFrame] = useState(tick);
  useEffect(() => {
    if (!active) return;
    const id = requestAnimationFrame(() => setFrame(tick));
    return () => cancelAnimationFrame(id);
  }, [tick, active]);

  // A live run's summary (rates, verdict) is re-read every two seconds while the tab is visible.
  const running = view?.status === 'running' || view?.status === 'stopping';
  useEffect(() => {
    if (!running || !active) return;
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      useEvalsStore
        .getState()
        .refreshSummary(run)
        .catch(() => undefined)
        .finally(() => (busy = false));
    }, 2000);
    return () => clearInterval(timer);
  }, [running, active, run]);

  const matrix = opened?.matrix;
  // `frame` changes when cells landed: the groups are recomputed then.
  const groups = useMemo(() => (matrix && frame >= 0 ? failureGroups(matrix) : []), [matrix, frame]);
  const rows = useMemo(() => (matrix ? visibleRows(matrix, { mode, search: query, ...(group && { group }) }, groups) : []), [matrix, mode, query, group, groups]);
  const pattern = searchPattern(query);
  const row = Math.min(selection.row, Math.max(0, rows.length - 1));
  const col = Math.min(selection.col, Math.max(0, (matrix?.columns.length ?? 1) - 1));
  const selected = rows.length > 0 && matrix ? { r: rows[row]!, c: col } : undefined;
  // Stable props: a progress event that landed no cell in view does not redraw the matrix.
  const gridSelected = useMemo(() => ({ row, col }), [row, col]);
  const onSelect = useCallback((r: number, c: number, open: boolean) => {
    setSelection({ row: r, col: c });
    if (open) setDrawer(true);
  }, []);

  const runView = view ?? opened?.detail.run;
  const labels = useMemo(() => shortLabels(runView?.models.map((m) => m.spec) ?? []), [runView?.models]);
  const live = runView?.status === 'running' || runView?.status === 'stopping';
  const move = (dr: number, dc: number) => {
    if (!matrix) return;
    const next = { row: Math.max(0, Math.min(rows.length - 1, row + dr)), col: Math.max(0, Math.min(matrix.columns.length - 1, col + dc)) };
    setSelection(next);
    list.current?.scrollToIndex(next.row);
  };
  const stopAll = async () => {
    try {
      await evalsClient()['evals.stop']({ run });
    } catch (e) {
      useNotificationsStore.getState().push('error', messageOf(e));
    }
  };
  const resume = async () => {
    try {
      await evalsClient()['evals.resume']({ run });
    } catch (e) {
      useNotificationsStore.getState().push('error', messageOf(e));
    }
  };
  const canResume = runView && runView.status === 'incomplete' ? true : 'Only an incomplete run that is not running can be resumed';
  const hasCells = (opened?.matrix.size ?? 0) > 0 ? true : 'The run has no recorded cell yet';

  useCommands(root, {
    'evals.next': () => move(1, 0),
    'evals.previous': () => move(-1, 0),
    'evals.right': () => move(0, 1),
    'evals.left': () => move(0, -1),
    'evals.openTrace': { enabled: () => (selected ? true : 'No cell is selected'), run: () => setDrawer(true) },
    'evals.closeTrace': () => {
      if (drawer) setDrawer(false);
      else if (document.activeElement === search.current && query) setQuery('');
      else if (group) setGroup(undefined);
    },
    'evals.search': () => {
      setSection('matrix');
      setTimeout(() => search.current?.focus(), 0);
    },
    'evals.showAll': () => setMode('all'),
    'evals.showFailures': () => setMode('failures'),
    'evals.showErrors': () => setMode('errors'),
    'evals.showFlaky': () => setMode('flaky'),
    'evals.showDifferent': () => setMode('different'),
    'evals.stopAll': { enabled: () => (live ? true : 'The run is not running'), run: stopAll },
    'evals.resume': { enabled: () => canResume, run: resume },
    'evals.exportJson': { enabled: () => hasCells, run: () => download(run, 'json') },
    'evals.exportJunit': { enabled: () => hasCells, run: () => download(run, 'junit') },
    'evals.exportMarkdown': { enabled: () => hasCells, run: () => download(run, 'markdown') },
    'evals.exportHtml': { enabled: () => hasCells, run: () => download(run, 'html') },
  });

  if (error) {
    return (
      <div className="view" ref={root} data-scope="evals" tabIndex={-1} data-autofocus>
        <div className="empty-state">
          <strong>This run cannot be shown</strong>
          <span className="inline-error">{error}</span>
        </div>
      </div>
    );
  }
  const badge = runView ? statusBadge(runView) : undefined;
  return (
    <div className="view eval-run" ref={root} data-scope="evals" tabIndex={-1} data-autofocus data-testid="eval-run-view" data-run={run}>
      <div className="view-header">
        <h1>Run {run.slice(0, 8)}</h1>
        {runView && (
          <>
            <span className={`badge ${badge!.cls}`} data-testid="run-status" data-status={runView.status}>
              {badge!.text}
            </span>
            <span className="muted" data-testid="run-progress" title={`config ${runView.config_hash}`}>
              {formatCount(runView.progress.done)} / {formatCount(runView.progress.total)} cells · {formatCount(runView.progress.errors)} errors · {runView.repeats} repeat{runView.repeats === 1 ? '' : 's'}
            </span>
          </>
        )}
        <span className="spacer" />
        {live && (
          <button type="button" className="btn small" onClick={() => void stopAll()} data-testid="stop-all">
            Stop all
          </button>
        )}
        <button type="button" className="btn small" disabled={canResume !== true} title={canResume === true ? 'Resume the missing cells' : canResume} onClick={() => void resume()} data-testid="resume">
          Resume
        </button>
        <span className="eval-export" aria-label="Export">
          <span className="faint">Export</span>
          {(['json', 'junit', 'markdown', 'html'] as const).map((f) => (
            <button key={f} type="button" className="btn small ghost" disabled={hasCells !== true} onClick={() => void download(run, f)} data-testid={`export-${f}`}>
              {f === 'json' ? 'JSON' : f === 'junit' ? 'JUnit' : f === 'markdown' ? 'Markdown' : 'HTML'}
            </button>
          ))}
        </span>
      </div>
      {runView && (
        <div className={`eval-progress${live ? '' : ' finished'}`} data-testid="eval-progress">
          {runView.models.map((m, i) => (
            <ModelProgressRow key={m.spec} m={m} label={labels[i] ?? m.spec} index={i} live={live} onStop={() => void evalsClient()['evals.stop']({ run, model: m.spec }).catch((e: unknown) => useNotificationsStore.getState().push('error', messageOf(e)))} />
          ))}
          {runView.error && <div className="inline-error">{runView.error.message}</div>}
        </div>
      )}
      {opened && (
        <div className="eval-facts" data-testid="eval-facts">
          <span data-testid="eval-cases">Cases: {describeRunCases(opened.detail.cases, opened.detail.extras ?? {}).join('; ')}</span>
          <span>
            Activation models: <span className="mono">{labels.join(', ')}</span>
          </span>
          <span data-testid="eval-resource-model">
            Resource model: {opened.detail.resource_model ? <span className="mono">{opened.detail.resource_model}</span> : 'each activation model selects its own'}
          </span>
        </div>
      )}
      {opened?.summary && <Verdict summary={opened.summary} live={live} />}
      <div className="eval-sections" role="tablist" aria-label="Results">
        {(['matrix', 'metrics', 'comparison'] as const).map((s) => (
          <button key={s} type="button" role="tab" aria-selected={section === s} className={`eval-section-tab${section === s ? ' selected' : ''}`} onClick={() => setSection(s)} data-testid={`section-${s}`}>
            {s === 'matrix' ? 'Matrix' : s === 'metrics' ? 'Metrics' : 'Comparison'}
            {s === 'comparison' && opened?.summary ? ` (${opened.summary.comparisons.length})` : ''}
          </button>
        ))}
      </div>
      {!opened ? (
        <div className="empty-state">Loading the run…</div>
      ) : section === 'matrix' ? (
        <>
          <div className="eval-toolbar">
            <div className="segmented" role="radiogroup" aria-label="Display">
              {DISPLAY_MODES.map((d) => (
                <button key={d.mode} type="button" role="radio" aria-checked={mode === d.mode} className={`seg${mode === d.mode ? ' selected' : ''}`} title={d.title} onClick={() => setMode(d.mode)} data-testid={`mode-${d.mode}`}>
                  {d.label}
                </button>
              ))}
            </div>
            <input ref={search} className="input mono eval-search" placeholder="/regex/ over request, case id, skill" value={query} onChange={(e) => setQuery(e.target.value)} aria-invalid={typeof pattern === 'string' ? true : undefined} aria-label="Filter cases" data-testid="eval-search" />
            {typeof pattern === 'string' && <span className="error-text">{pattern}</span>}
            <span className="muted" data-testid="visible-rows">
              {formatCount(rows.length)} of {formatCount(opened.matrix.rows.length)} cases
            </span>
            <div className="eval-groups" aria-label="Failure groups">
              {groups.map((g) => (
                <button key={g.kind} type="button" className={`chip${group === g.kind ? ' selected' : ''}`} aria-pressed={group === g.kind} onClick={() => setGroup(group === g.kind ? undefined : g.kind)} data-testid="failure-group">
                  <strong>{formatCount(g.cells)}</strong> {g.kind}
                </button>
              ))}
            </div>
          </div>
          <div className="eval-matrix-area">
            <MatrixGrid ref={list} matrix={opened.matrix} summary={opened.summary} rows={rows} selected={gridSelected} onSelect={onSelect} version={frame} />
            {drawer && selected && <TraceDrawer run={run} matrix={opened.matrix} r={selected.r} c={selected.c} onClose={() => setDrawer(false)} version={frame} />}
          </div>
        </>
      ) : section === 'metrics' ? (
        <div className="eval-scroll">{opened.summary ? <Metrics summary={opened.summary} /> : <p className="muted">No recorded cell yet.</p>}</div>
      ) : (
        <div className="eval-scroll">{opened.summary ? <Comparisons summary={opened.summary} cases={opened.detail.cases} /> : <p className="muted">No recorded cell yet.</p>}</div>
      )}
    </div>
  );
}
