/**
 * Hosting helpers around the admin handler: a `node:http` server wired for
 * `Expect: 100-continue`, constant-time bearer-token authentication, loopback
 * detection, and a graceful stop.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { isIP } from 'node:net';
import { markAwaitingContinue } from './body';
import type { AdminHandler } from './handler';

/** Options of {@link createAdminServer}. */
export interface AdminServerOptions {
  /** Longest time to receive one whole request, headers and body (default 60 s). */
  requestTimeoutMs?: number;
  /** Longest time to receive the request headers (default 20 s). */
  headersTimeoutMs?: number;
}

/**
 * A `node:http` server for an admin handler. A request announcing its body with
 * `Expect: 100-continue` is handed to the handler before `100 Continue` is sent,
 * so an oversized or unauthorized upload is refused before its body travels.
 */
export function createAdminServer(handler: AdminHandler, options: AdminServerOptions = {}): Server {
  const server = createServer({
    requestTimeout: options.requestTimeoutMs ?? 60_000,
    headersTimeout: options.headersTimeoutMs ?? 20_000,
  });
  server.on('request', handler);
  server.on('checkContinue', (req: IncomingMessage, res) => {
    markAwaitingContinue(req);
    handler(req, res);
  });
  return server;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * An authenticator accepting exactly `Authorization: Bearer <token>`. Both sides
 * are hashed first so the comparison is constant-time whatever their lengths.
 */
export function bearerTokenAuthenticator(token: string): (req: IncomingMessage) => boolean {
  if (token.length === 0) throw new Error('the bearer token must not be empty');
  const expected = digest(token);
  return (req) => {
    const value = req.headers.authorization;
    if (typeof value !== 'string') return false;
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(value);
    const presented = digest(match?.[1] ?? '');
    // Always compare, even for a malformed header, so timing says nothing about the format.
    return timingSafeEqual(presented, expected) && match !== null;
  };
}

/** True for `localhost`, 127.0.0.0/8 and ::1 (also written as `[::1]`). */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || h === '0:0:0:0:0:0:0:1' || /^::ffff:127\./.test(h);
  return false;
}

/** Host names a loopback listener answers to (DNS-rebinding guard): the usual loopback names plus `host`. */
export function loopbackHostNames(host: string): string[] {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return [...new Set(['localhost', '127.0.0.1', '::1', h])];
}

/** The URL clients use for a listener: IPv6 addresses in brackets, the wildcard addresses replaced by loopback. */
export function listenerUrl(host: string, port: number, basePath: string): string {
  let h = host.trim().replace(/^\[(.*)\]$/, '$1');
  if (h === '0.0.0.0') h = '127.0.0.1';
  if (h === '::') h = '::1';
  const shown = isIP(h) === 6 ? `[${h}]` : h;
  return `http://${shown}:${port}${basePath}`;
}

/**
 * Stops accepting connections, lets in-flight requests finish for up to `graceMs`,
 * then cuts what is left. Resolves once the server is closed.
 */
export function stopServer(server: Server, graceMs = 5_000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
