/**
 * The reviews area: the requests list in the sidebar, the `review` tab, and
 * "Request review…" (the `review.request` intent the editor and the catalog
 * preview ask for), which files a signed request for a draft.
 */
import { lazyView, type ViewModule } from '../shell/views';
import { RequestReviewDialog, requestReview } from './RequestReviewDialog';
import { ReviewsPanel } from './ReviewsPanel';

export { openReview } from './open';

export const reviewsModule: ViewModule = {
  id: 'reviews',
  activities: [{ id: 'reviews', title: 'Reviews', icon: 'git-pull-request', order: 30, panel: ReviewsPanel }],
  tabViews: [{ kind: 'review', scope: 'review', component: lazyView(async () => (await import('./ReviewView')).ReviewView), icon: 'git-pull-request' }],
  intents: { 'review.request': (target) => requestReview(target) },
  extensions: [RequestReviewDialog],
};
