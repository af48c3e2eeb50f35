/**
 * A loopback TCP proxy for tests: forwards to one target, counts request/response
 * round trips on the wire, and can cut every connection to simulate a network drop.
 *
 * A round trip is counted each time a client sends data after it last received
 * some (or for the first time): a request/response client that pipelines N
 * commands in one write therefore counts 1, however large N is.
 */
import { createConnection, createServer, type Socket } from 'node:net';

/** A running proxy. */
export interface TcpProxy {
  host: string;
  port: number;
  /** Round trips since the last {@link TcpProxy.reset}, over all connections. */
  roundTrips(): number;
  reset(): void;
  /** Destroys every open connection (client and server side); new connections are still accepted. */
  dropConnections(): void;
  /** While on, client data is swallowed (never forwarded): requests hang as on a dead link. */
  blackhole(on: boolean): void;
  /** Stops accepting and drops everything. */
  close(): Promise<void>;
}

/** Starts a proxy on a free loopback port in front of `targetHost:targetPort`. */
export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let trips = 0;
  let swallowing = false;
  const server = createServer((client) => {
    const upstream = createConnection({ host: targetHost, port: targetPort });
    sockets.add(client);
    sockets.add(upstream);
    let awaitingRequest = true;
    client.on('data', (chunk) => {
      if (awaitingRequest) {
        trips += 1;
        awaitingRequest = false;
      }
      if (!swallowing) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      awaitingRequest = true;
      client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const drop = () => {
    for (const s of sockets) s.destroy();
    sockets.clear();
  };
  return {
    host: '127.0.0.1',
    port,
    roundTrips: () => trips,
    reset: () => {
      trips = 0;
    },
    dropConnections: drop,
    blackhole: (on) => {
      swallowing = on;
    },
    close: () =>
      new Promise<void>((resolve) => {
        drop();
        server.close(() => resolve());
      }),
  };
}
