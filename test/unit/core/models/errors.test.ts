import { APICallError, LoadAPIKeyError, RetryError } from 'ai';
import { describe, expect, it } from 'vitest';
import { ModelError, classifyError } from '../../../../core/models/errors';

const KEY = 'sk-proj-UNITtestKey1234567890abcdef';

function apiError(statusCode: number | undefined, message: string, options: { body?: string; headers?: Record<string, string>; cause?: unknown } = {}) {
  return new APICallError({
    message,
    url: 'https://api.example.test/v1/responses',
    requestBodyValues: {},
    ...(statusCode !== undefined && { statusCode }),
    ...(options.headers && { responseHeaders: options.headers }),
    ...(options.body !== undefined && { responseBody: options.body }),
    ...(options.cause !== undefined && { cause: options.cause }),
  });
}

const ctx = { provider: 'openai', model: 'gpt-4.1-mini', secrets: [KEY] };

describe('classifyError', () => {
  it.each([
    [401, 'auth'],
    [403, 'auth'],
    [402, 'quota'],
    [429, 'rate_limit'],
    [408, 'timeout'],
    [400, 'malformed_input'],
    [404, 'malformed_input'],
    [413, 'malformed_input'],
    [422, 'malformed_input'],
    [500, 'server'],
    [502, 'server'],
    [503, 'server'],
    [529, 'server'],
    [200, 'server'],
  ] as const)('maps HTTP %i to %s', (status, kind) => {
    const error = classifyError(apiError(status, 'something happened'), ctx);
    expect(error).toBeInstanceOf(ModelError);
    expect(error.kind).toBe(kind);
    expect(error.status).toBe(status);
    expect(error.provider).toBe('openai');
  });

  it('recognises quota and billing answers whatever their status', () => {
    const openaiQuota = apiError(429, 'You exceeded your current quota, please check your plan and billing details.', {
      body: '{"error":{"type":"insufficient_quota","code":"insufficient_quota"}}',
    });
    expect(classifyError(openaiQuota, ctx).kind).toBe('quota');
    expect(classifyError(apiError(400, 'Your credit balance is too low to access the Anthropic API.'), ctx).kind).toBe('quota');
    // A request that merely mentions billing is still the caller's mistake.
    expect(classifyError(apiError(400, "Invalid value for 'billing_address' in the prompt"), ctx).kind).toBe('malformed_input');
  });

  it('keeps the Retry-After of a 429 or 503', () => {
    expect(classifyError(apiError(429, 'slow down', { headers: { 'retry-after': '7' } }), ctx).retryAfterMs).toBe(7000);
    expect(classifyError(apiError(503, 'busy', { headers: { 'retry-after-ms': '1500' } }), ctx).retryAfterMs).toBe(1500);
    expect(classifyError(apiError(429, 'slow down'), ctx).retryAfterMs).toBeUndefined();
  });

  it('maps connection failures to outage and transport timeouts to timeout', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    expect(classifyError(apiError(undefined, 'Cannot connect to API: connect ECONNREFUSED', { cause: refused }), ctx).kind).toBe('outage');
    const dns = Object.assign(new Error('getaddrinfo ENOTFOUND api.example.test'), { code: 'ENOTFOUND' });
    expect(classifyError(new TypeError('fetch failed', { cause: dns }), ctx).kind).toBe('outage');
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(classifyError(reset, ctx).kind).toBe('outage');
    const headers = Object.assign(new Error('Headers Timeout Error'), { code: 'UND_ERR_HEADERS_TIMEOUT' });
    expect(classifyError(new TypeError('fetch failed', { cause: headers }), ctx).kind).toBe('timeout');
  });

  it('decides aborts by who aborted', () => {
    const abort = new DOMException('This operation was aborted', 'AbortError');
    expect(classifyError(abort, ctx).kind).toBe('cancelled');
    expect(classifyError(abort, { ...ctx, abortedBy: 'timeout', timeoutMs: 250 }).kind).toBe('timeout');
    expect(classifyError(abort, { ...ctx, abortedBy: 'timeout', timeoutMs: 250 }).message).toContain('250 ms');
    expect(classifyError(abort, { ...ctx, abortedBy: 'deadline' }).kind).toBe('deadline');
    expect(classifyError(new DOMException('signal timed out', 'TimeoutError'), ctx).kind).toBe('timeout');
  });

  it('maps SDK errors: missing key to auth, invalid prompt to malformed_input, retry wrappers to their last error', () => {
    expect(classifyError(new LoadAPIKeyError({ message: 'OpenAI API key is missing.' }), ctx).kind).toBe('auth');
    const retry = new RetryError({ message: 'Failed after 3 attempts', reason: 'maxRetriesExceeded', errors: [apiError(500, 'a'), apiError(429, 'b')] });
    expect(classifyError(retry, ctx).kind).toBe('rate_limit');
    expect(classifyError(new Error('something odd'), ctx).kind).toBe('server');
    expect(classifyError('a string', ctx).kind).toBe('server');
  });

  it('returns a ModelError unchanged and maps kinds to WorkbenchError codes for the CLI', () => {
    const original = new ModelError('quota', 'x', { provider: 'groq' });
    expect(classifyError(original)).toBe(original);
    expect(classifyError(apiError(401, 'no'), ctx).code).toBe('model_unavailable');
    expect(classifyError(apiError(400, 'no'), ctx).code).toBe('invalid_request');
    expect(classifyError(apiError(408, 'no'), ctx).code).toBe('timeout');
  });

  it('never lets the key into the message, the JSON form or the cause', () => {
    const leaks = [
      apiError(401, `Incorrect API key provided: ${KEY}`),
      apiError(401, `Incorrect API key provided: sk-proj-UNIT********************cdef`),
      apiError(500, `upstream said Authorization: Bearer ${KEY}`),
      new Error(`x-api-key: ${KEY} rejected`),
    ];
    for (const leak of leaks) {
      const error = classifyError(leak, ctx);
      const text = `${error.message} ${JSON.stringify(error.toJSON())} ${(error.cause as Error).message}`;
      expect(text).not.toContain(KEY);
      expect(text).not.toContain('UNITtestKey');
      expect(text).not.toMatch(/sk-proj-UNIT/);
    }
  });
});

describe('classifyError messages', () => {
  it('remove the key in use, bearer tokens, key-shaped strings and api_key pairs with the one redactor (***)', () => {
    const message = (text: string) => classifyError(new Error(text), { provider: 'openai', secrets: ['abc123456'] }).message;
    expect(message('token abc123456 here')).toContain('token *** here');
    expect(message('Authorization: Bearer eyJhbGciOi.J9')).toContain('Authorization: ***');
    expect(message('use gsk_abcdefghijklmnop now')).toContain('use *** now');
    expect(message('api_key=hunter22222')).toContain('api_key=***');
    expect(message('base http://u:pw-secret@h/v1 refused')).toContain('http://u:***@h/v1');
    expect(message('nothing secret here')).toContain('nothing secret here');
  });
});
