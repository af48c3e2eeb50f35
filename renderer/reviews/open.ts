/** Opening a request's review tab. */
import { useTabsStore } from '../shell/useTabsStore';

/** Opens (or focuses) the review of request `id`. */
export function openReview(id: string, connection?: string): string {
  return useTabsStore.getState().open({
    id: `review:${id}`,
    kind: 'review',
    title: `Review ${id}`,
    description: `Publication request ${id}`,
    ...(connection ? { connectionId: connection } : {}),
    params: { id },
  });
}
