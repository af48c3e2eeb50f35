/**
 * The web host of `skillbench serve`: the built renderer and the WorkbenchApi
 * on one port, for a browser.
 *
 * - Calls: `POST /api/<method>` with a JSON body answers an envelope, or the
 *   same over the WebSocket at `/api/ws` (`{id, method, params}` → `{id, ok, …}`),
 *   which also carries the events a socket subscribed to.
 * - Access: a random token per launch, printed in the URL; the first load
 *   trades it for an HttpOnly, SameSite=Strict session cookie and drops it from
 *   the address bar. Scripts may send `Authorization: Bearer <token>` instead.
 * - Every request and WebSocket upgrade must name this server in `Host` (DNS
 *   rebinding) and, when it carries an `Origin`, this server's origin; a
 *   cross-site fetch or WebSocket is refused. No CORS header is ever sent.
 * - Pages get a strict CSP and no-sniff, no-referrer, no-framing headers.
 * - Bodies and messages are read with a size limit.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join, resolve, sep } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { isWorkbenchEvent, type Envelope, type WorkbenchErrorData, type WorkbenchEvent } from '../../core/api/contract';
import { workbenchCsp } from '../../core/api/csp';
import type { Router } from '../../core/api/router';
import { isLoopbackHost, loopbackHostNames } from '../../core/admin/server';
import { mediaTypeOf } from '../../core/api/mediaTypes';

/** Options of {@link startWebHost}. */
export interface WebHostOptions {
  router: Router;
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Port (default 0: a free one). */
  port?: number;
  /** The built renderer (`dist/renderer`). */
  staticDir: string;
  /** The access token (default: 32 random bytes). */
  token?: string;
  /** Largest request body or WebSocket message (default 32 MiB). */
  maxMessageBytes?: number;
  /** Where the host reports what an operator should know (never a token). */
  log?: (line: string) => void;
}

/** A running web host. */
export interface WebHost {
  /** The address to open: the origin plus `/?token=…`. */
  readonly url: string;
  /** `http://host:port` as the browser sees it. */
  readonly origin: string;
  readonly port: number;
  /** Name of the session cookie (per port: browsers share cookies across ports). */
  readonly cookieName: string;
  /** Stops accepting, closes every socket. Idempotent. */
  close(): Promise<void>;
}

const MAX_SESSIONS = 64;

function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

function cookiesOf(req: IncomingMessage): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0) out.set(part.slice(0, i).trim(), part.slice(i + 1).trim());
  }
  return out;
}

function errorData(code: string, status: number, message: string): WorkbenchErrorData {
  return { code, status, message };
}

const SECURITY_HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Skillbench</title></head>
<body><h1>Skillbench</h1><p>The workbench UI is not built yet. Run <code>npm run build</code> (or <code>npm start</code>, which builds it), then reload this page.</p><p>The API is available at <code>/api</code>.</p></body></html>`;

function page(title: string, text: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p></body></html>`;
}

/** Starts the web host; resolves once it listens. */
export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const bind = options.host ?? '127.0.0.1';
  const token = options.token ?? randomBytes(32).toString('base64url');
  const maxBytes = options.maxMessageBytes ?? 32 * 1024 * 1024;
  const staticRoot = resolve(options.staticDir);
  const log = options.log ?? (() => undefined);
  const sessions = new Set<string>();
  const sockets = new Set<Socket>();
  let allowedHosts = new Set<string>();
  let allowedOrigins = new Set<string>();
  let cookieName = 'skillbench_session';
  let csp = workbenchCsp();

  const checkHost = (req: IncomingMessage): boolean => allowedHosts.has((req.headers.host ?? '').toLowerCase());
  /** An Origin, when sent, must be this server: browsers send it on every cross-site fetch and every WebSocket. */
  const checkOrigin = (req: IncomingMessage, required: boolean): boolean => {
    const origin = req.headers.origin;
    if (origin === undefined) return !required;
    return allowedOrigins.has(origin.toLowerCase());
  };
  const authenticated = (req: IncomingMessage): boolean => {
    const session = cookiesOf(req).get(cookieName);
    if (session !== undefined && [...sessions].some((s) => sameSecret(s, session))) return true;
    const auth = req.headers.authorization;
    return auth !== undefined && auth.startsWith('Bearer ') && sameSecret(auth.slice('Bearer '.length).trim(), token);
  };

  const send = (res: ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void => {
    res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(body)), 'Cache-Control': 'no-store', ...extra });
    res.end(body);
  };
  const sendJson = (res: ServerResponse, status: number, value: unknown): void => send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));
  const sendError = (res: ServerResponse, error: WorkbenchErrorData): void => sendJson(res, error.status, { ok: false, error } satisfies Envelope);
  const sendPage = (res: ServerResponse, status: number, html: string): void => send(res, status, 'text/html; charset=utf-8', html, { 'Content-Security-Policy': csp });

  const readBody = (req: IncomingMessage): Promise<Buffer | undefined> =>
    new Promise((resolveBody, reject) => {
      const declared = Number(req.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        resolveBody(undefined);
        req.resume();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let over = false;
      req.on('data', (chunk: Buffer) => {
        if (over) return;
        size += chunk.length;
        if (size > maxBytes) {
          over = true;
          chunks.length = 0;
          return;
        }
        chunks.push(chunk);
      });
      req.on('end', () => resolveBody(over ? undefined : Buffer.concat(chunks)));
      req.on('error', reject);
    });

  const serveApi = async (req: IncomingMessage, res: ServerResponse, method: string): Promise<void> => {
    if (req.method !== 'POST') {
      sendError(res, errorData('invalid_request', 405, 'API methods are called with POST and a JSON body'));
      return;
    }
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') {
      req.resume();
      sendError(res, errorData('unsupported_media_type', 415, 'send the parameters as Content-Type: application/json'));
      return;
    }
    const body = await readBody(req);
    if (body === undefined) {
      sendError(res, errorData('payload_too_large', 413, `the request body is larger than ${maxBytes} bytes`));
      return;
    }
    let params: unknown;
    try {
      params = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
    } catch (error) {
      sendError(res, errorData('invalid_request', 400, `the request body is not valid JSON: ${(error as Error).message}`));
      return;
    }
    const envelope = await options.router.call(method, params, { transport: 'http' });
    sendJson(res, envelope.ok ? 200 : envelope.error.status, envelope);
  };

  const serveStatic = async (res: ServerResponse, pathname: string): Promise<void> => {
    let rel: string;
    try {
      rel = decodeURIComponent(pathname);
    } catch {
      sendPage(res, 400, page('Bad request', 'The address is malformed.'));
      return;
    }
    if (rel.includes('\0')) {
      sendPage(res, 400, page('Bad request', 'The address is malformed.'));
      return;
    }
    if (rel === '/' || rel === '') rel = '/index.html';
    const file = resolve(join(staticRoot, rel));
    if (file !== staticRoot && !file.startsWith(staticRoot + sep)) {
      sendPage(res, 404, page('Not found', 'There is nothing at this address.'));
      return;
    }
    let info;
    try {
      info = await stat(file);
    } catch {
      info = undefined;
    }
    if (!info?.isFile()) {
      if (rel === '/index.html') sendPage(res, 200, NOT_BUILT);
      else sendPage(res, 404, page('Not found', 'There is nothing at this address.'));
      return;
    }
    const type = mediaTypeOf(file);
    const headers: Record<string, string> = {
      ...SECURITY_HEADERS,
      'Content-Type': type,
      'Content-Length': String(info.size),
      'Cache-Control': rel === '/index.html' ? 'no-cache' : 'private, max-age=3600',
    };
    if (type.startsWith('text/html')) headers['Content-Security-Policy'] = csp;
    res.writeHead(200, headers);
    createReadStream(file).on('error', () => res.destroy()).pipe(res);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!checkHost(req)) {
      send(res, 403, 'text/plain; charset=utf-8', 'Forbidden: this server answers only to its own address (Host header).\n');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://host.invalid');
    const isApi = url.pathname === '/api' || url.pathname.startsWith('/api/');
    // The token link may be opened from anywhere (a terminal, a chat): it authenticates by itself.
    const exchange = url.searchParams.has('token') && req.method === 'GET' && !isApi;
    if (!exchange && !checkOrigin(req, false)) {
      if (isApi) sendError(res, errorData('forbidden', 403, 'cross-origin requests are refused'));
      else send(res, 403, 'text/plain; charset=utf-8', 'Forbidden: cross-origin request.\n');
      return;
    }
    if (!exchange && req.headers['sec-fetch-site'] === 'cross-site') {
      if (isApi) sendError(res, errorData('forbidden', 403, 'cross-site requests are refused'));
      else send(res, 403, 'text/plain; charset=utf-8', 'Forbidden: cross-site request.\n');
      return;
    }
    if (exchange) {
      if (!sameSecret(url.searchParams.get('token') ?? '', token)) {
        sendPage(res, 401, page('Link out of date', 'This link does not carry the current access token. Open the address <code>skillbench serve</code> printed when it started.'));
        return;
      }
      const session = randomBytes(32).toString('base64url');
      sessions.add(session);
      while (sessions.size > MAX_SESSIONS) sessions.delete(sessions.values().next().value!);
      url.searchParams.delete('token');
      const location = `${url.pathname}${url.search}`;
      res.writeHead(303, {
        ...SECURITY_HEADERS,
        Location: location,
        'Set-Cookie': `${cookieName}=${session}; HttpOnly; SameSite=Strict; Path=/`,
        'Cache-Control': 'no-store',
        'Content-Length': '0',
      });
      res.end();
      return;
    }
    if (!authenticated(req)) {
      if (isApi) sendError(res, errorData('unauthorized', 401, 'missing or wrong access token: open the address skillbench serve printed'));
      else sendPage(res, 401, page('Access token needed', 'Open the address <code>skillbench serve</code> printed when it started: it carries the access token for this session.'));
      return;
    }
    if (isApi) {
      const method = url.pathname.slice('/api/'.length);
      if (method === 'ws' || method === '' || url.pathname === '/api') {
        sendError(res, errorData('invalid_request', 400, 'POST /api/<method> with a JSON body, or open a WebSocket at /api/ws'));
        return;
      }
      await serveApi(req, res, method);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'text/plain; charset=utf-8', 'Method not allowed.\n', { Allow: 'GET, HEAD' });
      return;
    }
    await serveStatic(res, url.pathname);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log(`skillbench serve: internal error: ${error instanceof Error ? error.name : 'error'}`);
      if (!res.headersSent) sendError(res, errorData('internal', 500, 'internal error'));
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: maxBytes });
  server.on('upgrade', (req, socket, head) => {
    const refuse = (status: number, reason: string) => {
      socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    const url = new URL(req.url ?? '/', 'http://host.invalid');
    if (url.pathname !== '/api/ws') return refuse(404, 'Not Found');
    if (!checkHost(req)) return refuse(403, 'Forbidden');
    // A browser always sends Origin on a WebSocket: a foreign one is a cross-site page.
    if (!checkOrigin(req, false)) return refuse(403, 'Forbidden');
    if (!authenticated(req)) return refuse(401, 'Unauthorized');
    wss.handleUpgrade(req, socket, head, (ws) => serveSocket(ws));
  });

  const serveSocket = (ws: WebSocket): void => {
    const wanted = new Set<WorkbenchEvent>();
    let alive = true;
    const unsubscribe = options.router.subscribe((event, payload) => {
      if (wanted.has(event) && ws.readyState === ws.OPEN) ws.send(JSON.stringify({ event, payload }));
    });
    const ping = setInterval(() => {
      if (!alive) {
        ws.terminate();
        return;
      }
      alive = false;
      ws.ping();
    }, 30_000);
    ping.unref();
    ws.on('pong', () => (alive = true));
    ws.on('close', () => {
      clearInterval(ping);
      unsubscribe();
    });
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        ws.send(JSON.stringify({ id: null, ok: false, error: errorData('unsupported_media_type', 415, 'send JSON text messages') }));
        return;
      }
      let message: { id?: unknown; method?: unknown; params?: unknown; type?: unknown; events?: unknown };
      try {
        message = JSON.parse(data.toString());
      } catch {
        ws.send(JSON.stringify({ id: null, ok: false, error: errorData('invalid_request', 400, 'a message is one JSON object') }));
        return;
      }
      if (message === null || typeof message !== 'object') {
        ws.send(JSON.stringify({ id: null, ok: false, error: errorData('invalid_request', 400, 'a message is one JSON object') }));
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
      void options.router.call(message.method, message.params, { transport: 'ws' }).then((envelope) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ id, ...envelope }));
      });
    });
  };

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, bind.replace(/^\[(.*)\]$/, '$1'), () => {
      server.off('error', reject);
      resolveListen();
    });
  });
  const port = (server.address() as AddressInfo).port;
  // A wildcard or LAN bind still answers on loopback; a loopback bind answers only there.
  const names = isLoopbackHost(bind) ? loopbackHostNames(bind) : [bind.replace(/^\[(.*)\]$/, '$1'), ...loopbackHostNames('127.0.0.1')];
  allowedHosts = new Set(names.map((n) => hostPort(n, port).toLowerCase()));
  allowedOrigins = new Set(names.map((n) => `http://${hostPort(n, port)}`.toLowerCase()));
  cookieName = `skillbench_${port}`;
  const shownHost = isLoopbackHost(bind) || bind === '0.0.0.0' || bind === '::' ? '127.0.0.1' : bind.replace(/^\[(.*)\]$/, '$1');
  const origin = `http://${hostPort(shownHost, port)}`;
  csp = workbenchCsp([...allowedOrigins].map((o) => o.replace(/^http:/, 'ws:')));

  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/?token=${token}`,
    origin,
    port,
    cookieName,
    close() {
      closing ??= new Promise<void>((resolveClose) => {
        for (const client of wss.clients) client.close(1001, 'server shutting down');
        wss.close();
        server.close(() => resolveClose());
        server.closeIdleConnections();
        // Sockets that do not finish their close handshake promptly are cut.
        setTimeout(() => {
          for (const client of wss.clients) client.terminate();
          for (const s of sockets) s.destroy();
        }, 500).unref();
      });
      return closing;
    },
  };
}
