/**
 * What the reviews area remembers: the list's status filter and, per request
 * and manifest hash, the pointers the reviewer marked as viewed (a new hash
 * starts over, as the content changed). Kept in the page's storage.
 */
import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';
import type { ReviewStatus } from '../../core/api/contract';
import { toggleViewed } from './state';

interface ReviewsState {
  filter: ReviewStatus | 'all';
  /** `<id>@<manifest hash>` → viewed pointers. */
  viewed: Record<string, string[]>;
  setFilter(filter: ReviewStatus | 'all'): void;
  toggle(key: string, pointer: string): void;
}

/** The key of one request's marks. */
export function viewedKey(id: string, hash: string): string {
  return `${id}@${hash}`;
}

export const useReviewsStore = create<ReviewsState>()(
  persist(
    (set) => ({
      filter: 'all',
      viewed: {},
      setFilter: (filter) => set({ filter }),
      toggle: (key, pointer) => set((s) => ({ viewed: { ...s.viewed, [key]: toggleViewed(s.viewed[key] ?? [], pointer) } })),
    }),
    { name: 'skillbench.reviews', version: 1, storage: createJSONStorage(() => localStorage) },
  ),
);
