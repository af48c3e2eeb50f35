/**
 * The HTTP transport of every hosted provider: a `fetch` over one shared undici
 * dispatcher, so connections are pooled and kept alive across providers, calls
 * and clients, with bounded connect/headers/body timeouts, an optional proxy and
 * an optional extra certificate authority.
 *
 * The `fetch` handed to the AI SDK is built on `dispatcher.request` rather than
 * undici's WHATWG `fetch`: for the plain JSON POSTs the providers make, the
 * WHATWG machinery (request cloning, body streams on both sides, the fetch
 * controller) cost several times more CPU than the HTTP exchange itself, and
 * capped evaluation throughput. It reproduces what a caller can observe of
 * `fetch` (default request headers, status, headers, streamed and decoded body,
 * abort reasons, `fetch failed`/`terminated` errors) and hands anything outside
 * that plain shape (a `Request` object, form or stream bodies, redirect modes,
 * a redirect answer) to undici's `fetch` itself.
 */
import { rootCertificates } from 'node:tls';
import { Transform, pipeline, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import { Agent, EnvHttpProxyAgent, Headers, ProxyAgent, Response, fetch as undiciFetch, type Dispatcher } from 'undici';

/** Transport settings; every field is optional. */
export interface TransportOptions {
  /** TCP + TLS connect timeout (default 10 s). */
  connectTimeoutMs?: number;
  /** Time to the response headers (default 120 s; the per-attempt timeout is usually shorter). */
  headersTimeoutMs?: number;
  /** Idle time between body chunks (default 120 s). */
  bodyTimeoutMs?: number;
  /** How long an idle pooled connection is kept (default 30 s). */
  keepAliveTimeoutMs?: number;
  /** Proxy for every request, e.g. `http://proxy:3128` (may carry credentials; never logged). */
  proxyUrl?: string;
  /** Extra trusted CA certificates (PEM), added to the system roots, e.g. for a TLS-inspecting proxy. */
  ca?: string | string[];
}

/** A `fetch` with the signature the AI SDK providers take. */
export type FetchFunction = typeof globalThis.fetch;

/**
 * Creates a dispatcher. Without `proxyUrl`, the standard proxy variables of
 * `env` (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`, any case) are honoured.
 */
export function createDispatcher(
  options: TransportOptions = {},
  env: Readonly<Record<string, string | undefined>> = process.env,
): Dispatcher {
  const ca = options.ca === undefined ? undefined : [...rootCertificates, ...(Array.isArray(options.ca) ? options.ca : [options.ca])];
  const connect = { timeout: options.connectTimeoutMs ?? 10_000, ...(ca && { ca }) };
  const common = {
    connect,
    headersTimeout: options.headersTimeoutMs ?? 120_000,
    bodyTimeout: options.bodyTimeoutMs ?? 120_000,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000,
    keepAliveMaxTimeout: Math.max(options.keepAliveTimeoutMs ?? 30_000, 60_000),
  };
  if (options.proxyUrl) {
    return new ProxyAgent({ ...common, uri: options.proxyUrl, ...(ca && { requestTls: { ca }, proxyTls: { ca } }) });
  }
  const httpsProxy = env['HTTPS_PROXY'] ?? env['https_proxy'];
  const httpProxy = env['HTTP_PROXY'] ?? env['http_proxy'];
  if (httpsProxy || httpProxy) {
    const noProxy = env['NO_PROXY'] ?? env['no_proxy'];
    return new EnvHttpProxyAgent({
      ...common,
      ...(httpProxy && { httpProxy }),
      ...(httpsProxy && { httpsProxy }),
      ...(noProxy !== undefined && { noProxy }),
      ...(ca && { requestTls: { ca }, proxyTls: { ca } }),
    });
  }
  return new Agent(common);
}

/** The shared dispatchers, one per proxy setting of the environments that asked for one. */
const shared = new Map<string, Dispatcher>();

const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'];

/**
 * The process-wide dispatcher for `env` (created on first use): callers whose
 * environments name the same proxies share one connection pool, and a caller
 * never gets a pool built from another environment's proxy settings.
 */
export function sharedDispatcher(env: Readonly<Record<string, string | undefined>> = process.env): Dispatcher {
  const key = JSON.stringify(PROXY_VARIABLES.map((name) => env[name] ?? null));
  let dispatcher = shared.get(key);
  if (dispatcher === undefined) {
    dispatcher = createDispatcher({}, env);
    shared.set(key, dispatcher);
  }
  return dispatcher;
}

/** Closes the process-wide dispatchers, e.g. before the CLI exits; the next call creates a fresh one. */
export async function closeSharedDispatcher(): Promise<void> {
  const current = [...shared.values()];
  shared.clear();
  await Promise.all(current.map((d) => d.close()));
}

type FetchInput = Parameters<FetchFunction>[0];

/**
 * A `fetch` that sends through `dispatcher`: plain requests (an http(s) URL,
 * a string or byte body, method/headers/body/signal only) go straight to
 * `dispatcher.request`; everything else, and any redirect answer, is left to
 * undici's `fetch` over the same dispatcher.
 */
export function fetchVia(dispatcher: Dispatcher): FetchFunction {
  const viaFetch = (input: FetchInput, init?: RequestInit) =>
    undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher });
  const direct = async (input: FetchInput, init?: RequestInit) => {
    const plan = planRequest(input, init);
    if (plan === undefined) return viaFetch(input, init);
    const signal = init?.signal ?? undefined;
    if (signal?.aborted) throw abortReason(signal);
    let answer: Dispatcher.ResponseData;
    try {
      const { origin, path, method, headers, body } = plan;
      answer = await dispatcher.request({ origin, path, method, headers, body, ...(signal && { signal }) });
    } catch (error) {
      // fetch rejects with the abort reason itself, and wraps every transport failure
      // the same way: the AI SDK turns exactly this shape into a retryable APICallError.
      if (signal?.aborted) throw abortReason(signal);
      throw new TypeError('fetch failed', { cause: error });
    }
    const { statusCode: status, headers: raw, body: source } = answer;
    if (REDIRECT_STATUSES.has(status) && raw['location'] !== undefined) {
      // Redirects are rare for API calls and their rules (method rewriting, dropping
      // credentials across origins) are fetch's; the replayable body lets it redo the call.
      await source.dump().catch(() => undefined);
      return viaFetch(input, init);
    }
    const headers = new Headers();
    for (const name of Object.keys(raw)) {
      const value = raw[name];
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const v of value) headers.append(name, v);
      else headers.append(name, value);
    }
    let body: ReadableStream<Uint8Array> | null = null;
    if (plan.method === 'HEAD' || NULL_BODY_STATUSES.has(status)) {
      await source.dump().catch(() => undefined);
    } else {
      const codings = headers.get('content-encoding')?.split(',') ?? [];
      if (codings.length > MAX_CODINGS) {
        // As fetch does: a stack of decoders this deep is a decompression bomb, not a body.
        source.on('error', () => undefined).destroy();
        throw new TypeError('fetch failed', { cause: new Error(`too many content-encodings in response: ${codings.length}, maximum allowed is ${MAX_CODINGS}`) });
      }
      body = webStream(decoded(source, codings), signal);
    }
    const inRange = status >= 200 && status <= 599;
    const response = new Response(body, {
      status: inRange ? status : 200,
      ...(isReasonPhrase(answer.statusText) && { statusText: answer.statusText }),
      headers,
    });
    if (!inRange) {
      // The Response constructor refuses a status fetch itself passes through (e.g. 600).
      Object.defineProperties(response, { status: { value: status }, ok: { value: false } });
    }
    Object.defineProperty(response, 'url', { value: plan.url });
    if (body !== null) unread.register(response, { stream: new WeakRef(body), source });
    return response;
  };
  // undici's Request/Response types are structurally the platform's, declared separately.
  return direct as unknown as FetchFunction;
}

/** What `dispatcher.request` needs for one plain request. */
interface RequestPlan {
  origin: string;
  path: string;
  method: Dispatcher.HttpMethod;
  headers: Record<string, string>;
  body: string | Uint8Array | null;
  /** The request URL without its fragment, as `Response.url` reports it. */
  url: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);
/** Methods fetch upper-cases whatever their case (not PATCH: fetch sends it as spelled). */
const NORMALIZED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Header values fetch would reject: NUL, CR, LF, or code points beyond one byte. */
const BAD_HEADER_VALUE = /[\0\r\n]|[^\0-\xff]/;
const HTTP_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;
const REASON_PHRASE = /^[\t\x20-\x7e\x80-\xff]*$/;
const INIT_KEYS = new Set(['method', 'headers', 'body', 'signal']);

/**
 * The plain request `input`/`init` describe, or undefined when fetch's own
 * handling is needed (or fetch would reject the arguments: it then does so itself).
 */
function planRequest(input: FetchInput, init: RequestInit | undefined): RequestPlan | undefined {
  let url: URL;
  if (typeof input === 'string') {
    if (!URL.canParse(input)) return undefined;
    url = new URL(input);
  } else if (input instanceof URL) {
    url = input;
  } else {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '') return undefined;
  if (init !== undefined) {
    for (const key of Object.keys(init)) {
      if (!INIT_KEYS.has(key) && (init as Record<string, unknown>)[key] !== undefined) return undefined;
    }
    if (init.signal !== undefined && init.signal !== null && !(init.signal instanceof AbortSignal)) return undefined;
  }
  let method = init?.method === undefined ? 'GET' : String(init.method);
  if (!TOKEN.test(method)) return undefined;
  const upper = method.toUpperCase();
  if (FORBIDDEN_METHODS.has(upper)) return undefined;
  if (NORMALIZED_METHODS.has(upper)) method = upper;

  const rawBody = init?.body ?? null;
  let body: string | Uint8Array | null;
  if (rawBody === null || typeof rawBody === 'string') body = rawBody;
  else if (ArrayBuffer.isView(rawBody)) body = new Uint8Array(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength).slice();
  else if (rawBody instanceof ArrayBuffer) body = new Uint8Array(rawBody.slice(0));
  else return undefined;
  if (body !== null && (method === 'GET' || method === 'HEAD')) return undefined;

  const headers = requestHeaders(init?.headers);
  if (headers === undefined) return undefined;
  // The headers fetch adds when the caller did not set them.
  if (typeof body === 'string') addDefault(headers, 'content-type', 'text/plain;charset=UTF-8');
  addDefault(headers, 'accept', '*/*');
  addDefault(headers, 'accept-language', '*');
  headers.set('sec-fetch-mode', { name: 'sec-fetch-mode', value: 'cors' });
  addDefault(headers, 'user-agent', 'undici');
  addDefault(headers, 'accept-encoding', url.protocol === 'https:' ? 'br, gzip, deflate' : 'gzip, deflate');
  const wire: Record<string, string> = {};
  for (const { name, value } of headers.values()) wire[name] = value;

  // An empty query (`…/path?`) is kept on the wire, as fetch keeps it.
  const search = url.search === '' && url.href[url.href.length - url.hash.length - 1] === '?' ? '?' : url.search;
  const fragment = url.href.indexOf('#');
  const href = fragment < 0 ? url.href : url.href.slice(0, fragment);
  return { origin: url.origin, path: url.pathname + search, method: method as Dispatcher.HttpMethod, headers: wire, body, url: href };
}

/**
 * The caller's request headers, with the first spelling of each name kept for
 * the wire; undefined for anything fetch would reject or treats specially.
 */
function requestHeaders(init: HeadersInit | undefined): WireHeaders | undefined {
  const out: WireHeaders = new Map();
  if (init === undefined || init === null) return out;
  if (Array.isArray(init)) {
    for (const pair of init as unknown[]) {
      if (!Array.isArray(pair) || pair.length !== 2 || !addHeader(out, String(pair[0]), pair[1])) return undefined;
    }
    return out;
  }
  if (init instanceof globalThis.Headers || init instanceof Headers) {
    // A Headers object may hold several set-cookie values; fetch handles those.
    for (const [name, value] of init as Iterable<[string, string]>) {
      if (name === 'set-cookie' || !addHeader(out, name, value)) return undefined;
    }
    return out;
  }
  const proto: unknown = typeof init === 'object' ? Object.getPrototypeOf(init) : undefined;
  if (proto !== Object.prototype && proto !== null) return undefined;
  for (const name of Object.keys(init)) {
    if (!addHeader(out, name, (init as Record<string, unknown>)[name])) return undefined;
  }
  return out;
}

/** Request headers by lower-cased name, each with the spelling sent on the wire. */
type WireHeaders = Map<string, { name: string; value: string }>;

/** Adds one header as fetch's Headers would (value trimmed, repeats joined by `, `); false if fetch would reject it. */
function addHeader(out: WireHeaders, name: string, rawValue: unknown): boolean {
  const value = String(rawValue).replace(HTTP_WHITESPACE, '');
  if (!TOKEN.test(name) || BAD_HEADER_VALUE.test(value)) return false;
  const key = name.toLowerCase();
  const seen = out.get(key);
  out.set(key, seen ? { name: seen.name, value: `${seen.value}, ${value}` } : { name, value });
  return true;
}

function addDefault(headers: WireHeaders, name: string, value: string): void {
  if (!headers.has(name)) headers.set(name, { name, value });
}

function isReasonPhrase(text: string | undefined): text is string {
  return text !== undefined && REASON_PHRASE.test(text);
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

const hasZstd = typeof (zlib as { createZstdDecompress?: unknown }).createZstdDecompress === 'function';

const MAX_CODINGS = 5;

/**
 * The body decoded per its `content-encoding` codings, as fetch decodes it:
 * applied last-first; an unknown coding leaves the body as it came.
 */
function decoded(source: Readable, codings: readonly string[]): Readable {
  if (codings.length === 0) return source;
  const decoders: NodeJS.ReadWriteStream[] = [];
  for (let i = codings.length - 1; i >= 0; i--) {
    const coding = codings[i]!.trim().toLowerCase();
    // Lenient flushing, as fetch (and curl) do: servers do send slightly truncated streams.
    if (coding === 'gzip' || coding === 'x-gzip') {
      decoders.push(zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH }));
    } else if (coding === 'deflate') {
      decoders.push(inflateAny());
    } else if (coding === 'br') {
      decoders.push(zlib.createBrotliDecompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH }));
    } else if (coding === 'zstd' && hasZstd) {
      const create = (zlib as unknown as { createZstdDecompress: () => NodeJS.ReadWriteStream }).createZstdDecompress;
      decoders.push(create());
    } else {
      return source;
    }
  }
  if (decoders.length === 0) return source;
  const last = decoders[decoders.length - 1] as unknown as Readable;
  // The error reaches the reader through `last`, which pipeline destroys with it.
  (pipeline as unknown as (...streams: unknown[]) => void)(source, ...decoders, () => undefined);
  return last;
}

/** `deflate` is zlib-wrapped by the standard and raw from some servers: the first byte tells which. */
function inflateAny(): NodeJS.ReadWriteStream {
  const options = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  let inner: zlib.Inflate | zlib.InflateRaw | undefined;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (inner === undefined) {
        if (chunk.length === 0) return callback();
        inner = (chunk[0]! & 0x0f) === 0x08 ? zlib.createInflate(options) : zlib.createInflateRaw(options);
        inner.on('data', (data: Buffer) => this.push(data));
        inner.on('error', (error: Error) => this.destroy(error));
      }
      inner.write(chunk, callback);
    },
    flush(callback) {
      if (inner === undefined) return callback();
      inner.once('end', () => callback());
      inner.end();
    },
  });
}

/**
 * A web stream over the response body. Failures reach the reader as fetch
 * reports them: the abort reason when the caller aborted, otherwise a
 * `TypeError('terminated')` whose cause is the transport error.
 */
function webStream(source: Readable, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // Node streams may still emit after the reader cancelled; a closed controller throws.
        let settled = false;
        source.on('data', (chunk: Buffer) => {
          if (settled) return;
          // A copy: undici may hand out views of buffers it reuses.
          controller.enqueue(new Uint8Array(chunk));
          if ((controller.desiredSize ?? 0) <= 0) source.pause();
        });
        source.once('end', () => {
          if (settled) return;
          settled = true;
          controller.close();
        });
        source.once('error', (error: unknown) => {
          if (settled) return;
          settled = true;
          controller.error(signal?.aborted ? abortReason(signal) : new TypeError('terminated', { cause: error }));
        });
        source.once('close', () => {
          // Destroyed without an error (e.g. by cancel): nothing more will come.
          if (settled || source.readableEnded) return;
          settled = true;
          controller.error(signal?.aborted ? abortReason(signal) : new TypeError('terminated'));
        });
      },
      pull() {
        source.resume();
      },
      cancel() {
        source.destroy();
      },
    },
    BODY_STRATEGY,
  );
}

/** Buffer up to 64 KiB of body ahead of the reader, counted in bytes. */
const BODY_STRATEGY: QueuingStrategy<Uint8Array> = { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength };

/**
 * A large body nobody reads holds its pooled connection; fetch frees it when the
 * response is collected, unless someone took the body stream, and so do we.
 */
const unread = new FinalizationRegistry<{ stream: WeakRef<ReadableStream<Uint8Array>>; source: Readable }>(({ stream, source }) => {
  if (stream.deref()?.locked !== true && !source.readableEnded) source.destroy();
});
