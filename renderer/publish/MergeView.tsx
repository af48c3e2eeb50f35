/**
 * The merge view after a 412: base / theirs / mine as a field table. One-sided
 * changes are merged already (by `merge.packages`); each conflict takes
 * Theirs, Mine, Both (lists) or a three-way text edit (text fields only).
 * "Complete merge" stays disabled until no conflict and no error remain; it
 * revalidates with the registry and publishes with If-Match the newer revision.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { MergeView as MergeResult } from '../../core/api/contract';
import type { MergeConflict, MergeValue } from '../../core/package/merge';
import { validatePackage } from '../../core/package/validate';
import { diffWords } from '../../core/package/wordDiff';
import { workbenchClient } from '../api/client';
import { useCommands } from '../shell/commands';
import { SafeText } from '../shell/SafeText';
import { useTabScope } from '../shell/Tabs';
import { messageOf } from '../shell/useNotificationsStore';
import { paramsOf, useTabsStore } from '../shell/useTabsStore';
import type { TabViewProps } from '../shell/views';
import { useEditorStore } from '../editor/useEditorStore';
import { applyResolutions, canKeepBoth, conflictsWithoutBase, fieldRows, isTextConflict, packageText, unresolved, type Resolution } from './merge';
import { publishText, useMergeStore } from './publish';


type Loaded = { state: 'loading' } | { state: 'failed'; message: string } | { state: 'ready'; merge: Pick<MergeResult, 'merged' | 'conflicts'> & { base: MergeResult['base'] | null; theirs: MergeResult['theirs']; mine: MergeResult['mine'] } };

function preview(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value.length > 80 ? `${value.slice(0, 79)}…` : value;
  if (Array.isArray(value)) return `[${value.length} item${value.length === 1 ? '' : 's'}]`;
  if (typeof value === 'object' && 'name' in (value as object)) return `resource ${(value as { name: string }).name}`;
  return JSON.stringify(value);
}

function full(value: MergeValue | undefined): string {
  if (value === null || value === undefined) return '(absent)';
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

export function MergeView({ tab }: TabViewProps) {
  const { editorTabId } = paramsOf(tab, 'merge');
  const request = useMergeStore((s) => s.requests[editorTabId]);
  const scope = useTabScope();
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  const [resolutions, setResolutions] = useState<Map<number, Resolution>>(new Map());
  const [editing, setEditing] = useState<number | undefined>();
  const [editText, setEditText] = useState('');
  const [busy, setBusy] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [focus, setFocus] = useState(0);
  const rowRefs = useRef<Map<number, HTMLElement>>(new Map());

  useEffect(() => {
    if (!request) return;
    let cancelled = false;
    const { conflict } = request;
    const theirsSource = { kind: 'text' as const, text: conflict.theirs.text, label: `theirs v${conflict.theirs.version}` };
    const mineSource = { kind: 'text' as const, text: conflict.mine.text, label: 'mine' };
    const run = conflict.base
      ? workbenchClient()['merge.packages']({ base: { kind: 'text', text: conflict.base.text, label: `base v${conflict.base.version}` }, theirs: theirsSource, mine: mineSource }).then((m) => ({ ...m }))
      : workbenchClient()['diff.packages']({ before: theirsSource, after: mineSource }).then((d) => ({
          merged: d.after.package,
          conflicts: conflictsWithoutBase(d.before.package, d.after.package),
          base: null,
          theirs: d.before,
          mine: d.after,
        }));
    run.then(
      (merge) => !cancelled && setLoaded({ state: 'ready', merge }),
      (e: unknown) => !cancelled && setLoaded({ state: 'failed', message: messageOf(e) }),
    );
    return () => {
      cancelled = true;
    };
  }, [request]);

  const merge = loaded.state === 'ready' ? loaded.merge : undefined;
  const rows = useMemo(() => (merge ? fieldRows(merge.base?.package ?? null, merge.theirs.package, merge.mine.package, merge.conflicts, merge.merged) : []), [merge]);
  const resolved = useMemo(() => (merge ? applyResolutions(merge.merged, merge.conflicts, resolutions) : undefined), [merge, resolutions]);
  const text = useMemo(() => (resolved ? packageText(resolved) : ''), [resolved]);
  const check = useMemo(() => (resolved && request ? validatePackage(text, { id: request.skill }) : undefined), [resolved, text, request]);
  const open = merge ? unresolved(merge.conflicts, resolutions) : 0;
  const errors = check?.errors.length ?? 0;
  const blocked = !merge ? 'The merge is still loading' : open > 0 ? `${open} conflict${open === 1 ? '' : 's'} left` : errors > 0 ? `${errors} error${errors === 1 ? '' : 's'} in the result` : busy;

  const resolve = (index: number, resolution: Resolution) => {
    const next = new Map(resolutions);
    next.set(index, resolution);
    setResolutions(next);
    setEditing(undefined);
    // Auto-advance to the next open conflict.
    const nextOpen = merge?.conflicts.findIndex((_, i) => i > index && !next.has(i)) ?? -1;
    if (nextOpen >= 0) {
      setFocus(nextOpen);
      setTimeout(() => rowRefs.current.get(nextOpen)?.querySelector<HTMLElement>('button')?.focus(), 0);
    }
  };

  const goConflict = (direction: 1 | -1) => {
    if (!merge || merge.conflicts.length === 0) return;
    const n = merge.conflicts.length;
    const next = (focus + direction + n) % n;
    setFocus(next);
    const el = rowRefs.current.get(next);
    el?.scrollIntoView({ block: 'nearest' });
    el?.querySelector<HTMLElement>('button')?.focus();
  };

  const complete = async () => {
    if (!merge || !request || blocked) return;
    setError(undefined);
    setBusy('Revalidating…');
    try {
      const verdict = await workbenchClient()['validate.package']({ text, skill: request.skill, connection: request.connection });
      if (!verdict.result.valid) {
        const n = verdict.result.errors.length;
        setError(`The registry finds ${n} error${n === 1 ? '' : 's'} in the merged package: ${verdict.result.errors.map((e) => `${e.path} ${e.message}`).join('; ')}`);
        return;
      }
      const theirs = request.conflict.theirs;
      setBusy(`Publishing with If-Match v${theirs.version}…`);
      // The draft becomes the merged package on the newer base, whatever the publish answers.
      useEditorStore.getState().patch(editorTabId, { base: { version: theirs.version, etag: theirs.etag } });
      useEditorStore.getState().replaceText(editorTabId, text);
      const outcome = await publishText({ tabId: editorTabId, connection: request.connection, skill: request.skill }, text, { version: theirs.version, etag: theirs.etag });
      if (outcome) {
        const { [editorTabId]: _done, ...rest } = useMergeStore.getState().requests;
        useMergeStore.setState({ requests: rest });
        useTabsStore.getState().remove([tab.id]);
        useTabsStore.getState().activate(editorTabId);
      }
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(undefined);
    }
  };

  useCommands(scope, {
    'merge.nextConflict': () => goConflict(1),
    'merge.previousConflict': () => goConflict(-1),
    'merge.complete': { enabled: () => blocked ?? true, run: complete },
  });

  if (!request) {
    return (
      <div className="empty-state" data-testid="merge-gone">
        <strong>This merge is no longer available</strong>
        <span>Publish the draft again to reopen it.</span>
      </div>
    );
  }

  const { conflict } = request;
  let conflictIndex = 0;
  return (
    <div className="merge-view" data-testid="merge-view">
      <header className="toolbar merge-toolbar">
        <strong>Merge</strong>
        <span>base {conflict.base ? `v${conflict.base.version}` : '(unknown)'}</span>│<span>theirs v{conflict.theirs.version}</span>│<span>mine</span>
        <span className={open ? 'warn' : 'ok'} data-testid="merge-open-count">
          {merge ? `${open} of ${merge.conflicts.length} conflict${merge.conflicts.length === 1 ? '' : 's'} open` : ''}
        </span>
        <button type="button" className="btn small" onClick={() => goConflict(-1)} title="Previous conflict (Shift+F7)" aria-label="Previous conflict">
          ◀
        </button>
        <button type="button" className="btn small" onClick={() => goConflict(1)} title="Next conflict (F7)" aria-label="Next conflict">
          ▶
        </button>
        <span className="spacer" />
        <button type="button" className="btn small primary" disabled={blocked !== undefined} title={blocked ?? `Revalidate and publish with If-Match v${conflict.theirs.version}`} onClick={() => void complete()} data-testid="merge-complete">
          Complete merge → publish on v{conflict.theirs.version}
        </button>
      </header>
      <p className="merge-message">
        <SafeText text={request.message} />
      </p>
      {loaded.state === 'failed' && (
        <p className="err" data-testid="merge-error">
          <SafeText text={loaded.message} />
        </p>
      )}
      {error && (
        <p className="err" data-testid="merge-complete-error">
          <SafeText text={error} />
        </p>
      )}
      {busy && <p className="muted">{busy}</p>}
      <div className="merge-table-wrap">
        <table className="merge-table" data-testid="merge-table">
          <thead>
            <tr>
              <th>Field</th>
              <th>Base</th>
              <th>Theirs</th>
              <th>Mine</th>
              <th>State</th>
              <th>Action</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => {
              if (row.conflicts.length === 0) {
                const state = { unchanged: 'unchanged', same: '✓ same change', theirs: '✓ auto: theirs', mine: '✓ auto: mine', merged: '✓ auto: merged', conflict: '' }[row.state];
                const value = (pkg: unknown) => {
                  if (!pkg) return undefined;
                  const p = pkg as Record<string, unknown> & { activation_examples: Record<string, unknown> };
                  return row.field.startsWith('activation_examples.') ? p.activation_examples[row.field.split('.')[1]!] : p[row.field];
                };
                return (
                  <tr key={row.field} className={`merge-row ${row.state}`} data-testid={`merge-row-${row.field}`} data-state={row.state}>
                    <td className="mono">{row.field.replace('activation_examples.', '')}</td>
                    <td className="isolate">{preview(value(merge?.base?.package))}</td>
                    <td className="isolate">{preview(value(merge?.theirs.package))}</td>
                    <td className="isolate">{preview(value(merge?.mine.package))}</td>
                    <td className={row.state === 'unchanged' ? 'muted' : 'ok'}>{state}</td>
                    <td className="muted">{row.state === 'merged' ? 'both kept' : ''}</td>
                  </tr>
                );
              }
              return row.conflicts.map((c: MergeConflict) => {
                const index = merge!.conflicts.indexOf(c);
                conflictIndex++;
                const chosen = resolutions.get(index);
                return (
                  <FragmentRow key={`${row.field}:${index}`}>
                    <tr
                      className={`merge-row conflict${chosen ? ' resolved' : ''}${focus === index ? ' focused' : ''}`}
                      data-testid={`merge-conflict-${c.path}`}
                      data-state={chosen ? `resolved-${chosen.pick}` : 'conflict'}
                      ref={(el) => {
                        if (el) rowRefs.current.set(index, el);
                      }}
                    >
                      <td className="mono">
                        {c.resource ? `${c.resource}: ${c.field}` : c.field.replace('activation_examples.', '')}
                        <span className="muted"> #{conflictIndex}</span>
                      </td>
                      <td className="isolate merge-value">
                        <ConflictValue value={c.base} />
                      </td>
                      <td className="isolate merge-value">
                        <ConflictValue value={c.theirs} />
                      </td>
                      <td className="isolate merge-value">
                        <ConflictValue value={c.mine} />
                      </td>
                      <td className={chosen ? 'ok' : 'warn'}>{chosen ? `✓ ${chosen.pick === 'edit' ? 'edited' : chosen.pick}` : '⚠ conflict'}</td>
                      <td className="merge-actions">
                        <button type="button" className={`btn small${chosen?.pick === 'theirs' ? ' primary' : ''}`} onClick={() => resolve(index, { pick: 'theirs' })} data-testid="merge-take-theirs">
                          Theirs
                        </button>
                        <button type="button" className={`btn small${chosen?.pick === 'mine' ? ' primary' : ''}`} onClick={() => resolve(index, { pick: 'mine' })} data-testid="merge-take-mine">
                          Mine
                        </button>
                        {canKeepBoth(c) && (
                          <button type="button" className={`btn small${chosen?.pick === 'both' ? ' primary' : ''}`} onClick={() => resolve(index, { pick: 'both' })} data-testid="merge-take-both">
                            Both
                          </button>
                        )}
                        {isTextConflict(c) && (
                          <button
                            type="button"
                            className={`btn small${chosen?.pick === 'edit' ? ' primary' : ''}`}
                            onClick={() => {
                              setEditing(index);
                              setEditText(chosen?.pick === 'edit' ? chosen.text : typeof c.mine === 'string' ? c.mine : '');
                            }}
                            data-testid="merge-edit"
                          >
                            Edit 3-way
                          </button>
                        )}
                      </td>
                    </tr>
                    {editing === index && (
                      <tr className="merge-edit-row">
                        <td colSpan={6}>
                          <div className="merge-three">
                            {(['base', 'theirs', 'mine'] as const).map((side) => (
                              <div key={side}>
                                <span className="muted">{side === 'base' ? 'base' : `${side} (changes against base highlighted)`}</span>
                                <pre className="isolate" data-testid={`merge-three-${side}`}>
                                  {side === 'base' ? full(c.base) : <WordChanges before={full(c.base)} after={full(c[side])} />}
                                </pre>
                              </div>
                            ))}
                          </div>
                          <label className="merge-result">
                            <span>Result</span>
                            <textarea value={editText} onChange={(e) => setEditText(e.target.value)} rows={4} data-autofocus data-testid="merge-edit-text" spellCheck={false} />
                          </label>
                          <div className="actions">
                            <button type="button" className="btn small" onClick={() => setEditing(undefined)}>
                              Cancel
                            </button>
                            <button type="button" className="btn small primary" onClick={() => resolve(index, { pick: 'edit', text: editText })} data-testid="merge-edit-use">
                              Use this text
                            </button>
                          </div>
                        </td>
                      </tr>
                    )}
                  </FragmentRow>
                );
              });
            })}
          </tbody>
        </table>
      </div>
      <footer className="merge-footer" data-testid="merge-validation">
        {check && (check.errors.length === 0 ? <span className="ok">✓ The result validates ({check.warnings.length} warning{check.warnings.length === 1 ? '' : 's'})</span> : (
          <span className="err">
            ✖ {check.errors.length} error{check.errors.length === 1 ? '' : 's'} in the result: {check.errors.slice(0, 3).map((e) => `${e.path} ${e.message}`).join('; ')}
          </span>
        ))}
      </footer>
    </div>
  );
}

/** A conflicting value in full: a text wraps, a list shows one item per line. */
function ConflictValue({ value }: { value: MergeValue | undefined }) {
  if (value === null || value === undefined) return <span className="faint">(absent)</span>;
  if (Array.isArray(value)) {
    if (value.length === 0) return <span className="faint">(empty list)</span>;
    return (
      <ul className="merge-list">
        {value.map((item, i) => (
          <li key={i}>{typeof item === 'string' ? item : preview(item)}</li>
        ))}
      </ul>
    );
  }
  return <>{typeof value === 'string' ? value : full(value)}</>;
}

/** `after` with the words it adds to `before` marked, and the words it drops struck through. */
function WordChanges({ before, after }: { before: string; after: string }) {
  const diff = useMemo(() => diffWords(before, after), [before, after]);
  return (
    <>
      {diff.segments.map((segment, i) =>
        segment.op === 'equal' ? (
          <span key={i}>{segment.text}</span>
        ) : segment.op === 'insert' ? (
          <ins key={i} className="word-added" data-testid="merge-word-added">
            {segment.text}
          </ins>
        ) : (
          <del key={i} className="word-removed" data-testid="merge-word-removed">
            {segment.text}
          </del>
        ),
      )}
    </>
  );
}

function FragmentRow({ children }: { children: React.ReactNode }) {
  return <>{children}</>;
}
