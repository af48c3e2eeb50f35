/**
 * One WebSocket of the web host: calls (`{id, method, params}` → `{id, ok, …}`)
 * and the events the socket subscribed to, with limits that keep one client
 * from costing the server its memory or its life.
 *
 * - A malformed frame (a length above the message limit, invalid UTF-8, an
 *   unmasked frame, an unknown opcode, a reserved bit, an oversized control
 *   frame) closes that socket with the code RFC 6455 names (1009, 1007, 1002);
 *   the server and everything it runs carry on.
 * - Backpressure: at most `maxInFlight` calls of a socket run at once. While
 *   that many run, or while more than `highWaterBytes` of answers and events
 *   wait to be sent, further messages wait in order and the socket is not read
 *   (the client's own send buffer fills instead). A socket that stays more
 *   than `highWaterBytes` behind for `stallMs` is closed with 1008 and cut:
 *   per socket, the server holds at most `highWaterBytes` plus the answers of
 *   `maxInFlight` calls.
 */
import type { RawData, WebSocket } from 'ws';
import { isWorkbenchEvent, type WorkbenchErrorData, type WorkbenchEvent } from '../../core/api/contract';
import type { Router } from '../../core/api/router';

/** Flow limits of one socket. */
export interface SocketLimits {
  /** Calls of one socket running at once (default 8). */
  maxInFlight: number;
  /** Unsent bytes above which no further call starts and the socket is not read (default 8 MiB). */
  highWaterBytes: number;
  /** How long a socket may stay above `highWaterBytes` before it is closed (default 30 s). */
  stallMs: number;
}

/** The limits `skillbench serve` uses. */
export const DEFAULT_SOCKET_LIMITS: SocketLimits = { maxInFlight: 8, highWaterBytes: 8 * 1024 * 1024, stallMs: 30_000 };

/** How often a socket is pinged; one that answered no ping in between is cut. */
const HEARTBEAT_MS = 30_000;
/** Time a socket closed for falling behind gets to take its close frame before it is cut. */
const CLOSE_GRACE_MS = 1_000;

function errorData(code: string, status: number, message: string): WorkbenchErrorData {
  return { code, status, message };
}

interface Pending {
  data: RawData;
  isBinary: boolean;
}

/** Serves calls and subscribed events on `ws` until it closes. */
export function serveSocket(ws: WebSocket, options: { router: Router; limits: SocketLimits; log: (line: string) => void }): void {
  const { router, limits, log } = options;
  const wanted = new Set<WorkbenchEvent>();
  const queue: Pending[] = [];
  let inFlight = 0;
  let alive = true;
  let stall: ReturnType<typeof setTimeout> | undefined;

  const behind = (): boolean => ws.bufferedAmount > limits.highWaterBytes;

  /** Sends one message; its write callback lets waiting calls go once the client has read enough. */
  const send = (value: { id?: unknown } & Record<string, unknown>): void => {
    if (ws.readyState !== ws.OPEN) return;
    let text: string;
    try {
      text = JSON.stringify(value);
    } catch (error) {
      // A value JSON cannot spell (too deep, a cycle) is a bug; it must not become an unhandled rejection that ends the process.
      log(`skillbench serve: internal error: an answer could not be encoded (${error instanceof Error ? error.name : 'error'})`);
      text = JSON.stringify({ id: value.id ?? null, ok: false, error: errorData('internal', 500, 'internal error: the answer could not be encoded') });
    }
    ws.send(text, () => pump());
    watch();
  };

  /** Starts or stops the timer that closes a socket left too far behind. */
  const watch = (): void => {
    if (!behind()) {
      if (stall) clearTimeout(stall);
      stall = undefined;
      return;
    }
    stall ??= setTimeout(() => {
      stall = undefined;
      if (!behind()) return pump();
      log(`skillbench serve: closed a WebSocket whose client stopped reading (more than ${limits.highWaterBytes} bytes unsent for ${limits.stallMs} ms)`);
      ws.close(1008, 'the client reads too slowly');
      // The close frame waits behind the unread data: cut the socket so its buffers go.
      setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
    }, limits.stallMs);
    stall.unref();
  };

  const handle = ({ data, isBinary }: Pending): void => {
    if (isBinary) {
      send({ id: null, ok: false, error: errorData('unsupported_media_type', 415, 'send JSON text messages') });
      return;
    }
    let message: { id?: unknown; method?: unknown; params?: unknown; type?: unknown; events?: unknown };
    try {
      message = JSON.parse(data.toString());
    } catch {
      send({ id: null, ok: false, error: errorData('invalid_request', 400, 'a message is one JSON object') });
      return;
    }
    if (message === null || typeof message !== 'object') {
      send({ id: null, ok: false, error: errorData('invalid_request', 400, 'a message is one JSON object') });
      return;
    }
    if (message.type === 'subscribe' || message.type === 'unsubscribe') {
      for (const event of Array.isArray(message.events) ? message.events : []) {
        if (!isWorkbenchEvent(event)) continue;
        if (message.type === 'subscribe') wanted.add(event);
        else wanted.delete(event);
      }
      return;
    }
    const id = typeof message.id === 'number' || typeof message.id === 'string' ? message.id : null;
    inFlight += 1;
    void router.call(message.method, message.params, { transport: 'ws' }).then((envelope) => {
      inFlight -= 1;
      send({ id, ...envelope });
      pump();
    });
  };

  /** Starts waiting calls while there is room, and reads the socket only when every message has been taken. */
  function pump(): void {
    if (ws.readyState !== ws.OPEN) return;
    while (queue.length > 0 && inFlight < limits.maxInFlight && !behind()) handle(queue.shift()!);
    if (queue.length === 0 && inFlight < limits.maxInFlight && !behind()) {
      if (ws.isPaused) ws.resume();
    } else if (!ws.isPaused) {
      ws.pause();
    }
    watch();
  }

  const unsubscribe = router.subscribe((event, payload) => {
    if (wanted.has(event)) send({ event, payload });
  });
  const heartbeat = setInterval(() => {
    // A paused socket does not read its pongs: its client is waiting on us, not gone.
    if (!alive && !ws.isPaused) {
      ws.terminate();
      return;
    }
    alive = false;
    ws.ping();
  }, HEARTBEAT_MS);
  heartbeat.unref();

  ws.on('pong', () => (alive = true));
  ws.on('message', (data, isBinary) => {
    alive = true;
    queue.push({ data, isBinary });
    pump();
  });
  // A frame the protocol forbids: `ws` has already closed the socket with its code (1002, 1007, 1009).
  // Without a listener the error would end the process.
  ws.on('error', (error: Error & { code?: string }) => {
    log(`skillbench serve: closed a WebSocket after a malformed frame (${error.code ?? 'error'}: ${error.message})`);
  });
  ws.on('close', () => {
    clearInterval(heartbeat);
    if (stall) clearTimeout(stall);
    queue.length = 0;
    unsubscribe();
  });
}
