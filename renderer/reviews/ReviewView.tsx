/**
 * One publication request as its reviewer (or its author) sees it: the checks
 * (validation, eval verdict, approvals), each signature with the principal of
 * the key that made it and whether it verifies, the semantic diff against the
 * recorded base with a "viewed" mark per changed field and the progress count
 * (list fields item by item), comments anchored to JSON Pointers, the eval
 * comparison as read-only evidence, the verdict buttons and Publish. The author
 * is never offered Approve; Publish needs an approval whose signature stands.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { workbenchClient, type DiffView, type ReviewRequest } from '../api/client';
import type { FieldChange } from '../../core/package/diff';
import { useCommands } from '../shell/commands';
import { SafeText } from '../shell/SafeText';
import { messageOf, useNotificationsStore } from '../shell/useNotificationsStore';
import type { TabViewProps } from '../shell/views';
import { commentsByPointer, isNotAvailable, itemRows, itemSummary, reviewActions, reviewFields, statusLabel, viewedProgress, type ActionState, type ItemRow, type ReviewField } from './state';
import { useReviewsStore, viewedKey } from './useReviewsStore';
import './reviews.css';
import { paramsOf } from '../shell/useTabsStore';

type Load =
  | { state: 'loading' }
  | { state: 'unavailable'; message: string }
  | { state: 'error'; message: string }
  | { state: 'ready'; request: ReviewRequest; diff: DiffView | null; diffError?: string };

function preview(value: unknown): string {
  if (value === undefined) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}

/** A field's whole value as the detail pane shows it: text as is, anything else as indented JSON. */
function fullText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

/** Loads a request and its diff against the recorded base. */
async function loadReview(id: string): Promise<Load> {
  const api = workbenchClient();
  let request: ReviewRequest;
  try {
    request = await api['reviews.get']({ id });
  } catch (error) {
    if (isNotAvailable(error)) return { state: 'unavailable', message: messageOf(error) };
    return { state: 'error', message: messageOf(error) };
  }
  if (!request.base || !request.package) return { state: 'ready', request, diff: null };
  try {
    const diff = await api['diff.packages']({
      before: { kind: 'stored', connection: request.connection, skill: request.skill, version: request.base.version },
      after: { kind: 'text', text: JSON.stringify(request.package), label: `request ${request.id}` },
    });
    return { state: 'ready', request, diff };
  } catch (error) {
    return { state: 'ready', request, diff: null, diffError: messageOf(error) };
  }
}

function ActionButton({ id, testId, label, state, onClick, primary }: { id: string; testId: string; label: string; state: ActionState; onClick: () => void; primary?: boolean }) {
  if (!state.shown) return null;
  return (
    <button
      type="button"
      className={`review-action${primary ? ' primary' : ''}`}
      data-testid={`${testId}-${id}`}
      disabled={!state.enabled}
      title={state.enabled ? label : state.reason}
      onClick={onClick}
    >
      {label}
    </button>
  );
}

const ITEM_SIGN: Record<ItemRow['op'], string> = { equal: ' ', added: '+', removed: '−', changed: '~', moved: '↕' };
const ITEM_LABEL: Record<ItemRow['op'], string> = { equal: 'unchanged', added: 'added', removed: 'removed', changed: 'edited', moved: 'moved' };

/** A list field entry by entry: each one added, removed, edited (with its old text), moved or unchanged. */
function ItemList({ rows }: { rows: ItemRow[] }) {
  return (
    <ol className="review-items" data-testid="review-items">
      {rows.map((row, i) => (
        <li key={i} className={`review-item item-${row.op}`} data-testid={`review-item-${i}`} data-op={row.op} title={ITEM_LABEL[row.op]}>
          <span className="item-sign" aria-label={ITEM_LABEL[row.op]}>
            {ITEM_SIGN[row.op]}
          </span>
          <span className="item-text">
            {row.before !== undefined && (
              <span className="item-before">
                <SafeText text={row.before} />
              </span>
            )}
            <SafeText text={row.text} />
          </span>
        </li>
      ))}
    </ol>
  );
}

/** The selected field in full: a list entry by entry, anything else at the base and in the request side by side; and the comments anchored to it. */
function FieldDetail({ pointer, before, after, base, comments, items }: { pointer: string; before: unknown; after: unknown; base: string | undefined; comments: ReviewRequest['comments']; items: ItemRow[] | undefined }) {
  return (
    <div className={`review-detail${items ? ' items' : ''}`} data-testid="review-field-detail" data-pointer={pointer}>
      {items ? (
        <div className="review-detail-side">
          <div className="review-detail-head muted">{base ? `entries against ${base} (base)` : 'entries (a new skill)'}: {itemSummary(items)}</div>
          <ItemList rows={items} />
        </div>
      ) : (
        <>
          <div className="review-detail-side">
            <div className="review-detail-head muted">{base ? `${base} (base)` : 'base'}</div>
            {before === undefined ? <p className="muted review-detail-none">{base ? 'absent' : 'a new skill has no base'}</p> : <SafeText className="review-detail-value before" text={fullText(before)} testId="review-detail-before" />}
          </div>
          <div className="review-detail-side">
            <div className="review-detail-head muted">this request</div>
            {after === undefined ? <p className="muted review-detail-none">removed</p> : <SafeText className="review-detail-value after" text={fullText(after)} testId="review-detail-after" />}
          </div>
        </>
      )}
      {comments.length > 0 && (
        <ul className="review-detail-comments">
          {comments.map((c, i) => (
            <li key={i}>
              <SafeText text={c.author} className="strong" />: <SafeText text={c.text} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function ReviewView({ tab, active }: TabViewProps) {
  const { id } = paramsOf(tab, 'review');
  const [load, setLoad] = useState<Load>({ state: 'loading' });
  const [busy, setBusy] = useState(false);
  const [selected, setSelected] = useState(0);
  const [draft, setDraft] = useState('');
  const root = useRef<HTMLDivElement>(null);

  const reload = useCallback(async () => {
    setLoad(await loadReview(id));
  }, [id]);

  useEffect(() => {
    void reload();
    const api = workbenchClient();
    const offReviews = api.on('reviews.changed', (event) => {
      if (event.id === id) void reload();
    });
    // An edit to the draft (by anyone, on disk) can make the approval stale.
    const offFiles = api.on('workspace.changed', () => void reload());
    return () => {
      offReviews();
      offFiles();
    };
  }, [id, reload]);

  const request = load.state === 'ready' ? load.request : undefined;
  const key = request ? viewedKey(request.id, request.manifest_hash) : '';
  const viewed = useReviewsStore((s) => (key ? s.viewed[key] : undefined)) ?? [];
  const toggle = useReviewsStore((s) => s.toggle);

  const fields: ReviewField[] = useMemo(() => {
    if (load.state !== 'ready') return [];
    if (load.diff) return reviewFields(load.diff.diff);
    if (!load.request.base && load.request.package) return Object.keys(load.request.package).map((k) => ({ pointer: `/${k}`, sign: '+' as const, label: k }));
    return [];
  }, [load]);
  const changes = useMemo(() => {
    const map = new Map<string, FieldChange>();
    if (load.state === 'ready' && load.diff) for (const c of load.diff.diff.changes) if (!map.has(c.path)) map.set(c.path, c);
    return map;
  }, [load]);

  const packageValue = (pointer: string) => (load.state === 'ready' && load.request.package ? (load.request.package as unknown as Record<string, unknown>)[pointer.slice(1)] : undefined);
  /** The entry rows of a list field (undefined for other fields). */
  const rowsOf = (f: ReviewField): ItemRow[] | undefined => itemRows(changes.get(f.pointer), load.state === 'ready' && !load.request.base ? packageValue(f.pointer) : undefined);

  const progress = viewedProgress(fields, viewed);
  const actions = request ? reviewActions(request) : undefined;
  const comments = request ? commentsByPointer(request.comments) : new Map();
  const current = fields[Math.min(selected, Math.max(0, fields.length - 1))];

  const act = async (run: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await run();
    } catch (error) {
      useNotificationsStore.getState().push('error', messageOf(error));
    } finally {
      setBusy(false);
      await reload();
    }
  };
  const api = workbenchClient();
  const comment = draft.trim() ? { comment: draft.trim() } : {};
  // A verdict shows in the view itself (status, approvals): no notice over the action bar, where Publish is.
  const approve = () => void act(() => api['reviews.approve']({ id, ...comment }).then(() => setDraft('')));
  const requestChanges = () => void act(() => api['reviews.requestChanges']({ id, ...comment }).then(() => setDraft('')));
  const reject = () => void act(() => api['reviews.reject']({ id, ...comment }).then(() => setDraft('')));
  const addComment = () => {
    if (!draft.trim() || !current) return;
    void act(() => api['reviews.comment']({ id, pointer: current.pointer, text: draft.trim() }).then(() => setDraft('')));
  };
  const publish = () =>
    void act(async () => {
      const outcome = await api['reviews.publish']({ id, idempotency_key: crypto.randomUUID() });
      useNotificationsStore
        .getState()
        .push('info', outcome.outcome === 'deleted' ? `Deleted ${outcome.skill.namespace}/${outcome.skill.name} v${outcome.deleted.join(', v') || ' (already deleted)'}` : `Published ${outcome.skill.namespace}/${outcome.skill.name} v${outcome.version}`);
    });

  const can = (state: ActionState | undefined) => (state?.shown && state.enabled && !busy ? true : state?.shown && !state.enabled ? state.reason : 'Not offered');
  useCommands(root, {
    'review.nextField': () => setSelected((i) => Math.min(fields.length - 1, i + 1)),
    'review.previousField': () => setSelected((i) => Math.max(0, i - 1)),
    'review.toggleViewed': {
      enabled: () => (current ? true : 'No changed field'),
      run: () => {
        if (current && key) toggle(key, current.pointer);
      },
    },
    'review.approve': { enabled: () => can(actions?.approve), run: approve },
  });

  if (load.state === 'loading') return <div className="review-view muted" ref={root} data-scope="review" data-testid={`review-view-${id}`} hidden={!active}>Loading request {id}…</div>;
  if (load.state === 'unavailable' || load.state === 'error')
    return (
      <div className="review-view" ref={root} data-scope="review" data-testid={`review-view-${id}`} hidden={!active}>
        <p className={load.state === 'error' ? 'err' : 'muted'} data-testid={load.state === 'unavailable' ? 'reviews-unavailable' : 'review-error'}>
          {load.state === 'unavailable' ? 'Reviews are not available on this host.' : `Request ${id} could not be read: ${load.message}`}
        </p>
      </div>
    );

  const r = load.request;
  const liveApprovals = r.approvals.filter((a) => !a.stale && a.verified);
  const authorSignature = r.signatures.find((g) => g.role === 'author');
  const range = r.delete ? `v${r.delete.from}${r.delete.to !== r.delete.from ? `–v${r.delete.to}` : ''}` : '';
  const errors = r.validation.errors.length;
  const verdict = r.eval?.verdict ?? null;
  return (
    <div className="review-view" ref={root} data-scope="review" tabIndex={-1} data-testid={`review-view-${id}`} data-status={r.status} data-stale={r.stale} hidden={!active}>
      <header className="review-head">
        <h2>
          <span className="muted">{r.delete ? 'Delete request' : 'Publish request'}</span> <SafeText text={`${r.skill.namespace}/${r.skill.name}`} className="mono" />{' '}
          <span className="muted">
            {r.delete ? `${range} (published: v${r.base?.version ?? '?'})` : r.base ? `v${r.base.version} → next` : 'new skill'} @ <SafeText text={r.connection} />
          </span>
        </h2>
        <div className="review-meta">
          <span>
            by <SafeText text={r.author} testId="review-author" />
            {authorSignature && !authorSignature.verified && <span className="warn"> (signature not verified)</span>}
            {r.viewer_is_author && <span className="muted"> (you)</span>}
          </span>
          <span className={`review-status status-${r.stale ? 'stale' : r.status}`} data-testid={`review-status-${r.id}`}>
            {statusLabel(r.status, r.stale)}
          </span>
          <span className="muted">
            you are <SafeText text={r.viewer ?? 'not signing (no key in the allowed signers)'} testId="review-viewer" />
          </span>
          <span className="mono muted review-id">{r.id}</span>
        </div>
        {r.note && (
          <p className="review-note">
            <SafeText text={r.note} />
          </p>
        )}
      </header>

      <section className="review-checks" aria-label="Checks" data-testid="review-checks">
        <span className={errors ? 'check bad' : 'check ok'} data-testid="review-check-validation" data-ok={errors === 0}>
          {errors ? '✗' : '✓'} {errors} error{errors === 1 ? '' : 's'}, {r.validation.warnings.length} warning{r.validation.warnings.length === 1 ? '' : 's'}
        </span>
        <span className={!r.eval ? 'check none' : verdict?.passed ? 'check ok' : 'check bad'} data-testid="review-check-eval" data-ok={verdict?.passed ?? null}>
          {!r.eval ? '○ no evaluation attached' : verdict ? `${verdict.passed ? '✓' : '✗'} eval ${r.eval.run}: ` : `○ eval ${r.eval.run}: no verdict`}
          {verdict && <SafeText text={verdict.message} />}
        </span>
        <span className={r.stale || (r.status === 'approved' && !r.verified_approval) ? 'check bad' : liveApprovals.length ? 'check ok' : 'check none'} data-testid="review-check-approvals">
          {r.stale
            ? '✗ approval stale'
            : r.status === 'approved' && !r.verified_approval
              ? '✗ no approval signature stands'
              : liveApprovals.length
                ? `✓ ${liveApprovals.length} signed approval${liveApprovals.length === 1 ? '' : 's'}`
                : '○ 0 approvals'}
        </span>
      </section>

      <section className="review-signatures" aria-label="Signatures" data-testid="review-signatures">
        <h3>Signatures</h3>
        {r.unverifiable && (
          <p className="err" data-testid="review-unverifiable">
            Signatures cannot be checked: <SafeText text={r.unverifiable} />
          </p>
        )}
        <ul>
          {r.signatures.map((g, i) => (
            <li key={i} className={`review-signature ${g.counts ? 'ok' : 'bad'}`} data-testid={`review-signature-${i}`} data-role={g.role} data-verified={g.verified} data-counts={g.counts}>
              <span className="sig-mark" aria-hidden="true">
                {g.counts ? '✓' : '✗'}
              </span>
              <span className="muted">{g.role === 'author' ? 'Requested by' : 'Approved by'}</span>
              <SafeText text={g.principal ?? g.claimed} className="strong" testId={`review-signature-principal-${i}`} />
              {g.principal === null && <span className="muted">(as the file claims)</span>}
              {g.fingerprint && <span className="mono muted sig-key" title="The signing key's fingerprint">{g.fingerprint}</span>}
              <span className="sig-verdict" data-testid={`review-signature-verdict-${i}`}>
                {g.counts ? 'verified against the allowed signers' : <SafeText text={g.problem ?? 'does not verify'} />}
              </span>
            </li>
          ))}
        </ul>
      </section>

      {r.delete && (
        <section className="review-delete" aria-label="Deletion" data-testid="review-delete">
          <p>
            Deletes {range} of <SafeText text={`${r.skill.namespace}/${r.skill.name}`} className="mono" /> with If-Match <span className="mono">{r.base?.etag}</span>; the
            published revision and its predecessor are never deleted.
          </p>
          <p>
            <span className="muted">Reason for the audit trail:</span> <SafeText text={r.delete.reason} />
          </p>
        </section>
      )}

      {!r.delete && (
        <section className="review-changes" aria-label="Changes">
          <div className="review-progress" data-testid="review-progress" data-viewed={progress.viewed} data-total={progress.total}>
            <span>Changes</span>
            <span className="bar" aria-hidden="true">
              <span style={{ width: `${progress.total ? (progress.viewed / progress.total) * 100 : 100}%` }} />
            </span>
            <span data-testid="review-progress-text">{progress.text}</span>
          </div>
          {load.diffError && <p className="err">The diff against the base could not be computed: {load.diffError}</p>}
          {load.diff?.diff.identical && <p className="muted">No changes against v{r.base?.version}.</p>}
          <ul className="review-fields" role="listbox" aria-label="Changed fields">
            {fields.map((f, i) => {
              const change = changes.get(f.pointer);
              const marked = viewed.includes(f.pointer);
              const n = comments.get(f.pointer)?.length ?? 0;
              return (
                <li
                  key={f.pointer}
                  role="option"
                  aria-selected={f === current}
                  className={`review-field${f === current ? ' selected' : ''}${marked ? ' viewed' : ''}`}
                  data-testid={`review-field-${f.pointer}`}
                  data-viewed={marked}
                  onClick={() => setSelected(i)}
                >
                  <span className={`sign sign-${f.sign === '+' ? 'add' : f.sign === '~' ? 'change' : 'remove'}`}>{f.sign}</span>
                  <SafeText text={f.label} className="mono field-label" />
                  {!marked && rowsOf(f) && (
                    <span className="field-values items" data-testid={`review-field-items-${f.pointer}`}>
                      {itemSummary(rowsOf(f)!)}
                    </span>
                  )}
                  {!marked && change && !rowsOf(f) && (
                    <span className="field-values">
                      {change.before !== undefined && <SafeText className="before" text={preview(change.before)} />}
                      {change.before !== undefined && change.after !== undefined && <span className="muted"> → </span>}
                      {change.after !== undefined && <SafeText className="after" text={preview(change.after)} />}
                    </span>
                  )}
                  {n > 0 && <span className="badge" title={`${n} comment${n === 1 ? '' : 's'}`}>💬 {n}</span>}
                  <label className="viewed-mark" onClick={(e) => e.stopPropagation()}>
                    <input type="checkbox" checked={marked} data-testid={`review-viewed-${f.pointer}`} onChange={() => toggle(key, f.pointer)} /> viewed
                  </label>
                </li>
              );
            })}
          </ul>
          {current && (
            <FieldDetail
              pointer={current.pointer}
              before={changes.get(current.pointer)?.before}
              after={r.base ? changes.get(current.pointer)?.after : packageValue(current.pointer)}
              base={r.base ? `v${r.base.version}` : undefined}
              comments={comments.get(current.pointer) ?? []}
              items={rowsOf(current)}
            />
          )}
        </section>
      )}

      {r.eval && (
        <section className="review-evidence" aria-label="Evidence" data-testid="review-evidence">
          <h3>Evidence: eval {r.eval.run} (read-only)</h3>
          {!r.eval.summary ? (
            <p className="muted">The run's summary is not available.</p>
          ) : r.eval.summary.comparisons.length === 0 ? (
            <p className="muted">The run has no comparison.</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th>Skill</th>
                  <th>A</th>
                  <th>B</th>
                  <th>Accuracy A</th>
                  <th>Accuracy B</th>
                  <th>A only / B only</th>
                  <th>p (McNemar)</th>
                </tr>
              </thead>
              <tbody>
                {r.eval.summary.comparisons.map((c, i) => (
                  <tr key={i} data-testid={`review-evidence-row-${i}`}>
                    <td><SafeText text={c.skill} /></td>
                    <td><SafeText text={c.a} /></td>
                    <td><SafeText text={c.b} /></td>
                    <td>{c.accuracy_a === null ? '—' : c.accuracy_a.toFixed(3)}</td>
                    <td>{c.accuracy_b === null ? '—' : c.accuracy_b.toFixed(3)}</td>
                    <td>{c.test.aOnly} / {c.test.bOnly}</td>
                    <td className={c.test.significant ? 'warn' : undefined}>{c.test.pValue.toPrecision(3)}{c.test.significant ? ' significant' : ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      )}

      <section className="review-conversation" aria-label="Conversation">
        <ul className="review-comments">
          {r.comments.map((c, i) => (
            <li key={i} data-testid={`review-comment-${i}`} data-pointer={c.pointer}>
              <span className="mono muted">{c.pointer || '/'}</span> <SafeText text={c.author} className="strong" />: <SafeText text={c.text} />
            </li>
          ))}
          {r.approvals.map((a, i) => (
            <li key={`a${i}`} data-testid={`review-approval-${i}`} data-stale={a.stale} data-verified={a.verified}>
              {a.verified ? '✓' : '✗'} approved by <SafeText text={a.reviewer} /> <span className="mono muted">{a.hash.slice(0, 12)}</span>
              {a.stale && <span className="warn"> (stale)</span>}
              {!a.verified && <span className="warn"> (its signature does not stand)</span>}
              {a.comment && (
                <>
                  : <SafeText text={a.comment} />
                </>
              )}
            </li>
          ))}
        </ul>
        <textarea
          className="review-textarea"
          data-testid="review-comment-text"
          placeholder={current ? `Comment on ${current.pointer}, or a note with your verdict` : 'A note with your verdict'}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          rows={2}
        />
      </section>

      <footer className="review-actions" data-testid="review-actions">
        <ActionButton id={r.id} testId="review-comment" label="Comment" state={actions!.comment.shown && !current ? { shown: true, enabled: false, reason: 'Select a changed field to comment on' } : actions!.comment} onClick={addComment} />
        <ActionButton id={r.id} testId="review-request-changes" label="Request changes" state={actions!.requestChanges} onClick={requestChanges} />
        <ActionButton id={r.id} testId="review-reject" label="Reject" state={actions!.reject} onClick={reject} />
        <ActionButton id={r.id} testId="review-approve" label="Approve" state={actions!.approve} onClick={approve} primary />
        <span className="spacer" />
        {actions!.publish.shown && !actions!.publish.enabled && (
          <span className="muted reason" data-testid="review-publish-reason">
            {actions!.publish.reason}
          </span>
        )}
        <ActionButton id={r.id} testId="review-publish" label={r.delete ? `Delete ${range} (If-Match v${r.base?.version ?? '?'})` : r.base ? `Publish (If-Match v${r.base.version})` : 'Publish'} state={actions!.publish} onClick={publish} primary />
      </footer>
    </div>
  );
}
