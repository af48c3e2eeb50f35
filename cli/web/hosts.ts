/**
 * Which names the web host answers to (the `Host` and `Origin` it accepts,
 * against DNS rebinding), for the address it is bound to:
 *
 * - a loopback address: the loopback names only (`localhost`, `127.0.0.1`, `::1`);
 * - a wildcard (`0.0.0.0`, `::`): those plus every address of this machine's
 *   interfaces (IPv4 only for `0.0.0.0`) and its host name, so a browser on the
 *   network that opens `http://<this machine's address>:PORT/` is served; the
 *   interfaces are read again when an unknown name arrives (a DHCP lease changed);
 * - any other address: that address (and the loopback names).
 *
 * A name an attacker's DNS points here (`rebind.example`) is never one of them.
 */
import { hostname, networkInterfaces } from 'node:os';
import { isIP } from 'node:net';
import { isLoopbackHost, loopbackHostNames } from '../../core/admin/server';

/** `[::1]` → `::1`. */
export function bareHost(host: string): string {
  return host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
}

/** `host:port` as it appears in a Host header (IPv6 in brackets). */
export function hostPort(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

/** True for the wildcard addresses that listen on every interface. */
export function isWildcard(bind: string): boolean {
  const h = bareHost(bind);
  return h === '0.0.0.0' || h === '::' || h === '0:0:0:0:0:0:0:0';
}

/** The addresses of this machine's interfaces (without IPv6 scope ids); IPv4 only unless `v6`. */
export function interfaceAddresses(v6: boolean): string[] {
  const out: string[] = [];
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) {
      if (entry.family === 'IPv4' || (v6 && entry.family === 'IPv6')) out.push(entry.address.toLowerCase().replace(/%.*$/, ''));
    }
  }
  return out;
}

/** The host names (without port) a listener bound to `bind` answers to. */
export function acceptedNames(bind: string): string[] {
  const h = bareHost(bind);
  if (isLoopbackHost(h)) return loopbackHostNames(h);
  if (!isWildcard(h)) return [...new Set([h, ...loopbackHostNames('127.0.0.1')])];
  const names = [...loopbackHostNames('127.0.0.1'), ...interfaceAddresses(h !== '0.0.0.0')];
  const own = hostname().trim().toLowerCase();
  if (own.length > 0) names.push(own);
  return [...new Set(names)];
}

/** The accepted `Host` values and origins of a listener, re-read for a wildcard bind when a name is missing. */
export class AcceptedHosts {
  private hosts = new Set<string>();
  private origins = new Set<string>();
  private readAt = 0;
  private port: number | undefined;

  constructor(private readonly bind: string) {}

  /** Starts accepting the names of `bind` on `port` (nothing is accepted before: the port is not known). */
  listening(port: number): void {
    this.port = port;
    this.read();
  }

  /** Whether a `Host` header value names this server. */
  host(value: string | undefined): boolean {
    return this.has('hosts', (value ?? '').toLowerCase());
  }

  /** Whether an `Origin` header value is this server's. */
  origin(value: string): boolean {
    return this.has('origins', value.toLowerCase());
  }

  /** The origins other than loopback ones (what a warning about a network bind names). */
  networkOrigins(): string[] {
    return [...this.origins].filter((o) => !isLoopbackHost(new URL(o).hostname));
  }

  private has(kind: 'hosts' | 'origins', value: string): boolean {
    if (this[kind].has(value)) return true;
    // An address may have been added since: look again, at most once a second.
    if (this.port === undefined || !isWildcard(this.bind) || Date.now() - this.readAt < 1000) return false;
    this.read();
    return this[kind].has(value);
  }

  private read(): void {
    const port = this.port;
    if (port === undefined) return;
    const names = acceptedNames(this.bind);
    this.hosts = new Set(names.map((n) => hostPort(n, port)));
    this.origins = new Set(names.map((n) => `http://${hostPort(n, port)}`));
    this.readAt = Date.now();
  }
}
