/**
 * The transport of the browser workbench (`skillbench serve`): calls and
 * events over one WebSocket at `/api/ws`, and calls over `POST /api/<method>`
 * while the socket is (re)connecting. The socket reconnects with backoff and
 * re-subscribes to the events its listeners want. Authentication is the
 * session cookie the server set when the page was opened.
 */
import type { Transport } from '../../core/api/client';
import type { Envelope, WorkbenchEvent, WorkbenchEvents, WorkbenchMethod } from '../../core/api/contract';

/** The part of a WebSocket this transport uses (the browser's, or `ws` in Node tests). */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onclose: ((event: unknown) => void) | null;
  onerror: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
}

/** Options of {@link socketTransport}. */
export interface SocketTransportOptions {
  /** The server's origin, e.g. `location.origin`. */
  origin: string;
  /** Opens a socket (default: the global `WebSocket`). */
  connect?: (url: string) => SocketLike;
  /** Sends an HTTP call (default: the global `fetch`). */
  fetch?: typeof fetch;
  /** Extra headers of HTTP calls (tests outside a browser pass the session cookie). */
  headers?: Record<string, string>;
  /** Reconnection backoff bounds (default 250 ms .. 5 s). */
  minDelayMs?: number;
  maxDelayMs?: number;
}

/** Connection state of the socket, for a status bar. */
export type SocketState = 'connecting' | 'open' | 'closed';

/** The socket transport, with its connection state. */
export interface SocketTransport extends Transport {
  readonly state: SocketState;
  /** Calls `listener` on every state change; returns the unsubscribe function. */
  onState(listener: (state: SocketState) => void): () => void;
}

const OPEN = 1;

function unavailable(message: string): Envelope {
  return { ok: false, error: { code: 'unavailable', status: 503, message } };
}

/** Opens the transport; the socket connects in the background. */
export function socketTransport(options: SocketTransportOptions): SocketTransport {
  const wsUrl = `${options.origin.replace(/^http/, 'ws')}/api/ws`;
  const connect = options.connect ?? ((url: string) => new WebSocket(url) as unknown as SocketLike);
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const minDelay = options.minDelayMs ?? 250;
  const maxDelay = options.maxDelayMs ?? 5000;
  const pending = new Map<number, (envelope: Envelope) => void>();
  const listeners = new Map<WorkbenchEvent, Set<(payload: unknown) => void>>();
  const stateListeners = new Set<(state: SocketState) => void>();
  let socket: SocketLike | undefined;
  let state: SocketState = 'connecting';
  let nextId = 1;
  let delay = minDelay;
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const setState = (next: SocketState) => {
    if (next === state) return;
    state = next;
    for (const l of [...stateListeners]) l(next);
  };

  const sendSubscription = (type: 'subscribe' | 'unsubscribe', events: WorkbenchEvent[]) => {
    if (socket?.readyState === OPEN && events.length > 0) socket.send(JSON.stringify({ type, events }));
  };

  const open = () => {
    if (closed) return;
    setState('connecting');
    let s: SocketLike;
    try {
      s = connect(wsUrl);
    } catch {
      schedule();
      return;
    }
    socket = s;
    s.onopen = () => {
      delay = minDelay;
      setState('open');
      sendSubscription('subscribe', [...listeners.keys()]);
    };
    s.onmessage = (event) => {
      let message: { id?: unknown; event?: unknown; payload?: unknown; ok?: unknown };
      try {
        message = JSON.parse(String(event.data));
      } catch {
        return;
      }
      if (typeof message.event === 'string') {
        for (const l of [...(listeners.get(message.event as WorkbenchEvent) ?? [])]) l(message.payload);
        return;
      }
      if (typeof message.id === 'number') {
        const resolve = pending.get(message.id);
        pending.delete(message.id);
        const { id: _id, ...envelope } = message;
        resolve?.(envelope as Envelope);
      }
    };
    s.onerror = () => undefined;
    s.onclose = () => {
      if (socket === s) socket = undefined;
      // Calls in flight may or may not have run: say so instead of retrying behind the caller's back.
      for (const [id, resolve] of pending) {
        pending.delete(id);
        resolve(unavailable('the connection to the workbench host was lost before it answered; check the result and retry'));
      }
      if (closed) setState('closed');
      else schedule();
    };
  };

  const schedule = () => {
    setState(closed ? 'closed' : 'connecting');
    if (closed) return;
    timer = setTimeout(open, delay);
    delay = Math.min(maxDelay, delay * 2);
  };

  const callHttp = async (method: WorkbenchMethod, params: unknown): Promise<Envelope> => {
    try {
      const res = await doFetch(`${options.origin}/api/${method}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...options.headers },
        body: JSON.stringify(params ?? {}),
        credentials: 'same-origin',
      });
      const envelope = (await res.json()) as Envelope;
      if (typeof envelope !== 'object' || envelope === null || typeof envelope.ok !== 'boolean') return unavailable(`the workbench host answered ${res.status} without an API envelope`);
      return envelope;
    } catch (error) {
      return unavailable(`the workbench host cannot be reached: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  open();

  return {
    get state() {
      return state;
    },
    onState(listener) {
      stateListeners.add(listener);
      return () => stateListeners.delete(listener);
    },
    call(method, params) {
      if (closed) return Promise.resolve(unavailable('the workbench client is closed'));
      const s = socket;
      if (!s || s.readyState !== OPEN) return callHttp(method, params);
      const id = nextId++;
      return new Promise<Envelope>((resolve) => {
        pending.set(id, resolve);
        try {
          s.send(JSON.stringify({ id, method, params: params ?? {} }));
        } catch {
          pending.delete(id);
          resolve(unavailable('the connection to the workbench host is closed; retry'));
        }
      });
    },
    subscribe<E extends WorkbenchEvent>(event: E, listener: (payload: WorkbenchEvents[E]) => void) {
      let set = listeners.get(event);
      if (!set) {
        set = new Set();
        listeners.set(event, set);
        sendSubscription('subscribe', [event]);
      }
      const l = listener as (payload: unknown) => void;
      set.add(l);
      return () => {
        const current = listeners.get(event);
        if (!current?.delete(l) || current.size > 0) return;
        listeners.delete(event);
        sendSubscription('unsubscribe', [event]);
      };
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      socket?.close(1000, 'client closed');
      socket = undefined;
      setState('closed');
    },
  };
}
