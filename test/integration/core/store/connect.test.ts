import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../../../core/store/connect';
import { StoreError } from '../../../../core/store/errors';

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('openStore network schemes', () => {
  it('loads the redis adapter and maps a refused connection to unavailable, without the password', async () => {
    const port = await closedPort();
    const error = await openStore(`redis://user:hunter2@127.0.0.1:${port}`, { timeoutMs: 2000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe('unavailable');
    expect((error as StoreError).message).not.toContain('hunter2');
  });

  it('loads the http adapter and reports a refused host as unavailable on first use', async () => {
    const port = await closedPort();
    const outcome = await openStore(`http://127.0.0.1:${port}/api/v1/skills`, { timeoutMs: 2000 })
      .then((store) => store.listMetadata().finally(() => store.close()))
      .catch((e: unknown) => e);
    expect(outcome).toBeInstanceOf(StoreError);
    expect((outcome as StoreError).code).toBe('unavailable');
  });
});
