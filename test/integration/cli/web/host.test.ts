/**
 * Security of the web host over real sockets: Host and Origin checks on every
 * request and WebSocket upgrade, one-time sign-in codes and the sessions they
 * buy, redirects that stay on this origin, bounded bodies, static files
 * confined to the renderer folder, the headers every page carries, malformed
 * WebSocket frames, and backpressure on a socket whose client stops reading.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { hostname, networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Router, type Handlers } from '../../../../core/api/router';
import { EventHub } from '../../../../core/api/events';
import { createWorkbenchService, type WorkbenchService } from '../../../../core/api/service';
import { startWebHost, type WebHost } from '../../../../cli/web/host';
import { rawHttp, sendHttp, tryUpgrade, type Reply } from '../../../helpers/httpProbe';
import { MALFORMED_FRAMES, frame, openRawWebSocket, textFrame } from '../../../helpers/rawWebSocket';

/** A raw HTTP request to `web`, so Host and Origin can be anything a hostile page or resolver would send. */
const send = (web: WebHost, path: string, options: Parameters<typeof sendHttp>[2] = {}): Promise<Reply> => sendHttp(web.port, path, options);
const upgrade = (web: WebHost, headers: Record<string, string>, origin?: string): Promise<number> => tryUpgrade(web.port, headers, origin === undefined ? {} : { origin });

const codeOf = (url: string) => new URL(url).searchParams.get('token')!;
const cookieOf = (reply: Reply) => String(reply.headers['set-cookie']).split(';')[0]!;

describe('web host security', () => {
  let dir: string;
  let service: WorkbenchService;
  let web: WebHost;
  let session: string;
  let json: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbench-host-'));
    const renderer = join(dir, 'renderer');
    await mkdir(join(renderer, 'assets'), { recursive: true });
    await writeFile(join(renderer, 'index.html'), '<!doctype html><title>workbench</title>');
    await writeFile(join(renderer, 'assets', 'app.js'), 'console.log(1)');
    await writeFile(join(dir, 'secret.txt'), 'outside the renderer');
    service = createWorkbenchService({ host: 'browser', version: 'test', dataDir: join(dir, 'home'), env: {} });
    web = await startWebHost({ router: new Router(service), staticDir: renderer, maxMessageBytes: 64 * 1024 });
    session = web.createSession();
    json = { 'Content-Type': 'application/json', Authorization: `Bearer ${session}` };
  });
  afterAll(async () => {
    await web?.close();
    await service?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('binds loopback and prints an address with a long random sign-in code', () => {
    expect(web.origin).toBe(`http://127.0.0.1:${web.port}`);
    expect(codeOf(web.url).length).toBeGreaterThanOrEqual(40);
    expect(web.networkOrigins()).toEqual([]);
  });

  it('answers the API with a session', async () => {
    const r = await send(web, '/api/app.info', { method: 'POST', headers: json, body: '{}' });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ ok: true, result: { host: 'browser' } });
    expect(r.headers['cache-control']).toBe('no-store');
  });

  it('refuses no session, a wrong one, and a sign-in code used as a session', async () => {
    const code = codeOf(web.signInUrl());
    const missing = await send(web, '/api/app.info', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(missing.status).toBe(401);
    expect(JSON.parse(missing.body)).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    for (const authorization of [`Bearer ${session}x`, `Bearer ${code}`, `Basic ${session}`]) {
      const wrong = await send(web, '/api/app.info', { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: authorization }, body: '{}' });
      expect(wrong.status, authorization).toBe(401);
    }
    const cookie = await send(web, '/api/app.info', { method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: `${web.cookieName}=${code}` }, body: '{}' });
    expect(cookie.status).toBe(401);
    const page = await send(web, '/');
    expect(page.status).toBe(401);
    expect(page.body).not.toContain('workbench</title>');
    const badLink = await send(web, '/?token=nope');
    expect(badLink.status).toBe(401);
    expect(badLink.headers['set-cookie']).toBeUndefined();
    // The code survived all of that: it was never spent by a refused use.
    expect((await send(web, `/?token=${code}`)).status).toBe(303);
  });

  it('trades the sign-in code for an HttpOnly SameSite=Strict cookie once; a reload keeps the session, the spent link signs in nothing else', async () => {
    const code = codeOf(web.signInUrl());
    const r = await send(web, `/?token=${encodeURIComponent(code)}`);
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe('/');
    const setCookie = String(r.headers['set-cookie']);
    expect(setCookie).toMatch(new RegExp(`^${web.cookieName}=[A-Za-z0-9_-]{40,};`));
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    expect(setCookie).not.toContain(code);
    const cookie = cookieOf(r);
    const page = await send(web, '/', { headers: { Cookie: cookie } });
    expect(page.status).toBe(200);
    expect(page.body).toContain('workbench');
    const api = await send(web, '/api/app.info', { method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: cookie, Origin: web.origin }, body: '{}' });
    expect(api.status).toBe(200);
    expect(await upgrade(web, { Cookie: cookie }, web.origin)).toBe(101);

    // The same address again in that browser (a reload before the redirect, a history entry): on to the app, no new session.
    const again = await send(web, `/?token=${code}`, { headers: { Cookie: cookie } });
    expect(again.status).toBe(303);
    expect(again.headers.location).toBe('/');
    expect(again.headers['set-cookie']).toBeUndefined();
    // Anywhere else it is refused with a page that says why.
    const elsewhere = await send(web, `/?token=${code}`);
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.headers['set-cookie']).toBeUndefined();
    expect(elsewhere.body).toContain('already used');
    expect(elsewhere.headers['content-security-policy']).toContain("default-src 'none'");
  });

  it('redirects only to a path of this origin, whatever path carried the code', async () => {
    for (const path of ['/.//evil.example/x', '//evil.example/x', '/\\evil.example/x', '/%2F%2Fevil.example', '/./\\/evil.example', '/index.html']) {
      const r = await send(web, `${path}?token=${codeOf(web.signInUrl())}&view=catalog`);
      expect(r.status, path).toBe(303);
      expect(r.headers.location, path).toBe('/?view=catalog');
    }
    await fc.assert(
      fc.asyncProperty(fc.webPath(), fc.string({ maxLength: 20 }), async (path, extra) => {
        const target = `/${path.replace(/^\/+/, '')}`.replace(/[^\x21-\x7e]/g, '');
        const query = new URLSearchParams({ token: codeOf(web.signInUrl()), x: extra });
        const r = await send(web, `${target}?${query}`);
        expect(r.status).toBe(303);
        const location = String(r.headers.location);
        expect(location.startsWith('/?') || location === '/').toBe(true);
        expect(new URL(location, web.origin).origin).toBe(web.origin);
      }),
      { numRuns: 60 },
    );
  });

  it('keeps the first session through 100 further sign-ins', async () => {
    const first = cookieOf(await send(web, `/?token=${codeOf(web.signInUrl())}`));
    for (let i = 0; i < 100; i++) expect((await send(web, `/?token=${codeOf(web.signInUrl())}`)).status).toBe(303);
    expect((await send(web, '/', { headers: { Cookie: first } })).status).toBe(200);
  });

  it('lets a script spend a code for a bearer session, and a session mint a code for another browser', async () => {
    const code = codeOf(web.signInUrl());
    const form = await send(web, '/auth/session', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify({ token: code }) });
    expect(form.status).toBe(415);
    const traded = await send(web, '/auth/session', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: code }) });
    expect(traded.status).toBe(200);
    const { session: bearer, idle_timeout_seconds } = JSON.parse(traded.body).result as { session: string; idle_timeout_seconds: number };
    expect(idle_timeout_seconds).toBe(12 * 3600);
    expect((await send(web, '/api/app.info', { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${bearer}` }, body: '{}' })).status).toBe(200);
    const spent = await send(web, '/auth/session', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: code }) });
    expect(spent.status).toBe(401);
    expect((await send(web, `/?token=${code}`)).status).toBe(401);

    expect((await send(web, '/auth/code', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })).status).toBe(401);
    expect((await send(web, '/auth/code', { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${bearer}`, Origin: 'https://evil.example' }, body: '{}' })).status).toBe(403);
    const minted = await send(web, '/auth/code', { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${bearer}` }, body: '{}' });
    expect(minted.status).toBe(200);
    const link = (JSON.parse(minted.body).result as { url: string }).url;
    expect(new URL(link).origin).toBe(web.origin);
    expect((await send(web, new URL(link).pathname + new URL(link).search)).status).toBe(303);
  });

  it('refuses a foreign Host, and an absolute-form target, on requests and upgrades (DNS rebinding)', async () => {
    for (const host of ['evil.example:80', `evil.example:${web.port}`, `127.0.0.1:${web.port + 1}`, `127.0.0.1:${web.port}.evil.example`, `0.0.0.0:${web.port}`]) {
      const r = await send(web, '/api/app.info', { method: 'POST', headers: { ...json, Host: host }, body: '{}' });
      expect(r.status, host).toBe(403);
    }
    const page = await send(web, `/?token=${codeOf(web.signInUrl())}`, { headers: { Host: `rebind.example:${web.port}` } });
    expect(page.status).toBe(403);
    expect(page.headers['set-cookie']).toBeUndefined();
    expect(await upgrade(web, { Authorization: `Bearer ${session}`, Host: `rebind.example:${web.port}` })).toBe(403);
    expect((await send(web, '/api/app.info', { method: 'POST', headers: { ...json, Host: `localhost:${web.port}` }, body: '{}' })).status).toBe(200);
    const absolute = await rawHttp(web.port, `GET http://evil.example/?token=${codeOf(web.signInUrl())} HTTP/1.1\r\nHost: 127.0.0.1:${web.port}\r\nConnection: close\r\n\r\n`);
    expect(absolute).toMatch(/^HTTP\/1\.1 400 /);
    expect(absolute).not.toMatch(/set-cookie|location/i);
    const noHost = await rawHttp(web.port, `GET /?token=${codeOf(web.signInUrl())} HTTP/1.0\r\n\r\n`);
    expect(noHost).toMatch(/^HTTP\/1\.1 403 /);
  });

  it('refuses a foreign Origin, and never sends CORS headers', async () => {
    for (const origin of ['https://evil.example', `http://localhost.evil.example:${web.port}`, 'null', `http://127.0.0.1:${web.port + 1}`]) {
      const r = await send(web, '/api/app.info', { method: 'POST', headers: { ...json, Origin: origin }, body: '{}' });
      expect(r.status, origin).toBe(403);
      expect(r.headers['access-control-allow-origin']).toBeUndefined();
    }
    const preflight = await send(web, '/api/app.info', { method: 'OPTIONS', headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' } });
    expect(preflight.status).toBe(403);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    for (const site of ['cross-site', 'same-site', 'bogus']) {
      const r = await send(web, '/api/app.info', { method: 'POST', headers: { ...json, 'Sec-Fetch-Site': site }, body: '{}' });
      expect(r.status, site).toBe(403);
    }
    expect((await send(web, '/api/app.info', { method: 'POST', headers: { ...json, 'Sec-Fetch-Site': 'same-origin' }, body: '{}' })).status).toBe(200);
    // A page may be opened from another port of this machine, never from a foreign site.
    expect((await send(web, '/', { headers: { Authorization: `Bearer ${session}`, 'Sec-Fetch-Site': 'same-site' } })).status).toBe(200);
    expect((await send(web, '/', { headers: { Authorization: `Bearer ${session}`, 'Sec-Fetch-Site': 'cross-site' } })).status).toBe(403);
  });

  it('refuses a cross-site WebSocket upgrade and one without a session', async () => {
    expect(await upgrade(web, { Authorization: `Bearer ${session}` }, 'https://evil.example')).toBe(403);
    expect(await upgrade(web, { Authorization: `Bearer ${session}`, 'Sec-Fetch-Site': 'cross-site' })).toBe(403);
    expect(await upgrade(web, { Authorization: `Bearer ${session}`, 'Sec-Fetch-Site': 'same-site' })).toBe(403);
    expect(await upgrade(web, {}, web.origin)).toBe(401);
    expect(await upgrade(web, { Authorization: 'Bearer wrong' }, web.origin)).toBe(401);
    expect(await upgrade(web, { Authorization: `Bearer ${session}` }, web.origin)).toBe(101);
  });

  it('answers calls and only the subscribed events over the socket', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${web.port}/api/ws`, { headers: { Authorization: `Bearer ${session}` }, origin: web.origin });
    const messages: Record<string, unknown>[] = [];
    ws.on('message', (data) => messages.push(JSON.parse(String(data))));
    await new Promise((resolve) => ws.on('open', resolve));
    ws.send(JSON.stringify({ id: 1, method: 'connections.close', params: { name: 'default' } }));
    ws.send(JSON.stringify({ type: 'subscribe', events: ['connections.changed', 'no.such-event'] }));
    ws.send(JSON.stringify({ id: 2, method: 'catalog.page', params: { connection: 'default', limit: 1 } }));
    ws.send('not json');
    ws.send(JSON.stringify({ id: 3, method: 'nope' }));
    await expect.poll(() => messages.filter((m) => m['id'] === 2 || m['id'] === 3).length, { timeout: 10_000 }).toBe(2);
    ws.close();
    expect(messages.find((m) => m['id'] === 2)).toMatchObject({ ok: true, result: { items: [expect.any(Object)] } });
    expect(messages.find((m) => m['id'] === 3)).toMatchObject({ ok: false, error: { code: 'not_implemented' } });
    expect(messages.some((m) => m['id'] === null && (m['error'] as { code: string }).code === 'invalid_request')).toBe(true);
    const events = messages.filter((m) => m['event'] !== undefined);
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((m) => m['event'] === 'connections.changed')).toBe(true);
  });

  it.each(MALFORMED_FRAMES)('closes a socket that sends $name with $code, and keeps serving', async ({ bytes, code }) => {
    const raw = await openRawWebSocket(web.port, { Authorization: `Bearer ${session}`, Origin: web.origin });
    raw.write(textFrame(JSON.stringify({ id: 1, method: 'app.info' })));
    await expect.poll(() => raw.messages.length, { timeout: 10_000 }).toBe(1);
    raw.write(bytes(64 * 1024));
    await raw.ended;
    expect(raw.closeCode).toBe(code);
    expect((await send(web, '/api/app.info', { method: 'POST', headers: json, body: '{}' })).status).toBe(200);
    const next = await openRawWebSocket(web.port, { Authorization: `Bearer ${session}`, Origin: web.origin });
    next.write(textFrame(JSON.stringify({ id: 2, method: 'app.info' })));
    await expect.poll(() => next.messages.length, { timeout: 10_000 }).toBe(1);
    expect(JSON.parse(next.messages[0]!)).toMatchObject({ id: 2, ok: true });
    next.socket.destroy();
  });

  it('survives upgrade sockets that are reset before, during and after a refusal', async () => {
    for (let i = 0; i < 20; i++) {
      const socket = connect(web.port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.write(`GET /api/ws HTTP/1.1\r\nHost: 127.0.0.1:${web.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${'a'.repeat(22)}==\r\n${i % 2 ? '' : `Authorization: Bearer ${session}\r\n`}\r\n`);
      socket.resetAndDestroy();
    }
    expect((await send(web, '/api/app.info', { method: 'POST', headers: json, body: '{}' })).status).toBe(200);
  });

  it('bounds bodies, refusing a declared oversize at once and closing the connection, and insists on JSON', async () => {
    const big = await send(web, '/api/validate.package', { method: 'POST', headers: json, body: JSON.stringify({ text: 'x'.repeat(100 * 1024) }) });
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body).error.code).toBe('payload_too_large');
    const declared = await rawHttp(web.port, `POST /api/app.info HTTP/1.1\r\nHost: 127.0.0.1:${web.port}\r\nAuthorization: Bearer ${session}\r\nContent-Type: application/json\r\nContent-Length: ${64 * 1024 * 1024}\r\n\r\n{`);
    expect(declared).toMatch(/^HTTP\/1\.1 413 /);
    expect(declared).toMatch(/connection: close/i);
    const expectContinue = await rawHttp(web.port, `POST /api/app.info HTTP/1.1\r\nHost: 127.0.0.1:${web.port}\r\nAuthorization: Bearer ${session}\r\nContent-Type: application/json\r\nContent-Length: ${64 * 1024 * 1024}\r\nExpect: 100-continue\r\n\r\n`);
    expect(expectContinue).toMatch(/^HTTP\/1\.1 413 /);
    expect(expectContinue).not.toContain('100 Continue');
    const form = await send(web, '/api/app.info', { method: 'POST', headers: { Authorization: `Bearer ${session}`, 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'a=1' });
    expect(form.status).toBe(415);
    const broken = await send(web, '/api/app.info', { method: 'POST', headers: json, body: '{' });
    expect(broken.status).toBe(400);
    const get = await send(web, '/api/app.info', { headers: { Authorization: `Bearer ${session}` } });
    expect(get.status).toBe(405);
  });

  it('serves only files inside the renderer folder, pages with a strict CSP that names only sources CSP can spell', async () => {
    const auth = { Authorization: `Bearer ${session}` };
    const index = await send(web, '/', { headers: auth });
    const csp = String(index.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toMatch(new RegExp(`connect-src 'self' ws://127\\.0\\.0\\.1:${web.port}(;|$)`));
    // Every source a page of any accepted address gets is a valid CSP host-source (an IPv6 literal is not one).
    for (const host of [`localhost:${web.port}`, `[::1]:${web.port}`, `127.0.0.1:${web.port}`]) {
      const r = await send(web, '/', { headers: { ...auth, Host: host } });
      expect(r.status, host).toBe(200);
      const connect = /connect-src ([^;]*)/.exec(String(r.headers['content-security-policy']))![1]!.split(' ');
      for (const source of connect) expect(source, host).toMatch(/^('self'|ws:\/\/[a-z0-9.-]+:\d+)$/);
    }
    expect(index.headers['x-content-type-options']).toBe('nosniff');
    expect(index.headers['x-frame-options']).toBe('DENY');
    expect(index.headers['referrer-policy']).toBe('no-referrer');
    const js = await send(web, '/assets/app.js', { headers: auth });
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toContain('text/javascript');
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/%00']) {
      const r = await send(web, path, { headers: auth });
      expect([400, 404], path).toContain(r.status);
      expect(r.body).not.toContain('outside the renderer');
    }
  });
});

describe('a web host with a token for scripts', () => {
  it('accepts the token as a bearer for the whole launch, and never as a sign-in code or a cookie', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'skillbench-host-token-'));
    const apiToken = 'a-token-chosen-by-whoever-starts-serve-0123456789';
    const service = createWorkbenchService({ host: 'browser', version: 'test', dataDir: join(dir, 'home'), env: {} });
    const web = await startWebHost({ router: new Router(service), staticDir: dir, apiToken });
    try {
      const call = (headers: Record<string, string>) => send(web, '/api/app.info', { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: '{}' });
      for (let i = 0; i < 3; i++) expect((await call({ Authorization: `Bearer ${apiToken}` })).status).toBe(200);
      expect((await call({ Authorization: `Bearer ${apiToken}x` })).status).toBe(401);
      expect((await call({ Cookie: `${web.cookieName}=${apiToken}` })).status).toBe(401);
      expect((await send(web, `/?token=${apiToken}`)).status).toBe(401);
      expect(await upgrade(web, { Authorization: `Bearer ${apiToken}` }, web.origin)).toBe(101);
      const minted = await send(web, '/auth/code', { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${apiToken}` }, body: '{}' });
      expect(minted.status).toBe(200);
    } finally {
      await web.close();
      await service.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('web host backpressure', () => {
  /** A router whose `app.info` waits on a gate, counting how many calls run at once; `workspace.list` answers `size` bytes. */
  function gatedRouter(size: number) {
    const gate = { open: false, waiters: [] as (() => void)[] };
    const stats = { running: 0, most: 0, calls: 0, listed: 0 };
    const handlers: Handlers = {
      'app.info': async () => {
        stats.calls += 1;
        stats.running += 1;
        stats.most = Math.max(stats.most, stats.running);
        if (!gate.open) await new Promise<void>((resolve) => gate.waiters.push(resolve));
        stats.running -= 1;
        return { version: 't', host: 'browser', methods: [], events: [], workspace: null, platform: 'linux' };
      },
      'workspace.list': async () => {
        stats.listed += 1;
        return { root: 'x'.repeat(size), entries: [], polling: false } as never;
      },
    };
    const release = () => {
      gate.open = true;
      for (const w of gate.waiters.splice(0)) w();
    };
    return { router: new Router({ handlers, subscribe: (l) => new EventHub().subscribe(l) }), stats, release };
  }

  it('runs at most maxInFlight calls of a socket at once, then every pipelined call in order', async () => {
    const { router, stats, release } = gatedRouter(0);
    const web = await startWebHost({ router, staticDir: tmpdir(), socketLimits: { maxInFlight: 3 } });
    try {
      const raw = await openRawWebSocket(web.port, { Authorization: `Bearer ${web.createSession()}` });
      for (let i = 0; i < 50; i++) raw.write(textFrame(JSON.stringify({ id: i, method: 'app.info' })));
      await expect.poll(() => stats.running, { timeout: 10_000 }).toBe(3);
      // Give the server every chance to start more than it may.
      await new Promise((r) => setTimeout(r, 200));
      expect(stats.most).toBe(3);
      release();
      await expect.poll(() => raw.messages.length, { timeout: 20_000 }).toBe(50);
      expect(raw.messages.map((m) => (JSON.parse(m) as { id: number }).id).sort((a, b) => a - b)).toEqual([...Array(50).keys()]);
      expect(stats.most).toBe(3);
      raw.socket.destroy();
    } finally {
      await web.close();
    }
  });

  it('stops starting calls for a client that does not read, and closes it once it has stayed behind', async () => {
    const { router, stats, release } = gatedRouter(1024 * 1024);
    release();
    const web = await startWebHost({ router, staticDir: tmpdir(), socketLimits: { maxInFlight: 2, highWaterBytes: 2 * 1024 * 1024, stallMs: 1500 } });
    try {
      const raw = await openRawWebSocket(web.port, { Authorization: `Bearer ${web.createSession()}` }, { read: false });
      for (let i = 0; i < 200; i++) raw.write(textFrame(JSON.stringify({ id: i, method: 'workspace.list' })));
      // The server ends the connection of the client that stopped reading: the client, not reading, learns it on its next write.
      await expect
        .poll(
          () => {
            if (!raw.socket.destroyed) raw.write(frame({ opcode: 9 }));
            return raw.socket.destroyed;
          },
          { timeout: 60_000, interval: 200 },
        )
        .toBe(true);
      // Each answer is 1 MiB: once the kernel's buffers and the high-water mark were full, no further call started.
      expect(stats.listed).toBeGreaterThan(0);
      expect(stats.listed).toBeLessThan(50);
      const alive = await openRawWebSocket(web.port, { Authorization: `Bearer ${web.createSession()}` });
      alive.write(textFrame(JSON.stringify({ id: 'ok', method: 'app.info' })));
      await expect.poll(() => alive.messages.length, { timeout: 10_000 }).toBe(1);
      alive.socket.destroy();
    } finally {
      await web.close();
    }
  });
});

describe('a web host whose handler answers what JSON cannot encode', () => {
  it('sends an internal error for that call and keeps serving the socket', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    const handlers: Handlers = {
      'workspace.list': async () => cyclic as never,
      'app.info': async () => ({ version: 't', host: 'browser', methods: [], events: [], workspace: null, platform: 'linux' }),
    };
    const web = await startWebHost({ router: new Router({ handlers, subscribe: (l) => new EventHub().subscribe(l) }), staticDir: tmpdir() });
    try {
      const raw = await openRawWebSocket(web.port, { Authorization: `Bearer ${web.createSession()}` });
      raw.write(textFrame(JSON.stringify({ id: 1, method: 'workspace.list' })));
      raw.write(textFrame(JSON.stringify({ id: 2, method: 'app.info' })));
      await expect.poll(() => raw.messages.length, { timeout: 10_000 }).toBe(2);
      const answers = raw.messages.map((m) => JSON.parse(m) as { id: number; ok: boolean; error?: { code: string } });
      expect(answers.find((a) => a.id === 1)).toMatchObject({ ok: false, error: { code: 'internal' } });
      expect(answers.find((a) => a.id === 2)).toMatchObject({ ok: true });
      raw.socket.destroy();
    } finally {
      await web.close();
    }
  });
});

describe('a web host bound to every interface', () => {
  it('answers at every address of this machine and its host name, as its warning says, and still refuses a foreign Host', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'skillbench-host-lan-'));
    const service = createWorkbenchService({ host: 'browser', version: 'test', dataDir: join(dir, 'home'), env: {} });
    const web = await startWebHost({ router: new Router(service), staticDir: dir, host: '0.0.0.0' });
    try {
      const session = web.createSession();
      const addresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).filter((i) => i.family === 'IPv4').map((i) => i.address));
      const network = addresses.filter((a) => !a.startsWith('127.'));
      expect(web.networkOrigins().sort()).toEqual([...network.map((a) => `http://${a}:${web.port}`), `http://${hostname().toLowerCase()}:${web.port}`].sort());
      for (const name of [...addresses, hostname()]) {
        const host = `${name}:${web.port}`;
        const r = await send(web, '/api/app.info', { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${session}`, Host: host, Origin: `http://${host}` }, body: '{}' });
        expect(r.status, host).toBe(200);
        const page = await send(web, `/?token=${codeOf(web.signInUrl())}`, { headers: { Host: host } });
        expect(page.status, host).toBe(303);
      }
      for (const host of [`evil.example:${web.port}`, `rebind.example:${web.port}`, `10.255.255.254:${web.port}`]) {
        const r = await send(web, '/api/app.info', { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${session}`, Host: host }, body: '{}' });
        expect(r.status, host).toBe(403);
      }
    } finally {
      await web.close();
      await service.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
