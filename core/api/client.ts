/**
 * The typed client over any transport: one async method per contract method
 * (`client['catalog.page']({...})`), failures rethrown as
 * {@link WorkbenchApiError}s, and event subscription. The renderer picks a
 * transport (IPC bridge or HTTP + WebSocket) and is otherwise unaware of it.
 *
 * Isomorphic: no `node:` imports. It takes only types from the contract and
 * its names from `names.ts`, so a page bundling it does not bundle zod.
 */
import type { Envelope, WorkbenchApi, WorkbenchEvent, WorkbenchEvents, WorkbenchMethod, WorkbenchParams, WorkbenchResults } from './contract';
import { METHOD_NAMES, isWorkbenchEvent, isWorkbenchMethod } from './names';
import { WorkbenchApiError } from './errors';

/** What a transport does: move one call's envelope, and deliver events. */
export interface Transport {
  /** Sends a call; resolves with its envelope (transport failures resolve as `unavailable` envelopes). */
  call(method: WorkbenchMethod, params: unknown): Promise<Envelope>;
  /** Starts delivering `event` to `listener`; returns the unsubscribe function. */
  subscribe<E extends WorkbenchEvent>(event: E, listener: (payload: WorkbenchEvents[E]) => void): () => void;
  /** Releases sockets and listeners. */
  close?(): void;
}

/** The typed client. */
export type WorkbenchClient = WorkbenchApi & {
  /** Calls a method by name. */
  call<M extends WorkbenchMethod>(method: M, params?: WorkbenchParams[M]): Promise<WorkbenchResults[M]>;
  /** Subscribes to an event; returns the unsubscribe function. */
  on<E extends WorkbenchEvent>(event: E, listener: (payload: WorkbenchEvents[E]) => void): () => void;
  /** Closes the transport. */
  close(): void;
};

/** Builds the typed client over `transport`. */
export function createWorkbenchClient(transport: Transport): WorkbenchClient {
  const call = async <M extends WorkbenchMethod>(method: M, params?: WorkbenchParams[M]): Promise<WorkbenchResults[M]> => {
    if (!isWorkbenchMethod(method)) {
      throw new WorkbenchApiError({ code: 'not_implemented', message: `unknown method '${String(method)}'`, status: 501 });
    }
    const envelope = await transport.call(method, params ?? {});
    if (envelope.ok) return envelope.result as WorkbenchResults[M];
    throw new WorkbenchApiError(envelope.error);
  };
  const client: Record<string, unknown> = {
    call,
    on<E extends WorkbenchEvent>(event: E, listener: (payload: WorkbenchEvents[E]) => void): () => void {
      if (!isWorkbenchEvent(event)) throw new TypeError(`unknown event '${String(event)}'`);
      return transport.subscribe(event, listener);
    },
    close: () => transport.close?.(),
  };
  for (const name of METHOD_NAMES) client[name] = (params?: unknown) => call(name, params as never);
  return client as WorkbenchClient;
}
