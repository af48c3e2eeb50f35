import { describe, expect, it } from 'vitest';
import { WorkbenchApiError } from '../../../../core/api/errors';
import { isRetryable, newIdempotencyKey, PublishAttempts } from '../../../../renderer/publish/attempt';
import { idempotencyKeySchema } from '../../../../core/api/contract';

const base = { version: 7, etag: '"v7-abc"' };
const apiError = (code: string, status: number) => new WorkbenchApiError({ code, message: code, status });

describe('publish attempts', () => {
  it('keep one key across retries of the same attempt', () => {
    let n = 0;
    const attempts = new PublishAttempts(() => `k${++n}`);
    const first = attempts.begin('text', base);
    attempts.settle({ ok: false, error: apiError('unavailable', 503) });
    expect(attempts.begin('text', base).key).toBe(first.key);
    attempts.settle({ ok: false, error: new TypeError('fetch failed') });
    expect(attempts.begin('text', base).key).toBe(first.key);
  });

  it('start a new key after a success, a final refusal, a new text or a new base', () => {
    let n = 0;
    const attempts = new PublishAttempts(() => `k${++n}`);
    expect(attempts.begin('a', base).key).toBe('k1');
    attempts.settle({ ok: true });
    expect(attempts.begin('a', base).key).toBe('k2');
    attempts.settle({ ok: false, error: apiError('precondition_failed', 412) });
    expect(attempts.pending).toBeUndefined();
    expect(attempts.begin('a', base).key).toBe('k3');
    attempts.settle({ ok: false, error: apiError('timeout', 504) });
    expect(attempts.begin('b', base).key).toBe('k4');
    attempts.settle({ ok: false, error: apiError('unavailable', 503) });
    expect(attempts.begin('b', { version: 8, etag: '"v8-x"' }).key).toBe('k5');
  });

  it('treat only transport and availability failures as retryable', () => {
    expect(isRetryable(apiError('validation_failed', 422))).toBe(false);
    expect(isRetryable(apiError('forbidden', 403))).toBe(false);
    expect(isRetryable(apiError('unavailable', 503))).toBe(true);
    expect(isRetryable(new Error('socket closed'))).toBe(true);
  });

  it('make keys the contract accepts, different each time', () => {
    const a = newIdempotencyKey();
    expect(idempotencyKeySchema.safeParse(a).success).toBe(true);
    expect(newIdempotencyKey()).not.toBe(a);
  });
});
