/**
 * Telling "TLS asked of a plain Redis port" from "no answer": a TLS client's
 * ClientHello sent to a server that speaks plain RESP usually gets no reply at
 * all (Redis waits for the end of an inline command that never comes), so the
 * handshake would hang until the connect timeout and read as `timeout`. When a
 * `rediss://` handshake has not completed after a moment, one plain connection
 * asks `PING`; a RESP answer (`+PONG`, `-NOAUTH …`) proves the port speaks
 * Redis without TLS.
 *
 * Node-only: opens a socket.
 */
import { createConnection } from 'node:net';
import { StoreError } from './errors';
import type { RedisConnectionConfig } from './redisUrl';

/** How long a `rediss://` handshake may take before the port is asked in plain text. */
export const TLS_PROBE_DELAY_MS = 500;

/**
 * Whether `host:port` answers a plain `PING` with a RESP simple string or
 * error (`+…\r\n` or `-…\r\n`) within `timeoutMs`. False for anything else: a
 * TLS server (it answers with an alert or closes), silence, a refusal.
 */
export function answersPlainRedis(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let received = '';
    let settled = false;
    const socket = createConnection({ host, port });
    const finish = (answer: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (!/^[+-]/.test(received)) return finish(false);
      if (received.includes('\r\n')) finish(true);
      else if (received.length > 512) finish(false);
    });
    socket.on('error', () => finish(false));
    socket.on('close', () => finish(false));
  });
}

/**
 * For a TLS connection to a standalone or cluster node: rejects with a TLS
 * error when, {@link TLS_PROBE_DELAY_MS} into a connection that is still not
 * ready, its first host answers plain Redis. Never settles otherwise (race it
 * against the connection becoming ready).
 */
export function plainRedisOnTlsPort(config: RedisConnectionConfig, ready: Promise<unknown>, connectTimeoutMs: number): Promise<never> {
  const host = config.hosts[0];
  if (!config.tls || config.topology === 'sentinel' || !host) return new Promise<never>(() => undefined);
  return new Promise<never>((_, reject) => {
    let done = false;
    const timer = setTimeout(() => {
      void answersPlainRedis(host.host, host.port, Math.min(connectTimeoutMs, 2_000)).then((plain) => {
        if (!plain || done) return;
        reject(
          new StoreError(
            'unavailable',
            `the TLS connection to ${config.redacted} failed: the server answers plain Redis on this port, not TLS; use redis:// (turn TLS off in the connection), or the port where the server speaks TLS`,
            { details: { transport: 'tls' } },
          ),
        );
      });
    }, TLS_PROBE_DELAY_MS);
    const stop = () => {
      done = true;
      clearTimeout(timer);
    };
    ready.then(stop, stop);
  });
}
