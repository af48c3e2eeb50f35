/**
 * The engine's results of a run, shown as they are: the verdict and its
 * gates, and why no verdict was reached when none was; per model and skill
 * the accuracy, precision, recall (with their 95 % case-bootstrap intervals)
 * and F1 beside the usable share they rest on (errors and unusable answers
 * apart), the confusion counts, flaky cases, co-activation and "stolen by";
 * latency on one shared axis; and each paired comparison with its direction,
 * its McNemar test, its rate differences with intervals, the pass→fail flips
 * first, and the cases a side never answered flagged as missing.
 */
import type { EvalCase } from '../api/client';
import { formatCount, formatMs, formatP, formatRate, formatUsd } from '../../core/report/format';
import type { EvalSummary, PairedComparison } from '../../evals/types';
import type { Interval, RateDelta } from '../../evals/intervals';
import { EvalCharts } from './EvalCharts';
import { shortLabels } from './matrix';

function labeller(summary: EvalSummary): (spec: string) => string {
  const specs = summary.models.map((m) => m.model);
  const short = shortLabels(specs);
  return (spec) => short[specs.indexOf(spec)] ?? spec;
}

function ci(interval: Interval | null | undefined): string {
  return interval ? `[${formatRate(interval.low)}, ${formatRate(interval.high)}]` : '';
}

function delta(d: RateDelta | undefined): string {
  if (!d || d.value === null) return 'n/a';
  const sign = d.value > 0 ? '+' : '';
  return `${sign}${formatRate(d.value)}${d.interval ? ` ${ci(d.interval)}` : ''}`;
}

const VERDICT_LABEL = { passed: 'Gates passed', failed: 'Gate failed', unavailable: 'Model unavailable', incomplete: 'Incomplete' } as const;

/**
 * The run's verdict and gates. While the run is live the summary is re-read
 * every few seconds, so it trails the progress rows above it: it says over how
 * many cells its figures are, rather than reading as the run's count.
 */
export function Verdict({ summary, live }: { summary: EvalSummary; live: boolean }) {
  const v = summary.verdict;
  // The engine's message starts with the status ("incomplete: 95 of 120 cells recorded"); the label already says it.
  const message = v.message.startsWith(`${v.status}: `) ? v.message.slice(v.status.length + 2) : v.message;
  // Too many errors or unusable answers, or a selector never asked: no verdict, as loud as a failed gate.
  const reasons = (v.reasons ?? []).filter((r) => r.code !== 'cells_missing');
  const noVerdict = v.status === 'incomplete' && reasons.length > 0;
  const cls = live ? 'neutral' : v.status === 'passed' ? 'ok' : v.status === 'failed' || v.status === 'unavailable' || noVerdict ? 'err' : 'warn';
  return (
    <div className={`eval-verdict ${cls}`} data-testid="verdict" data-status={v.status}>
      <strong>{live ? 'Running' : noVerdict ? 'No verdict' : VERDICT_LABEL[v.status]}</strong>
      <span data-testid="verdict-message">{live ? `interim figures over ${formatCount(v.cells.recorded)} of ${formatCount(v.cells.expected)} cells` : noVerdict ? `${reasons.length} reason${reasons.length === 1 ? '' : 's'} below` : message}</span>
      {summary.gates.map((g, i) => (
        <span key={i} className={`badge ${g.passed ? 'ok' : 'err'}`} title={g.message} data-testid="gate">
          {g.gate} {g.model}: {g.passed ? 'pass' : 'fail'}
        </span>
      ))}
      {!live &&
        reasons.map((r, i) => (
          <span key={`r${i}`} className="verdict-reason" data-testid="verdict-reason" data-code={r.code}>
            {r.message}
          </span>
        ))}
      {v.warnings.map((w, i) => (
        <span key={`w${i}`} className="eval-warning-inline" data-testid="verdict-warning">
          {w.message}
        </span>
      ))}
    </div>
  );
}

export function Metrics({ summary }: { summary: EvalSummary }) {
  const label = labeller(summary);
  const latencyMax = Math.max(1, ...summary.models.map((m) => m.latency_p95_ms ?? 0));
  return (
    <div className="eval-results">
      <EvalCharts summary={summary} />
      <table className="eval-table metrics" data-testid="metrics-table">
        <thead>
          <tr>
            <th>Model</th>
            <th>Skill</th>
            <th>Variant</th>
            <th className="n">Accuracy</th>
            <th className="n">Precision</th>
            <th className="n">Recall</th>
            <th className="n">F1</th>
            <th className="n" title="The cells the rates rest on: errors and unusable answers count in no rate">
              Usable
            </th>
            <th className="n" title="TP / FP / TN / FN">Confusion</th>
            <th className="n">Flaky</th>
          </tr>
        </thead>
        <tbody>
          {summary.models.flatMap((m) =>
            m.skills.map((s) => (
              <tr key={`${m.model}|${s.skill}|${s.variant}`} data-testid="metrics-row" data-model={m.model} data-skill={s.skill} data-variant={s.variant}>
                <td className="mono model-cell" title={m.model}>
                  {label(m.model)}
                  {m.isBaseline && <span className="badge neutral">baseline</span>}
                </td>
                <td>{s.skill}</td>
                <td>{s.variant}</td>
                <td className="n">
                  <span data-field="accuracy">{formatRate(s.accuracy)}</span> <span className="faint ci">{ci(s.intervals?.accuracy)}</span>
                </td>
                <td className="n">
                  <span data-field="precision">{formatRate(s.precision)}</span> <span className="faint ci">{ci(s.intervals?.precision)}</span>
                </td>
                <td className="n">
                  <span data-field="recall">{formatRate(s.recall)}</span> <span className="faint ci">{ci(s.intervals?.recall)}</span>
                </td>
                <td className="n" data-field="f1">
                  {formatRate(s.f1)}
                </td>
                <td className="n" data-field="usable" title={`${s.errors} error cells and ${s.invalid} unusable answers left out of the rates`}>
                  {formatCount(s.cells - s.errors - s.invalid)} of {formatCount(s.cells)}
                  {s.errors > 0 && <span className="error-text"> · {formatCount(s.errors)} err</span>}
                  {s.invalid > 0 && <span className="unusable-text"> · {formatCount(s.invalid)} unusable</span>}
                </td>
                <td className="n mono" data-field="confusion">
                  {s.tp}/{s.fp}/{s.tn}/{s.fn}
                </td>
                <td className="n" data-field="flaky">
                  {formatCount(s.flaky_cases.length)}
                </td>
              </tr>
            )),
          )}
        </tbody>
      </table>

      <h2>Latency, tokens and cost</h2>
      <div className="latency-chart" data-testid="latency-chart">
        {summary.models.map((m) => (
          <div key={m.model} className="latency-row" data-model={m.model}>
            <span className="mono ellipsis" title={m.model}>
              {label(m.model)}
            </span>
            <span className="latency-axis">
              {m.latency_p95_ms !== null && <span className="latency-p95" style={{ width: `${(m.latency_p95_ms / latencyMax) * 100}%` }} />}
              {m.latency_p50_ms !== null && <span className="latency-p50" style={{ width: `${(m.latency_p50_ms / latencyMax) * 100}%` }} />}
            </span>
            <span className="n">
              p50 <span data-field="p50">{formatMs(m.latency_p50_ms)}</span> · p95 <span data-field="p95">{formatMs(m.latency_p95_ms)}</span>
            </span>
            <span className="n muted">
              {formatCount(m.input_tokens)} in / {formatCount(m.output_tokens)} out · <span data-field="cost">{formatUsd(m.cost_usd)}</span> · {formatCount(m.errors)} error{m.errors === 1 ? '' : 's'} · {formatCount(m.invalid)} unusable
            </span>
          </div>
        ))}
        <div className="faint">One axis for every model: 0 to {formatMs(latencyMax)} (bar: p95, inner bar: p50).</div>
      </div>

      <h2>Co-activation and stolen requests</h2>
      <table className="eval-table">
        <thead>
          <tr>
            <th>Model</th>
            <th>Skill (variant)</th>
            <th>Activated alongside</th>
            <th>Took its requests (stolen by)</th>
          </tr>
        </thead>
        <tbody>
          {summary.models.flatMap((m) =>
            m.skills.map((s) => (
              <tr key={`${m.model}|${s.skill}|${s.variant}`}>
                <td className="mono model-cell" title={m.model}>
                  {label(m.model)}
                </td>
                <td>
                  {s.skill} ({s.variant})
                </td>
                <td>{Object.entries(s.co_activated).map(([k, n]) => `${k} (${n})`).join(', ') || '—'}</td>
                <td>{Object.entries(s.stolen_by ?? {}).map(([k, n]) => `${k} (${n})`).join(', ') || '—'}</td>
              </tr>
            )),
          )}
        </tbody>
      </table>
    </div>
  );
}

/** The cases of a comparison sorted for reading: pass→fail flips, then fail→pass, missing, flaky, agreeing. */
function caseGroups(c: PairedComparison) {
  const passToFail = c.cases.filter((x) => x.verdict_a === 'wrong' && x.verdict_b === 'right');
  const failToPass = c.cases.filter((x) => x.verdict_a === 'right' && x.verdict_b === 'wrong');
  const missing = c.cases.filter((x) => x.verdict_a === 'none' || x.verdict_b === 'none');
  const tie = c.cases.filter((x) => (x.verdict_a === 'tie' || x.verdict_b === 'tie') && x.verdict_a !== 'none' && x.verdict_b !== 'none');
  return { passToFail, failToPass, missing, tie };
}

const VERDICT_TEXT = { right: 'pass', wrong: 'fail', tie: 'tie (flaky)', none: 'missing' } as const;

export function Comparisons({ summary, cases }: { summary: EvalSummary; cases: EvalCase[] }) {
  const request = new Map(cases.map((c) => [c.id, c.request]));
  const label = labeller(summary);
  if (summary.comparisons.length === 0) {
    return <p className="muted">No comparison in this run: choose “Draft vs published”, or two or more models.</p>;
  }
  return (
    <div className="eval-results">
      {summary.comparisons.map((c, i) => {
        const g = caseGroups(c);
        const title = c.kind === 'variant' ? `${c.a} vs ${c.b} · ${label(c.model ?? '')}` : `${label(c.a)} vs ${label(c.b)} · ${c.variant}`;
        // Which way a flip reads: A is the side under judgement (the draft, or the first model).
        const direction =
          c.kind === 'variant'
            ? `draft vs published under ${label(c.model ?? '')}: PASS→FAIL means the draft lost the case (published right, draft wrong); FAIL→PASS means the draft won it.`
            : `${label(c.a)} vs ${label(c.b)} on the ${c.variant} variant: PASS→FAIL means ${label(c.a)} lost the case (${label(c.b)} right, ${label(c.a)} wrong); FAIL→PASS means ${label(c.a)} won it.`;
        return (
          <section key={i} className="comparison" data-testid="comparison" data-kind={c.kind} data-a={c.a} data-b={c.b}>
            <h2>
              {c.skill}: <span className="mono">{title}</span>
            </h2>
            <p className="comparison-direction" data-testid="comparison-direction">
              {direction} One pair per case: each side counts by the majority of its usable repeats.
            </p>
            <div className="comparison-facts">
              <span>
                accuracy on {formatCount(c.pairs)} paired cases: <strong data-field="accuracy_a">{formatRate(c.accuracy_a)}</strong> vs <strong data-field="accuracy_b">{formatRate(c.accuracy_b)}</strong>
              </span>
              <span>
                ΔAccuracy <span data-field="d_accuracy">{delta(c.deltas?.accuracy)}</span>
              </span>
              <span>
                ΔPrecision <span data-field="d_precision">{delta(c.deltas?.precision)}</span>
              </span>
              <span>
                ΔRecall <span data-field="d_recall">{delta(c.deltas?.recall)}</span>
              </span>
              <span>
                McNemar: {c.a} only right {c.test.aOnly}, {c.b} only right {c.test.bOnly}, p = <span data-field="p">{formatP(c.test.pValue)}</span>{' '}
                <span className={`badge ${c.test.significant ? 'warn' : 'neutral'}`}>{c.test.significant ? 'significant' : 'not significant'}</span>
              </span>
              {(c.flaky_a > 0 || c.flaky_b > 0 || c.unanswered > 0) && (
                <span className="eval-warning-inline">
                  left out: {c.flaky_a} flaky on {c.a}, {c.flaky_b} flaky on {c.b}, {c.unanswered} missing (never answered on a side)
                </span>
              )}
            </div>
            <table className="eval-table flips">
              <thead>
                <tr>
                  <th>Change</th>
                  <th>Case</th>
                  <th>
                    {c.a} ({'verdict'})
                  </th>
                  <th>
                    {c.b} ({'verdict'})
                  </th>
                  <th className="n">Trigger rate</th>
                </tr>
              </thead>
              <tbody>
                {[
                  ...g.passToFail.map((x) => ['pass→fail', x] as const),
                  ...g.failToPass.map((x) => ['fail→pass', x] as const),
                  ...g.missing.map((x) => ['missing', x] as const),
                  ...g.tie.map((x) => ['flaky', x] as const),
                ].map(([kind, x]) => (
                  <tr key={`${kind}|${x.case}`} className={`flip ${kind === 'pass→fail' ? 'regress' : kind === 'missing' ? 'missing' : ''}`} data-testid="flip" data-kind={kind} data-case={x.case}>
                    <td>
                      <span className={`badge ${kind === 'pass→fail' ? 'err' : kind === 'fail→pass' ? 'ok' : 'warn'}`}>{kind}</span>
                    </td>
                    <td>
                      <bdi>{request.get(x.case) ?? x.case}</bdi>
                    </td>
                    <td>{VERDICT_TEXT[x.verdict_a]}</td>
                    <td>{VERDICT_TEXT[x.verdict_b]}</td>
                    <td className="n">
                      {formatRate(x.rate_a)} vs {formatRate(x.rate_b)}
                    </td>
                  </tr>
                ))}
                {g.passToFail.length + g.failToPass.length + g.missing.length + g.tie.length === 0 && (
                  <tr>
                    <td colSpan={5} className="muted">
                      Every case got the same verdict on both sides.
                    </td>
                  </tr>
                )}
              </tbody>
            </table>
          </section>
        );
      })}
    </div>
  );
}
