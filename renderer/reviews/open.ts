/** Opening a request's review tab. */
import { useTabsStore } from '../shell/useTabsStore';

/** The parameters of a review tab: the publication request it shows. */
export interface ReviewTabParams {
  id: string;
}

declare module '../shell/useTabsStore' {
  interface TabParamsByKind {
    review: ReviewTabParams;
  }
}

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
