/**
 * The evaluation area of the workbench: the setup and run tabs, the runs
 * panel, the `skill.evaluate` intent, and the one subscription to the host's
 * evaluation events.
 */
import { useEffect } from 'react';
import { useCommands } from '../shell/commands';
import { useLayoutStore } from '../shell/useLayoutStore';
import { lazyView, useShellRoot, type ViewModule } from '../shell/views';
import { RunsPanel } from './RunsPanel';
import { RUN_KIND, SETUP_KIND, openSetupTab } from './tabs';
import { subscribeEvals } from './useEvalsStore';
import './evals.css';

function EvalsExtension() {
  const root = useShellRoot();
  useEffect(() => subscribeEvals(), []);
  useCommands(root, {
    'evals.new': () => openSetupTab(),
    'evals.showRuns': () => useLayoutStore.getState().setActivity('evals'),
  });
  return null;
}

/** The evaluation views. */
export const evalsModule: ViewModule = {
  id: 'evals',
  tabViews: [
    { kind: SETUP_KIND, scope: 'evals', component: lazyView(async () => (await import('./EvalSetup')).EvalSetup), icon: 'beaker' },
    { kind: RUN_KIND, scope: 'evals', component: lazyView(async () => (await import('./EvalRun')).EvalRun), icon: 'table' },
  ],
  activities: [{ id: 'evals', title: 'Evaluations', icon: 'beaker', order: 40, panel: RunsPanel, command: 'evals.showRuns' }],
  extensions: [EvalsExtension],
  intents: {
    'skill.evaluate': ({ connection, skill }) => openSetupTab({ connection, skill: `${skill.namespace}/${skill.name}` }),
  },
};
