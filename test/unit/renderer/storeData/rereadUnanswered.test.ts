/**
 * A view's read that the store did not answer (a busy machine, a restart) is
 * read again once its connection answers; a refused read is not, and other
 * connections' views are left alone.
 */
import { QueryObserver } from '@tanstack/react-query';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkbenchApiError } from '../../../../core/api/errors';
import { queryClient, rereadUnanswered, storeKeys } from '../../../../renderer/storeData/queries';

/** An active view of `key` whose first read fails with `code`, and every later read answers. */
function view(key: readonly unknown[], code: string) {
  let reads = 0;
  const observer = new QueryObserver(queryClient, {
    queryKey: key,
    queryFn: async () => {
      reads++;
      if (reads === 1) throw new WorkbenchApiError({ code, status: code === 'not_found' ? 404 : 503, message: `first read: ${code}` });
      return `read ${reads}`;
    },
  });
  const unsubscribe = observer.subscribe(() => undefined);
  return { observer, unsubscribe, reads: () => reads };
}

async function settled(v: ReturnType<typeof view>): Promise<void> {
  await expect.poll(() => v.observer.getCurrentResult().status).not.toBe('pending');
}

describe('rereadUnanswered', () => {
  afterEach(() => queryClient.clear());

  it('reads again the views the store did not answer, once, and only of that connection', async () => {
    const lost = view(storeKeys.catalog('a'), 'unavailable');
    const slow = view(storeKeys.versions('a', { namespace: 'billing', name: 'refund' }), 'timeout');
    const refused = view(storeKeys.revision('a', { namespace: 'billing', name: 'gone' }, 3), 'not_found');
    const other = view(storeKeys.catalog('b'), 'unavailable');
    await Promise.all([lost, slow, refused, other].map(settled));
    expect([lost, slow, refused, other].map((v) => v.observer.getCurrentResult().status)).toEqual(['error', 'error', 'error', 'error']);

    await rereadUnanswered('a');
    expect(lost.observer.getCurrentResult()).toMatchObject({ status: 'success', data: 'read 2' });
    expect(slow.observer.getCurrentResult()).toMatchObject({ status: 'success', data: 'read 2' });
    expect(refused.observer.getCurrentResult().status).toBe('error');
    expect(refused.reads()).toBe(1);
    expect(other.reads()).toBe(1);

    // A view that reads fine is not read again.
    await rereadUnanswered('a');
    expect(lost.reads()).toBe(2);
    for (const v of [lost, slow, refused, other]) v.unsubscribe();
  });
});
