/**
 * The web host of `skillbench serve`: the built renderer and the WorkbenchApi
 * on one port, for a browser.
 *
 * - Calls: `POST /api/<method>` with a JSON body answers an envelope, or the
 *   same over the WebSocket at `/api/ws` (`{id, method, params}` → `{id, ok, …}`),
 *   which also carries the events a socket subscribed to (see `socket.ts` for
 *   its limits).
 * - Access (see `access.ts`): the address `serve` prints carries a one-time
 *   sign-in code; the page load spends it for a session (an HttpOnly,
 *   SameSite=Strict cookie) and is redirected to `/` of this origin without it.
 *   Scripts spend a code with `POST /auth/session` and send the session as
 *   `Authorization: Bearer` (or send the token `serve --token-env` names); a
 *   signed-in client mints further codes with `POST /auth/code` (another
 *   browser, a fresh test context).
 * - Every request and WebSocket upgrade must name this server in `Host` (DNS
 *   rebinding; see `hosts.ts`) and, when it carries an `Origin`, this server's
 *   origin; a cross-site fetch or WebSocket is refused. No CORS header is ever sent.
 * - Pages get a strict CSP and no-sniff, no-referrer, no-framing headers.
 * - Bodies and messages are read with a size limit; headers and whole requests
 *   with a time limit (slow clients are cut).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { join, resolve, sep } from 'node:path';
import { WebSocketServer } from 'ws';
import type { Envelope, WorkbenchErrorData } from '../../core/api/contract';
import { workbenchCsp } from '../../core/api/csp';
import type { Router } from '../../core/api/router';
import { ClientGone, hasBody, readBody, type BodySource } from '../../core/admin/body';
import { createAdminServer } from '../../core/admin/server';
import { mediaTypeOf } from '../../core/api/mediaTypes';
import { StoreError } from '../../core/store/errors';
import { AccessControl, type AccessOptions } from './access';
import { AcceptedHosts, bareHost, hostPort, isWildcard } from './hosts';
import { DEFAULT_SOCKET_LIMITS, serveSocket, type SocketLimits } from './socket';

/** Options of {@link startWebHost}. */
export interface WebHostOptions {
  router: Router;
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Port (default 0: a free one). */
  port?: number;
  /** The built renderer (`dist/renderer`). */
  staticDir: string;
  /** Largest request body or WebSocket message (default 32 MiB). */
  maxMessageBytes?: number;
  /** Flow limits of each WebSocket (see `socket.ts`). */
  socketLimits?: Partial<SocketLimits>;
  /** Session and sign-in code lifetimes (see `access.ts`). */
  access?: AccessOptions;
  /**
   * A fixed token scripts may send as `Authorization: Bearer` for the whole
   * launch (`serve --token-env`): chosen by whoever starts the server, never
   * printed and never in an address, so it cannot sign a browser in.
   */
  apiToken?: string;
  /** Where the host reports what an operator should know (never a code or a session). */
  log?: (line: string) => void;
}

/** A running web host. */
export interface WebHost {
  /** The address to open: the origin plus `/?token=<one-time sign-in code>`. */
  readonly url: string;
  /** `http://host:port` as the browser sees it. */
  readonly origin: string;
  readonly port: number;
  /** Name of the session cookie (per port: browsers share cookies across ports). */
  readonly cookieName: string;
  /** The origins of a network bind other than loopback (empty on loopback). */
  networkOrigins(): string[];
  /** A further one-time sign-in address, as `POST /auth/code` mints it. */
  signInUrl(): string;
  /** A session for an in-process caller (tests, benches), to send as `Authorization: Bearer`. */
  createSession(): string;
  /** Stops accepting, closes every socket. Idempotent. */
  close(): Promise<void>;
}

/** Longest time to receive one request's headers, and one whole request (slow clients are cut). */
const HEADERS_TIMEOUT_MS = 20_000;
const REQUEST_TIMEOUT_MS = 60_000;

/**
 * What a browser's `Sec-Fetch-Site` allows, when it sent one: API calls and
 * sockets come only from this origin's own page (`same-origin`); a page may
 * also be opened from elsewhere on this machine (`same-site`, another port) or
 * by the user (`none`), never by a foreign site.
 */
function fetchSiteAllowed(req: IncomingMessage, api: boolean): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site === undefined) return true;
  return api ? site === 'same-origin' || site === 'none' : site !== 'cross-site';
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
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

/** The look of the host's own pages (inline: the CSP allows inline styles, never scripts), in the workbench's light and dark colours. */
const PAGE_STYLE =
  'body{font:15px/1.55 system-ui,-apple-system,"Segoe UI",sans-serif;max-width:40rem;margin:14vh auto;padding:0 1.5rem;color:#1f2328;background:#fff}' +
  'h1{font-size:1.35rem;font-weight:600;margin:0 0 1rem}p{margin:0 0 .8rem}a{color:#0969da}' +
  'code{font:13px ui-monospace,SFMono-Regular,Menlo,monospace;background:#eff1f3;padding:.1em .35em;border-radius:4px}' +
  '@media (prefers-color-scheme:dark){body{color:#d4d4d4;background:#1e1e1e}a{color:#4daafc}code{background:#2d2d30}}';

/** A page of the host itself: a title and paragraphs of trusted HTML. */
function page(title: string, ...paragraphs: string[]): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${title} · Skillbench</title><style>${PAGE_STYLE}</style></head><body><h1>${title}</h1>${paragraphs.map((p) => `<p>${p}</p>`).join('')}</body></html>`;
}

const NOT_BUILT = page(
  'Skillbench',
  'The workbench UI is not built yet. Run <code>npm run build</code> (or <code>npm start</code>, which builds it), then reload this page.',
  'The API is available at <code>/api</code>.',
);

const SPENT_LINK = page(
  'Sign-in link already used',
  'This address has signed a browser in already, or it has expired. Each sign-in link works once, so a copy in a browser&rsquo;s history or on a shared screen opens nothing.',
  'In the browser where you signed in, open <a href="/">the workbench</a>: its session continues there.',
  'To sign in here, stop <code>skillbench serve</code>, start it again and open the address it prints.',
);

const SIGN_IN_NEEDED = page('Sign-in needed', 'Open the address <code>skillbench serve</code> printed when it started: it signs this browser in once.');
const MALFORMED = page('Bad request', 'The address is malformed.');
const NOT_FOUND = page('Not found', 'There is nothing at this address.');
const FULL = page('Too many sessions', 'This server holds as many sessions as it keeps; one ends after 12 hours unused. Try again later, or restart <code>skillbench serve</code>.');

/** Starts the web host; resolves once it listens. */
export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const bind = options.host ?? '127.0.0.1';
  const maxBytes = options.maxMessageBytes ?? 32 * 1024 * 1024;
  const limits: SocketLimits = { ...DEFAULT_SOCKET_LIMITS, ...options.socketLimits };
  const staticRoot = resolve(options.staticDir);
  const log = options.log ?? (() => undefined);
  const access = new AccessControl(options.access);
  const sockets = new Set<Socket>();
  const accepted = new AcceptedHosts(bind);
  let cookieName = 'skillbench_session';

  const checkHost = (req: IncomingMessage): boolean => accepted.host(req.headers.host);
  /** An Origin, when sent, must be this server: browsers send it on every cross-site fetch and every WebSocket. */
  const checkOrigin = (req: IncomingMessage): boolean => {
    const origin = req.headers.origin;
    return origin === undefined || accepted.origin(origin);
  };
  const apiToken = options.apiToken === undefined ? undefined : digest(options.apiToken);
  const sessionOf = (req: IncomingMessage): boolean => {
    const cookie = cookiesOf(req).get(cookieName);
    if (cookie !== undefined && access.check(cookie)) return true;
    const bearer = /^Bearer[ ]+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (bearer === null) return false;
    // Digests of equal length compared in constant time: the timing says nothing about the token.
    if (apiToken !== undefined && timingSafeEqual(digest(bearer[1]!), apiToken)) return true;
    return access.check(bearer[1]!);
  };
  /** The page's CSP names the WebSocket origin of the address it was loaded from; 'self' covers it where CSP cannot spell it (an IPv6 literal). */
  const cspFor = (req: IncomingMessage): string => {
    const host = (req.headers.host ?? '').toLowerCase();
    return workbenchCsp(host.startsWith('[') || host.length === 0 ? [] : [`ws://${host}`]);
  };

  const send = (source: BodySource, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void => {
    const headers: Record<string, string> = { ...SECURITY_HEADERS, 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(body)), 'Cache-Control': 'no-store', ...extra };
    // A body we did not read is not drained: the connection closes instead.
    if (hasBody(source.req) && !source.bodyConsumed) headers['Connection'] = 'close';
    source.res.writeHead(status, headers);
    source.res.end(body);
  };
  const sendJson = (source: BodySource, status: number, value: unknown): void => send(source, status, 'application/json; charset=utf-8', JSON.stringify(value));
  const sendError = (source: BodySource, error: WorkbenchErrorData): void => sendJson(source, error.status, { ok: false, error } satisfies Envelope);
  const sendPage = (source: BodySource, status: number, html: string): void => send(source, status, 'text/html; charset=utf-8', html, { 'Content-Security-Policy': cspFor(source.req) });
  const sendText = (source: BodySource, status: number, text: string, extra: Record<string, string> = {}): void => send(source, status, 'text/plain; charset=utf-8', `${text}\n`, extra);

  /** The JSON body of a POST, or undefined once a refusal was sent. */
  const readJson = async (source: BodySource): Promise<{ value: unknown } | undefined> => {
    const type = (source.req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') {
      sendError(source, errorData('unsupported_media_type', 415, 'send the parameters as Content-Type: application/json'));
      return undefined;
    }
    let body: Buffer;
    try {
      body = await readBody(source, maxBytes);
    } catch (error) {
      if (error instanceof ClientGone) return undefined;
      if (error instanceof StoreError && error.code === 'payload_too_large') {
        sendError(source, errorData('payload_too_large', 413, `the request body is larger than ${maxBytes} bytes`));
        return undefined;
      }
      throw error;
    }
    try {
      return { value: body.length === 0 ? {} : JSON.parse(body.toString('utf8')) };
    } catch (error) {
      sendError(source, errorData('invalid_request', 400, `the request body is not valid JSON: ${(error as Error).message}`));
      return undefined;
    }
  };

  const serveApi = async (source: BodySource, method: string): Promise<void> => {
    if (source.req.method !== 'POST') {
      sendError(source, errorData('invalid_request', 405, 'API methods are called with POST and a JSON body'));
      return;
    }
    const params = await readJson(source);
    if (!params) return;
    const envelope = await options.router.call(method, params.value, { transport: 'http' });
    sendJson(source, envelope.ok ? 200 : envelope.error.status, envelope);
  };

  /** `GET /…?token=<code>`: the code becomes a session cookie, and the browser goes to `/` of this origin. */
  const exchange = (source: BodySource, url: URL): void => {
    const code = url.searchParams.get('token') ?? '';
    url.searchParams.delete('token');
    // Always a path of this origin: never the request's own path, which may spell `//other.host`.
    const location = `/${url.search}`;
    const redirect = (extra: Record<string, string>) => send(source, 303, 'text/plain; charset=utf-8', '', { Location: location, ...extra });
    const outcome = access.redeem(code);
    if ('session' in outcome) {
      redirect({ 'Set-Cookie': `${cookieName}=${outcome.session}; HttpOnly; SameSite=Strict; Path=/` });
    } else if (sessionOf(source.req)) {
      // A reload of the spent address in the browser it signed in: the session continues.
      redirect({});
    } else if (outcome.refused === 'full') {
      sendPage(source, 503, FULL);
    } else {
      sendPage(source, 401, SPENT_LINK);
    }
  };

  /** `POST /auth/session` `{"token": "<code>"}`: a script spends a code for a session to send as a bearer token. */
  const scriptSession = async (source: BodySource): Promise<void> => {
    const body = await readJson(source);
    if (!body) return;
    const code = (body.value as { token?: unknown } | null)?.token;
    const outcome = typeof code === 'string' ? access.redeem(code) : ({ refused: 'unknown' } as const);
    if ('session' in outcome) {
      sendJson(source, 200, { ok: true, result: { session: outcome.session, idle_timeout_seconds: Math.round(access.sessionIdleMs / 1000) } });
    } else if (outcome.refused === 'full') {
      sendError(source, errorData('unavailable', 503, 'this server holds as many sessions as it keeps; try again once one has expired'));
    } else {
      sendError(source, errorData('unauthorized', 401, 'this sign-in code was already used, has expired or is not of this launch'));
    }
  };

  const mintUrl = (origin: string): { token: string; url: string } | undefined => {
    const code = access.mintCode();
    return code === undefined ? undefined : { token: code, url: `${origin}/?token=${code}` };
  };

  const serveStatic = async (source: BodySource, pathname: string): Promise<void> => {
    let rel: string;
    try {
      rel = decodeURIComponent(pathname);
    } catch {
      sendPage(source, 400, MALFORMED);
      return;
    }
    if (rel.includes('\0')) {
      sendPage(source, 400, MALFORMED);
      return;
    }
    if (rel === '/' || rel === '') rel = '/index.html';
    const file = resolve(join(staticRoot, rel));
    if (file !== staticRoot && !file.startsWith(staticRoot + sep)) {
      sendPage(source, 404, NOT_FOUND);
      return;
    }
    let info;
    try {
      info = await stat(file);
    } catch {
      info = undefined;
    }
    if (!info?.isFile()) {
      if (rel === '/index.html') sendPage(source, 200, NOT_BUILT);
      else sendPage(source, 404, NOT_FOUND);
      return;
    }
    const type = mediaTypeOf(file);
    const headers: Record<string, string> = {
      ...SECURITY_HEADERS,
      'Content-Type': type,
      'Content-Length': String(info.size),
      'Cache-Control': rel === '/index.html' ? 'no-cache' : 'private, max-age=3600',
    };
    if (type.startsWith('text/html')) headers['Content-Security-Policy'] = cspFor(source.req);
    source.res.writeHead(200, headers);
    createReadStream(file).on('error', () => source.res.destroy()).pipe(source.res);
  };

  const handle = async (source: BodySource): Promise<void> => {
    const { req } = source;
    const target = req.url ?? '';
    // Only a path: an absolute-form target (`GET http://other.host/`) names another server.
    if (!target.startsWith('/')) {
      sendText(source, 400, 'Bad request: the request target must be a path.');
      return;
    }
    if (!checkHost(req)) {
      sendText(source, 403, 'Forbidden: this server answers only to its own address (Host header).');
      return;
    }
    const url = new URL(`http://host.invalid${target}`);
    const isApi = url.pathname === '/api' || url.pathname.startsWith('/api/');
    const isAuth = url.pathname.startsWith('/auth/');
    // The sign-in link may be opened from anywhere (a terminal, a chat): it authenticates by itself.
    const signIn = url.searchParams.has('token') && req.method === 'GET' && !isApi && !isAuth;
    const json = isApi || isAuth;
    if (!signIn && !checkOrigin(req)) {
      if (json) sendError(source, errorData('forbidden', 403, 'cross-origin requests are refused'));
      else sendText(source, 403, 'Forbidden: cross-origin request.');
      return;
    }
    if (!signIn && !fetchSiteAllowed(req, json)) {
      if (json) sendError(source, errorData('forbidden', 403, 'cross-site requests are refused'));
      else sendText(source, 403, 'Forbidden: cross-site request.');
      return;
    }
    if (signIn) return exchange(source, url);
    if (url.pathname === '/auth/session' && req.method === 'POST') return scriptSession(source);
    if (!sessionOf(req)) {
      if (json) sendError(source, errorData('unauthorized', 401, 'no session: open the address skillbench serve printed, or send Authorization: Bearer <session>'));
      else sendPage(source, 401, SIGN_IN_NEEDED);
      return;
    }
    if (isAuth) {
      if (url.pathname !== '/auth/code' || req.method !== 'POST') {
        sendError(source, errorData('invalid_request', 404, 'POST /auth/session trades a sign-in code for a session; POST /auth/code mints a sign-in code'));
        return;
      }
      const minted = mintUrl(`http://${(req.headers.host ?? '').toLowerCase()}`);
      if (!minted) sendError(source, errorData('unavailable', 429, 'too many unused sign-in codes: use or let expire the ones minted'));
      else sendJson(source, 200, { ok: true, result: { ...minted, expires_in_seconds: 300 } });
      return;
    }
    if (isApi) {
      const method = url.pathname.slice('/api/'.length);
      if (method === 'ws' || method === '' || url.pathname === '/api') {
        sendError(source, errorData('invalid_request', 400, 'POST /api/<method> with a JSON body, or open a WebSocket at /api/ws'));
        return;
      }
      await serveApi(source, method);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendText(source, 405, 'Method not allowed.', { Allow: 'GET, HEAD' });
      return;
    }
    await serveStatic(source, url.pathname);
  };

  const server: Server = createAdminServer(
    (req, res) => {
      const source: BodySource = { req, res, bodyConsumed: false };
      handle(source).catch((error: unknown) => {
        log(`skillbench serve: internal error: ${error instanceof Error ? error.name : 'error'}`);
        if (!res.headersSent) sendError(source, errorData('internal', 500, 'internal error'));
        else res.destroy();
      });
    },
    { headersTimeoutMs: HEADERS_TIMEOUT_MS, requestTimeoutMs: REQUEST_TIMEOUT_MS },
  );
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: maxBytes });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node hands the raw socket over without its error listener: a reset here must not end the process.
    socket.on('error', () => socket.destroy());
    const refuse = (status: number, reason: string) => {
      socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    const target = req.url ?? '';
    if (!target.startsWith('/') || new URL(`http://host.invalid${target}`).pathname !== '/api/ws') return refuse(404, 'Not Found');
    if (!checkHost(req)) return refuse(403, 'Forbidden');
    // A browser always sends Origin on a WebSocket: a foreign one is a cross-site page.
    if (!checkOrigin(req) || !fetchSiteAllowed(req, true)) return refuse(403, 'Forbidden');
    if (!sessionOf(req)) return refuse(401, 'Unauthorized');
    wss.handleUpgrade(req, socket, head, (ws) => serveSocket(ws, { router: options.router, limits, log }));
  });

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, bareHost(bind), () => {
      server.off('error', reject);
      resolveListen();
    });
  });
  const port = (server.address() as AddressInfo).port;
  accepted.listening(port);
  cookieName = `skillbench_${port}`;
  const shownHost = isWildcard(bind) ? '127.0.0.1' : bareHost(bind);
  const origin = `http://${hostPort(shownHost, port)}`;
  const launchCode = access.mintCode(true)!;

  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/?token=${launchCode}`,
    origin,
    port,
    cookieName,
    networkOrigins: () => accepted.networkOrigins(),
    signInUrl() {
      const minted = mintUrl(origin);
      if (!minted) throw new Error('too many unused sign-in codes');
      return minted.url;
    },
    createSession() {
      const session = access.createSession();
      if (session === undefined) throw new Error('too many sessions');
      return session;
    },
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
