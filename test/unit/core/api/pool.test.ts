/**
 * The session's connection pool over real saved profiles and a real local
 * registry: calls that open the same connection at once (the sidebar's check
 * and a view's first read, say) share one store instead of one of them failing
 * as "closed while it was opening".
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionPool } from '../../../../core/api/pool';
import { ConnectionManager } from '../../../../core/connections/manager';
import { openLocalStore } from '../../../../core/store/local';

describe('ConnectionPool', () => {
  let dir: string;
  let manager: ConnectionManager;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbench-pool-'));
    await (await openLocalStore(join(dir, 'registry'))).close();
    manager = new ConnectionManager({ dataDir: join(dir, 'data'), env: {} });
    await manager.save({ profile: { name: 'prod', target: { kind: 'local', dir: join(dir, 'registry') } } });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('opens a connection once when several calls open it at the same time', async () => {
    const pool = new ConnectionPool(manager, { idleMs: 0 });
    try {
      const opened = await Promise.allSettled([pool.open('prod'), pool.open('prod'), pool.use('prod', async (store) => store), pool.open('prod', { create: true })]);
      expect(opened.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
      const stores = new Set(opened.map((o) => (o.status === 'fulfilled' ? o.value : undefined)));
      expect(stores.size).toBe(1);
      expect(pool.state('prod').status).toBe('open');
    } finally {
      await pool.closeAll();
    }
  });

  it('opens it again after a close', async () => {
    const pool = new ConnectionPool(manager, { idleMs: 0 });
    try {
      const first = await pool.open('prod');
      expect(await pool.close('prod')).toBe(true);
      const [a, b] = await Promise.all([pool.open('prod'), pool.open('prod')]);
      expect(a).toBe(b);
      expect(a).not.toBe(first);
    } finally {
      await pool.closeAll();
    }
  });
});
