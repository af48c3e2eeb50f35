/**
 * `skillbench registry serve` against hostile or failing conditions, through the
 * real binary and raw sockets: the Host check refuses absolute-form targets and
 * malformed Host headers, and a 504 says nothing about the server's internals
 * (the Redis URL stays in the server's log, password-free).
 */
import { connect } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCli } from '../../helpers/cli';
import { startRedis, type RedisSetup } from '../../helpers/redis';

const REDIS_PASSWORD = 'marker-redis-pw-71c2e9';

let work: string;
const stops: Array<() => void> = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-serve-hard-'));
});
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

interface Served {
  port: number;
  stderr: () => string;
}

async function serve(store: string): Promise<Served> {
  const { child, done } = startCli(['registry', 'serve', '--store', store, '--port', '0'], { cwd: work, env: { SKILLBENCH_HOME: join(work, 'home') } });
  stops.push(() => child.kill('SIGKILL'));
  let out = '';
  let err = '';
  child.stderr!.on('data', (c) => (err += String(c)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (c) => {
      out += String(c);
      if (out.includes('\n')) resolve(out.split('\n')[0]!.trim());
    });
    void done.then((r) => reject(new Error(`serve exited ${r.code}: ${r.stderr}`)));
  });
  return { port: Number(new URL(url).port), stderr: () => err };
}

/** Sends `head` as is and resolves with the whole answer once the server closes or answers. */
function raw(port: number, head: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (c) => (text += String(c)));
    socket.on('error', reject);
    socket.on('close', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text }));
    socket.write(`${head}\r\nConnection: close\r\n\r\n`);
  });
}

describe('registry serve hardening', () => {
  it('refuses an absolute-form target naming another host, and a Host header with text after [::1]', async () => {
    const served = await serve(`local:${join(work, 'reg-host')}`);
    const { port } = served;
    const fine = await raw(port, `GET /api/v1/skills HTTP/1.1\r\nHost: 127.0.0.1:${port}`);
    expect(fine.status).toBe(200);
    const fineAbsolute = await raw(port, `GET http://127.0.0.1:${port}/api/v1/skills HTTP/1.1\r\nHost: 127.0.0.1:${port}`);
    expect(fineAbsolute.status).toBe(200);

    const absolute = await raw(port, `GET http://evil.example/api/v1/skills HTTP/1.1\r\nHost: 127.0.0.1:${port}`);
    expect(absolute.status).toBe(403);
    expect(absolute.text).toContain('host_not_allowed');
    const withUserinfo = await raw(port, `GET http://127.0.0.1@evil.example/api/v1/skills HTTP/1.1\r\nHost: 127.0.0.1:${port}`);
    expect(withUserinfo.status).not.toBe(200);

    for (const host of ['[::1]evil.example', `[::1]evil.example:${port}`, `localhost:${port}evil`, `127.0.0.1:${port}.evil.example`]) {
      const answer = await raw(port, `GET /api/v1/skills HTTP/1.1\r\nHost: ${host}`);
      expect([400, 403], `${host}: ${answer.text}`).toContain(answer.status);
    }
  });

  describe('with a Redis store that stops answering', () => {
    let redis: RedisSetup;
    beforeAll(async () => {
      redis = await startRedis({ config: [`requirepass ${REDIS_PASSWORD}`] });
    });
    afterAll(async () => {
      await redis?.stop();
    });

    it('answers 504 with a generic body; the Redis URL goes to the log only, without its password', async () => {
      const address = new URL(redis.url);
      const store = `redis://:${REDIS_PASSWORD}@${address.host}?command_timeout=300`;
      const served = await serve(store);
      expect((await raw(served.port, `GET /api/v1/skills HTTP/1.1\r\nHost: 127.0.0.1:${served.port}`)).status).toBe(200);

      const admin = new Redis(`redis://:${REDIS_PASSWORD}@${address.host}`);
      try {
        // Every other client's commands wait until the pause ends.
        await admin.call('CLIENT', 'PAUSE', '4000', 'ALL');
        const answer = await raw(served.port, `GET /api/v1/skills HTTP/1.1\r\nHost: 127.0.0.1:${served.port}`);
        expect(answer.status, answer.text).toBe(504);
        const body = answer.text.slice(answer.text.indexOf('\r\n\r\n') + 4);
        expect(JSON.parse(body)).toEqual({ error: { code: 'timeout', message: expect.stringContaining('did not complete in time') } });
        for (const secret of ['redis', address.host, address.port, REDIS_PASSWORD, String(process.pid)]) expect(body).not.toContain(secret);
      } finally {
        await admin.call('CLIENT', 'UNPAUSE').catch(() => undefined);
        admin.disconnect();
      }
      await expect.poll(() => served.stderr(), { timeout: 10_000 }).toMatch(new RegExp(`diagnostic store_timeout: .*redis://:\\*\\*\\*@${address.host.replace(/\./g, '\\.')}`));
      expect(served.stderr()).not.toContain(REDIS_PASSWORD);
    });
  });
});
