/**
 * The reviews area: the requests list in the sidebar and the `review` tab.
 */
import { lazyView, type ViewModule } from '../shell/views';
import { ReviewsPanel } from './ReviewsPanel';

export { openReview } from './open';

export const reviewsModule: ViewModule = {
  id: 'reviews',
  activities: [{ id: 'reviews', title: 'Reviews', icon: 'git-pull-request', order: 30, panel: ReviewsPanel }],
  tabViews: [{ kind: 'review', scope: 'review', component: lazyView(async () => (await import('./ReviewView')).ReviewView), icon: 'git-pull-request' }],
};
