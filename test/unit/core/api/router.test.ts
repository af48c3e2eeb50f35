/**
 * The contract's shape and the router's guarantees: names follow
 * `domain.verb` and past-tense events, parameters are parsed before a handler
 * runs, unwired methods are refused (never faked), and failures cross as data
 * without stacks or secrets.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createWorkbenchClient } from '../../../../core/api/client';
import { EVENT_NAMES, METHOD_NAMES, METHODS, type WorkbenchApi } from '../../../../core/api/contract';
import { directTransport } from '../../../../core/api/direct';
import { WorkbenchApiError, toErrorData } from '../../../../core/api/errors';
import { EventHub } from '../../../../core/api/events';
import { Router } from '../../../../core/api/router';
import { WorkbenchError } from '../../../../core/errors';
import { StoreError } from '../../../../core/store/errors';

const DOMAINS = ['app', 'connections', 'catalog', 'packages', 'validate', 'diff', 'merge', 'publish', 'versions', 'delete', 'workspace', 'drafts', 'models', 'evals', 'optimize', 'advisor', 'reviews', 'interop', 'host'];

describe('the contract', () => {
  it('names methods domain.verb over the workbench domains, and events in the past tense', () => {
    for (const name of METHOD_NAMES) {
      const [domain, verb] = name.split('.');
      expect(DOMAINS, name).toContain(domain);
      expect(verb, name).toMatch(/^[a-z][a-zA-Z]+$/);
    }
    for (const name of EVENT_NAMES) expect(name).toMatch(/^[a-z]+\.[a-z]+ed$/);
  });

  it('types each method: required parameters stay required, empty ones are optional', () => {
    expectTypeOf<Parameters<WorkbenchApi['app.info']>>().toEqualTypeOf<[params?: Record<string, never>]>();
    expectTypeOf<Parameters<WorkbenchApi['packages.get']>[0]>().toHaveProperty('skill');
    // @ts-expect-error a skill read needs its connection and identity
    const _missing: Parameters<WorkbenchApi['packages.get']> = [];
    expect(METHODS['catalog.page'].params.parse({ connection: 'default' })).toMatchObject({ cursor: null, limit: 500, query: '' });
  });
});

function routerWith(handlers: ConstructorParameters<typeof Router>[0]['handlers'], redact?: (t: string) => string) {
  const events = new EventHub();
  const internal: unknown[] = [];
  const router = new Router({ handlers, subscribe: (l) => events.subscribe(l) }, { onInternalError: (_m, e) => internal.push(e), ...(redact && { redact }) });
  return { router, events, internal, client: createWorkbenchClient(directTransport(router)) };
}

describe('the router', () => {
  it('serves only wired methods and refuses the rest as not_implemented', async () => {
    const { router, client } = routerWith({ 'models.list': async () => ({ providers: [] }) });
    expect(router.methods).toEqual(['models.list']);
    await expect(client['models.list']()).resolves.toEqual({ providers: [] });
    const error = await client['catalog.page']({ connection: 'default' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkbenchApiError);
    expect(error).toBeInstanceOf(WorkbenchError);
    expect((error as WorkbenchApiError).data).toMatchObject({ code: 'not_implemented', status: 501 });
  });

  it('parses parameters before the handler runs', async () => {
    let called = false;
    const { router } = routerWith({ 'versions.get': async () => ((called = true), {} as never) });
    const env = await router.call('versions.get', { connection: 'default', skill: { namespace: 'a', name: 'b' }, version: -1 }, { transport: 'direct' });
    expect(called).toBe(false);
    expect(env).toMatchObject({ ok: false, error: { code: 'invalid_request', pointer: '/version' } });
  });

  it('turns a bug into an internal error without its message or stack, and tells the host', async () => {
    const { router, internal } = routerWith({ 'app.info': async () => { throw new TypeError('secret-token-123 leaked in a bug'); } });
    const env = await router.call('app.info', {}, { transport: 'direct' });
    expect(env.ok).toBe(false);
    const text = JSON.stringify(env);
    expect(text).not.toContain('secret-token-123');
    expect(text).not.toContain('router.test');
    expect(env).toMatchObject({ error: { code: 'internal', status: 500 } });
    expect(internal).toHaveLength(1);
  });

  it('lifts findings, locations and conflicts out of details, and redacts what crosses', () => {
    const error = new StoreError('validation_failed', 'package is invalid: 1 error (token s3cret)', {
      details: { errors: [{ severity: 'error', code: 'x', path: '/description', message: 'bad s3cret', line: 3, column: 5 }], warnings: [], metrics: { manifest_bytes: 1 }, stack: 'nope' },
    });
    const data = toErrorData(error, { redact: (t) => t.replaceAll('s3cret', '***') });
    expect(data).toMatchObject({ code: 'validation_failed', status: 422, pointer: '/description', line: 3, column: 5, message: 'package is invalid: 1 error (token ***)' });
    expect(data.findings?.[0]?.message).toBe('bad ***');
    expect(data.details).toEqual({ metrics: { manifest_bytes: 1 } });
  });
});
