/**
 * Real `redis-server` processes for integration tests and benches: standalone,
 * ACL-protected, Sentinel (one master + one sentinel) and Cluster topologies on
 * free loopback ports, each process in its own temp dir, stopped with SIGTERM.
 *
 * Written for the redis-server 7.0 on the test machines: it uses only 7.0
 * features (ACL `user` lines, `cluster-port`, CLUSTER ADDSLOTSRANGE).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

const HOST = '127.0.0.1';
const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;

/** One running server process. */
export interface RedisProcess {
  host: string;
  port: number;
  /** The process's own temp dir (its cwd). */
  dir: string;
  /** Stops the process (SIGTERM, then SIGKILL after a grace period) and removes its dir. Idempotent. */
  stop(): Promise<void>;
}

/** A started topology: its processes and one call that stops them all. */
export interface RedisSetup {
  /** Connection string for the store adapter (`redis://`, `redis+sentinel://`, `redis+cluster://`). */
  url: string;
  processes: RedisProcess[];
  stop(): Promise<void>;
}

/** Options of {@link startRedis}. */
export interface StartRedisOptions {
  /** Extra redis.conf lines (e.g. `user alice on >pw ~* &* +@all`). */
  config?: string[];
}

const running = new Set<ChildProcess>();
// Safety net for a crashed worker: never leave servers behind a test run.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

let checkedVersion: string | undefined;

/** The installed `redis-server --version` (e.g. `7.0.15`); throws a clear error when missing. */
export function redisServerVersion(): string {
  if (checkedVersion) return checkedVersion;
  const out = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  const match = /v=(\d+\.\d+\.\d+)/.exec(out.stdout ?? '');
  if (out.status !== 0 || !match?.[1]) {
    throw new Error('redis-server is not on PATH; install it (Debian: apt-get install redis-server).');
  }
  const major = Number(match[1].split('.')[0]);
  if (major < 7) throw new Error(`redis-server ${match[1]} is too old: the harness needs 7.0 or newer.`);
  checkedVersion = match[1];
  return checkedVersion;
}

/** A loopback port that was free a moment ago (bind port 0, read it, close). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Sends one inline PING; any RESP reply (+PONG, -NOAUTH) proves the server listens. */
function pingOnce(port: number, tls: boolean): Promise<boolean> {
  return new Promise((resolve) => {
    // The probe only checks liveness; the certificate is checked by the tests themselves.
    const socket = tls
      ? tlsConnect({ host: HOST, port, rejectUnauthorized: false })
      : createConnection({ host: HOST, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once(tls ? 'secureConnect' : 'connect', () => socket.write('PING\r\n'));
    socket.once('data', (chunk) => {
      const text = chunk.toString('utf8');
      done(text.startsWith('+') || (text.startsWith('-') && !text.startsWith('-LOADING')));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

class StartFailure extends Error {
  constructor(
    message: string,
    readonly portTaken: boolean,
  ) {
    super(message);
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    running.delete(child);
    return;
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
  running.delete(child);
}

/**
 * Spawns `redis-server <conf> [extra args]` with a config built by `configFor(port)`
 * in a fresh temp dir and waits until it answers PING. A port grabbed by someone
 * else between probing and binding is retried with a new port.
 */
async function spawnServer(
  configFor: (port: number, dir: string) => Promise<string[]> | string[],
  extraArgs: string[] = [],
  tls = false,
): Promise<RedisProcess> {
  redisServerVersion();
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const dir = await mkdtemp(join(tmpdir(), 'skillbench-redis-'));
    const lines = [
      `port ${port}`,
      `bind ${HOST}`,
      'save ""',
      'appendonly no',
      `dir ${dir}`,
      'loglevel warning',
      ...(await configFor(port, dir)),
    ];
    const confPath = join(dir, 'redis.conf');
    await writeFile(confPath, `${lines.join('\n')}\n`, { mode: 0o600 });
    const child = spawn('redis-server', [confPath, ...extraArgs], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let output = '';
    child.stdout?.on('data', (c: Buffer) => (output = (output + c.toString('utf8')).slice(-4000)));
    child.stderr?.on('data', (c: Buffer) => (output = (output + c.toString('utf8')).slice(-4000)));
    const stop = async () => {
      await stopChild(child);
      await rm(dir, { recursive: true, force: true });
    };
    try {
      const deadline = Date.now() + START_TIMEOUT_MS;
      for (;;) {
        if (child.exitCode !== null || child.signalCode !== null) {
          throw new StartFailure(`redis-server exited during start: ${output.trim()}`, /already in use/i.test(output));
        }
        if (await pingOnce(port, tls)) break;
        if (Date.now() > deadline) throw new StartFailure(`redis-server did not answer PING on port ${port}: ${output.trim()}`, false);
        await sleep(25);
      }
      let stopped: Promise<void> | undefined;
      return { host: HOST, port, dir, stop: () => (stopped ??= stop()) };
    } catch (error) {
      await stop();
      lastError = error;
      if (!(error instanceof StartFailure) || !error.portTaken) throw error;
    }
  }
  throw lastError;
}

async function stopAll(processes: RedisProcess[]): Promise<void> {
  await Promise.all(processes.map((p) => p.stop()));
}

/** Starts one standalone server; `url` is `redis://127.0.0.1:<port>`. */
export async function startRedis(options: StartRedisOptions = {}): Promise<RedisSetup> {
  const server = await spawnServer(() => options.config ?? []);
  return { url: `redis://${HOST}:${server.port}`, processes: [server], stop: () => stopAll([server]) };
}

/**
 * Starts a server whose only usable account is the ACL user `user` with password
 * `pass` (the `default` user is disabled). `url` carries no credentials.
 */
export async function startRedisWithAcl(user: string, pass: string): Promise<RedisSetup> {
  if (!/^[A-Za-z0-9_-]+$/.test(user) || /\s/.test(pass)) {
    throw new Error('startRedisWithAcl: user must be a simple name and pass must not contain whitespace.');
  }
  return startRedis({ config: ['user default off', `user ${user} on >${pass} ~* &* +@all`] });
}

/**
 * A server that accepts only TLS, with a certificate for `localhost` and
 * 127.0.0.1 signed by a throwaway CA (made with the `openssl` command).
 * `url` is `rediss://127.0.0.1:<port>`; `caFile` is the CA's PEM file.
 */
export async function startRedisWithTls(): Promise<RedisSetup & { caFile: string }> {
  const certs = await mkdtemp(join(tmpdir(), 'skillbench-redis-tls-'));
  const openssl = (...args: string[]) => {
    const out = spawnSync('openssl', args, { cwd: certs, encoding: 'utf8' });
    if (out.status !== 0) throw new Error(`openssl ${args[0]} failed: ${out.stderr}`);
  };
  try {
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=skillbench-test-ca');
    openssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
    await writeFile(join(certs, 'san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
    openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '2', '-extfile', 'san.ext');
    const server = await spawnServer(
      (port) => [
        // The plain port is closed; the probed port speaks TLS only.
        'port 0',
        `tls-port ${port}`,
        `tls-cert-file ${join(certs, 'server.crt')}`,
        `tls-key-file ${join(certs, 'server.key')}`,
        `tls-ca-cert-file ${join(certs, 'ca.crt')}`,
        'tls-auth-clients no',
      ],
      [],
      true,
    );
    let stopped: Promise<void> | undefined;
    return {
      url: `rediss://${HOST}:${server.port}`,
      caFile: join(certs, 'ca.crt'),
      processes: [server],
      stop: () =>
        (stopped ??= (async () => {
          await server.stop();
          await rm(certs, { recursive: true, force: true });
        })()),
    };
  } catch (error) {
    await rm(certs, { recursive: true, force: true });
    throw error;
  }
}

/** Name of the master the generated sentinel monitors. */
export const SENTINEL_MASTER = 'skillbench-master';

/**
 * One master plus one `redis-server --sentinel` monitoring it with quorum 1.
 * Resolves once the sentinel reports the master's address. `url` is
 * `redis+sentinel://127.0.0.1:<sentinel port>/<master>`.
 */
export async function startSentinelSetup(): Promise<RedisSetup & { master: RedisProcess; sentinel: RedisProcess }> {
  const master = await spawnServer(() => []);
  let sentinel: RedisProcess;
  try {
    sentinel = await spawnServer(
      () => [
        `sentinel monitor ${SENTINEL_MASTER} ${HOST} ${master.port} 1`,
        `sentinel down-after-milliseconds ${SENTINEL_MASTER} 5000`,
        `sentinel failover-timeout ${SENTINEL_MASTER} 10000`,
      ],
      ['--sentinel'],
    );
  } catch (error) {
    await master.stop();
    throw error;
  }
  const processes = [master, sentinel];
  try {
    const client = new Redis({ host: HOST, port: sentinel.port, lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await client.connect();
      const deadline = Date.now() + START_TIMEOUT_MS;
      for (;;) {
        const addr = (await client.call('SENTINEL', 'get-master-addr-by-name', SENTINEL_MASTER)) as string[] | null;
        if (addr && addr[1] === String(master.port)) break;
        if (Date.now() > deadline) throw new Error('sentinel did not report its master in time');
        await sleep(50);
      }
    } finally {
      client.disconnect();
    }
  } catch (error) {
    await stopAll(processes);
    throw error;
  }
  return {
    url: `redis+sentinel://${HOST}:${sentinel.port}/${SENTINEL_MASTER}`,
    processes,
    master,
    sentinel,
    stop: () => stopAll(processes),
  };
}

const CLUSTER_SLOTS = 16384;

/**
 * `size` cluster-enabled masters (no replicas) on free ports, each with its own
 * free cluster-bus port, slots split evenly with ADDSLOTSRANGE, joined with
 * CLUSTER MEET; resolves once every node reports `cluster_state:ok`.
 * `url` is `redis+cluster://h:p1,h:p2,...`.
 */
export async function startCluster(size = 3): Promise<RedisSetup> {
  const processes: RedisProcess[] = [];
  const busPorts: number[] = [];
  const clients: Redis[] = [];
  try {
    for (let i = 0; i < size; i++) {
      // Picked per start attempt, so a taken bus port is retried like a taken client port.
      let busPort = 0;
      processes.push(
        await spawnServer(async () => {
          busPort = await freePort();
          return [
            'cluster-enabled yes',
            'cluster-config-file nodes.conf',
            'cluster-node-timeout 5000',
            `cluster-port ${busPort}`,
            // A node without slots must still answer while others join.
            'cluster-require-full-coverage no',
          ];
        }),
      );
      busPorts.push(busPort);
    }
    for (const p of processes) {
      const client = new Redis({ host: HOST, port: p.port, lazyConnect: true, maxRetriesPerRequest: 1 });
      await client.connect();
      clients.push(client);
    }
    const per = Math.ceil(CLUSTER_SLOTS / size);
    for (let i = 0; i < size; i++) {
      const from = i * per;
      const to = Math.min(CLUSTER_SLOTS - 1, (i + 1) * per - 1);
      await clients[i]!.call('CLUSTER', 'ADDSLOTSRANGE', String(from), String(to));
    }
    for (let i = 1; i < size; i++) {
      await clients[0]!.call('CLUSTER', 'MEET', HOST, String(processes[i]!.port), String(busPorts[i]!));
    }
    const deadline = Date.now() + 30_000;
    for (;;) {
      const infos = await Promise.all(clients.map((c) => c.call('CLUSTER', 'INFO') as Promise<string>));
      const known = await Promise.all(clients.map((c) => c.call('CLUSTER', 'NODES') as Promise<string>));
      const allOk = infos.every((info) => /cluster_state:ok/.test(info));
      const allKnown = known.every((nodes) => nodes.trim().split('\n').length === size);
      if (allOk && allKnown) break;
      if (Date.now() > deadline) throw new Error(`cluster did not reach cluster_state:ok: ${infos.join(' | ')}`);
      await sleep(100);
    }
  } catch (error) {
    await stopAll(processes);
    throw error;
  } finally {
    for (const c of clients) c.disconnect();
  }
  return {
    url: `redis+cluster://${processes.map((p) => `${HOST}:${p.port}`).join(',')}`,
    processes,
    stop: () => stopAll(processes),
  };
}
