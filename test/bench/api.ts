/**
 * Bench suite `api`: the WorkbenchApi's cost over its transports, each against
 * a direct baseline measured in the same run.
 *
 * - One call (`app.info`) over the web host's WebSocket (the browser
 *   workbench's transport: JSON both ways, a real loopback socket) against the
 *   same call on the router in process. Target: under 2 ms overhead at the median.
 * - The first page (100 rows) of a 10,000-skill catalog through the API, over
 *   the WebSocket and over the direct transport, against a direct read of the
 *   same catalog from the store (warm, as the service's store is).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startWebHost } from '../../cli/web/host';
import { createWorkbenchClient } from '../../core/api/client';
import { directTransport } from '../../core/api/direct';
import { Router } from '../../core/api/router';
import { createWorkbenchService } from '../../core/api/service';
import { openLocalStore } from '../../core/store/local';
import { socketTransport, type SocketLike } from '../../renderer/api/socket';
import { compare, type BenchRow } from './harness';
import { SKILLS, buildFixture } from './store';

const PAGE = 100;

/** Runs the suite and returns its rows. */
export async function bench(): Promise<BenchRow[]> {
  const root = await mkdtemp(join(tmpdir(), 'skillbench-bench-api-'));
  const rows: BenchRow[] = [];
  const service = createWorkbenchService({ host: 'browser', version: 'bench', env: { PATH: process.env['PATH'] }, dataDir: root });
  const router = new Router(service);
  const web = await startWebHost({ router, staticDir: join(root, 'no-renderer') });
  const token = web.createSession();
  const socket = socketTransport({
    origin: web.origin,
    headers: { Authorization: `Bearer ${token}` },
    connect: (url) => new WebSocket(url, { headers: { Authorization: `Bearer ${token}` }, origin: web.origin }) as unknown as SocketLike,
  });
  const overSocket = createWorkbenchClient(socket);
  const direct = createWorkbenchClient(directTransport(router));
  try {
    await new Promise<void>((resolve) => {
      if (socket.state === 'open') resolve();
      const off = socket.onState((s) => s === 'open' && (off(), resolve()));
    });

    // The fixture goes where the service's default connection keeps its registry.
    process.stderr.write(`bench: api: publishing ${SKILLS} skills for the fixture ...\n`);
    await buildFixture(join(root, 'registry'));

    const call = await compare(
      () => overSocket['app.info'](),
      async () => {
        const envelope = await router.call('app.info', {}, { transport: 'direct' });
        if (!envelope.ok) throw new Error(envelope.error.message);
      },
      { rounds: 21, batch: 50, warmup: 3 },
    );
    const overhead = call.subjectMs - call.baselineMs;
    rows.push({
      suite: 'api',
      name: 'app.info round trip over WebSocket',
      medianMs: call.subjectMs,
      baselineName: 'same call on the router, in process',
      baselineMs: call.baselineMs,
      ratio: call.subjectMs / call.baselineMs,
      target: '< 2 ms overhead',
      met: overhead < 2,
      note: `overhead ${overhead.toFixed(3)} ms at the median`,
    });

    const store = await openLocalStore(join(root, 'registry'));
    try {
      const read = async () => {
        const all = await store.listMetadata();
        if (all.length !== SKILLS) throw new Error(`listed ${all.length}`);
      };
      const page = (client: typeof direct) => async () => {
        const p = await client['catalog.page']({ connection: 'default', limit: PAGE });
        if (p.items.length !== PAGE || p.total !== SKILLS) throw new Error(`page of ${p.items.length} of ${p.total}`);
      };
      for (const [name, client] of [['over WebSocket', overSocket], ['direct transport', direct]] as const) {
        const r = await compare(page(client), read, { rounds: 15, warmup: 3 });
        rows.push({
          suite: 'api',
          name: `catalog.page ${PAGE} of ${SKILLS}, ${name}`,
          medianMs: r.subjectMs,
          baselineName: `store.listMetadata ${SKILLS} (warm, direct)`,
          baselineMs: r.baselineMs,
          ratio: r.subjectMs / r.baselineMs,
          target: 'ratio <= 2',
          met: r.subjectMs / r.baselineMs <= 2,
          note: 'each page a fresh scan: one catalog read, sorted by name, first page sent',
        });
      }
    } finally {
      await store.close();
    }
  } finally {
    overSocket.close();
    direct.close();
    await web.close();
    await service.close();
    await rm(root, { recursive: true, force: true });
  }
  return rows;
}
