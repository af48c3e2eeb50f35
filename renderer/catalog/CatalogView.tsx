/**
 * The catalog browser of one connection: search over name, namespace, display
 * name, domains and tags; sortable columns; a virtualized list with a fixed row
 * height (10,000 skills keep a few dozen rows in the DOM); a preview pane with
 * Open / Diff / Evaluate / History. The catalog is read page by page
 * (`catalog.page`); while the scan is incomplete an empty result says so.
 * Filter, sort, selection and scroll position are kept per tab.
 */
import { useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { workbenchClient, type DraftView } from '../api/client';
import { useConnection } from '../connections/queries';
import { useConnectionsStore } from '../connections/useConnectionsStore';
import { useCommands } from '../shell/commands';
import { useIntent } from '../shell/intents';
import { SafeText, visibleControls } from '../shell/SafeText';
import { useTabScope } from '../shell/Tabs';
import { messageOf } from '../shell/useNotificationsStore';
import type { TabViewProps } from '../shell/views';
import { VirtualList, type VirtualListHandle } from '../shell/VirtualList';
import { filterEntries, sortEntries, type IndexedEntry, type SortColumn } from './catalogQuery';
import { openCatalogHealth } from './healthTab';
import { emptyMessage } from './scanMessage';
import { catalogViewOf, useCatalogViewStore } from './useCatalogViewStore';
import { catalogQuery, useLastStoreChange } from '../storeData/queries';
import { UpdatedCue } from '../storeData/UpdatedCue';
import './catalog.css';
import { paramsOf } from '../shell/useTabsStore';

/** Row height in pixels; fixed, so the list can be virtualized. */
export const ROW_HEIGHT = 28;
const HEADER_HEIGHT = 30;
/** Entries read without asking; past this, Scan more reads the next batch. */
const AUTO_SCAN = 10_000;
const DEBOUNCE_MS = 150;

/** Where a catalog scan stands, as the view shows it. */
interface Scan {
  entries: IndexedEntry[];
  scanned: number;
  total: number | null;
  complete: boolean;
  /** A page is being read (the first, or the next of a paused scan). */
  loading: boolean;
  /** The whole catalog is being read again after a change (the rows stay until it is done). */
  refreshing: boolean;
  error?: string;
}

const NO_ENTRIES: IndexedEntry[] = [];

/**
 * Reads the catalog of `connection` page by page through the query cache, up
 * to a budget of entries; `more()` raises the budget, `reload()` reads it
 * again. A store event re-reads it the same way, keeping the rows meanwhile.
 */
function useCatalogScan(connection: string) {
  const query = useInfiniteQuery(catalogQuery(connection));
  const [budget, setBudget] = useState(AUTO_SCAN);
  const pages = query.data?.pages;
  const entries = useMemo(() => (pages ? (pages.length === 1 ? pages[0]!.entries : pages.flatMap((p) => p.entries)) : NO_ENTRIES), [pages]);
  const last = pages?.[pages.length - 1];
  const { hasNextPage, isFetching, isFetchingNextPage, fetchNextPage, isError } = query;

  // Keep reading while the budget allows; a failed page waits for Retry.
  useEffect(() => {
    if (hasNextPage && !isFetching && !isError && entries.length < budget) void fetchNextPage();
  }, [hasNextPage, isFetching, isError, entries.length, budget, fetchNextPage]);

  const complete = pages !== undefined && !hasNextPage;
  const scan: Scan = {
    entries,
    scanned: last?.scanned ?? 0,
    total: last?.total ?? null,
    complete,
    loading: query.isPending || isFetchingNextPage || (!complete && hasNextPage && entries.length < budget && !isError),
    refreshing: isFetching && !isFetchingNextPage && pages !== undefined,
    ...(query.error ? { error: messageOf(query.error) } : {}),
  };
  return {
    scan,
    more: () => {
      if (!scan.complete && !isFetching) setBudget(entries.length + AUTO_SCAN);
    },
    reload: () => {
      setBudget(AUTO_SCAN);
      void query.refetch();
    },
    retry: () => {
      // A failed first page is read again from the start; a failed later page is read again where it stopped.
      if (pages === undefined || query.isRefetchError) void query.refetch();
      else void fetchNextPage();
    },
  };
}

const COLUMNS: { column: SortColumn; title: string }[] = [
  { column: 'name', title: 'Name' },
  { column: 'display', title: 'Display name' },
  { column: 'version', title: 'Ver' },
  { column: 'updated', title: 'Updated' },
  { column: 'domains', title: 'Domains' },
  { column: 'tags', title: 'Tags' },
];

/** `2d`, `5h`, `3mo`: how long ago, for a narrow column; the full time is in the tooltip. */
export function ago(iso: string, now = Date.now()): string {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return '—';
  const s = Math.max(0, (now - t) / 1000);
  if (s < 60) return 'now';
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  if (s < 86_400 * 30) return `${Math.floor(s / 86_400)}d`;
  if (s < 86_400 * 365) return `${Math.floor(s / (86_400 * 30))}mo`;
  return `${Math.floor(s / (86_400 * 365))}y`;
}

function skillOf(e: IndexedEntry) {
  return { namespace: e.entry.namespace, name: e.entry.name };
}

export function CatalogView({ tab, active }: TabViewProps) {
  const connection = paramsOf(tab, 'catalog').connection || (tab.connectionId ?? '');
  const conn = useConnection(connection);
  const offline = useConnectionsStore((s) => s.reachability[connection]?.status === 'down');
  const scope = useTabScope();
  const saved = useMemo(() => catalogViewOf(tab.id), [tab.id]);
  const patch = useCatalogViewStore((s) => s.patch);
  const view = useCatalogViewStore((s) => s.byTab[tab.id]) ?? saved;
  const [input, setInput] = useState(saved.query);
  const { scan, more, reload, retry } = useCatalogScan(connection);
  const lastChange = useLastStoreChange(connection);
  const list = useRef<VirtualListHandle>(null);
  const search = useRef<HTMLInputElement>(null);
  const [drafts, setDrafts] = useState<DraftView[]>([]);
  const edit = useIntent('skill.edit');
  const diff = useIntent('skill.diff');
  const evaluate = useIntent('skill.evaluate');
  const history = useIntent('skill.history');
  const requestReview = useIntent('review.request');

  // A tab that becomes visible takes the focus, unless something inside it already has it.
  useEffect(() => {
    if (!active) return;
    const timer = setTimeout(() => {
      const panel = scope.current;
      if (panel && !panel.contains(document.activeElement)) (list.current?.element() ?? panel).focus();
    }, 0);
    return () => clearTimeout(timer);
  }, [active, scope]);

  // The filter applies 150 ms after the last keystroke.
  useEffect(() => {
    if (input === view.query) return;
    const timer = setTimeout(() => patch(tab.id, { query: input }), DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [input, view.query, patch, tab.id]);

  useEffect(() => {
    const client = workbenchClient();
    client['drafts.list']({})
      .then((r) => setDrafts(r.drafts))
      .catch(() => setDrafts([]));
  }, [active]);

  const rows = useMemo(() => sortEntries(filterEntries(scan.entries, view.query), view.sort), [scan.entries, view.query, view.sort]);
  const selectedIndex = useMemo(() => (view.selected === undefined ? -1 : rows.findIndex((r) => r.key === view.selected)), [rows, view.selected]);
  const selected = selectedIndex >= 0 ? rows[selectedIndex] : undefined;

  // The saved scroll position is restored once enough rows have arrived to scroll to it.
  const [restored, setRestored] = useState(saved.scrollTop === 0);
  useEffect(() => {
    if (!restored && (scan.complete || rows.length * ROW_HEIGHT > saved.scrollTop + 2000)) setRestored(true);
  }, [restored, scan.complete, rows.length, saved.scrollTop]);

  const scrollTimer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const onScroll = (top: number) => {
    clearTimeout(scrollTimer.current);
    scrollTimer.current = setTimeout(() => patch(tab.id, { scrollTop: top }), 100);
  };

  const select = (index: number) => {
    const row = rows[Math.max(0, Math.min(rows.length - 1, index))];
    if (!row) return;
    patch(tab.id, { selected: row.key });
    list.current?.scrollToIndex(rows.indexOf(row));
  };

  const draftOf = (e: IndexedEntry | undefined) =>
    e && drafts.find((d) => d.origin.kind === 'store' && d.origin.connection === connection && d.origin.skill.namespace === e.entry.namespace && d.origin.skill.name === e.entry.name);

  const actions = (e: IndexedEntry | undefined) => {
    const none = 'Select a skill first';
    const result: Record<'open' | 'diff' | 'evaluate' | 'history' | 'review', true | string> = {
      open: typeof edit === 'string' ? edit : e ? true : none,
      diff: typeof diff === 'string' ? diff : e ? true : none,
      evaluate: typeof evaluate === 'string' ? evaluate : e ? true : none,
      history: typeof history === 'string' ? history : e ? true : none,
      // A request records a draft: the skill's draft on this connection.
      review: typeof requestReview === 'string' ? requestReview : !e ? none : draftOf(e) ? true : 'No draft of this skill yet: open it and edit it first',
    };
    return result;
  };
  const can = actions(selected);
  const run = {
    open: (preview: boolean) => {
      if (selected && typeof edit === 'function') edit({ connection, skill: skillOf(selected), preview });
    },
    // The draft against the published revision; with no draft, the published revision alone (it reads "No changes").
    diff: () => {
      if (!selected || typeof diff !== 'function') return;
      const draft = draftOf(selected);
      const published = { kind: 'stored', connection, skill: skillOf(selected), version: 'published' } as const;
      diff({ before: published, after: draft ? { kind: 'draft', draft: draft.id } : published });
    },
    evaluate: () => {
      if (selected && typeof evaluate === 'function') evaluate({ connection, skill: skillOf(selected) });
    },
    history: () => {
      if (selected && typeof history === 'function') history({ connection, skill: skillOf(selected) });
    },
    review: () => {
      const draft = draftOf(selected);
      if (selected && draft && typeof requestReview === 'function') requestReview({ connection, skill: skillOf(selected), draft: draft.id });
    },
  };

  const onList = () => (rows.length > 0 ? true : 'The list is empty');
  useCommands(scope, {
    'catalog.search': () => search.current?.focus(),
    'catalog.clearSearch': {
      enabled: () => (input !== '' ? true : 'The filter is empty'),
      run: () => {
        setInput('');
        patch(tab.id, { query: '' });
      },
    },
    'catalog.next': {
      enabled: onList,
      run: () => {
        // From the filter, the first arrow selects the top row and moves into the list, so Tab then reaches the preview's actions.
        if (document.activeElement === search.current) {
          select(Math.max(0, selectedIndex));
          list.current?.element()?.focus();
        } else select(selectedIndex + 1);
      },
    },
    'catalog.previous': { enabled: onList, run: () => select(selectedIndex <= 0 ? 0 : selectedIndex - 1) },
    'catalog.pageDown': { enabled: onList, run: () => select(selectedIndex + (list.current?.pageSize() ?? 10)) },
    'catalog.pageUp': { enabled: onList, run: () => select(selectedIndex - (list.current?.pageSize() ?? 10)) },
    'catalog.first': { enabled: onList, run: () => select(0) },
    'catalog.last': { enabled: onList, run: () => select(rows.length - 1) },
    'catalog.open': { enabled: () => can.open, run: () => run.open(true) },
    'catalog.openNewTab': { enabled: () => can.open, run: () => run.open(false) },
    'catalog.preview': () => patch(tab.id, { preview: !view.preview }),
    'catalog.diff': { enabled: () => can.diff, run: run.diff },
    'catalog.evaluate': { enabled: () => can.evaluate, run: run.evaluate },
    'catalog.history': { enabled: () => can.history, run: run.history },
    'catalog.scanMore': { enabled: () => (scan.complete ? 'The whole catalog has been read' : scan.loading ? 'Reading…' : true), run: more },
    'catalog.refresh': reload,
  });

  const sortBy = (column: SortColumn) => {
    const direction = view.sort.column === column && view.sort.direction === 'asc' ? 'desc' : 'asc';
    patch(tab.id, { sort: { column, direction } });
  };

  const empty = emptyMessage(rows.length, view.query, scan);
  const header = (
    <div className="catalog-head" role="row" style={{ height: HEADER_HEIGHT }}>
      {COLUMNS.map(({ column, title }) => {
        const sorted = view.sort.column === column;
        return (
          <button
            key={column}
            type="button"
            role="columnheader"
            tabIndex={-1}
            aria-sort={sorted ? (view.sort.direction === 'asc' ? 'ascending' : 'descending') : 'none'}
            className={`catalog-col col-${column}${sorted ? ' sorted' : ''}`}
            data-testid={`catalog-sort-${column}`}
            onClick={() => sortBy(column)}
          >
            {title}
            <span aria-hidden="true" className="sort-arrow">
              {sorted ? (view.sort.direction === 'asc' ? '▲' : '▼') : ''}
            </span>
          </button>
        );
      })}
    </div>
  );

  return (
    <div className="view catalog-view" data-testid={`catalog-${connection}`}>
      <div className="view-header">
        <h1>
          Catalog <span className="muted">·</span> <SafeText text={conn?.label ?? connection} />
        </h1>
        <input
          ref={search}
          className="input catalog-search"
          type="search"
          placeholder="Filter: name, namespace, display name, domain, tag (ns: tag: domain:)"
          aria-label="Filter skills"
          value={input}
          onChange={(e) => setInput(e.target.value)}
          data-testid="catalog-search"
        />
        <span className="muted catalog-count" data-testid="catalog-count" data-query={view.query} data-matches={rows.length} data-scanned={scan.scanned} data-complete={scan.complete}>
          {view.query ? `${rows.length.toLocaleString('en')} of ` : ''}
          {scan.scanned.toLocaleString('en')}
          {scan.complete ? '' : scan.total !== null ? ` read of ${scan.total.toLocaleString('en')}` : ' read so far'} {(scan.total ?? scan.scanned) === 1 ? 'skill' : 'skills'}
        </span>
        {!scan.complete && !scan.loading && scan.scanned > 0 && (
          <button type="button" className="btn small" onClick={more} data-testid="catalog-scan-more">
            Scan more
          </button>
        )}
        <UpdatedCue change={lastChange} refreshing={scan.refreshing} withSkill testId="catalog-updated" />
        <button
          type="button"
          className="btn small"
          onClick={() => openCatalogHealth(connection, selected?.namespace ?? rows[0]?.namespace)}
          title="Budgets of a namespace or bindings file against the runtime limits, and a split that fits"
          data-testid="catalog-health"
        >
          Catalog health
        </button>
        <button type="button" className="btn small ghost" onClick={reload} title="Read the catalog again" data-testid="catalog-reload">
          Reload
        </button>
      </div>
      {scan.error && (
        <div className="inline-error catalog-error" role="alert" data-testid="catalog-error">
          <strong>{offline ? 'Offline.' : 'The catalog could not be read.'}</strong> <span className="isolate">{scan.error}</span>{' '}
          <button type="button" className="btn small" onClick={retry}>
            Retry
          </button>
        </div>
      )}
      <div className="catalog-body">
        <div className="catalog-list-wrap">
          {empty && !scan.error ? (
            <>
              {header}
              <div className="empty-state" data-testid="catalog-empty" data-kind={empty.kind}>
                <strong>{empty.title}</strong>
                <span>{empty.hint}</span>
                {empty.kind === 'partial' && !scan.loading && (
                  <button type="button" className="btn" onClick={more}>
                    Scan more
                  </button>
                )}
              </div>
            </>
          ) : (
            <VirtualList
              key={restored ? 'restored' : 'restoring'}
              ref={list}
              count={rows.length}
              rowHeight={ROW_HEIGHT}
              header={header}
              headerHeight={HEADER_HEIGHT}
              className="catalog-list"
              {...(restored && saved.scrollTop > 0 && { initialScrollTop: saved.scrollTop })}
              onScroll={onScroll}
              containerProps={{ role: 'grid', 'aria-label': 'Skills', 'aria-rowcount': rows.length, tabIndex: 0, 'data-testid': 'catalog-list', 'data-autofocus': '' } as never}
              renderRow={(i, style) => {
                const e = rows[i]!;
                const isSelected = i === selectedIndex;
                return (
                  <div
                    key={e.key}
                    role="row"
                    aria-rowindex={i + 1}
                    aria-selected={isSelected}
                    className={`catalog-row${isSelected ? ' selected' : ''}`}
                    style={style}
                    data-testid={`catalog-row-${e.key}`}
                    onClick={() => patch(tab.id, { selected: e.key })}
                    onDoubleClick={() => {
                      patch(tab.id, { selected: e.key });
                      if (typeof edit === 'function') edit({ connection, skill: skillOf(e), preview: false });
                    }}
                  >
                    <span className="catalog-col col-name ellipsis mono" title={visibleControls(e.key)}>
                      <SafeText text={e.entry.namespace} className="faint" />
                      <span className="faint">/</span>
                      <SafeText text={e.entry.name} />
                    </span>
                    <span className="catalog-col col-display ellipsis" title={visibleControls(e.entry.display_name.slice(0, 200))}>
                      <SafeText text={e.entry.display_name.slice(0, 200)} />
                    </span>
                    <span className="catalog-col col-version mono">v{e.entry.version}</span>
                    <span className="catalog-col col-updated muted" title={e.entry.updated_at}>
                      {ago(e.entry.updated_at)}
                    </span>
                    <span className="catalog-col col-domains ellipsis muted" title={visibleControls(e.entry.domains.join(', '))}>
                      <SafeText text={e.entry.domains.join(', ')} />
                    </span>
                    <span className="catalog-col col-tags ellipsis muted" title={visibleControls(e.entry.tags.join(', '))}>
                      <SafeText text={e.entry.tags.join(', ')} />
                    </span>
                  </div>
                );
              }}
            />
          )}
        </div>
        {view.preview && (
          <aside className="catalog-preview" aria-label="Preview" data-testid="catalog-preview">
            {selected ? (
              <Preview entry={selected} can={can} run={run} hasDraft={draftOf(selected) !== undefined} />
            ) : (
              <div className="empty-state">
                <span>Select a skill to preview it.</span>
              </div>
            )}
          </aside>
        )}
      </div>
    </div>
  );
}

function ActionButton({ id, label, can, onClick, primary, hint }: { id: string; label: string; can: true | string; onClick: () => void; primary?: boolean; hint?: string }) {
  return (
    <button type="button" className={`btn${primary ? ' primary' : ''}`} disabled={can !== true} title={can === true ? hint : can} onClick={onClick} data-testid={id}>
      {label}
    </button>
  );
}

function Preview({
  entry,
  can,
  run,
  hasDraft,
}: {
  entry: IndexedEntry;
  can: Record<'open' | 'diff' | 'evaluate' | 'history' | 'review', true | string>;
  run: { open: (preview: boolean) => void; diff: () => void; evaluate: () => void; history: () => void; review: () => void };
  hasDraft: boolean;
}) {
  const e = entry.entry;
  return (
    <div className="preview-body" data-testid={`catalog-preview-${entry.key}`}>
      <h2 className="preview-title">
        <SafeText text={e.display_name} />
      </h2>
      <div className="mono muted preview-key">
        <SafeText text={entry.key} /> <span>v{e.version}</span>
      </div>
      <div className="preview-actions">
        <ActionButton id={`catalog-open-${entry.key}`} label="Open" can={can.open} onClick={() => run.open(false)} primary />
        <ActionButton
          id={`catalog-diff-${entry.key}`}
          label="Diff"
          hint={hasDraft ? 'Compare the draft with the published revision' : 'No draft yet: shows the published revision (open the skill to start a draft)'}
          can={can.diff}
          onClick={run.diff}
        />
        <ActionButton id={`catalog-evaluate-${entry.key}`} label="Evaluate" can={can.evaluate} onClick={run.evaluate} />
        <ActionButton id={`catalog-history-${entry.key}`} label="History" can={can.history} onClick={run.history} />
        <ActionButton id={`catalog-request-review-${entry.key}`} label="Request review…" hint="File a signed publication request for the draft of this skill" can={can.review} onClick={run.review} />
      </div>
      <h3>Description</h3>
      <p className="preview-description" data-testid="catalog-preview-description">
        <SafeText text={e.description} />
      </p>
      <dl className="preview-meta">
        <dt>Updated</dt>
        <dd title={e.updated_at}>{new Date(e.updated_at).toLocaleString('en')}</dd>
        <dt>Domains</dt>
        <dd>
          {e.domains.length === 0 ? <span className="faint">none</span> : e.domains.map((d) => <SafeText key={d} text={d} className="pill" />)}
        </dd>
        <dt>Tags</dt>
        <dd>{e.tags.length === 0 ? <span className="faint">none</span> : e.tags.map((t) => <SafeText key={t} text={t} className="pill" />)}</dd>
        <dt>Manifest</dt>
        <dd className="mono ellipsis" title={e.manifest_hash}>
          {e.manifest_hash.slice(0, 19)}…
        </dd>
      </dl>
    </div>
  );
}
