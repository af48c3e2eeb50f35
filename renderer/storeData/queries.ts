/**
 * Store data in the page: one query cache (TanStack Query) holds what views
 * read from connections' stores (catalogs, version histories, revisions), and
 * the store's own events invalidate it. A publication, a deletion, or another
 * writer's change that a watched recheck saw (`store.changed`) re-reads every
 * open view of that skill and connection, and each view says it was updated,
 * so none shows a stale head after a publish.
 *
 * Every key starts with `['store', connection]`, so one event can reach all of
 * a connection's views; a skill's keys continue with `'skill', 'ns/name'`.
 */
import { QueryClient, infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { create } from 'zustand';
import type { StoreChange, VersionView } from '../../core/api/contract';
import type { SkillId } from '../../core/package/types';
import { WorkbenchApiError, workbenchClient } from '../api/client';
import { indexEntries, type IndexedEntry } from '../catalog/catalogQuery';

/**
 * The page's one query cache: the store data below, the saved connections
 * (`connections/queries.ts`) and the run list (`evals/useEvalsStore.ts`).
 * What it holds is fresh until an event says otherwise.
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: Number.POSITIVE_INFINITY,
      gcTime: 5 * 60_000,
      // A store that fails says why in the view, with its Retry; the connection's state follows the error.
      retry: false,
      refetchOnWindowFocus: false,
      refetchOnReconnect: false,
    },
  },
});

function skillKey(skill: SkillId): string {
  return `${skill.namespace}/${skill.name}`;
}

/** Query keys of store data. */
export const storeKeys = {
  connection: (connection: string) => ['store', connection] as const,
  catalog: (connection: string) => ['store', connection, 'catalog'] as const,
  skill: (connection: string, skill: SkillId) => ['store', connection, 'skill', skillKey(skill)] as const,
  versions: (connection: string, skill: SkillId) => ['store', connection, 'skill', skillKey(skill), 'versions'] as const,
  revision: (connection: string, skill: SkillId, version: number | 'published') => ['store', connection, 'skill', skillKey(skill), 'revision', version] as const,
};

/** The first catalog page is small so the first rows show at once; later pages are large. */
export const CATALOG_FIRST_PAGE = 200;
export const CATALOG_NEXT_PAGE = 2000;

/** One catalog page as the cache keeps it: the entries indexed for search once, when they arrive. */
export interface CatalogPageData {
  entries: IndexedEntry[];
  cursor: string | null;
  scanned: number;
  total: number | null;
}

/** A connection's catalog, read page by page (`catalog.page`); a refetch re-reads from the first page. */
export function catalogQuery(connection: string) {
  return infiniteQueryOptions({
    queryKey: storeKeys.catalog(connection),
    queryFn: async ({ pageParam }): Promise<CatalogPageData> => {
      const page = await workbenchClient()['catalog.page']({ connection, cursor: pageParam, limit: pageParam === null ? CATALOG_FIRST_PAGE : CATALOG_NEXT_PAGE });
      return { entries: indexEntries(page.items), cursor: page.cursor, scanned: page.scanned, total: page.total };
    },
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.cursor,
    // Ten thousand entries are compared cheaply by reference, not deeply on every page.
    structuralSharing: false,
  });
}

/** One page of a version history, with the head it was read against. */
export interface VersionsPageData {
  versions: VersionView[];
  next: number | null;
  published: number;
  etag: string;
}

/** A skill's version history, newest first, 50 versions a page. */
export function versionsQuery(connection: string, skill: SkillId) {
  return infiniteQueryOptions({
    queryKey: storeKeys.versions(connection, skill),
    queryFn: async ({ pageParam }): Promise<VersionsPageData> => {
      const page = await workbenchClient()['versions.list']({ connection, skill, ...(pageParam !== undefined && { before: pageParam }), limit: 50 });
      return { versions: page.versions, next: page.next_before, published: page.published, etag: page.etag };
    },
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (last) => last.next ?? undefined,
  });
}

/** One retained revision (or the published one). */
export function revisionQuery(connection: string, skill: SkillId, version: number | 'published') {
  return queryOptions({
    queryKey: storeKeys.revision(connection, skill, version),
    queryFn: () => {
      const api = workbenchClient();
      return version === 'published' ? api['packages.get']({ connection, skill, version }) : api['versions.get']({ connection, skill, version });
    },
  });
}

/** Whether any mounted view shows data of `connection` (its rechecks then watch the catalog). */
export function watchedConnection(connection: string): boolean {
  return queryClient.getQueryCache().findAll({ queryKey: storeKeys.connection(connection), type: 'active' }).length > 0;
}

/** Failures that say the store did not answer (as opposed to a refused request): worth reading again once it answers. */
const UNANSWERED = new Set(['unavailable', 'timeout']);

function unanswered(error: unknown): boolean {
  return error instanceof WorkbenchApiError && UNANSWERED.has(error.code);
}

/**
 * Reads again every view of `connection` whose read failed because the store
 * (or the workbench host) did not answer, once the connection answers again:
 * a read lost to a busy machine or a restart heals itself instead of waiting
 * for Retry. A refused read (not found, forbidden) stays as it is.
 */
export async function rereadUnanswered(connection: string): Promise<void> {
  await queryClient.refetchQueries({ queryKey: storeKeys.connection(connection), type: 'active', predicate: (query) => query.state.status === 'error' && unanswered(query.state.error) });
}

interface StoreChangesState {
  /** Changes seen this session, newest last (bounded). */
  changes: StoreChange[];
  record(change: StoreChange): void;
}

const KEPT_CHANGES = 200;

/** The store changes this page has seen, for the views' "updated" cue. */
export const useStoreChanges = create<StoreChangesState>((set, get) => ({
  changes: [],
  record(change) {
    set({ changes: [...get().changes, change].slice(-KEPT_CHANGES) });
  },
}));

/** Whether `change` concerns `connection` (and `skill`, when given). */
export function concerns(change: StoreChange, connection: string, skill?: SkillId): boolean {
  if (change.connection !== connection) return false;
  if (!skill || !change.skill) return true;
  return change.skill.namespace === skill.namespace && change.skill.name === skill.name;
}

/** The latest change of `connection` (and `skill`), if any. */
export function useLastStoreChange(connection: string, skill?: SkillId): StoreChange | undefined {
  return useStoreChanges((s) => {
    for (let i = s.changes.length - 1; i >= 0; i--) if (concerns(s.changes[i]!, connection, skill)) return s.changes[i];
    return undefined;
  });
}

/** Re-reads what `change` makes stale and records it for the cues. */
export function applyStoreChange(change: StoreChange): void {
  useStoreChanges.getState().record(change);
  if (!change.skill) {
    void queryClient.invalidateQueries({ queryKey: storeKeys.connection(change.connection) });
    return;
  }
  void queryClient.invalidateQueries({ queryKey: storeKeys.catalog(change.connection) });
  void queryClient.invalidateQueries({ queryKey: storeKeys.skill(change.connection, change.skill) });
}

/** Query keys of the open workspace and the autosaved drafts (not store data: their own events invalidate them). */
export const workspaceKeys = {
  files: ['workspace', 'files'] as const,
  drafts: ['workspace', 'drafts'] as const,
};

/**
 * Follows the events that change store data; returns the unsubscribe function.
 * A saved or removed profile may point somewhere else now: its data is re-read.
 */
export function followStoreEvents(): () => void {
  const api = workbenchClient();
  const offChanges = api.on('store.changed', applyStoreChange);
  const offConnections = api.on('connections.changed', (event) => {
    if (event.kind === 'state') return;
    if (event.name) void queryClient.invalidateQueries({ queryKey: storeKeys.connection(event.name) });
    else void queryClient.invalidateQueries({ queryKey: ['store'] });
  });
  const offWorkspace = api.on('workspace.changed', () => void queryClient.invalidateQueries({ queryKey: workspaceKeys.files }));
  const offDrafts = api.on('drafts.changed', () => {
    void queryClient.invalidateQueries({ queryKey: workspaceKeys.drafts });
    void queryClient.invalidateQueries({ queryKey: workspaceKeys.files });
  });
  return () => {
    offChanges();
    offConnections();
    offWorkspace();
    offDrafts();
  };
}
