/** Opening the evaluation tabs: one setup tab per skill, one tab per run. */
import { focusActiveTab } from '../shell/shellFocus';
import { useTabsStore } from '../shell/useTabsStore';
import { useEvalsStore } from './useEvalsStore';

/** Tab kinds of the evaluation views. */
export const SETUP_KIND = 'evals.setup';
export const RUN_KIND = 'evals.run';

/** Setup params a tab carries. */
export interface SetupParams {
  connection?: string;
  skill?: string;
}

/** The parameters of a run tab. */
export interface RunTabParams {
  run: string;
}

declare module '../shell/useTabsStore' {
  interface TabParamsByKind {
    [SETUP_KIND]: SetupParams;
    [RUN_KIND]: RunTabParams;
  }
}

/** Opens (or focuses) the setup of an evaluation, optionally of one skill. */
export function openSetupTab(options: { connection?: string; skill?: string } = {}): void {
  const connection = options.connection ?? 'default';
  useTabsStore.getState().open({
    id: `evals.setup:${connection}:${options.skill ?? ''}`,
    kind: SETUP_KIND,
    title: options.skill ? `Evaluate ${options.skill}` : 'New evaluation',
    connectionId: connection,
    params: { connection, ...(options.skill && { skill: options.skill }) },
  });
  setTimeout(focusActiveTab, 0);
}

/** Opens (or focuses) a run's live and results view. */
export function openRunTab(run: string, title?: string): void {
  // Start reading the run now, not when its view mounts: the view's code may still be on its
  // way (a lazy chunk), and the live cells that land meanwhile are kept only for a run being read.
  // A failure here is shown by the view, whose own load asks again.
  useEvalsStore
    .getState()
    .load(run)
    .catch(() => undefined);
  useTabsStore.getState().open({ id: `evals.run:${run}`, kind: RUN_KIND, title: title ?? `Run ${run.slice(0, 8)}`, description: `evaluation run ${run}`, params: { run } });
  setTimeout(focusActiveTab, 0);
}
