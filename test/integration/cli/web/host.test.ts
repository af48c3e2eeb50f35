/**
 * Security of the web host over real sockets: Host and Origin checks on every
 * request and WebSocket upgrade, the token and its exchange for a session
 * cookie, bounded bodies, static files confined to the renderer folder, and
 * the headers every page carries.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Router } from '../../../../core/api/router';
import { createWorkbenchService, type WorkbenchService } from '../../../../core/api/service';
import { startWebHost, type WebHost } from '../../../../cli/web/host';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP request, so Host and Origin can be anything a hostile page or resolver would send. */
function send(web: WebHost, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: web.port, path, method: options.method ?? 'GET', headers: { Host: `127.0.0.1:${web.port}`, ...options.headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** Tries a WebSocket upgrade; resolves with the HTTP status it was refused with, or 101. */
function upgrade(web: WebHost, headers: Record<string, string>, origin?: string): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${web.port}/api/ws`, { headers, ...(origin && { origin }) });
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('error', () => undefined);
  });
}

describe('web host security', () => {
  let dir: string;
  let service: WorkbenchService;
  let web: WebHost;
  let token: string;
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
    token = new URL(web.url).searchParams.get('token')!;
    json = { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` };
  });
  afterAll(async () => {
    await web?.close();
    await service?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('binds loopback and prints an address with a long random token', () => {
    expect(web.origin).toBe(`http://127.0.0.1:${web.port}`);
    expect(token.length).toBeGreaterThanOrEqual(40);
  });

  it('answers the API with the token', async () => {
    const r = await send(web, '/api/app.info', { method: 'POST', headers: json, body: '{}' });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ ok: true, result: { host: 'browser' } });
    expect(r.headers['cache-control']).toBe('no-store');
  });

  it('refuses a missing or wrong token', async () => {
    const missing = await send(web, '/api/app.info', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(missing.status).toBe(401);
    expect(JSON.parse(missing.body)).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    const wrong = await send(web, '/api/app.info', { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}x` }, body: '{}' });
    expect(wrong.status).toBe(401);
    const cookie = await send(web, '/api/app.info', { method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: `${web.cookieName}=${token}` }, body: '{}' });
    expect(cookie.status).toBe(401);
    const page = await send(web, '/');
    expect(page.status).toBe(401);
    expect(page.body).not.toContain('workbench</title>');
    const badLink = await send(web, '/?token=nope');
    expect(badLink.status).toBe(401);
    expect(badLink.headers['set-cookie']).toBeUndefined();
  });

  it('trades the token in the URL for an HttpOnly SameSite=Strict cookie and drops it from the address', async () => {
    const r = await send(web, `/?token=${encodeURIComponent(token)}`);
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe('/');
    const setCookie = String(r.headers['set-cookie']);
    expect(setCookie).toMatch(new RegExp(`^${web.cookieName}=[A-Za-z0-9_-]{40,};`));
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    expect(setCookie).not.toContain(token);
    const cookie = setCookie.split(';')[0]!;
    const page = await send(web, '/', { headers: { Cookie: cookie } });
    expect(page.status).toBe(200);
    expect(page.body).toContain('workbench');
    const api = await send(web, '/api/app.info', { method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: cookie, Origin: web.origin }, body: '{}' });
    expect(api.status).toBe(200);
    expect(await upgrade(web, { Cookie: cookie }, web.origin)).toBe(101);
  });

  it('refuses a foreign Host on requests and upgrades (DNS rebinding)', async () => {
    for (const host of ['evil.example:80', `evil.example:${web.port}`, `127.0.0.1:${web.port + 1}`, `127.0.0.1:${web.port}.evil.example`]) {
      const r = await send(web, '/api/app.info', { method: 'POST', headers: { ...json, Host: host }, body: '{}' });
      expect(r.status, host).toBe(403);
    }
    const page = await send(web, `/?token=${token}`, { headers: { Host: `rebind.example:${web.port}` } });
    expect(page.status).toBe(403);
    expect(page.headers['set-cookie']).toBeUndefined();
    expect(await upgrade(web, { Authorization: `Bearer ${token}`, Host: `rebind.example:${web.port}` })).toBe(403);
    expect((await send(web, '/api/app.info', { method: 'POST', headers: { ...json, Host: `localhost:${web.port}` }, body: '{}' })).status).toBe(200);
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
    const crossSite = await send(web, '/api/app.info', { method: 'POST', headers: { ...json, 'Sec-Fetch-Site': 'cross-site' }, body: '{}' });
    expect(crossSite.status).toBe(403);
  });

  it('refuses a cross-site WebSocket upgrade and one without the token', async () => {
    expect(await upgrade(web, { Authorization: `Bearer ${token}` }, 'https://evil.example')).toBe(403);
    expect(await upgrade(web, {}, web.origin)).toBe(401);
    expect(await upgrade(web, { Authorization: 'Bearer wrong' }, web.origin)).toBe(401);
    expect(await upgrade(web, { Authorization: `Bearer ${token}` }, web.origin)).toBe(101);
  });

  it('answers calls and only the subscribed events over the socket', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${web.port}/api/ws`, { headers: { Authorization: `Bearer ${token}` }, origin: web.origin });
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

  it('bounds bodies and insists on JSON', async () => {
    const big = await send(web, '/api/validate.package', { method: 'POST', headers: json, body: JSON.stringify({ text: 'x'.repeat(100 * 1024) }) });
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body).error.code).toBe('payload_too_large');
    const form = await send(web, '/api/app.info', { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'a=1' });
    expect(form.status).toBe(415);
    const broken = await send(web, '/api/app.info', { method: 'POST', headers: json, body: '{' });
    expect(broken.status).toBe(400);
    const get = await send(web, '/api/app.info', { headers: { Authorization: `Bearer ${token}` } });
    expect(get.status).toBe(405);
  });

  it('serves only files inside the renderer folder, pages with a strict CSP', async () => {
    const auth = { Authorization: `Bearer ${token}` };
    const index = await send(web, '/', { headers: auth });
    const csp = String(index.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain(`ws://127.0.0.1:${web.port}`);
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
