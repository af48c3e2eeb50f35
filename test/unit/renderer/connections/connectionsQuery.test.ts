/**
 * The saved connections as the page's query cache holds them, against a real
 * workbench service in process: removing the active connection makes the first
 * saved one active (and remembered), and a chord pressed before the list
 * loaded runs once, with the settled active connection, when it loads.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setWorkbenchClient } from '../../../../renderer/api/client';
import { activeConnectionEnabled, connectionsLoaded, followConnectionEvents, refreshConnections, savedConnections, withActiveConnection } from '../../../../renderer/connections/queries';
import { useConnectionsStore } from '../../../../renderer/connections/useConnectionsStore';
import { queryClient } from '../../../../renderer/storeData/queries';
import { openWorkbench, type Workbench } from '../../../helpers/workbench';

let work: string;
let wb: Workbench;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-connections-query-'));
  wb = await openWorkbench('direct', { dataDir: join(work, 'data') });
  setWorkbenchClient(wb.client);
  await wb.client['connections.save']({ profile: { name: 'staging', label: 'Staging', target: { kind: 'local', dir: join(work, 'staging-registry') } } });
});
afterAll(async () => {
  setWorkbenchClient(undefined);
  await wb?.close();
  await rm(work, { recursive: true, force: true });
});
afterEach(() => {
  queryClient.clear();
  useConnectionsStore.setState({ activeName: undefined, reachability: {} });
});

const names = () => savedConnections().map((c) => c.name);

describe('the saved connections', () => {
  it('keep the active connection while it is saved, and fall back to the first one once it is removed', async () => {
    const off = followConnectionEvents();
    try {
      await refreshConnections();
      expect(names()).toEqual(['default', 'staging']);
      useConnectionsStore.getState().setActive('staging');

      // Another profile saved: the list is read again and the choice stands.
      await wb.client['connections.save']({ profile: { name: 'scratch', target: { kind: 'local', dir: join(work, 'scratch-registry') } } });
      await expect.poll(names).toContain('scratch');
      expect(useConnectionsStore.getState().activeName).toBe('staging');

      // The active one removed (its event reads the list again): the first saved one takes over, and is remembered.
      await wb.client['connections.remove']({ name: 'staging' });
      await expect.poll(names).not.toContain('staging');
      expect(useConnectionsStore.getState().activeName).toBe('default');
      expect(JSON.parse(localStorage.getItem('skillbench.connections')!)).toEqual({ state: { activeName: 'default' }, version: 1 });
    } finally {
      off();
      await wb.client['connections.remove']({ name: 'scratch' });
      await wb.client['connections.save']({ profile: { name: 'staging', label: 'Staging', target: { kind: 'local', dir: join(work, 'staging-registry') } } });
    }
  });

  it('run a chord pressed before they loaded once, when they load, with the active connection settled', async () => {
    // Remembered from an earlier session, and removed since.
    useConnectionsStore.setState({ activeName: 'gone' });
    expect(connectionsLoaded()).toBe(false);
    expect(activeConnectionEnabled()).toBe(true);
    const opened: string[] = [];
    withActiveConnection((name) => opened.push(name));
    expect(opened).toEqual([]);

    await refreshConnections();
    expect(opened).toEqual(['default']);

    // Later reads of the list do not run it again.
    await refreshConnections();
    await refreshConnections();
    expect(opened).toEqual(['default']);

    // Once loaded, a chord runs at once.
    useConnectionsStore.getState().setActive('staging');
    withActiveConnection((name) => opened.push(name));
    expect(opened).toEqual(['default', 'staging']);
  });

  it('say why a command cannot run once they loaded with none active', async () => {
    await refreshConnections();
    useConnectionsStore.setState({ activeName: undefined });
    expect(activeConnectionEnabled()).toBe('No connection is active');
  });
});
