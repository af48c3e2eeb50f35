/**
 * The run list in the page's query cache, against a real workbench service in
 * process running a real evaluation (the lexical baseline on the seeded
 * default registry): the end of a run reads the list again where it is shown,
 * and the run reads as complete there; a run live in this page keeps the view
 * its events built.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryObserver } from '@tanstack/react-query';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkbenchClient, type Transport, type WorkbenchClient } from '../../../../core/api/client';
import type { WorkbenchEvents } from '../../../../core/api/contract';
import { directTransport } from '../../../../core/api/direct';
import { Router } from '../../../../core/api/router';
import { createWorkbenchService, type WorkbenchService } from '../../../../core/api/service';
import { createEvalsPort } from '../../../../evals/port';
import { evalRunsQuery, setEvalsClient, subscribeEvals, useEvalsStore } from '../../../../renderer/evals/useEvalsStore';
import { queryClient } from '../../../../renderer/storeData/queries';

let work: string;
let service: WorkbenchService;
let page: WorkbenchClient;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-run-list-'));
  service = createWorkbenchService({ host: 'direct', version: '0.0.0-test', env: { PATH: process.env['PATH'] }, dataDir: join(work, 'data'), evals: createEvalsPort({ tickMs: 20 }) });
  const direct = directTransport(new Router(service));
  // The page hears every evaluation event but `evals.started`, so the end of the run is the only reason to read the list again.
  const transport: Transport = { ...direct, subscribe: (event, listener) => (event === 'evals.started' ? () => undefined : direct.subscribe(event, listener)) };
  page = createWorkbenchClient(transport);
  setEvalsClient(page);
});
afterAll(async () => {
  setEvalsClient(undefined);
  queryClient.clear();
  useEvalsStore.setState({ views: {}, open: {}, ticks: {} });
  page?.close();
  await service?.close();
  await rm(work, { recursive: true, force: true });
});

describe('the run list', () => {
  it('is read again when a run finishes, and never puts a listed run over a live one', async () => {
    const off = subscribeEvals();
    // The runs panel, open.
    const panel = new QueryObserver(queryClient, evalRunsQuery());
    const unsubscribe = panel.subscribe(() => undefined);
    try {
      await expect.poll(() => panel.getCurrentResult().status).toBe('success');
      expect(panel.getCurrentResult().data).toEqual([]);

      const finished = new Set<string>();
      let wake = () => {};
      const offFinished = page.on('evals.finished', (e: WorkbenchEvents['evals.finished']) => {
        finished.add(e.run.run);
        wake();
      });
      const id = (await page['evals.start']({ targets: [{ kind: 'published', skill: { namespace: 'travel', name: 'weather-assessment' } }], models: ['baseline:lexical'], connection: 'default' })).run;
      await new Promise<void>((resolve) => {
        wake = () => finished.has(id) && resolve();
        wake();
      });
      offFinished();

      await expect.poll(() => panel.getCurrentResult().data?.map((r) => [r.run, r.status])).toEqual([[id, 'complete']]);
      expect(useEvalsStore.getState().views[id]?.status).toBe('complete');

      // A run live here keeps the view its events built over the listed one; a run that is not live takes the listed one.
      const listed = panel.getCurrentResult().data![0]!;
      const live = { ...listed, status: 'running' as const, progress: { ...listed.progress, done: 1 } };
      useEvalsStore.setState({ views: { [id]: live } });
      await panel.refetch();
      expect(useEvalsStore.getState().views[id]).toEqual(live);
      useEvalsStore.setState({ views: { [id]: { ...listed, status: 'failed' } } });
      await panel.refetch();
      expect(useEvalsStore.getState().views[id]).toEqual(listed);
    } finally {
      unsubscribe();
      off();
    }
  });
});
