/**
 * One WorkbenchApi service behind each of its transports, for the contract
 * suite: direct calls; the web host over a WebSocket (and over plain HTTP
 * POSTs while no socket is open); and Electron IPC through the stand-ins of
 * `electronStandIns.ts`.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import WebSocket from 'ws';
import { createWorkbenchClient, type WorkbenchClient } from '../../core/api/client';
import { directTransport } from '../../core/api/direct';
import { Router } from '../../core/api/router';
import { createWorkbenchService, type WorkbenchService, type WorkbenchServiceOptions } from '../../core/api/service';
import { startWebHost, type WebHost } from '../../cli/web/host';
import { createBridge } from '../../electron/bridge';
import { serveIpc } from '../../electron/ipc';
import { ipcTransport } from '../../renderer/api/ipc';
import { socketTransport, type SocketLike } from '../../renderer/api/socket';
import { IpcMainStandIn, IpcRendererStandIn, WebContentsStandIn } from './electronStandIns';

/** The transports of the contract suite. */
export const TRANSPORTS = ['direct', 'websocket', 'http', 'ipc'] as const;
export type TransportName = (typeof TRANSPORTS)[number];

/** A service and a client reaching it through one transport. */
export interface Workbench {
  service: WorkbenchService;
  client: WorkbenchClient;
  /** The app-data folder of the service. */
  dataDir: string;
  web?: WebHost;
  close(): Promise<void>;
}

/** The app origin the IPC host trusts. */
export const APP_ORIGIN = 'app://workbench';

/** Opens a socket with `ws` the way a page of `origin` would, authenticated with the bearer token. */
export function nodeSocket(token: string, origin?: string): (url: string) => SocketLike {
  return (url) => new WebSocket(url, { headers: { Authorization: `Bearer ${token}` }, ...(origin && { origin }) }) as unknown as SocketLike;
}

/** A session of a web host, to send as `Authorization: Bearer` (the URL's code signs in once, a browser). */
export function tokenOf(web: WebHost): string {
  return web.createSession();
}

/** Starts a service (in a fresh app-data folder unless given) and a client over `transport`. */
export async function openWorkbench(transport: TransportName, options: Partial<WorkbenchServiceOptions> = {}): Promise<Workbench> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'skillbench-api-')));
  const service = createWorkbenchService({ host: transport === 'ipc' ? 'electron' : transport === 'direct' ? 'direct' : 'browser', version: '0.0.0-test', env: { PATH: process.env['PATH'] }, dataDir, ...options });
  const router = new Router(service);
  const cleanup: (() => Promise<void> | void)[] = [];
  let client: WorkbenchClient;
  let web: WebHost | undefined;
  if (transport === 'direct') {
    client = createWorkbenchClient(directTransport(router));
  } else if (transport === 'websocket' || transport === 'http') {
    web = await startWebHost({ router, staticDir: join(dataDir, 'no-renderer') });
    const token = tokenOf(web);
    const socket = socketTransport({
      origin: web.origin,
      headers: { Authorization: `Bearer ${token}` },
      // Over `http` no socket ever opens, so every call is a POST.
      connect: transport === 'websocket' ? nodeSocket(token, web.origin) : () => { throw new Error('no socket in this test'); },
      minDelayMs: transport === 'http' ? 60_000 : 50,
    });
    if (transport === 'websocket') {
      await new Promise<void>((resolve) => {
        if (socket.state === 'open') resolve();
        const off = socket.onState((s) => s === 'open' && (off(), resolve()));
      });
    }
    client = createWorkbenchClient(socket);
    const host = web;
    cleanup.push(() => host.close());
  } else {
    const ipcMain = new IpcMainStandIn();
    const window = new WebContentsStandIn(`${APP_ORIGIN}/index.html`);
    const ipcRenderer = new IpcRendererStandIn(ipcMain, window);
    const ipcHost = serveIpc({ ipcMain, router, appOrigin: APP_ORIGIN });
    ipcHost.attach(window as never);
    client = createWorkbenchClient(ipcTransport(createBridge(ipcRenderer)));
    cleanup.push(() => ipcHost.dispose());
  }
  return {
    service,
    client,
    dataDir,
    ...(web && { web }),
    async close() {
      client.close();
      for (const c of cleanup.reverse()) await c();
      await service.close();
      if (options.dataDir === undefined) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** An author and a reviewer working on one request: see {@link openReviewPair}. */
export interface ReviewPair {
  /** The scratch folder holding everything below. */
  work: string;
  /** The workspace, holding the draft. */
  ws: string;
  /** The author's session (reviewer name `alice`). */
  alice: Workbench;
  /** The reviewer's session (`bob`). */
  bob: Workbench;
  /** Closes both sessions and removes the scratch folder. */
  close(): Promise<void>;
}

/**
 * Two sessions over `transport` on one workspace and one app-data folder: the
 * workspace holds `draft` (a path under `examples/`, copied to the same path),
 * and a protected local connection `prod` is saved.
 */
export async function openReviewPair(transport: TransportName, draft: string): Promise<ReviewPair> {
  const work = await mkdtemp(join(tmpdir(), 'skillbench-reviews-'));
  const ws = join(work, 'ws');
  const opened: Workbench[] = [];
  const close = async () => {
    for (const session of opened) await session.close();
    await rm(work, { recursive: true, force: true });
  };
  try {
    await cp(resolve('examples', draft), join(ws, draft));
    const dataDir = join(work, 'data');
    const alice = await openWorkbench(transport, { dataDir, reviewer: 'alice' });
    opened.push(alice);
    const bob = await openWorkbench(transport, { dataDir, reviewer: 'bob' });
    opened.push(bob);
    await alice.client['workspace.open']({ dir: ws });
    await bob.client['workspace.open']({ dir: ws });
    await alice.client['connections.save']({ profile: { name: 'prod', protected: true, target: { kind: 'local', dir: join(work, 'prod') } } });
    return { work, ws, alice, bob, close };
  } catch (error) {
    await close();
    throw error;
  }
}
