/**
 * The evaluation defaults of the open workspace's `skillbench.config.json`,
 * the same file the CLI's `eval` reads, so the workbench and the team's CI
 * start from one setup. Read once per setup tab: a setup the user has begun
 * changing is never overwritten by a late answer.
 */
import { useEffect, useState } from 'react';
import type { ProjectConfigView } from '../api/client';
import { evalsClient } from './useEvalsStore';

/** undefined while it loads; null when no workspace is open or it has no project file. */
export function useProjectDefaults(): ProjectConfigView | undefined {
  const [view, setView] = useState<ProjectConfigView | undefined>(undefined);
  useEffect(() => {
    let live = true;
    // No workspace open (an error): there is no project file to read.
    evalsClient()['workspace.projectConfig']({}).then(
      (v) => live && setView(v),
      () => live && setView(null),
    );
    return () => {
      live = false;
    };
  }, []);
  return view;
}

/** One line naming what the project file set, e.g. "models baseline:lexical · repeats 3 · min accuracy 0.9". */
export function describeProjectDefaults(config: NonNullable<ProjectConfigView>['config']): string {
  if (!config) return '';
  const parts: string[] = [];
  if (config.connection) parts.push(`connection ${config.connection}`);
  if (config.models) parts.push(`models ${config.models.join(', ')}`);
  if (config.limits?.repeats !== undefined) parts.push(`repeats ${config.limits.repeats}`);
  if (config.limits?.concurrency !== undefined) parts.push(`concurrency ${config.limits.concurrency}`);
  if (config.limits?.timeout_ms !== undefined) parts.push(`timeout ${config.limits.timeout_ms} ms`);
  if (config.gates?.min_accuracy !== undefined) parts.push(`min accuracy ${config.gates.min_accuracy}`);
  if (config.gates?.min_recall !== undefined) parts.push(`min recall ${config.gates.min_recall}`);
  if (config.gates?.min_precision !== undefined) parts.push(`min precision ${config.gates.min_precision}`);
  if (config.gates?.fail_on_regression) parts.push('fail on regression');
  return parts.join(' · ');
}
