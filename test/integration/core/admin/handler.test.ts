/**
 * The reference admin API host over a real local registry, on a real loopback
 * socket: every route, every status of the guide's section 11 table that applies,
 * strict query parsing, early 413, 415, authentication, host checks, attribution
 * and body-free logs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminHandler, type AdminHandlerDeps } from '../../../../core/admin/handler';
import { createDefaultAdvisor } from '../../../../core/advisor/index';
import { openModel } from '../../../../core/models/index';
import { bearerTokenAuthenticator, createAdminServer, stopServer } from '../../../../core/admin/server';
import type { AdminLogEntry, AdvisorInput } from '../../../../core/admin/types';
import { openHttpStore } from '../../../../core/store/http';
import { openLocalStore } from '../../../../core/store/local';
import type { AuditEvent, AuditSink, SkillStore } from '../../../../core/store/types';
import { startTcpProxy } from '../../../helpers/tcpProxy';
import { samplePackage } from '../store/samplePackage';

const BASE = '/api/v1/skills';
const MAX_PACKAGE_BYTES = 64 * 1024;

class RecordingAudit implements AuditSink {
  readonly events: AuditEvent[] = [];
  failing = false;
  async record(event: AuditEvent): Promise<void> {
    if (this.failing) throw new Error('audit sink down');
    this.events.push(event);
  }
}

interface Host {
  origin: string;
  port: number;
  logs: AdminLogEntry[];
  diagnostics: string[];
  server: Server;
  close(): Promise<void>;
}

async function startHost(deps: Omit<AdminHandlerDeps, 'logger'>): Promise<Host> {
  const logs: AdminLogEntry[] = [];
  const diagnostics: string[] = [];
  const handler = createAdminHandler({
    ...deps,
    logger: { request: (e) => logs.push(e), diagnostic: (code) => diagnostics.push(code) },
  });
  const server = createAdminServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { origin: `http://127.0.0.1:${port}`, port, logs, diagnostics, server, close: () => stopServer(server, 1000) };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON bodies are navigated freely in assertions
type Json = any;

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: Json;
  text: string;
}

async function call(host: Host, method: string, path: string, options: { headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Reply> {
  const res = await request(`${host.origin}${path}`, { method: method as 'GET', headers: options.headers, body: options.body });
  const text = await res.body.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, json, text };
}

const JSON_TYPE = { 'content-type': 'application/json' };
const pkg = (seed: string, overrides: Record<string, unknown> = {}) => JSON.stringify(samplePackage(seed, overrides), null, 2);

let counter = 0;
const fresh = () => `h${process.pid}-${++counter}`;

/** Sends raw bytes on a fresh socket and collects what comes back until the server closes or `until` matches. */
function rawExchange(
  port: number,
  send: (socket: Socket) => void,
  until: (text: string) => boolean,
  timeoutMs = 60_000,
): Promise<{ text: string; elapsedMs: number; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, elapsedMs: Date.now() - started, closed });
    };
    const timer = setTimeout(() => (settled ? undefined : (settled = true, socket.destroy(), reject(new Error(`no answer in ${timeoutMs} ms; got ${JSON.stringify(text)}`)))), timeoutMs);
    socket.on('data', (c) => {
      text += c.toString('latin1');
      if (until(text)) finish(false);
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    socket.on('connect', () => send(socket));
  });
}

describe('admin handler over a local registry', () => {
  let dir: string;
  let store: SkillStore;
  const audit = new RecordingAudit();
  let host: Host;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillbench-admin-'));
    store = await openLocalStore(dir, { audit, limits: { maxPackageBytes: MAX_PACKAGE_BYTES } });
    host = await startHost({
      store,
      // The host vouches for this header in tests only; see the attribution tests.
      attribution: (req) => (typeof req.headers['x-test-actor'] === 'string' ? req.headers['x-test-actor'] : undefined),
    });
  });
  afterAll(async () => {
    await host?.close();
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function create(ns: string, name = 'skill', seed = 'one', extra: Record<string, unknown> = {}) {
    const r = await call(host, 'PUT', `${BASE}/${ns}/${name}`, { headers: { ...JSON_TYPE, 'if-none-match': '*' }, body: pkg(seed, extra) });
    expect(r.status, r.text).toBe(201);
    return r;
  }

  async function update(ns: string, etag: string, seed: string, name = 'skill') {
    const r = await call(host, 'PUT', `${BASE}/${ns}/${name}`, { headers: { ...JSON_TYPE, 'if-match': etag }, body: pkg(seed) });
    expect(r.status, r.text).toBe(200);
    return r;
  }

  describe('schema', () => {
    it('serves the authoring schema on GET and HEAD, 405 with Allow otherwise', async () => {
      const r = await call(host, 'GET', `${BASE}/schema`);
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(r.json).toBeTypeOf('object');
      expect(JSON.stringify(r.json)).toContain('planning_instructions');
      const head = await call(host, 'HEAD', `${BASE}/schema`);
      expect(head.status).toBe(200);
      expect(head.text).toBe('');
      const post = await call(host, 'POST', `${BASE}/schema`, { headers: JSON_TYPE, body: '{}' });
      expect(post.status).toBe(405);
      expect(post.headers['allow']).toBe('GET, HEAD');
      expect(post.json.error.code).toBe('method_not_allowed');
    });
  });

  describe('validate', () => {
    it('answers 200 with the normalized package and a validation result', async () => {
      const body = pkg('valid', { tags: ['Store', 'conformance', 'store'] });
      const r = await call(host, 'POST', `${BASE}/travel/weather/validate`, { headers: JSON_TYPE, body });
      expect(r.status).toBe(200);
      expect(r.json.validation).toMatchObject({ valid: true, errors: [] });
      expect(r.json.validation.metrics).toMatchObject({ resource_count: 1, token_estimator: { name: 'truvag3-canonical', version: 'v1' } });
      expect(r.json.normalized.tags).toEqual(['conformance', 'store']);
    });

    it('reports findings of an invalid package in a 200 result, with locations', async () => {
      const body = pkg('invalid', { planning_instructions: [], surprise: 1 });
      const r = await call(host, 'POST', `${BASE}/travel/weather/validate`, { headers: { 'content-type': 'application/json; charset=utf-8' }, body });
      expect(r.status).toBe(200);
      expect(r.json.validation.valid).toBe(false);
      const unknown = r.json.validation.errors.find((f: { path: string }) => f.path === '/surprise');
      expect(unknown).toMatchObject({ severity: 'error' });
      expect(unknown.line).toBeGreaterThan(1);
    });

    it('accepts only application/json (charset utf-8 allowed): 415 otherwise', async () => {
      for (const type of ['text/plain', 'application/json; charset=latin1', 'application/jsonx', 'application/json; charset=utf-8; q=1']) {
        const r = await call(host, 'POST', `${BASE}/travel/weather/validate`, { headers: { 'content-type': type }, body: pkg('x') });
        expect(r.status, type).toBe(415);
        expect(r.json.error.code).toBe('unsupported_media_type');
      }
      const none = await call(host, 'POST', `${BASE}/travel/weather/validate`, { body: Buffer.from(pkg('x')) });
      expect(none.status).toBe(415);
      const upper = await call(host, 'POST', `${BASE}/travel/weather/validate`, { headers: { 'content-type': 'Application/JSON;Charset=UTF-8' }, body: pkg('x') });
      expect(upper.status).toBe(200);
    });

    it('rejects an invalid identity, query parameters, an empty body and a wrong method with 400/405', async () => {
      expect((await call(host, 'POST', `${BASE}/Bad_NS/weather/validate`, { headers: JSON_TYPE, body: pkg('x') })).status).toBe(400);
      expect((await call(host, 'POST', `${BASE}/travel/${'n'.repeat(65)}/validate`, { headers: JSON_TYPE, body: pkg('x') })).status).toBe(400);
      expect((await call(host, 'POST', `${BASE}/travel/weather/validate?dry=1`, { headers: JSON_TYPE, body: pkg('x') })).status).toBe(400);
      expect((await call(host, 'POST', `${BASE}/travel/weather/validate`, { headers: JSON_TYPE, body: '' })).status).toBe(400);
      const get = await call(host, 'GET', `${BASE}/travel/weather/validate`);
      expect(get.status).toBe(405);
      expect(get.headers['allow']).toBe('POST');
    });

    it('validates the bytes as sent: invalid UTF-8 and a byte order mark are findings (200), and 422 on PUT', async () => {
      const text = pkg('bytes');
      const at = text.indexOf('Conformance bytes');
      const broken = Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from([0xc3, 0x28]), Buffer.from(text.slice(at))]);
      const bad = await call(host, 'POST', `${BASE}/travel/weather/validate`, { headers: JSON_TYPE, body: broken });
      expect(bad.status).toBe(200);
      expect(bad.json.validation.valid).toBe(false);
      expect(bad.json.validation.errors[0].line).toBeGreaterThan(0);
      const bom = await call(host, 'POST', `${BASE}/travel/weather/validate`, { headers: JSON_TYPE, body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]) });
      expect(bom.status).toBe(200);
      expect(bom.json.validation.errors.map((f: { code: string }) => f.code)).toContain('byte_order_mark');
      const ns = fresh();
      const put = await call(host, 'PUT', `${BASE}/${ns}/skill`, { headers: { ...JSON_TYPE, 'if-none-match': '*' }, body: broken });
      expect(put.status).toBe(422);
      expect(put.json.error.details.errors.length).toBeGreaterThan(0);
    });

    it('does not store anything', async () => {
      const ns = fresh();
      const validated = await call(host, 'POST', `${BASE}/${ns}/skill/validate`, { headers: JSON_TYPE, body: pkg('nostore') });
      // The package was read and judged valid, and still nothing was stored.
      expect(validated.status).toBe(200);
      expect(validated.json.validation.valid).toBe(true);
      expect((await call(host, 'GET', `${BASE}/${ns}/skill`)).status).toBe(404);
      expect((await call(host, 'GET', `${BASE}/${ns}/skill/versions`)).status).toBe(404);
    });
  });

  describe('analyze', () => {
    it('names the advisor and its cause when the model has no key, instead of blaming the skill store', async () => {
      const model = await openModel('openai:fast', { env: {} });
      const advised = await startHost({ store, advisor: createDefaultAdvisor({ model }) });
      try {
        const r = await call(advised, 'POST', `${BASE}/travel/weather/analyze`, { headers: JSON_TYPE, body: pkg('nokey') });
        expect(r.status).toBe(503);
        expect(r.json.error.code).toBe('unavailable');
        expect(r.json.error.message).toMatch(/^the authoring advisor \(openai:fast\) is unavailable: .*no API key; set OPENAI_API_KEY; deterministic validation still applies$/);
        expect(r.json.error.message).not.toContain('skill store');
      } finally {
        await advised.close();
        await model.close?.();
      }
    });

    it('does not exist without an advisor (404)', async () => {
      const r = await call(host, 'POST', `${BASE}/travel/weather/analyze`, { headers: JSON_TYPE, body: pkg('x') });
      expect(r.status).toBe(404);
    });

    it('calls the advisor with a body-free input only for a valid package, keeps only proposals that apply and validate; advisor failures are 503/504', async () => {
      const seen: AdvisorInput[] = [];
      let mode: 'ok' | 'fail' | 'slow' = 'ok';
      const advised = await startHost({
        store,
        requestTimeoutMs: 300,
        advisor: {
          analyze: async (input, signal) => {
            seen.push(input);
            if (mode === 'fail') throw new Error('model down');
            if (mode === 'slow') await new Promise((r, j) => { const t = setTimeout(r, 5000); signal.addEventListener('abort', () => { clearTimeout(t); j(new Error('aborted')); }); });
            return {
              summary: 'Tighten the description.',
              suggestions: [{ message: 'Name the trigger.' }],
              proposals: [
                { title: 'Sharper description', rationale: 'Concrete vocabulary.', patch: [{ op: 'replace', path: '/description', value: 'Use when a request asks to run conformance checks of a store.' }] },
                { title: 'Drop the plan', rationale: 'Breaks validation.', patch: [{ op: 'replace', path: '/planning_instructions', value: [] }] },
                { title: 'Rewrite the checklist', rationale: 'Blind edit.', patch: [{ op: 'replace', path: '/resources/0/content', value: 'New body.' }] },
                { title: 'Bad path', rationale: 'Does not apply.', patch: [{ op: 'remove', path: '/nowhere' }] },
              ],
            };
          },
        },
      });
      try {
        const ok = await call(advised, 'POST', `${BASE}/travel/weather/analyze`, { headers: JSON_TYPE, body: pkg('advice') });
        expect(ok.status).toBe(200);
        expect(ok.json.analysis.proposals).toHaveLength(1);
        expect(ok.json.analysis.proposals[0]).toMatchObject({ id: 'p1', patch: [{ op: 'replace', path: '/description' }], changes: [expect.stringContaining('description')] });
        expect(ok.json.analysis.dropped.map((d: Json) => [d.id, d.reason])).toEqual([
          ['p2', 'validation_failed'],
          ['p3', 'withheld_content'],
          ['p4', 'patch_failed'],
        ]);
        expect(ok.json.validation.valid).toBe(true);
        expect(seen).toHaveLength(1);
        const input = JSON.stringify(seen[0]);
        expect(input).not.toContain('Checklist body for advice');
        expect(input).not.toContain('Revision advice');
        expect(seen[0]?.package.resources[0]).toMatchObject({ name: 'checklist', load_when: expect.any(String) });

        const invalid = await call(advised, 'POST', `${BASE}/travel/weather/analyze`, { headers: JSON_TYPE, body: pkg('bad', { planning_instructions: [] }) });
        expect(invalid.status).toBe(200);
        expect(invalid.json).toMatchObject({ analysis: null, validation: { valid: false } });
        expect(seen).toHaveLength(1);

        mode = 'fail';
        const failed = await call(advised, 'POST', `${BASE}/travel/weather/analyze`, { headers: JSON_TYPE, body: pkg('advice') });
        expect(failed.status).toBe(503);
        // The advisor and its cause, not a skill store that is fine.
        expect(failed.json.error).toEqual({ code: 'unavailable', message: 'the authoring advisor is unavailable: model down; deterministic validation still applies' });
        mode = 'slow';
        const slow = await call(advised, 'POST', `${BASE}/travel/weather/analyze`, { headers: JSON_TYPE, body: pkg('advice') });
        expect(slow.status).toBe(504);
        expect(slow.json.error.code).toBe('timeout');
      } finally {
        await advised.close();
      }
    });
  });

  describe('publish (PUT)', () => {
    it('creates with If-None-Match: * → 201 with ETag and Location, the documented body', async () => {
      const ns = fresh();
      const r = await call(host, 'PUT', `${BASE}/${ns}/weather`, {
        headers: { ...JSON_TYPE, 'if-none-match': '*', 'idempotency-key': `create-${ns}` },
        body: pkg('first'),
      });
      expect(r.status).toBe(201);
      expect(r.headers['etag']).toBe(r.json.etag);
      expect(r.headers['location']).toBe(`${BASE}/${ns}/weather/versions/1`);
      expect(r.json).toMatchObject({
        outcome: 'created',
        namespace: ns,
        name: 'weather',
        version: 1,
        audit_recorded: true,
        warnings: [],
        replayed: false,
        validation: { valid: true, errors: [] },
      });
      expect(r.json.manifest_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
      const replay = await call(host, 'PUT', `${BASE}/${ns}/weather`, {
        headers: { ...JSON_TYPE, 'if-none-match': '*', 'idempotency-key': `create-${ns}` },
        body: pkg('first'),
      });
      expect(replay.status).toBe(201);
      expect(replay.json).toMatchObject({ version: 1, etag: r.json.etag, replayed: true });
    });

    it('publishes with the current If-Match → 200; unchanged content is a 200 no-op; a stale ETag is 412', async () => {
      const ns = fresh();
      const first = await create(ns);
      const second = await update(ns, first.json.etag, 'two');
      expect(second.json).toMatchObject({ outcome: 'published', version: 2 });
      const noop = await update(ns, second.json.etag, 'two');
      expect(noop.json).toMatchObject({ outcome: 'same_content_noop', version: 2, etag: second.json.etag });
      const stale = await call(host, 'PUT', `${BASE}/${ns}/skill`, { headers: { ...JSON_TYPE, 'if-match': first.json.etag }, body: pkg('three') });
      expect(stale.status).toBe(412);
      expect(stale.json.error.code).toBe('precondition_failed');
      const again = await call(host, 'PUT', `${BASE}/${ns}/skill`, { headers: { ...JSON_TYPE, 'if-none-match': '*' }, body: pkg('three') });
      expect(again.status).toBe(412);
    });

    it('needs exactly one precondition: none is 428, both or malformed ones are 400', async () => {
      const ns = fresh();
      const first = await create(ns);
      const none = await call(host, 'PUT', `${BASE}/${ns}/skill`, { headers: JSON_TYPE, body: pkg('x') });
      expect(none.status).toBe(428);
      expect(none.json.error.code).toBe('precondition_required');
      const both = await call(host, 'PUT', `${BASE}/${ns}/skill`, { headers: { ...JSON_TYPE, 'if-none-match': '*', 'if-match': first.json.etag }, body: pkg('x') });
      expect(both.status).toBe(400);
      const malformed: Record<string, string>[] = [{ 'if-none-match': first.json.etag }, { 'if-match': '*' }, { 'if-match': 'no-quotes' }];
      for (const headers of malformed) {
        const r = await call(host, 'PUT', `${BASE}/${ns}/skill`, { headers: { ...JSON_TYPE, ...headers }, body: pkg('x') });
        expect(r.status, JSON.stringify(headers)).toBe(400);
      }
      expect((await call(host, 'GET', `${BASE}/${ns}/skill`)).json.version).toBe(1);
    });

    it('answers 422 with findings for an invalid package and stores nothing', async () => {
      const ns = fresh();
      const r = await call(host, 'PUT', `${BASE}/${ns}/skill`, { headers: { ...JSON_TYPE, 'if-none-match': '*' }, body: pkg('bad', { change_reason: '' }) });
      expect(r.status).toBe(422);
      expect(r.json.error.code).toBe('validation_failed');
      expect(r.json.error.details.errors.length).toBeGreaterThan(0);
      expect(r.json.error.details.errors[0]).toMatchObject({ severity: 'error', path: expect.any(String) });
      expect((await call(host, 'GET', `${BASE}/${ns}/skill`)).status).toBe(404);
    });

    it('rejects a malformed Idempotency-Key (400), a wrong media type (415) and an invalid identity (400)', async () => {
      const ns = fresh();
      const key = await call(host, 'PUT', `${BASE}/${ns}/skill`, { headers: { ...JSON_TYPE, 'if-none-match': '*', 'idempotency-key': 'has space' }, body: pkg('x') });
      expect(key.status).toBe(400);
      const media = await call(host, 'PUT', `${BASE}/${ns}/skill`, { headers: { 'content-type': 'text/json', 'if-none-match': '*' }, body: pkg('x') });
      expect(media.status).toBe(415);
      const id = await call(host, 'PUT', `${BASE}/${ns}/-bad`, { headers: { ...JSON_TYPE, 'if-none-match': '*' }, body: pkg('x') });
      expect(id.status).toBe(400);
      const encoded = await call(host, 'PUT', `${BASE}/${ns}/..%2Fx`, { headers: { ...JSON_TYPE, 'if-none-match': '*' }, body: pkg('x') });
      expect(encoded.status).toBe(400);
    });

    it('reports a committed publication with audit_recorded false when the audit sink fails', async () => {
      const ns = fresh();
      audit.failing = true;
      try {
        const r = await call(host, 'PUT', `${BASE}/${ns}/skill`, { headers: { ...JSON_TYPE, 'if-none-match': '*' }, body: pkg('unaudited') });
        expect(r.status).toBe(201);
        expect(r.json.audit_recorded).toBe(false);
        expect(r.json.warnings).toEqual([{ code: 'skill_audit_not_recorded', message: expect.any(String) }]);
      } finally {
        audit.failing = false;
      }
      expect((await call(host, 'GET', `${BASE}/${ns}/skill`)).status).toBe(200);
    });
  });

  describe('413: the body limit is enforced before the body is read', () => {
    it('refuses a declared Content-Length above the limit at once, without waiting for the body', async () => {
      const huge = 10 * 1024 * 1024 * 1024; // 10 GiB announced, a few bytes sent
      const r = await rawExchange(
        host.port,
        (s) => s.write(`PUT ${BASE}/big/skill HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nIf-None-Match: *\r\nContent-Length: ${huge}\r\n\r\n{"display`),
        (t) => t.includes('\r\n\r\n') && t.includes('"error"'),
      );
      expect(r.text).toMatch(/^HTTP\/1\.1 413 /);
      expect(r.text.toLowerCase()).toContain('connection: close');
      expect(r.text).toContain('payload_too_large');
      expect(r.elapsedMs).toBeLessThan(8_000);
    });

    it('cuts off a streamed (chunked) body as soon as it passes the limit', async () => {
      let sent = 0;
      const r = await rawExchange(
        host.port,
        (s) => {
          s.write(`POST ${BASE}/big/skill/validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
          const chunk = 'x'.repeat(16 * 1024);
          // Send twice the limit, then keep the request open: only an early answer ends this exchange.
          for (let i = 0; i < (2 * MAX_PACKAGE_BYTES) / chunk.length; i++) {
            s.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
            sent += chunk.length;
          }
        },
        (t) => t.includes('"error"'),
      );
      expect(r.text).toMatch(/^HTTP\/1\.1 413 /);
      expect(sent).toBe(2 * MAX_PACKAGE_BYTES);
    });

    it('answers Expect: 100-continue with 413 instead of 100 Continue for an oversized body', async () => {
      const r = await rawExchange(
        host.port,
        (s) => s.write(`PUT ${BASE}/big/skill HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nIf-None-Match: *\r\nExpect: 100-continue\r\nContent-Length: ${MAX_PACKAGE_BYTES + 1}\r\n\r\n`),
        (t) => t.includes('"error"'),
      );
      expect(r.text).toMatch(/^HTTP\/1\.1 413 /);
      expect(r.text).not.toContain('100 Continue');
    });

    it('sends 100 Continue for an acceptable body and then answers normally', async () => {
      const body = pkg('continue');
      const r = await rawExchange(
        host.port,
        (s) => {
          s.write(`POST ${BASE}/travel/weather/validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`);
          s.once('data', () => s.write(body));
        },
        (t) => t.includes('"validation"') && t.trimEnd().endsWith('}'),
      );
      expect(r.text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
    });
  });

  describe('reads', () => {
    it('reads the published package with its ETag header; 404 when missing', async () => {
      const ns = fresh();
      const first = await create(ns);
      const r = await call(host, 'GET', `${BASE}/${ns}/skill`);
      expect(r.status).toBe(200);
      expect(r.headers['etag']).toBe(first.json.etag);
      expect(r.json).toMatchObject({ namespace: ns, name: 'skill', version: 1, etag: first.json.etag, published: true });
      expect(r.json.package.display_name).toBe('Conformance one');
      const head = await call(host, 'HEAD', `${BASE}/${ns}/skill`);
      expect(head.status).toBe(200);
      expect(head.headers['etag']).toBe(first.json.etag);
      const missing = await call(host, 'GET', `${BASE}/${ns}/absent`);
      expect(missing.status).toBe(404);
      expect(missing.json.error.code).toBe('not_found');
      expect((await call(host, 'GET', `${BASE}/${ns}/skill?x=1`)).status).toBe(400);
    });

    it('lists body-free metadata with strict filters', async () => {
      const ns = fresh();
      await create(ns, 'alpha', 'a', { domains: ['travel'], tags: ['weather'] });
      await create(ns, 'beta', 'b', { domains: ['finance'], tags: ['rates'] });
      const all = await call(host, 'GET', `${BASE}?namespace=${ns}`);
      expect(all.status).toBe(200);
      expect(all.json.skills.map((s: { name: string }) => s.name)).toEqual(['alpha', 'beta']);
      expect(all.json.skills[0]).not.toHaveProperty('planning_instructions');
      const travel = await call(host, 'GET', `${BASE}?namespace=${ns}&domain=travel&limit=50`);
      expect(travel.json.skills.map((s: { name: string }) => s.name)).toEqual(['alpha']);
      const rates = await call(host, 'GET', `${BASE}?tag=rates&namespace=${ns}`);
      expect(rates.json.skills.map((s: { name: string }) => s.name)).toEqual(['beta']);
      for (const bad of ['?colour=red', `?namespace=${ns}&namespace=${ns}`, '?domain=Not%20A%20Slug', '?limit=0', '?limit=abc', '?limit=', '?tag=', '?limit=1.5']) {
        const r = await call(host, 'GET', `${BASE}${bad}`);
        expect(r.status, bad).toBe(400);
        expect(r.json.error.code).toBe('invalid_request');
      }
    });

    it('accepts exactly the valid filter combinations (property)', async () => {
      const ns = fresh();
      await create(ns, 'gamma', 'g', { domains: ['travel'], tags: ['weather'] });
      const slug = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
      const param = fc.oneof(
        fc.record({ key: fc.constantFrom('namespace', 'domain', 'tag'), value: slug, ok: fc.constant(true) }),
        fc.record({ key: fc.constant('limit'), value: fc.integer({ min: 1, max: 10_000 }).map(String), ok: fc.constant(true) }),
        fc.record({ key: fc.constant('limit'), value: fc.constantFrom('0', '-1', 'x', '01', '1e3'), ok: fc.constant(false) }),
        fc.record({ key: fc.constantFrom('namespace', 'domain', 'tag'), value: fc.constantFrom('UPPER', 'a_b', '-x', 'x-'), ok: fc.constant(false) }),
        fc.record({ key: fc.constantFrom('page', 'sort', 'Namespace', 'before'), value: slug, ok: fc.constant(false) }),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(param, { maxLength: 5 }), async (params) => {
          const keys = params.map((p) => p.key);
          const expectOk = params.every((p) => p.ok) && new Set(keys).size === keys.length;
          const query = params.map((p) => `${p.key}=${encodeURIComponent(p.value)}`).join('&');
          const r = await call(host, 'GET', `${BASE}${query ? `?${query}` : ''}`);
          expect(r.status, query).toBe(expectOk ? 200 : 400);
        }),
        { numRuns: 60 },
      );
    });

    it('pages body-free history with before/limit and reads exact versions', async () => {
      const ns = fresh();
      let etag = (await create(ns, 'skill', 'v1')).json.etag as string;
      for (const seed of ['v2', 'v3', 'v4']) etag = (await update(ns, etag, seed)).json.etag;
      const page = await call(host, 'GET', `${BASE}/${ns}/skill/versions?limit=2`);
      expect(page.status).toBe(200);
      expect(page.json).toMatchObject({ namespace: ns, name: 'skill', next_before: 3 });
      expect(page.json.versions.map((v: { version: number }) => v.version)).toEqual([4, 3]);
      expect(page.json.versions[0]).not.toHaveProperty('package');
      const older = await call(host, 'GET', `${BASE}/${ns}/skill/versions?before=3&limit=20`);
      expect(older.json.versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
      expect(older.json.next_before).toBeNull();
      const v2 = await call(host, 'GET', `${BASE}/${ns}/skill/versions/2`);
      expect(v2.status).toBe(200);
      expect(v2.json).toMatchObject({ version: 2, published: false });
      expect(v2.json.package.display_name).toBe('Conformance v2');
      for (const bad of ['/versions/0', '/versions/abc', '/versions/-1', '/versions/1.0', '/versions?before=0', '/versions?limit=x', '/versions?after=1', '/versions/2?x=1']) {
        expect((await call(host, 'GET', `${BASE}/${ns}/skill${bad}`)).status, bad).toBe(400);
      }
      expect((await call(host, 'GET', `${BASE}/${ns}/skill/versions/99`)).status).toBe(404);
      expect((await call(host, 'GET', `${BASE}/${fresh()}/skill/versions`)).status).toBe(404);
    });
  });

  describe('delete', () => {
    it('deletes one version and a range with If-Match and X-Audit-Reason; repeats are no-ops', async () => {
      const ns = fresh();
      let etag = (await create(ns, 'skill', 'd1')).json.etag as string;
      for (const seed of ['d2', 'd3', 'd4', 'd5', 'd6']) etag = (await update(ns, etag, seed)).json.etag;
      const reason = 'Retention review — done';
      const one = await call(host, 'DELETE', `${BASE}/${ns}/skill/versions/1`, {
        headers: { 'if-match': etag, 'x-audit-reason': Buffer.from(reason, 'utf8').toString('latin1'), 'x-test-actor': 'carol' },
      });
      expect(one.status, one.text).toBe(200);
      expect(one.json).toMatchObject({ namespace: ns, name: 'skill', deleted: [1], already_deleted: [], etag, audit_recorded: true });
      const event = audit.events.find((e) => e.action === 'delete' && e.namespace === ns);
      expect(event).toMatchObject({ reason, actor: 'carol', versions: [1] });
      const range = await call(host, 'DELETE', `${BASE}/${ns}/skill/versions?from=1&to=3`, { headers: { 'if-match': etag, 'x-audit-reason': 'Past retention' } });
      expect(range.status).toBe(200);
      expect(range.json).toMatchObject({ deleted: [2, 3], already_deleted: [1] });
      const repeat = await call(host, 'DELETE', `${BASE}/${ns}/skill/versions?from=1&to=3`, { headers: { 'if-match': etag, 'x-audit-reason': 'Past retention' } });
      expect(repeat.json).toMatchObject({ deleted: [], already_deleted: [1, 2, 3] });
      expect((await call(host, 'GET', `${BASE}/${ns}/skill/versions/2`)).status).toBe(404);
    });

    it('answers 428, 400, 412, 409 and 404 where the guide says so, deleting nothing', async () => {
      const ns = fresh();
      let etag = (await create(ns, 'skill', 'g1')).json.etag as string;
      for (const seed of ['g2', 'g3', 'g4']) etag = (await update(ns, etag, seed)).json.etag;
      const reason = { 'x-audit-reason': 'cleanup' };
      const cases: Array<[string, Record<string, string>, number]> = [
        ['/versions/1', reason, 428],
        ['/versions/1', { 'if-match': etag }, 400],
        ['/versions/1', { 'if-match': etag, 'x-audit-reason': '   ' }, 400],
        ['/versions/1', { 'if-match': '*', ...reason }, 400],
        ['/versions/1', { 'if-match': '"stale"', ...reason }, 412],
        ['/versions/4', { 'if-match': etag, ...reason }, 409],
        ['/versions/3', { 'if-match': etag, ...reason }, 409],
        ['/versions?from=1&to=3', { 'if-match': etag, ...reason }, 409],
        ['/versions?from=2&to=1', { 'if-match': etag, ...reason }, 400],
        ['/versions?from=1&to=101', { 'if-match': etag, ...reason }, 400],
        ['/versions?from=1', { 'if-match': etag, ...reason }, 400],
        ['/versions?from=1&to=2&extra=1', { 'if-match': etag, ...reason }, 400],
        ['/versions?from=0&to=1', { 'if-match': etag, ...reason }, 400],
        ['/versions/9', { 'if-match': etag, ...reason }, 404],
        ['/versions/0', { 'if-match': etag, ...reason }, 400],
      ];
      for (const [path, headers, status] of cases) {
        const r = await call(host, 'DELETE', `${BASE}/${ns}/skill${path}`, { headers });
        expect(r.status, `${path} ${JSON.stringify(headers)}: ${r.text}`).toBe(status);
      }
      const history = await call(host, 'GET', `${BASE}/${ns}/skill/versions`);
      expect(history.json.versions.every((v: { status: string }) => v.status === 'available')).toBe(true);
    });
  });

  describe('routing', () => {
    it('answers 404 for unknown paths and 405 with Allow for known paths', async () => {
      for (const path of ['/api/v1/skill', `${BASE}/`, `${BASE}/a/b/c`, `${BASE}/a/b/versions/1/x`, '/', `${BASE}//b`, `${BASE}/a/b/analyze`]) {
        const r = await call(host, 'GET', path);
        expect(r.status, path).toBe(404);
        expect(r.json.error.code).toBe('not_found');
      }
      const post = await call(host, 'POST', BASE, { headers: JSON_TYPE, body: '{}' });
      expect(post.status).toBe(405);
      expect(post.headers['allow']).toBe('GET, HEAD');
      const del = await call(host, 'DELETE', `${BASE}/a/b`);
      expect(del.status).toBe(405);
      expect(del.headers['allow']).toBe('GET, HEAD, PUT');
    });
  });

  describe('attribution', () => {
    it('takes the audit actor only from the trusted callback, dropping invalid values with a diagnostic', async () => {
      const ns = fresh();
      await call(host, 'PUT', `${BASE}/${ns}/skill`, { headers: { ...JSON_TYPE, 'if-none-match': '*', 'x-test-actor': 'alice' }, body: pkg('who') });
      expect(audit.events.find((e) => e.namespace === ns)?.actor).toBe('alice');
      const untrusted = await startHost({ store });
      try {
        const ns2 = fresh();
        await call(untrusted, 'PUT', `${BASE}/${ns2}/skill`, { headers: { ...JSON_TYPE, 'if-none-match': '*', 'x-user': 'mallory', 'x-test-actor': 'mallory' }, body: pkg('who') });
        const event = audit.events.find((e) => e.namespace === ns2);
        expect(event).toBeDefined();
        expect(event?.actor).toBeUndefined();
      } finally {
        await untrusted.close();
      }
      const ns3 = fresh();
      await call(host, 'PUT', `${BASE}/${ns3}/skill`, { headers: { ...JSON_TYPE, 'if-none-match': '*', 'x-test-actor': 'x'.repeat(300) }, body: pkg('who') });
      expect(audit.events.find((e) => e.namespace === ns3)?.actor).toBeUndefined();
      expect(host.diagnostics).toContain('attribution_invalid');
    });
  });

  describe('authentication and host checks', () => {
    it('requires the bearer token: 401 with a challenge without it or with a wrong one, 200 with it', async () => {
      const token = 'tok-4f9a-secret';
      const secured = await startHost({ store, authenticate: bearerTokenAuthenticator(token) });
      try {
        const none = await call(secured, 'GET', BASE);
        expect(none.status).toBe(401);
        expect(none.headers['www-authenticate']).toBe('Bearer realm="skillbench"');
        const wrong = await call(secured, 'GET', BASE, { headers: { authorization: 'Bearer nope' } });
        expect(wrong.status).toBe(401);
        expect(wrong.headers['www-authenticate']).toContain('error="invalid_token"');
        const basic = await call(secured, 'GET', BASE, { headers: { authorization: `Basic ${Buffer.from(`u:${token}`).toString('base64')}` } });
        expect(basic.status).toBe(401);
        const unknownRoute = await call(secured, 'GET', '/elsewhere');
        expect(unknownRoute.status).toBe(401);
        const ok = await call(secured, 'GET', BASE, { headers: { authorization: `Bearer ${token}` } });
        expect(ok.status).toBe(200);
        expect(JSON.stringify(secured.logs)).not.toContain(token);
      } finally {
        await secured.close();
      }
    });

    it('refuses foreign Host headers when allowed hosts are set (DNS rebinding)', async () => {
      const guarded = await startHost({ store, allowedHosts: ['localhost', '127.0.0.1', '::1'] });
      try {
        const foreign = await call(guarded, 'GET', BASE, { headers: { host: 'attacker.example' } });
        expect(foreign.status).toBe(403);
        expect(foreign.json.error.code).toBe('host_not_allowed');
        expect((await call(guarded, 'GET', BASE, { headers: { host: `localhost:${guarded.port}` } })).status).toBe(200);
        expect((await call(guarded, 'GET', BASE)).status).toBe(200);
      } finally {
        await guarded.close();
      }
    });
  });

  describe('store failures', () => {
    it('answers 503 with Retry-After when the store is unavailable, 504 when it does not answer in time', async () => {
      // A real store chain: this handler → HTTP store → proxy → a second handler → the local registry.
      const backend = await startHost({ store });
      const proxy = await startTcpProxy(backend.port);
      const remote = await openHttpStore(`http://127.0.0.1:${proxy.port}${BASE}`, { retries: 0, timeoutMs: 5000 });
      const front = await startHost({ store: remote, requestTimeoutMs: 300 });
      try {
        expect((await call(front, 'GET', BASE)).status).toBe(200);
        proxy.blackhole(true);
        const slow = await call(front, 'GET', BASE);
        expect(slow.status).toBe(504);
        expect(slow.json.error.code).toBe('timeout');
        proxy.blackhole(false);
        await backend.close();
        proxy.dropConnections();
        const down = await call(front, 'GET', BASE);
        expect(down.status).toBe(503);
        expect(down.json.error.code).toBe('unavailable');
        expect(down.headers['retry-after']).toBe('1');
        // The store's own message may name internal hosts: the client gets a generic one.
        expect(down.json.error.message).not.toContain(String(proxy.port));
      } finally {
        await front.close();
        await remote.close();
        await proxy.close();
      }
    });
  });

  describe('logs', () => {
    it('are body-free: method, route template, status and duration only', async () => {
      const token = 'tok-logs-7c1e';
      const logged = await startHost({ store, authenticate: bearerTokenAuthenticator(token) });
      try {
        const auth = { authorization: `Bearer ${token}` };
        const ns = fresh();
        const marker = `marker-${ns}`;
        const key = `idem-${ns}`;
        const created = await call(logged, 'PUT', `${BASE}/${ns}/skill`, {
          headers: { ...auth, ...JSON_TYPE, 'if-none-match': '*', 'idempotency-key': key },
          body: pkg(marker),
        });
        expect(created.status).toBe(201);
        const etag = created.json.etag as string;
        const updated = await call(logged, 'PUT', `${BASE}/${ns}/skill`, { headers: { ...auth, ...JSON_TYPE, 'if-match': etag }, body: pkg(`${marker}-2`) });
        await call(logged, 'PUT', `${BASE}/${ns}/skill`, { headers: { ...auth, ...JSON_TYPE, 'if-match': etag }, body: pkg(`${marker}-3`) });
        await call(logged, 'DELETE', `${BASE}/${ns}/skill/versions/1`, { headers: { ...auth, 'if-match': updated.json.etag, 'x-audit-reason': `reason-${marker}` } });
        await call(logged, 'GET', `${BASE}?namespace=${ns}&tag=conformance`, { headers: auth });
        await call(logged, 'GET', `${BASE}/${ns}/skill/versions/1`, { headers: auth });
        await call(logged, 'GET', BASE, { headers: { authorization: 'Bearer wrong-secret-value' } });

        // A request is logged when its answer is finished: wait for the seven lines, not for a moment.
        await expect.poll(() => logged.logs.length).toBeGreaterThanOrEqual(7);
        const entries = logged.logs.slice();
        for (const e of entries) {
          expect(Object.keys(e).sort()).toEqual(e.code === undefined ? ['duration_ms', 'method', 'route', 'status'] : ['code', 'duration_ms', 'method', 'route', 'status']);
          expect(e.duration_ms).toBeGreaterThanOrEqual(0);
        }
        expect(entries.map((e) => `${e.method} ${e.route} ${e.status}`)).toEqual(
          expect.arrayContaining([
            `PUT ${BASE}/{namespace}/{name} 201`,
            `PUT ${BASE}/{namespace}/{name} 200`,
            `PUT ${BASE}/{namespace}/{name} 412`,
            `DELETE ${BASE}/{namespace}/{name}/versions/{version} 409`,
            `GET ${BASE} 200`,
            `GET ${BASE}/{namespace}/{name}/versions/{version} 200`,
            `GET ${BASE} 401`,
          ]),
        );
        const text = JSON.stringify(entries);
        for (const secret of [token, 'wrong-secret-value', key, etag, updated.json.etag, marker, ns, 'Checklist body', 'Bearer']) {
          expect(text).not.toContain(secret);
        }
      } finally {
        await logged.close();
      }
    });
  });
});
