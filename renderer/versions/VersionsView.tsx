/**
 * The body-free version history of one skill on one connection, newest first:
 * the published and protected markers, tombstones with who deleted them, when
 * and why, opening any retained version read-only, comparing two, and the
 * guarded deletion of one version or a range.
 */
import { useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { SkillId } from '../../core/package/types';
import type { VersionView } from '../api/client';
import { useLastStoreChange, versionsQuery } from '../storeData/queries';
import { UpdatedCue } from '../storeData/UpdatedCue';
import { useConnection } from '../connections/queries';
import { ago } from '../catalog/CatalogView';
import { useCommands } from '../shell/commands';
import { useIntent } from '../shell/intents';
import { SafeText, visibleControls } from '../shell/SafeText';
import { useTabScope } from '../shell/Tabs';
import { messageOf } from '../shell/useNotificationsStore';
import type { TabViewProps } from '../shell/views';
import { DeleteDialog } from './DeleteDialog';
import { paramsOf } from '../shell/useTabsStore';

/** `namespace/name`. */
export function keyOf(skill: SkillId): string {
  return `${skill.namespace}/${skill.name}`;
}

/** The history of `skill` through the query cache: pages of 50, newest first; a store event re-reads the pages shown. */
function useHistory(connection: string, skill: SkillId) {
  const query = useInfiniteQuery(versionsQuery(connection, skill));
  const pages = query.data?.pages;
  const versions = useMemo(() => pages?.flatMap((p) => p.versions) ?? [], [pages]);
  const last = pages?.[pages.length - 1];
  const history = {
    versions,
    next: last?.next ?? null,
    published: pages?.[0]?.published ?? 0,
    loading: query.isPending || query.isFetchingNextPage,
    refreshing: query.isFetching && !query.isFetchingNextPage && pages !== undefined,
    ...(query.error ? { error: messageOf(query.error) } : {}),
  };
  return {
    history,
    reload: () => void query.refetch(),
    more: () => {
      if (query.hasNextPage && !query.isFetching) void query.fetchNextPage();
    },
  };
}

/** How long ago, in words: "just now", "1 minute ago", "3 hours ago", "2 days ago". */
export function agoInWords(iso: string, now = Date.now()): string {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return '';
  const s = Math.max(0, (now - t) / 1000);
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'} ago`;
  if (s < 45) return 'just now';
  if (s < 3600) return unit(Math.max(1, Math.round(s / 60)), 'minute');
  if (s < 86_400) return unit(Math.round(s / 3600), 'hour');
  if (s < 86_400 * 30) return unit(Math.round(s / 86_400), 'day');
  if (s < 86_400 * 365) return unit(Math.round(s / (86_400 * 30)), 'month');
  return unit(Math.round(s / (86_400 * 365)), 'year');
}

/** A tombstone as a sentence: "deleted 3 minutes ago by ana: leaked secret", with only what the store recorded. */
export function tombstoneText(v: Pick<VersionView, 'deleted_at' | 'deleted_by' | 'deletion_reason'>, now = Date.now()): string {
  const when = v.deleted_at ? ` ${agoInWords(v.deleted_at, now)}` : '';
  const who = v.deleted_by ? ` by ${visibleControls(v.deleted_by)}` : '';
  const why = v.deletion_reason ? `: ${visibleControls(v.deletion_reason)}` : '';
  return `deleted${when}${who}${why}`;
}

/** Why a version cannot be deleted, or undefined when it can. */
export function deleteBlocked(v: VersionView): string | undefined {
  if (v.status === 'deleted') return `v${v.version} is already a tombstone`;
  if (v.protection === 'published') return `v${v.version} is the published version: publish a newer one first; the published version and its predecessor are never deleted`;
  if (v.protection === 'protected') return `v${v.version} precedes the published version and is protected: it is what a rollback returns to`;
  return undefined;
}

export function VersionsView({ tab, active }: TabViewProps) {
  const params = paramsOf(tab, 'versions');
  const connection = params.connection || (tab.connectionId ?? '');
  const { skill } = params;
  const conn = useConnection(connection);
  const scope = useTabScope();
  const { history, reload, more } = useHistory(connection, skill);
  const lastChange = useLastStoreChange(connection, skill);
  const [showTombstones, setShowTombstones] = useState(true);
  const [cursor, setCursor] = useState(0);
  const [picked, setPicked] = useState<number[]>([]);
  const [deleting, setDeleting] = useState<{ from: number; to: number } | undefined>();
  const view = useIntent('skill.view');
  const diff = useIntent('skill.diff');
  const rows = history.versions.filter((v) => showTombstones || v.status !== 'deleted');
  const current = rows[Math.min(cursor, rows.length - 1)];
  const key = keyOf(skill);

  const openVersion = (v: VersionView | undefined) => {
    if (v && v.status !== 'deleted' && typeof view === 'function') view({ connection, skill, version: v.version, preview: true });
  };
  const canOpen = (v: VersionView | undefined): true | string =>
    typeof view === 'string' ? view : !v ? 'Select a version' : v.status === 'deleted' ? `v${v.version} is a tombstone: its content is gone` : true;
  const compare = (a: number, b: number) => {
    if (typeof diff !== 'function') return;
    const [older, newer] = a < b ? [a, b] : [b, a];
    diff({ before: { kind: 'stored', connection, skill, version: older }, after: { kind: 'stored', connection, skill, version: newer } });
  };
  const canCompare = (): true | string => (typeof diff === 'string' ? diff : picked.length === 2 ? true : `Select two versions to compare (${picked.length} selected)`);
  const togglePick = (v: VersionView) => {
    if (v.status === 'deleted') return;
    setPicked((p) => (p.includes(v.version) ? p.filter((x) => x !== v.version) : [...p, v.version].slice(-2)));
  };
  const previousAvailable = (v: VersionView) => history.versions.find((o) => o.version < v.version && o.status === 'available');

  useCommands(scope, {
    'versions.next': () => setCursor((c) => Math.min(rows.length - 1, c + 1)),
    'versions.previous': () => setCursor((c) => Math.max(0, c - 1)),
    'versions.open': { enabled: () => canOpen(current), run: () => openVersion(current) },
    'versions.toggleSelect': { enabled: () => (current ? true : 'Select a version'), run: () => current && togglePick(current) },
    'versions.compare': { enabled: canCompare, run: () => compare(picked[0]!, picked[1]!) },
    'versions.delete': {
      enabled: () => (!current ? 'Select a version' : (deleteBlocked(current) ?? true)),
      run: () => current && setDeleting({ from: current.version, to: current.version }),
    },
    'versions.deleteRange': () => setDeleting({ from: current?.version ?? 1, to: current?.version ?? 1 }),
    'versions.toggleTombstones': () => setShowTombstones((s) => !s),
    'versions.loadMore': { enabled: () => (history.next === null ? 'Every version is listed' : true), run: more },
  });

  // A tab that becomes visible takes the focus, unless something inside it already has it.
  const listRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!active) return;
    const timer = setTimeout(() => {
      const panel = scope.current;
      if (panel && !panel.contains(document.activeElement)) (listRef.current ?? panel).focus();
    }, 0);
    return () => clearTimeout(timer);
  }, [active, scope]);

  const compareState = canCompare();
  return (
    <div className="view versions-view" data-testid={`versions-${key}`}>
      <div className="view-header">
        <h1>
          <SafeText text={key} /> <span className="muted">@</span> <SafeText text={conn?.label ?? connection} />
        </h1>
        <UpdatedCue change={lastChange} refreshing={history.refreshing} testId="versions-updated" />
        <span className="spacer" />
        <button
          type="button"
          className="btn small"
          disabled={compareState !== true}
          title={compareState === true ? undefined : compareState}
          onClick={() => compare(picked[0]!, picked[1]!)}
          data-testid="versions-compare"
        >
          Compare selected ({picked.length})
        </button>
        <button type="button" className="btn small" onClick={() => setDeleting({ from: current?.version ?? 1, to: current?.version ?? 1 })} data-testid="versions-delete-range">
          Delete a range…
        </button>
        <label className="checkbox-row">
          <input type="checkbox" checked={showTombstones} onChange={(e) => setShowTombstones(e.target.checked)} data-testid="versions-show-tombstones" /> show tombstones
        </label>
      </div>
      {history.error && (
        <div className="inline-error catalog-error" role="alert" data-testid="versions-error">
          <span className="isolate">{history.error}</span>{' '}
          <button type="button" className="btn small" onClick={reload}>
            Retry
          </button>
        </div>
      )}
      <div ref={listRef} className="versions-list" role="listbox" aria-label="Versions" tabIndex={0} data-autofocus data-testid="versions-list">
        {rows.map((v, i) => {
          const blocked = deleteBlocked(v);
          const prev = previousAvailable(v);
          const open = canOpen(v);
          const tomb = v.status === 'deleted';
          return (
            <div
              key={v.version}
              role="option"
              aria-selected={i === cursor}
              className={`version-row${i === cursor ? ' selected' : ''}${tomb ? ' tombstone' : ''}`}
              data-testid={`version-row-${v.version}`}
              data-status={v.status}
              data-protection={v.protection ?? 'none'}
              onClick={() => setCursor(i)}
              onDoubleClick={() => openVersion(v)}
            >
              <input
                type="checkbox"
                aria-label={`Select v${v.version} for comparison`}
                disabled={tomb}
                checked={picked.includes(v.version)}
                onChange={() => togglePick(v)}
                data-testid={`version-pick-${v.version}`}
              />
              <span className="version-number mono">{tomb ? `✝v${v.version}` : `v${v.version}`}</span>
              <span className="version-markers">
                {v.protection === 'published' && (
                  <span className="badge ok" data-testid={`version-published-${v.version}`}>
                    PUBLISHED
                  </span>
                )}
                {v.protection === 'protected' && (
                  <span className="badge neutral" title="The published version and its predecessor are never deleted" data-testid={`version-protected-${v.version}`}>
                    PROTECTED
                  </span>
                )}
              </span>
              {tomb ? (
                <span className="version-text muted" data-testid={`version-tombstone-${v.version}`}>
                  {tombstoneText(v)} <span className="faint">(content unavailable)</span>
                </span>
              ) : (
                <span className="version-text">
                  <span className="muted" title={v.created_at}>
                    {ago(v.created_at)}
                  </span>{' '}
                  <span className="version-reason">
                    “<SafeText text={v.change_reason} />”
                  </span>
                </span>
              )}
              <span className="version-actions">
                <button type="button" className="btn small" disabled={open !== true} title={open === true ? undefined : open} onClick={() => openVersion(v)} data-testid={`version-open-${v.version}`}>
                  Open
                </button>
                {!tomb && (
                <button
                  type="button"
                  className="btn small"
                  disabled={!prev || typeof diff === 'string'}
                  title={typeof diff === 'string' ? diff : !prev ? 'No earlier retained version' : `Compare v${prev.version} → v${v.version}`}
                  onClick={() => prev && compare(prev.version, v.version)}
                  data-testid={`version-diff-prev-${v.version}`}
                >
                  Diff prev
                </button>
                )}
                {!tomb && (
                  <button
                    type="button"
                    className="btn small danger-text"
                    disabled={blocked !== undefined}
                    title={blocked}
                    onClick={() => setDeleting({ from: v.version, to: v.version })}
                    data-testid={`version-delete-${v.version}`}
                  >
                    Delete…
                  </button>
                )}
              </span>
            </div>
          );
        })}
        {history.loading && <div className="muted version-more">Loading…</div>}
        {!history.loading && history.next !== null && (
          <button type="button" className="btn small version-more" onClick={more} data-testid="versions-load-more">
            Load older versions
          </button>
        )}
      </div>
      {deleting && (
        <DeleteDialog
          connection={connection}
          skill={skill}
          initial={deleting}
          onClose={(changed) => {
            setDeleting(undefined);
            if (changed) {
              setPicked([]);
              reload();
            }
          }}
        />
      )}
    </div>
  );
}
