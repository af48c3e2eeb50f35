/**
 * The hosted-model transport against real local servers. Its `fetch` is built
 * on `dispatcher.request`, so most cases run the same exchange through it and
 * through undici's own `fetch` over the same dispatcher, and require the same
 * observable outcome: what the server received, and the status, headers, body
 * or error the caller gets.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import fc from 'fast-check';
import { Request as UndiciRequest, fetch as undiciFetch, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSharedDispatcher, createDispatcher, fetchVia, sharedDispatcher, type FetchFunction } from '../../../../core/models/transport';

/** One request as the server saw it. */
interface Seen {
  method: string;
  url: string;
  /** Header lines as sent (name spelling kept), sorted. */
  headers: [string, string][];
  body: string;
}

type Route = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void | Promise<void>;

interface TestServer {
  origin: string;
  port: number;
  seen: Seen[];
  route(path: string, handler: Route): void;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function startServer(make: (handler: (req: IncomingMessage, res: ServerResponse) => void) => Server = (h) => createServer(h), scheme = 'http'): Promise<TestServer> {
  const routes = new Map<string, Route>();
  const seen: Seen[] = [];
  const server = make((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const pairs: [string, string][] = [];
      for (let i = 0; i < req.rawHeaders.length; i += 2) pairs.push([req.rawHeaders[i]!, req.rawHeaders[i + 1]!]);
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: pairs.sort(([a], [b]) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0)), body: body.toString('latin1') });
      res.sendDate = false;
      const handler = routes.get((req.url ?? '/').split('?')[0]!);
      if (!handler) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('no route');
        return;
      }
      void handler(req, res, body);
    });
  });
  const port = await listen(server);
  return {
    origin: `${scheme}://127.0.0.1:${port}`,
    port,
    seen,
    route: (path, handler) => routes.set(path, handler),
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** What a caller can observe of one fetch: the response as data, or the failure's shape. */
async function observe(f: FetchFunction, input: string | URL | Request, init?: RequestInit): Promise<Record<string, unknown>> {
  try {
    const res = await f(input, init);
    const headers: [string, string][] = [];
    res.headers.forEach((value, name) => headers.push([name, value]));
    let body: string | null = null;
    let bodyError: Record<string, unknown> | undefined;
    if (res.body !== null) {
      try {
        body = Buffer.from(await res.arrayBuffer()).toString('latin1');
      } catch (error) {
        bodyError = failure(error);
      }
    }
    return {
      status: res.status,
      ok: res.ok,
      statusText: res.statusText,
      url: res.url,
      headers,
      setCookies: res.headers.getSetCookie(),
      body,
      ...(bodyError && { bodyError }),
    };
  } catch (error) {
    return { error: failure(error) };
  }
}

function failure(error: unknown): Record<string, unknown> {
  const e = error as { name?: string; message?: string; cause?: { name?: string; code?: string; message?: string } };
  return { name: e.name, message: e.message, causeName: e.cause?.name, causeCode: e.cause?.code };
}

let dispatcher: Dispatcher;
let ours: FetchFunction;
let theirs: FetchFunction;
let server: TestServer;

beforeAll(async () => {
  dispatcher = createDispatcher({}, {});
  ours = fetchVia(dispatcher);
  theirs = ((input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) => undiciFetch(input, { ...init, dispatcher })) as unknown as FetchFunction;
  server = await startServer();
  server.route('/echo', (req, res, body) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ method: req.method, length: body.length }));
  });
});
afterAll(async () => {
  await server.close();
  await dispatcher.close();
});

/** Runs one exchange through both fetches; returns both observations and what the server saw for each. */
async function both(input: string, init?: RequestInit | (() => RequestInit)) {
  const initOf = () => (typeof init === 'function' ? init() : init);
  const before = server.seen.length;
  const a = await observe(ours, input, initOf());
  const seenA = server.seen.slice(before);
  const mid = server.seen.length;
  const b = await observe(theirs, input, initOf());
  const seenB = server.seen.slice(mid);
  return { ours: a, theirs: b, seenOurs: seenA, seenTheirs: seenB };
}

const SDK_HEADERS = {
  'Content-Type': 'application/json',
  authorization: 'Bearer local-token',
  'user-agent': 'ai-sdk/openai-compatible/2.0.92 ai-sdk/provider-utils/4.0.65 runtime/node.js/v20',
};

describe('fetchVia (dispatcher.request) behaves as undici fetch', () => {
  it('sends the same request line, headers and body as fetch for an AI SDK style JSON POST', async () => {
    const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'Lisbon ☂ tomorrow?' }] });
    const r = await both(`${server.origin}/echo?x=1#fragment`, { method: 'POST', headers: SDK_HEADERS, body });
    expect(r.ours).toEqual(r.theirs);
    expect(r.ours['status']).toBe(200);
    expect(r.ours['url']).toBe(`${server.origin}/echo?x=1`);
    expect(r.seenOurs).toEqual(r.seenTheirs);
    const names = r.seenOurs[0]!.headers.map(([n]) => n.toLowerCase());
    expect(names).toEqual(expect.arrayContaining(['accept', 'accept-encoding', 'accept-language', 'content-length', 'sec-fetch-mode']));
    expect(r.seenOurs[0]!.body).toBe(Buffer.from(body).toString('latin1'));
  });

  it('fills in what fetch fills in: method case, default content type, empty query, byte bodies', async () => {
    const cases: [string, RequestInit | undefined][] = [
      [`${server.origin}/echo`, undefined],
      [`${server.origin}/echo?`, { method: 'post', body: 'plain text' }],
      [`${server.origin}/echo`, { method: 'options' }],
      [`${server.origin}/echo`, { method: 'Report', body: 'x' }],
      [`${server.origin}/echo`, { method: 'Delete' }],
      [`${server.origin}/echo`, { method: 'PUT', body: new Uint8Array([0, 1, 2, 255]) }],
      [`${server.origin}/echo`, { method: 'POST', body: new Uint8Array([9, 8, 7]).buffer }],
      [`${server.origin}/echo`, { method: 'POST', headers: [['X-Twice', 'a'], ['x-twice', ' b ']], body: '' }],
      [`${server.origin}/echo`, { method: 'POST', headers: new Headers({ 'X-From-Headers': 'yes' }), body: '{}' }],
    ];
    for (const [input, init] of cases) {
      const r = await both(input, init);
      expect(r.ours, `${init?.method ?? 'GET'} ${input}`).toEqual(r.theirs);
      expect(r.seenOurs, `${init?.method ?? 'GET'} ${input}`).toEqual(r.seenTheirs);
    }
  });

  it('hands requests it does not model to fetch: Request objects, form and stream bodies, redirect modes', async () => {
    const cases: [string | (() => Request), (() => RequestInit) | undefined][] = [
      [() => new UndiciRequest(`${server.origin}/echo`, { method: 'POST', body: 'from a Request' }) as unknown as Request, undefined],
      [`${server.origin}/echo`, () => ({ method: 'POST', body: new URLSearchParams({ a: '1', b: 'two words' }) })],
      [`${server.origin}/echo`, () => ({ method: 'POST', body: new Blob(['blob body'], { type: 'text/x-blob' }) })],
      [`${server.origin}/echo`, () => ({ method: 'POST', body: new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode('streamed')), c.close()) }), duplex: 'half' }) as RequestInit],
      [`${server.origin}/echo`, () => ({ redirect: 'manual' })],
    ];
    for (const [input, init] of cases) {
      const before = server.seen.length;
      const a = await observe(ours, typeof input === 'function' ? input() : input, init?.());
      const seenA = server.seen.slice(before);
      const mid = server.seen.length;
      const b = await observe(theirs, typeof input === 'function' ? input() : input, init?.());
      expect(a).toEqual(b);
      expect(a['status']).toBe(200);
      expect(seenA).toEqual(server.seen.slice(mid));
    }
  });

  it('rejects arguments fetch rejects, with fetch\'s errors', async () => {
    const cases: [string, RequestInit | undefined][] = [
      ['/relative/path', undefined],
      [`http://user:secret@127.0.0.1:${server.port}/echo`, undefined],
      [`${server.origin}/echo`, { method: 'CONNECT' }],
      [`${server.origin}/echo`, { method: 'bad method' }],
      [`${server.origin}/echo`, { method: 'GET', body: 'not allowed' }],
      [`${server.origin}/echo`, { headers: { 'bad name': 'x' } }],
      [`${server.origin}/echo`, { headers: { 'x-bad': 'line\r\nbreak' } }],
      [`${server.origin}/echo`, { headers: { 'x-wide': 'snow ☃' } }],
    ];
    for (const [input, init] of cases) {
      const r = await both(input, init);
      expect(r.ours, `${init?.method ?? 'GET'} ${input}`).toEqual(r.theirs);
      expect(r.ours['error']).toBeDefined();
    }
  });

  it('sends any header set exactly as fetch does (property)', async () => {
    const name = fc.stringMatching(/^[a-z0-9][a-z0-9!#$%&'*+.^_`|~-]{0,10}$/).map((n) => `x-${n}`);
    const nameCase = fc.tuple(name, fc.boolean()).map(([n, upper]) => (upper ? n.toUpperCase() : n));
    // Printable Latin-1 plus tabs and spaces, which fetch trims at the ends.
    const value = fc.string({ unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.constant(0x09), fc.integer({ min: 0xa0, max: 0xff })).map((c) => String.fromCharCode(c)), maxLength: 30 });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(nameCase, value), { maxLength: 8 }), async (pairs) => {
        const r = await both(`${server.origin}/echo`, { method: 'POST', headers: pairs, body: '{}' });
        expect(r.ours).toEqual(r.theirs);
        expect(r.seenOurs).toEqual(r.seenTheirs);
      }),
      { numRuns: 60 },
    );
  });

  it('returns any response header set as fetch does, including several set-cookie lines (property)', async () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/).map((n) => `x-${n}`);
    const value = fc.stringMatching(/^[!-~]([ -~]{0,20}[!-~])?$/);
    let current: [string, string[]][] = [];
    server.route('/headers', (_req, res) => {
      for (const [n, vs] of current) res.setHeader(n, vs);
      res.setHeader('set-cookie', ['a=1; Path=/', 'b=2; HttpOnly']);
      res.writeHead(200, 'Fine Thanks');
      res.end('ok');
    });
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.tuple(name, fc.array(value, { minLength: 1, maxLength: 3 })), { selector: ([n]) => n, maxLength: 6 }), async (headers) => {
        current = headers;
        const r = await both(`${server.origin}/headers`);
        expect(r.ours).toEqual(r.theirs);
        expect(r.ours['setCookies']).toEqual(['a=1; Path=/', 'b=2; HttpOnly']);
        expect(r.ours['statusText']).toBe('Fine Thanks');
      }),
      { numRuns: 40 },
    );
  });

  it('reports every status as fetch does, with the error bodies intact', async () => {
    server.route('/status', (req, res) => {
      const status = Number(new URL(req.url ?? '', 'http://x').searchParams.get('s'));
      const headers: Record<string, string> = status === 429 ? { 'retry-after': '2', 'content-type': 'application/json' } : { 'content-type': 'application/json' };
      res.writeHead(status, headers);
      res.end(status === 204 || status === 304 ? undefined : JSON.stringify({ error: { message: `status ${status}`, type: 'server_error' } }));
    });
    for (const status of [200, 201, 204, 205, 304, 400, 401, 403, 404, 408, 429, 500, 502, 503, 529, 599, 600, 799]) {
      for (const method of ['POST', 'HEAD']) {
        const r = await both(`${server.origin}/status?s=${status}`, method === 'POST' ? { method, headers: SDK_HEADERS, body: '{}' } : { method });
        expect(r.ours, `${method} ${status}`).toEqual(r.theirs);
        expect(r.ours['status'], `${method} ${status}`).toBe(status);
      }
    }
  });

  it('follows redirects as fetch does', async () => {
    server.route('/moved-307', (_req, res) => {
      res.writeHead(307, { location: '/echo' });
      res.end('moved');
    });
    server.route('/moved-303', (_req, res) => {
      res.writeHead(303, { location: `${server.origin}/echo` });
      res.end();
    });
    server.route('/moved-301', (_req, res) => {
      res.writeHead(301, { location: '/echo?from=301' });
      res.end();
    });
    server.route('/empty-location', (_req, res) => {
      res.writeHead(302, { location: '' });
      res.end('stay');
    });
    for (const path of ['/moved-307', '/moved-303', '/moved-301', '/empty-location']) {
      const r = await both(`${server.origin}${path}`, { method: 'POST', headers: SDK_HEADERS, body: '{"a":1}' });
      expect(r.ours, path).toEqual(r.theirs);
      // The last request each made is the one that answered: same method, URL and body.
      expect(r.seenOurs.at(-1), path).toEqual(r.seenTheirs.at(-1));
    }
    const kept = await observe(ours, `${server.origin}/moved-307`, { method: 'POST', body: 'payload' });
    expect(JSON.parse(String(kept['body']))).toEqual({ method: 'POST', length: 7 });
  });

  it('decodes gzip, deflate (wrapped and raw), brotli and stacked codings as fetch does', async () => {
    const text = JSON.stringify({ choices: [{ message: { content: 'compressed answer '.repeat(200) } }] });
    const encodings: Record<string, Buffer> = {
      gzip: zlib.gzipSync(text),
      'x-gzip': zlib.gzipSync(text),
      deflate: zlib.deflateSync(text),
      'deflate;raw': zlib.deflateRawSync(text),
      br: zlib.brotliCompressSync(text),
      'deflate, gzip': zlib.gzipSync(zlib.deflateSync(text)),
      'GZIP': zlib.gzipSync(text),
      unknown: Buffer.from('left as it came'),
      'gzip, gzip, gzip, gzip, gzip, gzip': zlib.gzipSync(text),
      'gzip;corrupt': Buffer.from('this is not gzip data at all'),
    };
    server.route('/encoded', (req, res) => {
      const which = new URL(req.url ?? '', 'http://x').searchParams.get('e')!;
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': which.split(';')[0]! });
      res.end(encodings[which]);
    });
    for (const which of Object.keys(encodings)) {
      const r = await both(`${server.origin}/encoded?e=${encodeURIComponent(which)}`, { method: 'POST', headers: SDK_HEADERS, body: '{}' });
      expect(r.ours, which).toEqual(r.theirs);
      if (!which.includes('corrupt') && !which.includes('unknown') && !which.startsWith('gzip, gzip')) expect(r.ours['body'], which).toBe(text);
    }
  });

  it('streams a large body: the first bytes arrive before the server has sent the rest, and every byte arrives', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'abcdefgh');
    const total = 8 * 1024 * 1024;
    let release: () => void = () => undefined;
    const released = new Promise<void>((r) => (release = r));
    let finished = false;
    server.route('/large', async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(total) });
      res.write(chunk);
      await released;
      for (let sent = chunk.length; sent < total; sent += chunk.length) {
        if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
      }
      finished = true;
      res.end();
    });
    const res = await ours(`${server.origin}/large`, { method: 'POST', headers: SDK_HEADERS, body: '{}' });
    expect(res.headers.get('content-length')).toBe(String(total));
    const reader = res.body!.getReader();
    const hash = createHash('sha256');
    const first = await reader.read();
    expect(first.done).toBe(false);
    expect(finished).toBe(false);
    hash.update(first.value!);
    let received = first.value!.byteLength;
    release();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      hash.update(value);
      received += value.byteLength;
    }
    expect(received).toBe(total);
    const expected = createHash('sha256');
    for (let i = 0; i < total / chunk.length; i++) expected.update(chunk);
    expect(hash.digest('hex')).toBe(expected.digest('hex'));
    // The connection went back to the pool in working order.
    expect((await observe(ours, `${server.origin}/echo`))['status']).toBe(200);
  });

  it('rejects with the caller\'s abort reason before the request, while waiting for headers and while reading the body', async () => {
    server.route('/slow-headers', (_req, res) => {
      setTimeout(() => {
        if (!res.destroyed) res.end('late');
      }, 2_000);
    });
    server.route('/slow-body', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first part;');
      setTimeout(() => {
        if (!res.destroyed) res.end('late part');
      }, 2_000);
    });
    for (const f of [ours, theirs]) {
      const early = new AbortController();
      const reason = new Error('stopped by the caller');
      early.abort(reason);
      await expect(f(`${server.origin}/echo`, { method: 'POST', body: '{}', signal: early.signal })).rejects.toBe(reason);

      const waiting = new AbortController();
      const pending = f(`${server.origin}/slow-headers`, { method: 'POST', body: '{}', signal: waiting.signal });
      setTimeout(() => waiting.abort(), 50);
      const headersError = await pending.catch((e: unknown) => e);
      expect(headersError).toBe(waiting.signal.reason);
      expect((headersError as Error).name).toBe('AbortError');

      const timeout = AbortSignal.timeout(100);
      const timedOut = await f(`${server.origin}/slow-headers`, { method: 'POST', body: '{}', signal: timeout }).catch((e: unknown) => e);
      expect((timedOut as Error).name).toBe('TimeoutError');

      const reading = new AbortController();
      const res = await f(`${server.origin}/slow-body`, { method: 'POST', body: '{}', signal: reading.signal });
      const reader = res.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe('first part;');
      setTimeout(() => reading.abort(), 50);
      const bodyError = await reader.read().catch((e: unknown) => e);
      expect(bodyError).toBe(reading.signal.reason);
    }
  });

  it('reports transport failures as fetch does: refused, reset mid-body', async () => {
    const closed = createServer();
    const closedPort = await listen(closed);
    await new Promise((r) => closed.close(r));
    const refused = await both(`http://127.0.0.1:${closedPort}/v1/chat/completions`, { method: 'POST', headers: SDK_HEADERS, body: '{}' });
    expect(refused.ours).toEqual(refused.theirs);
    expect(refused.ours['error']).toMatchObject({ name: 'TypeError', message: 'fetch failed', causeCode: 'ECONNREFUSED' });

    server.route('/reset', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"partial":');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const reset = await both(`${server.origin}/reset`, { method: 'POST', headers: SDK_HEADERS, body: '{}' });
    expect(reset.ours).toEqual(reset.theirs);
    expect(reset.ours['bodyError']).toMatchObject({ name: 'TypeError', message: 'terminated', causeCode: 'UND_ERR_SOCKET' });
  });

  it('keeps the dispatcher\'s headers and body timeouts, failing as fetch fails', async () => {
    const strict = createDispatcher({ headersTimeoutMs: 150, bodyTimeoutMs: 150 }, {});
    const strictOurs = fetchVia(strict);
    const strictTheirs = ((input: string, init?: RequestInit) => undiciFetch(input, { ...(init as object), dispatcher: strict })) as unknown as FetchFunction;
    try {
      server.route('/never', () => undefined);
      server.route('/stalls', (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('begun');
      });
      for (const path of ['/never', '/stalls']) {
        const a = await observe(strictOurs, `${server.origin}${path}`, { method: 'POST', body: '{}' });
        const b = await observe(strictTheirs, `${server.origin}${path}`, { method: 'POST', body: '{}' });
        expect(a, path).toEqual(b);
      }
      expect((await observe(strictOurs, `${server.origin}/never`, { method: 'POST', body: '{}' }))['error']).toMatchObject({ message: 'fetch failed', causeCode: 'UND_ERR_HEADERS_TIMEOUT' });
      expect((await observe(strictOurs, `${server.origin}/stalls`, { method: 'POST', body: '{}' }))['bodyError']).toMatchObject({ message: 'terminated', causeCode: 'UND_ERR_BODY_TIMEOUT' });
    } finally {
      await strict.close();
    }
  });
});

describe('fetchVia over proxies and private certificate authorities', () => {
  let proxy: Server;
  let proxyUrl: string;
  const tunnels: string[] = [];

  beforeAll(async () => {
    // A real CONNECT proxy.
    proxy = createServer();
    proxy.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
      tunnels.push(req.url ?? '');
      const [host, port] = (req.url ?? '').split(':');
      const upstream = netConnect(Number(port), host ?? '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    proxyUrl = `http://127.0.0.1:${await listen(proxy)}`;
  });
  afterAll(async () => {
    proxy.closeAllConnections();
    await new Promise((r) => proxy.close(r));
  });

  it('goes through an explicit proxy, the environment\'s proxy, and around it for NO_PROXY hosts', async () => {
    const target = `127.0.0.1:${server.port}`;
    const cases: [string, Dispatcher, boolean][] = [
      ['explicit proxyUrl', createDispatcher({ proxyUrl }, {}), true],
      ['HTTP_PROXY', createDispatcher({}, { HTTP_PROXY: proxyUrl }), true],
      ['http_proxy with NO_PROXY', createDispatcher({}, { http_proxy: proxyUrl, NO_PROXY: '127.0.0.1' }), false],
    ];
    for (const [label, via, tunnelled] of cases) {
      try {
        tunnels.length = 0;
        const r = await observe(fetchVia(via), `${server.origin}/echo`, { method: 'POST', headers: SDK_HEADERS, body: '{"q":1}' });
        expect(r['status'], label).toBe(200);
        expect(JSON.parse(String(r['body']))).toEqual({ method: 'POST', length: 7 });
        expect(tunnels.includes(target), label).toBe(tunnelled);
      } finally {
        await via.close();
      }
    }
  });

  it('shares a pool per proxy setting: an environment without a proxy never uses the pool of one with a proxy', async () => {
    const target = `127.0.0.1:${server.port}`;
    try {
      const proxied = { HTTP_PROXY: proxyUrl };
      expect(sharedDispatcher({ ...proxied, UNRELATED: 'x' })).toBe(sharedDispatcher(proxied));
      // The first request through the proxied pool opens a tunnel; the pool without a proxy never does,
      // even after the proxied pool exists (a kept-alive tunnel would carry it without a new CONNECT).
      for (const [label, env, connects] of [['with HTTP_PROXY', proxied, [target]], ['without', {}, []]] as const) {
        tunnels.length = 0;
        const r = await observe(fetchVia(sharedDispatcher(env)), `${server.origin}/echo`, { method: 'POST', headers: SDK_HEADERS, body: '{"q":1}' });
        expect(r['status'], label).toBe(200);
        expect(tunnels, label).toEqual(connects);
      }
      expect(sharedDispatcher({})).not.toBe(sharedDispatcher(proxied));
    } finally {
      await closeSharedDispatcher();
    }
    tunnels.length = 0;
    const fresh = await observe(fetchVia(sharedDispatcher({ HTTP_PROXY: proxyUrl })), `${server.origin}/echo`, { method: 'POST', headers: SDK_HEADERS, body: '{"q":1}' });
    expect(fresh['status']).toBe(200);
    expect(tunnels).toEqual([target]);
    await closeSharedDispatcher();
  });

  it('trusts a TLS host only with its private CA, and asks for brotli over https as fetch does', async () => {
    const certDir = await mkdtemp(join(tmpdir(), 'skillbench-transport-tls-'));
    let tls: TestServer | undefined;
    try {
      const made = spawnSync('openssl', [
        'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
        '-keyout', join(certDir, 'key.pem'), '-out', join(certDir, 'cert.pem'), '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
      ], { encoding: 'utf8' });
      expect(made.status, made.stderr).toBe(0);
      const cert = await readFile(join(certDir, 'cert.pem'), 'utf8');
      const key = await readFile(join(certDir, 'key.pem'));
      tls = await startServer((handler) => createHttpsServer({ key, cert }, handler) as unknown as Server, 'https');
      tls.route('/echo', (req, res, body) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ method: req.method, length: body.length }));
      });
      const url = `${tls.origin}/echo`;

      const untrusted = await observe(ours, url, { method: 'POST', body: '{}' });
      const untrustedFetch = await observe(theirs, url, { method: 'POST', body: '{}' });
      expect(untrusted).toEqual(untrustedFetch);
      expect(untrusted['error']).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
      expect(tls.seen).toHaveLength(0);

      const withCa = createDispatcher({ ca: cert }, {});
      try {
        const r = await observe(fetchVia(withCa), url, { method: 'POST', headers: SDK_HEADERS, body: '{"q":1}' });
        expect(r['status']).toBe(200);
        const viaFetch = await observe(((input: string, init?: RequestInit) => undiciFetch(input, { ...(init as object), dispatcher: withCa })) as unknown as FetchFunction, url, { method: 'POST', headers: SDK_HEADERS, body: '{"q":1}' });
        expect(r).toEqual(viaFetch);
        expect(tls.seen).toHaveLength(2);
        expect(tls.seen[0]).toEqual(tls.seen[1]);
        expect(tls.seen[0]!.headers).toContainEqual(['accept-encoding', 'br, gzip, deflate']);
      } finally {
        await withCa.close();
      }
    } finally {
      await tls?.close();
      await rm(certDir, { recursive: true, force: true });
    }
  });
});
