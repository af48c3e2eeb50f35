/**
 * The renderer's WorkbenchApi client. Inside the desktop shell the preload's
 * bridge is present and calls go over IPC; in a browser (`skillbench serve`)
 * they go over a WebSocket to the page's own origin. Components use the typed
 * methods and events and never see which transport carries them.
 *
 * ```ts
 * const api = workbenchClient();
 * const page = await api['catalog.page']({ connection: 'default' });
 * const off = api.on('evals.progressed', (p) => …);
 * ```
 * Failures are thrown as {@link WorkbenchApiError} (a `WorkbenchError`) with
 * the code, message, located findings and a publish conflict on `data`.
 */
import { BRIDGE_KEY, isWorkbenchBridge } from '../../core/api/bridge';
import { createWorkbenchClient, type Transport, type WorkbenchClient } from '../../core/api/client';
import { ipcTransport } from './ipc';
import { socketTransport, type SocketState } from './socket';

export type { WorkbenchClient } from '../../core/api/client';
export { WorkbenchApiError } from '../../core/api/errors';
export type * from '../../core/api/contract';

/** How the page reaches the host, and the state of that link. */
export interface TransportInfo {
  kind: 'ipc' | 'websocket';
  /** Always `open` over IPC. */
  state(): SocketState;
  /** State changes (the socket dropped or came back); returns the unsubscribe function. */
  onState(listener: (state: SocketState) => void): () => void;
}

let shared: { client: WorkbenchClient; info: TransportInfo } | undefined;
let inProcess: WorkbenchClient | undefined;

/** Builds a client over the transport this page can use. */
export function connectWorkbench(scope: { location?: { origin: string } } & Record<string, unknown> = globalThis as never): { client: WorkbenchClient; info: TransportInfo } {
  const bridge = scope[BRIDGE_KEY];
  if (isWorkbenchBridge(bridge)) {
    const transport: Transport = ipcTransport(bridge);
    return { client: createWorkbenchClient(transport), info: { kind: 'ipc', state: () => 'open', onState: () => () => undefined } };
  }
  const origin = scope.location?.origin;
  if (!origin) throw new Error('the workbench client needs the desktop shell or a page served by skillbench serve');
  const transport = socketTransport({ origin });
  return { client: createWorkbenchClient(transport), info: { kind: 'websocket', state: () => transport.state, onState: (l) => transport.onState(l) } };
}

/** True inside the desktop shell (the preload's bridge is present); checks without connecting. */
export function inDesktopShell(scope: Record<string, unknown> = globalThis as never): boolean {
  return isWorkbenchBridge(scope[BRIDGE_KEY]);
}

/** The page's one client (created on first use). */
export function workbenchClient(): WorkbenchClient {
  if (inProcess) return inProcess;
  shared ??= connectWorkbench();
  return shared.client;
}

/**
 * Makes `client` the page's client (the renderer's logic driven in process,
 * against a service of its own, by tests and benches); `undefined` restores
 * the page's own transport.
 */
export function setWorkbenchClient(client: WorkbenchClient | undefined): void {
  inProcess = client;
}

/** How the page's client reaches the host. */
export function workbenchTransport(): TransportInfo {
  shared ??= connectWorkbench();
  return shared.info;
}
