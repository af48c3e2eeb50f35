/**
 * The real `skillbench serve` against hostile clients, the way an attacker on
 * this machine or behind a browser reaches it: stolen or made-up credentials,
 * forged Host, Origin and Sec-Fetch-Site headers, path traversal, CSRF content
 * types, a 64 MiB body, 200,000-level nesting, cross-site WebSocket upgrades,
 * malformed frames, 2,000 pipelined messages and hundreds of slowloris
 * sockets. Every probe is refused, an evaluation running meanwhile completes,
 * and the server answers at the end.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectorAnswer, startChatEndpoint, type ChatEndpoint } from '../../helpers/chatEndpoint';
import { rawHttp, sendHttp, tryUpgrade } from '../../helpers/httpProbe';
import { MALFORMED_FRAMES, openRawWebSocket, textFrame } from '../../helpers/rawWebSocket';
import { callApi, signIn, startServe, type Served } from '../../helpers/serve';

let dir: string;
let serve: Served;
let endpoint: ChatEndpoint;
let session: string;
let port: number;
let origin: string;

const send = (path: string, options: Parameters<typeof sendHttp>[2] = {}) => sendHttp(port, path, options);
const api = (method: string, headers: Record<string, string>, body = '{}') => send(`/api/${method}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body });
const bearer = () => ({ Authorization: `Bearer ${session}` });

const rawRequest = (text: string | Buffer) => rawHttp(port, text);
const upgrade = (headers: Record<string, string>, options: { origin?: string; path?: string } = {}) => tryUpgrade(port, headers, options);

/** The server still answers, and its process is alive. */
async function expectAlive(): Promise<void> {
  expect(serve.child.exitCode).toBeNull();
  const info = await callApi(origin, session, 'app.info');
  expect(info.ok).toBe(true);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbench-hostile-'));
  await writeFile(join(dir, 'outside.txt'), 'MARKER-outside-the-renderer');
  endpoint = await startChatEndpoint((prompt) => ({ text: selectorAnswer(prompt.kind, []), delayMs: 40 }));
  serve = await startServe([], { cwd: dir, env: { SKILLBENCH_HOME: join(dir, 'home') } });
  port = Number(serve.url.port);
  origin = serve.url.origin;
  session = await signIn(serve.url);
}, 120_000);

afterAll(async () => {
  serve?.child.kill('SIGTERM');
  const done = await serve?.done;
  await endpoint?.close();
  await rm(dir, { recursive: true, force: true });
  // Nothing a client sent ended the process: it stopped on the signal, cleanly.
  expect(done?.code).toBe(0);
  expect(done?.stderr).not.toMatch(/Unhandled|uncaught|internal error/i);
});

describe('skillbench serve against hostile clients', () => {
  it('closes every malformed WebSocket frame with its code while an evaluation runs, and the evaluation completes', async () => {
    const started = await callApi<{ run: string }>(origin, session, 'evals.start', {
      targets: [{ kind: 'published', skill: { namespace: 'travel', name: 'weather-assessment' } }],
      models: [`openai-compatible:${endpoint.baseUrl}#emulated`],
      connection: 'default',
      repeats: 3,
      concurrency: 1,
      cache: false,
    });
    expect(started.ok, JSON.stringify(started.error)).toBe(true);
    const run = started.result!.run;
    const status = async () => (await callApi<{ run: { status: string; progress: { done: number; total: number } } }>(origin, session, 'evals.get', { run })).result!.run;
    await expect.poll(async () => (await status()).progress.done, { timeout: 60_000 }).toBeGreaterThan(0);
    expect((await status()).status).toBe('running');

    for (const { name, bytes, code } of MALFORMED_FRAMES) {
      const raw = await openRawWebSocket(port, { ...bearer(), Origin: origin });
      raw.write(bytes(32 * 1024 * 1024));
      await raw.ended;
      expect(raw.closeCode, name).toBe(code);
    }
    await expectAlive();
    await expect.poll(async () => (await status()).status, { timeout: 120_000 }).toBe('complete');
    const done = await status();
    expect(done.progress.done).toBe(done.progress.total);
  }, 240_000);

  it('refuses made-up, spent and misplaced credentials', async () => {
    const spent = serve.url.searchParams.get('token')!;
    const probes: Record<string, string>[] = [
      {},
      { Authorization: 'Bearer wrong' },
      { Authorization: `Bearer ${spent}` },
      { Authorization: `Basic ${Buffer.from(`x:${session}`).toString('base64')}` },
      { Authorization: `Bearer ${session.slice(0, -1)}` },
      { Authorization: `Bearer ${session}${session}` },
      { Cookie: `skillbench_${port}=${spent}` },
      { Cookie: `skillbench_${port + 1}=${session}` },
    ];
    for (const headers of probes) expect((await api('app.info', headers)).status, JSON.stringify(headers)).toBe(401);
    expect((await send(`/api/app.info?token=${spent}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })).status).toBe(401);
    const page = await send(`/?token=${spent}`);
    expect(page.status).toBe(401);
    expect(page.headers['set-cookie']).toBeUndefined();
    await expectAlive();
  });

  it('refuses every Host that is not this server', async () => {
    const hosts = [
      'evil.example',
      `evil.example:${port}`,
      '127.0.0.1',
      `127.0.0.1:${port + 1}`,
      `127.0.0.1:${port}.evil.example`,
      `localhost.evil.example:${port}`,
      `127.0.0.1.nip.io:${port}`,
      `0.0.0.0:${port}`,
      `127.1:${port}`,
      `2130706433:${port}`,
      `0x7f000001:${port}`,
      `[::ffff:127.0.0.1]:${port}`,
      `127.0.0.1:0${port}`,
      `127.0.0.1:${port}/x`,
      `user@127.0.0.1:${port}`,
      `127.0.0.1:${port}:${port}`,
    ];
    for (const host of hosts) {
      const r = await api('app.info', { ...bearer(), Host: host });
      expect([400, 403], host).toContain(r.status);
    }
    // No Host at all (HTTP/1.0), and an absolute-form target naming another host.
    expect(await rawRequest(`POST /api/app.info HTTP/1.0\r\nAuthorization: Bearer ${session}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`)).toMatch(/^HTTP\/1\.1 (400|403) /);
    expect(await rawRequest(`POST http://evil.example/api/app.info HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${session}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`)).toMatch(/^HTTP\/1\.1 (400|403) /);
    await expectAlive();
  });

  it('refuses every foreign Origin and cross-site fetch', async () => {
    const origins = [
      'https://evil.example',
      'null',
      `http://127.0.0.1:${port + 1}`,
      `https://127.0.0.1:${port}`,
      `http://localhost.evil.example:${port}`,
      `http://127.0.0.1:${port}.evil.example`,
      'http://127.0.0.1',
      'file://',
      'chrome-extension://abcdefghijklmnop',
      `http://127.0.0.1:${port}@evil.example`,
    ];
    for (const o of origins) {
      const r = await api('app.info', { ...bearer(), Origin: o });
      expect(r.status, o).toBe(403);
      expect(r.headers['access-control-allow-origin']).toBeUndefined();
    }
    for (const site of ['cross-site', 'same-site']) {
      const r = await api('app.info', { ...bearer(), 'Sec-Fetch-Site': site });
      expect(r.status, site).toBe(403);
    }
    await expectAlive();
  });

  it('serves nothing outside the renderer folder and no path outside the workspace', async () => {
    const paths = [
      '/../outside.txt',
      '/%2e%2e/outside.txt',
      '/..%2foutside.txt',
      '/%2e%2e%2foutside.txt',
      '/..%5coutside.txt',
      '/assets/../../outside.txt',
      '/%00',
      '/.%00./outside.txt',
      '//etc/passwd',
      '/%2fetc%2fpasswd',
      '/..%252foutside.txt',
      '/....//outside.txt',
      '/%c0%ae%c0%ae/outside.txt',
      '/assets/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
    ];
    for (const path of paths) {
      const r = await send(path, { headers: bearer() });
      expect(r.body, path).not.toMatch(/MARKER-outside|root:x:0/);
      expect([200, 400, 404], path).toContain(r.status);
      if (r.status === 200) expect(r.headers['content-type'], path).toContain('text/html');
    }
    for (const path of ['../outside.txt', '/etc/passwd', 'skills/../../outside.txt', 'skills/packages/a\u0000b.json', 'C:/windows/win.ini']) {
      const r = await api('workspace.read', bearer(), JSON.stringify({ path }));
      expect(r.status, path).toBe(400);
      expect(r.body, path).not.toMatch(/MARKER-outside|root:x:0/);
      // An error names the path as the client gave it, never where this machine keeps it.
      expect(r.body, path).not.toContain(dir);
      expect(r.body, path).not.toContain(process.cwd());
    }
    await expectAlive();
  });

  it('refuses the content types a cross-site form can send', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '', 'application/json-patch+json']) {
      const headers: Record<string, string> = { ...bearer() };
      if (type) headers['Content-Type'] = type;
      const r = await send('/api/app.info', { method: 'POST', headers, body: '{}' });
      expect(r.status, type).toBe(415);
    }
    await expectAlive();
  });

  it('refuses a 64 MiB body, declared or streamed, without reading it', async () => {
    const declared = await rawRequest(`POST /api/validate.package HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${session}\r\nContent-Type: application/json\r\nContent-Length: ${64 * 1024 * 1024}\r\n\r\n{"source":`);
    expect(declared).toMatch(/^HTTP\/1\.1 413 /);
    const streamed = await new Promise<number>((resolve) => {
      const req = request({ host: '127.0.0.1', port, path: '/api/validate.package', method: 'POST', headers: { Host: `127.0.0.1:${port}`, ...bearer(), 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', () => resolve(-1));
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < 64) {
          sent += 1;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });
    // Refused with 413, or cut off mid-upload once past the limit.
    expect([413, -1]).toContain(streamed);
    await expectAlive();
  });

  it('refuses 200,000-level nesting in a body, a message and a package text', async () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    for (const [method, body] of [
      ['connections.import', `{"document":${deep},"on_conflict":"skip"}`],
      ['validate.package', JSON.stringify({ source: { kind: 'text', text: `{"description":${deep}}` } })],
      ['app.info', deep],
    ] as const) {
      const r = await api(method, bearer(), body);
      expect([400, 413, 422], method).toContain(r.status);
    }
    const raw = await openRawWebSocket(port, { ...bearer(), Origin: origin });
    raw.write(textFrame(`{"id":1,"method":"connections.import","params":{"document":${deep},"on_conflict":"skip"}}`));
    await expect.poll(() => raw.messages.length, { timeout: 30_000 }).toBe(1);
    expect(JSON.parse(raw.messages[0]!)).toMatchObject({ id: 1, ok: false });
    raw.socket.destroy();
    await expectAlive();
  });

  it('refuses cross-site, unauthenticated and misaddressed WebSocket upgrades', async () => {
    const attempts: [Record<string, string>, { origin?: string; path?: string }][] = [
      [bearer(), { origin: 'https://evil.example' }],
      [bearer(), { origin: 'null' }],
      [bearer(), { origin: `http://127.0.0.1:${port + 1}` }],
      [{ ...bearer(), 'Sec-Fetch-Site': 'cross-site' }, {}],
      [{}, { origin }],
      [{ ...bearer(), Host: `rebind.example:${port}` }, {}],
      [bearer(), { path: '/api/ws/../../x' }],
    ];
    for (const [headers, options] of attempts) expect(await upgrade(headers, options), JSON.stringify([headers, options])).not.toBe(101);
    await expectAlive();
  });

  it('answers 2,000 pipelined messages, valid and broken, on one socket', async () => {
    const raw = await openRawWebSocket(port, { ...bearer(), Origin: origin });
    const frames: Buffer[] = [];
    for (let i = 0; i < 2000; i++) {
      frames.push(textFrame(i % 4 === 3 ? 'not json' : JSON.stringify({ id: i, method: i % 4 === 2 ? 'no.such' : 'app.info', params: {} })));
    }
    raw.write(Buffer.concat(frames));
    await expect.poll(() => raw.messages.length, { timeout: 120_000 }).toBe(2000);
    const ok = raw.messages.filter((m) => (JSON.parse(m) as { ok: boolean }).ok).length;
    expect(ok).toBe(1000);
    raw.socket.destroy();
    await expectAlive();
  }, 180_000);

  it('keeps answering while hundreds of slowloris sockets trickle their headers', async () => {
    const sockets: Socket[] = [];
    try {
      for (let i = 0; i < 500; i++) {
        const s = connect(port, '127.0.0.1');
        s.on('error', () => undefined);
        s.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow-${i}: `);
        sockets.push(s);
      }
      for (const s of sockets) s.write('a');
      await expectAlive();
      const page = await send('/', { headers: bearer() });
      expect(page.status).toBe(200);
    } finally {
      for (const s of sockets) s.destroy();
    }
    await expectAlive();
  });
});
