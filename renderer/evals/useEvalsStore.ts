/**
 * Evaluation runs as the workbench sees them: the run list (from the run
 * folder, in the page's query cache, read again when a run starts or ends),
 * each run's live state (from `evals.*` events), and one {@link MatrixModel}
 * per open run, filled from `evals.cells` and then cell by cell as
 * `evals.progressed` events land. The open runs stay in this store, not in the
 * query cache: a matrix is a model the events keep changing in place, cell by
 * cell, not the answer of a request that a re-read could replace. Every number
 * is the host's: the runner's progress snapshot and the engine's summary;
 * nothing is counted here except the matrix slots, which use the reports' own
 * rules.
 */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { create } from 'zustand';
import type { EvalCell, EvalRunDetail, EvalRunView, WorkbenchClient, WorkbenchEvents } from '../api/client';
import { workbenchClient } from '../api/client';
import type { EvalSummary } from '../../evals/types';
import { queryClient } from '../storeData/queries';
import { MatrixModel } from './matrix';

/** A run opened in a tab: its header facts, summary and matrix. */
export interface OpenRun {
  detail: EvalRunDetail;
  /** The engine's summary (the full type: comparisons carry their cases and intervals). */
  summary: EvalSummary | null;
  matrix: MatrixModel;
  /** True once every recorded cell has been read back. */
  loaded: boolean;
}

interface EvalsState {
  /** The latest view of each run the session has seen (list, events): a live run's wins over the listed one. */
  views: Record<string, EvalRunView>;
  /** Open runs, by id. */
  open: Record<string, OpenRun>;
  /** Bumped when an open run's matrix changed, by run id (a view redraws on it). */
  ticks: Record<string, number>;
  /** Loads a run (detail, summary and every recorded cell) into {@link EvalsState.open}. */
  load(run: string): Promise<OpenRun>;
  /** Reloads the detail and summary of an open run (after it finished). */
  refreshDetail(run: string): Promise<void>;
  /** Reloads only the summary of an open run (a live run's numbers so far). */
  refreshSummary(run: string): Promise<void>;
  onStarted(e: WorkbenchEvents['evals.started']): void;
  onProgressed(e: WorkbenchEvents['evals.progressed']): void;
  onFinished(e: WorkbenchEvents['evals.finished']): void;
}

let api: WorkbenchClient | undefined;
const client = () => api ?? workbenchClient();

/** Uses `c` instead of the page's client (tests and benches in a browser page); `undefined` goes back to it. */
export function setEvalsClient(c: WorkbenchClient | undefined): void {
  api = c;
}

/** Query key of the run list. */
export const evalKeys = {
  runs: ['evals', 'runs'] as const,
};

/**
 * The runs of the run folder, newest first. A listed run that is not live
 * here also updates the session's view of it; a live one keeps the view its
 * events built, so the list never puts an older progress over a running run.
 */
export function evalRunsQuery() {
  return queryOptions({
    queryKey: evalKeys.runs,
    queryFn: async (): Promise<EvalRunView[]> => {
      const { runs } = await client()['evals.list']();
      const views = { ...useEvalsStore.getState().views };
      for (const r of runs) if (!isLive(views[r.run])) views[r.run] = r;
      useEvalsStore.setState({ views });
      return runs;
    },
    // Runs the CLI or another window started send no event here: opening the panel reads the folder again.
    refetchOnMount: 'always',
  });
}

/** The run list as the runs panel follows it. */
export function useEvalRuns() {
  return useQuery(evalRunsQuery());
}

/** Reads the run list again where it is shown (a run started or ended). */
export function refreshRuns(): Promise<void> {
  return queryClient.invalidateQueries({ queryKey: evalKeys.runs, exact: true });
}

/** Cells queued by events while a run's cells are still being read back. */
const early = new Map<string, EvalCell[]>();
const loading = new Map<string, Promise<OpenRun>>();

export const useEvalsStore = create<EvalsState>((set, get) => ({
  views: {},
  open: {},
  ticks: {},

  load(run) {
    const have = get().open[run];
    if (have) return Promise.resolve(have);
    const pending = loading.get(run);
    if (pending) return pending;
    const promise = (async () => {
      early.set(run, early.get(run) ?? []);
      const detail = await client()['evals.get']({ run });
      const matrix = new MatrixModel({ models: detail.run.models.map((m) => ({ spec: m.spec, isBaseline: m.isBaseline })), variants: detail.variants, cases: detail.cases, repeats: detail.run.repeats });
      let offset: number | null = 0;
      while (offset !== null) {
        const page: { cells: EvalCell[]; next_offset: number | null } = await client()['evals.cells']({ run, offset, limit: 5000 });
        matrix.add(page.cells);
        offset = page.next_offset;
      }
      matrix.add(early.get(run) ?? []);
      early.delete(run);
      const opened: OpenRun = { detail, summary: detail.summary, matrix, loaded: true };
      const live = get().views[run];
      if (live && live.status === 'running') opened.detail = { ...detail, run: live };
      set({ open: { ...get().open, [run]: opened }, views: { ...get().views, [run]: opened.detail.run }, ticks: { ...get().ticks, [run]: (get().ticks[run] ?? 0) + 1 } });
      return opened;
    })();
    loading.set(run, promise);
    promise.finally(() => loading.delete(run)).catch(() => undefined);
    return promise;
  },

  async refreshDetail(run) {
    const opened = get().open[run];
    if (!opened) return;
    const detail = await client()['evals.get']({ run });
    // Cells the events may have missed (a dropped socket) are read back too.
    let offset: number | null = 0;
    while (offset !== null) {
      const page: { cells: EvalCell[]; next_offset: number | null } = await client()['evals.cells']({ run, offset, limit: 5000 });
      opened.matrix.add(page.cells);
      offset = page.next_offset;
    }
    set({
      open: { ...get().open, [run]: { ...opened, detail, summary: detail.summary } },
      views: { ...get().views, [run]: detail.run },
      ticks: { ...get().ticks, [run]: (get().ticks[run] ?? 0) + 1 },
    });
  },

  async refreshSummary(run) {
    if (!get().open[run]) return;
    const detail = await client()['evals.get']({ run });
    const opened = get().open[run];
    if (!opened) return;
    // An interim read that lands after the run finished would put a stale summary under the final header.
    if (!isLive(get().views[run])) return;
    set({ open: { ...get().open, [run]: { ...opened, summary: detail.summary } } });
  },

  onStarted({ run }) {
    set({ views: { ...get().views, [run.run]: run } });
    void refreshRuns();
  },

  onProgressed(e) {
    const before = get().views[e.run];
    const views = before ? { ...get().views, [e.run]: { ...before, progress: e.progress, models: e.models } } : get().views;
    const opened = get().open[e.run];
    if (opened) opened.matrix.add(e.cells);
    else if (early.has(e.run)) early.get(e.run)!.push(...e.cells);
    set({ views, ...(opened && { ticks: { ...get().ticks, [e.run]: (get().ticks[e.run] ?? 0) + 1 } }) });
  },

  onFinished({ run }) {
    const finish = () => {
      set({ views: { ...get().views, [run.run]: run } });
      void refreshRuns();
    };
    if (!get().open[run.run]) return finish();
    // An open run keeps its live view until its final summary is read: the header's status and the
    // verdict then change in one update, never "Complete" over an interim "Incomplete" verdict.
    // Should the host's detail still read live, the event's view wins: a run never stays "running" after it ended.
    get()
      .refreshDetail(run.run)
      .then(() => (isLive(get().views[run.run]) ? finish() : void refreshRuns()), finish);
  },
}));

function isLive(view: EvalRunView | undefined): boolean {
  return view?.status === 'running' || view?.status === 'stopping';
}

/** Subscribes the store to the host's evaluation events; returns the unsubscribe function. */
export function subscribeEvals(): () => void {
  const s = useEvalsStore.getState();
  const offs = [client().on('evals.started', s.onStarted), client().on('evals.progressed', s.onProgressed), client().on('evals.finished', s.onFinished)];
  return () => offs.forEach((off) => off());
}

/** The client the evaluation views use. */
export function evalsClient(): WorkbenchClient {
  return client();
}
