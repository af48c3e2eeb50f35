/**
 * Raw requests to a local HTTP server, for probes a browser or `fetch` would
 * not send as written: any Host, Origin or method, bytes on a bare TCP
 * connection, and WebSocket upgrades whose refusal status is the answer.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import WebSocket from 'ws';

/** An HTTP answer. */
export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request to `127.0.0.1:port` (Host `127.0.0.1:port` unless `headers` says otherwise). */
export function sendHttp(port: number, path: string, options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    // A connection of its own: a kept-alive one may be closed by the server just as it is reused.
    const req = request({ host: '127.0.0.1', port, path, agent: false, method: options.method ?? 'GET', headers: { Host: `127.0.0.1:${port}`, ...options.headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** Bytes on a fresh TCP connection; resolves with everything the server sent until it closed or stayed quiet for `quietMs`. */
export function rawHttp(port: number, text: string | Buffer, quietMs = 2000): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let out = '';
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(out);
    };
    socket.on('data', (c) => {
      out += String(c);
      clearTimeout(timer);
      timer = setTimeout(done, quietMs);
    });
    socket.on('close', done);
    socket.on('error', done);
    socket.write(text);
  });
}

/** Tries a WebSocket upgrade; resolves with the HTTP status it was refused with, 101 when it opened, 0 when the connection failed. */
export function tryUpgrade(port: number, headers: Record<string, string>, options: { origin?: string; path?: string } = {}): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${options.path ?? '/api/ws'}`, { headers, ...(options.origin && { origin: options.origin }) });
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('error', () => resolve(0));
  });
}
