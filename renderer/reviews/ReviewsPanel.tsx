/**
 * The reviews sidebar: the publication requests of the open workspace, filtered
 * by status, newest change first. A row opens the request's review tab.
 */
import { useCallback, useEffect, useState } from 'react';
import { workbenchClient, type ReviewStatus, type ReviewSummary } from '../api/client';
import { SafeText } from '../shell/SafeText';
import { messageOf } from '../shell/useNotificationsStore';
import { isNotAvailable, statusLabel } from './state';
import { useReviewsStore } from './useReviewsStore';
import { openReview } from './open';

const STATUSES: (ReviewStatus | 'all')[] = ['all', 'open', 'changes_requested', 'approved', 'stale', 'rejected', 'published'];

type Listing = { state: 'loading' } | { state: 'unavailable' } | { state: 'error'; message: string } | { state: 'ready'; reviews: ReviewSummary[] };

export function ReviewsPanel() {
  const filter = useReviewsStore((s) => s.filter);
  const setFilter = useReviewsStore((s) => s.setFilter);
  const [listing, setListing] = useState<Listing>({ state: 'loading' });

  const refresh = useCallback(async () => {
    try {
      const { reviews } = await workbenchClient()['reviews.list'](filter === 'all' ? {} : { status: filter });
      setListing({ state: 'ready', reviews: [...reviews].sort((a, b) => b.updated_at.localeCompare(a.updated_at)) });
    } catch (error) {
      setListing(isNotAvailable(error) ? { state: 'unavailable' } : { state: 'error', message: messageOf(error) });
    }
  }, [filter]);

  useEffect(() => {
    void refresh();
    const api = workbenchClient();
    const offReviews = api.on('reviews.changed', () => void refresh());
    const offFiles = api.on('workspace.changed', () => void refresh());
    return () => {
      offReviews();
      offFiles();
    };
  }, [refresh]);

  return (
    <div className="reviews-panel" data-testid="reviews-panel">
      <label className="reviews-filter">
        Status{' '}
        <select value={filter} data-testid="reviews-filter" onChange={(e) => setFilter(e.target.value as ReviewStatus | 'all')}>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s === 'all' ? 'All' : statusLabel(s)}
            </option>
          ))}
        </select>
      </label>
      {listing.state === 'loading' && <p className="muted">Loading requests…</p>}
      {listing.state === 'unavailable' && (
        <p className="muted" data-testid="reviews-unavailable">
          Reviews are not available on this host.
        </p>
      )}
      {listing.state === 'error' && <p className="err">{listing.message}</p>}
      {listing.state === 'ready' && listing.reviews.length === 0 && (
        <p className="muted" data-testid="reviews-empty">
          {filter === 'all' ? 'No publication requests in this workspace.' : `No ${statusLabel(filter).toLowerCase()} requests.`}
        </p>
      )}
      {listing.state === 'ready' && (
        <ul className="reviews-list">
          {listing.reviews.map((r) => (
            <li key={r.id}>
              <button type="button" className="review-row" data-testid={`review-row-${r.id}`} data-status={r.status} data-stale={r.stale} onClick={() => openReview(r.id, r.connection)}>
                <span className="row-title">
                  <SafeText text={`${r.skill.namespace}/${r.skill.name}`} className="mono" />
                </span>
                <span className="row-meta">
                  <span className={`review-status status-${r.stale ? 'stale' : r.status}`}>{statusLabel(r.status, r.stale)}</span> <span className="muted">{r.id}</span> ·{' '}
                  <SafeText text={r.author} className="muted" />
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
