/**
 * The trace drawer: a non-modal panel beside the matrix that follows the
 * selected slot. For each repeat it shows the outcome, latency, tokens and
 * cost, and for each selector call the prompt sent, the raw answer, the
 * decoded decision, what revalidation accepted and the diagnostics.
 */
import { useEffect, useState } from 'react';
import type { EvalCellTrace } from '../api/client';
import { formatMs, formatUsd } from '../../core/report/format';
import { messageOf } from '../shell/useNotificationsStore';
import type { MatrixModel } from './matrix';
import { evalsClient } from './useEvalsStore';

interface Props {
  run: string;
  matrix: MatrixModel;
  r: number;
  c: number;
  version: number;
  onClose(): void;
}

type Loaded = { key: string; trace?: EvalCellTrace; error?: string };

export function TraceDrawer({ run, matrix, r, c, version, onClose }: Props) {
  const row = matrix.rows[r]!;
  const column = matrix.columns[c]!;
  const recorded = matrix.repeatsOf(r, c);
  const keys = recorded.map((cell) => cell?.key).filter((k): k is string => k !== undefined);
  const keysText = keys.join('\n');
  const [traces, setTraces] = useState<Loaded[]>([]);

  useEffect(() => {
    let live = true;
    const wanted = keysText ? keysText.split('\n') : [];
    Promise.all(
      wanted.map((key) =>
        evalsClient()['evals.trace']({ run, key })
          .then((trace): Loaded => ({ key, trace }))
          .catch((error: unknown): Loaded => ({ key, error: messageOf(error) })),
      ),
    ).then((loaded) => live && setTraces(loaded));
    return () => {
      live = false;
    };
  }, [run, keysText, version]);

  return (
    <aside className="trace-drawer" aria-label="Trace" data-testid="trace-drawer">
      <div className="trace-head">
        <div>
          <div className="mono ellipsis" title={column.model}>
            {column.label} · {column.variant}
          </div>
          <div className="trace-request">
            <span className={`expect ${row.case.expect === 'activate' ? 'act' : 'skip'}`}>{row.case.expect === 'activate' ? 'expected: activate' : 'expected: not activate'}</span> <bdi>{row.case.request}</bdi>
          </div>
          <div className="faint">
            case {row.case.id} · {row.case.skill} · {row.case.boundary}
          </div>
        </div>
        <button type="button" className="icon-btn" aria-label="Close trace (Escape)" title="Close (Escape)" onClick={onClose}>
          ✕
        </button>
      </div>
      <div className="trace-body">
        {keys.length === 0 && <p className="muted">No repeat of this case is recorded yet.</p>}
        {traces
          .filter((t) => keys.includes(t.key))
          .map((t) => (
            <section key={t.key} className="trace-repeat" data-testid="trace-repeat">
              {t.error ? (
                <div className="inline-error">{t.error}</div>
              ) : (
                <Repeat trace={t.trace!} />
              )}
            </section>
          ))}
      </div>
    </aside>
  );
}

function Repeat({ trace }: { trace: EvalCellTrace }) {
  const correct = trace.outcome === 'error' ? null : (trace.outcome === 'activated') === (trace.expect === 'activate');
  return (
    <>
      <h3>
        Repeat {trace.repeat + 1}{' '}
        <span className={`badge ${correct === null ? 'err' : correct ? 'ok' : 'warn'}`} data-testid="trace-outcome">
          {trace.outcome.replace('_', ' ')}
          {correct === false ? ' · wrong' : ''}
        </span>
        {trace.invalid && <span className="badge err">invalid answer</span>}
        {trace.cached && <span className="badge neutral">cached</span>}
      </h3>
      <div className="trace-facts">
        <span>latency {formatMs(trace.latency_ms)}</span>
        <span>
          tokens {trace.input_tokens} in / {trace.output_tokens} out
        </span>
        <span>cost {formatUsd(trace.cost_usd)}</span>
        <span>activated: {trace.activated.length > 0 ? trace.activated.join(', ') : 'none'}</span>
      </div>
      {trace.error && <div className="inline-error mono">{trace.error}</div>}
      {trace.trace.calls.map((call, j) => (
        <div key={j} className="trace-call">
          <div className="trace-call-head">
            {call.kind} call at {call.boundary} · {call.attempts.length} attempt{call.attempts.length === 1 ? '' : 's'} · {formatMs(call.latencyMs)} · {call.model}
          </div>
          <details>
            <summary>Prompt sent ({call.messages.length} messages)</summary>
            {call.messages.map((m, k) => (
              <div key={k}>
                <div className="faint">{m.role}</div>
                <pre className="trace-pre" data-testid="trace-prompt">
                  {m.content}
                </pre>
              </div>
            ))}
          </details>
          <h4>Raw answer</h4>
          <pre className="trace-pre" data-testid="trace-raw">
            {call.raw ?? '(no answer)'}
          </pre>
          <h4>Decision</h4>
          <pre className="trace-pre" data-testid="trace-decision">
            {call.decision ? JSON.stringify(call.decision) : '(nothing decoded)'}
          </pre>
          <div className="faint">accepted: {call.accepted.length > 0 ? call.accepted.join(', ') : 'none'}</div>
          {call.attempts.some((a) => a.error) && (
            <ul className="trace-diags">
              {call.attempts
                .filter((a) => a.error)
                .map((a) => (
                  <li key={a.attempt}>
                    attempt {a.attempt}
                    {a.correction ? ' (with correction)' : ''}: {a.error}
                  </li>
                ))}
            </ul>
          )}
          {call.diagnostics.length > 0 && (
            <ul className="trace-diags">
              {call.diagnostics.map((d, k) => (
                <li key={k}>
                  <span className="mono">{d.code}</span> {d.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      ))}
      {trace.diagnostics.length > 0 && (
        <>
          <h4>Diagnostics</h4>
          <ul className="trace-diags">
            {trace.diagnostics.map((d, k) => (
              <li key={k}>
                <span className="mono">{d.code}</span> {d.message}
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}
