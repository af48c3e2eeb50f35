/**
 * "Improve description": runs the description optimizer on the editor's
 * draft (`optimize.start`), with live progress from `optimize.progressed`,
 * the candidates with their train score per model and catalog-token cost, the
 * held-out verdict and per-model comparison (by case and by answer: a model
 * whose answers got worse is never shown under a green verdict), and "Apply
 * to draft", which puts the winner's patch into the editor only when the
 * held-out cases proved a gain, and only on click. Candidates of the keyword
 * proposer are labelled as mechanical suggestions. Nothing is published.
 */
import { useEffect, useRef, useState } from 'react';
import type { CandidateReport, OptimizeHeldoutView, ModelScore, OptimizeProgress, OptimizeRunView } from '../../core/api/contract';
import { workbenchClient } from '../api/client';
import type { EditorRef } from '../editor/actions';
import { SafeText } from '../shell/SafeText';
import { messageOf } from '../shell/useNotificationsStore';
import { applyPatchToText } from './patching';
import { draftText, replaceDraftText } from './store';

const BASELINES = ['baseline:lexical', 'baseline:embedding'];
const KEYWORDS = 'baseline:keywords';
const POLL_MS = 1500;

const pct = (x: number | null | undefined) => (x === null || x === undefined ? '—' : `${(x * 100).toFixed(0)}%`);

function scoreOf(scores: readonly ModelScore[] | undefined, model: string): string {
  const s = scores?.find((x) => x.model === model);
  if (!s) return '—';
  return `${pct(s.accuracy)} (${s.correct}/${s.answered}${s.errors ? `, ${s.errors} err` : ''})`;
}

/** Where the winner fell short on a model, harm or within the margin. */
function dropsOf(h: OptimizeHeldoutView): string[] {
  const lost = h.comparison.test.bOnly;
  return [...h.answers.drops, ...(lost > 0 ? [`${lost} case${lost === 1 ? '' : 's'} lost`] : [])];
}

/** How a model came out: a badge that is green only when it lost nothing. */
function judgement(h: OptimizeHeldoutView): { label: string; tone: 'ok' | 'warn' | 'err' | 'neutral' } {
  if (h.worse) return { label: 'worse', tone: 'err' };
  if (dropsOf(h).length > 0) return { label: h.better ? 'better, with a drop' : 'lower, within margin', tone: 'warn' };
  return h.better ? { label: 'better', tone: 'ok' } : { label: 'no difference', tone: 'neutral' };
}

function modelsOf(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((m) => m.trim())
    .filter(Boolean);
}

export function ImprovePanel({ editor }: { editor: EditorRef }) {
  const [models, setModels] = useState(BASELINES.join(', '));
  const [proposer, setProposer] = useState('baseline:keywords');
  const [rounds, setRounds] = useState('3');
  const [seed, setSeed] = useState('');
  const [run, setRun] = useState<OptimizeRunView | undefined>();
  const [progress, setProgress] = useState<OptimizeProgress | undefined>();
  const [candidates, setCandidates] = useState<CandidateReport[]>([]);
  const [error, setError] = useState<string | undefined>();
  const [applied, setApplied] = useState<string | undefined>();
  const runId = useRef<string | undefined>(undefined);
  const ended = useRef(new Map<string, OptimizeRunView>());

  // Progress and the end arrive as events; a slow poll covers an event missed while reconnecting.
  useEffect(() => {
    const api = workbenchClient();
    const finish = (view: OptimizeRunView) => {
      ended.current.set(view.run, view);
      if (view.run !== runId.current) return;
      setRun(view);
      setProgress(view.progress);
      setCandidates(view.candidates);
    };
    const offs = [
      api.on('optimize.progressed', (e) => {
        if (e.run !== runId.current) return;
        setProgress(e.progress);
        if (e.candidates) setCandidates(e.candidates);
      }),
      api.on('optimize.finished', (e) => finish(e.run)),
    ];
    const timer = setInterval(() => {
      const id = runId.current;
      if (!id || ended.current.has(id)) return;
      api['optimize.get']({ run: id }).then(
        (view) => view.status !== 'running' && view.status !== 'stopping' && finish(view),
        () => undefined,
      );
    }, POLL_MS);
    return () => {
      offs.forEach((off) => off());
      clearInterval(timer);
      const id = runId.current;
      if (id && !ended.current.has(id)) void api['optimize.stop']({ run: id }).catch(() => undefined);
    };
  }, []);

  const running = run !== undefined && (run.status === 'running' || run.status === 'stopping');

  const start = async () => {
    const text = draftText(editor);
    if (text === undefined) return setError('The editor is not open any more.');
    setError(undefined);
    setApplied(undefined);
    setCandidates([]);
    setProgress(undefined);
    const seedValue = seed.trim() === '' ? undefined : Number(seed);
    try {
      const view = await workbenchClient()['optimize.start']({
        source: { kind: 'text', text, skill: editor.skill },
        connection: editor.connection,
        models: modelsOf(models),
        proposer: proposer.trim(),
        rounds: Number(rounds) || 3,
        ...(seedValue !== undefined && { seed: seedValue }),
      });
      runId.current = view.run;
      const done = ended.current.get(view.run);
      setRun(done ?? view);
      setProgress((done ?? view).progress);
      setCandidates((done ?? view).candidates);
    } catch (e) {
      setError(messageOf(e));
    }
  };

  const stop = () => {
    if (runId.current) void workbenchClient()['optimize.stop']({ run: runId.current }).catch((e: unknown) => setError(messageOf(e)));
  };

  const report = run?.report ?? null;
  const apply = () => {
    if (!report?.winner) return;
    const text = draftText(editor);
    if (text === undefined) return setError('The editor is not open any more.');
    const patched = applyPatchToText(text, report.winner.patch);
    if (!patched.ok) return setError(`Not applied: ${patched.message}`);
    if (!replaceDraftText(editor, patched.text)) return setError('The editor is not open any more.');
    setApplied(`Applied ${report.winner.candidate} to the draft (not published; Ctrl+Z undoes it).`);
  };

  const modelList = report ? report.models.map((m) => m.spec) : (run?.models ?? modelsOf(models));
  // What each round's proposer said (no room, nothing missed, ...), without the bare "no candidate to evaluate".
  const notes = (report?.rounds ?? []).flatMap((r) => r.notes.filter((n) => n !== 'no candidate to evaluate').map((n) => `Round ${r.round}: ${n}`));
  const dropped = (report?.heldout ?? []).map((h) => ({ model: h.model, drops: dropsOf(h) })).filter((d) => d.drops.length > 0);
  // The keyword proposer appends words by rule: its candidates are suggestions a person should read, not a model's writing.
  const mechanical = report ? report.proposer.isBaseline : (run?.proposer ?? proposer.trim()) === KEYWORDS;
  const share = progress && progress.total > 0 ? Math.min(1, progress.done / progress.total) : 0;

  return (
    <div className="authoring improve" data-testid="improve-panel" data-run={run?.run}>
      <p className="muted">
        Rewrites the catalog description of <strong>{editor.skill.namespace}/{editor.skill.name}</strong> against the competing catalog of @{editor.connection}, scores each candidate on
        train cases on every model, and proposes the winner only when held-out cases prove it better.
      </p>
      <div className="form-grid">
        <label htmlFor="improve-models">Models</label>
        <input id="improve-models" className="input" value={models} onChange={(e) => setModels(e.target.value)} disabled={running} data-testid="improve-models" data-autofocus />
        <label htmlFor="improve-proposer">Proposer</label>
        <input id="improve-proposer" className="input" value={proposer} onChange={(e) => setProposer(e.target.value)} disabled={running} data-testid="improve-proposer" />
        <span className="hint">baseline:keywords needs no model; or a language model (openai:smart, …)</span>
        <label htmlFor="improve-rounds">Rounds / seed</label>
        <span className="authoring-pair">
          <input id="improve-rounds" className="input" type="number" min={1} max={20} value={rounds} onChange={(e) => setRounds(e.target.value)} disabled={running} data-testid="improve-rounds" />
          <input className="input" aria-label="Seed" placeholder="seed (random)" value={seed} onChange={(e) => setSeed(e.target.value.replace(/[^0-9]/g, ''))} disabled={running} data-testid="improve-seed" />
        </span>
      </div>
      <div className="authoring-actions">
        {running ? (
          <button type="button" className="btn" onClick={stop} data-testid="improve-stop">
            Stop
          </button>
        ) : (
          <button type="button" className="btn primary" onClick={() => void start()} data-testid="improve-run">
            {run ? 'Run again' : 'Run'}
          </button>
        )}
        {run && <span className="muted">seed {run.seed}</span>}
      </div>
      {error && (
        <div className="inline-error" role="alert" data-testid="improve-error">
          <SafeText text={error} />
        </div>
      )}
      {progress && (
        <div className="authoring-progress" data-testid="improve-progress" aria-live="polite">
          <div className="authoring-bar" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(share * 100)}>
            <span style={{ transform: `scaleX(${progress.phase === 'done' ? 1 : share})` }} />
          </div>
          <span className="muted">
            {/* Once finished, the verdict below says it. */}
            <SafeText text={report ? `${run?.candidates.length ?? 0} candidates, ${report.rounds.length} round${report.rounds.length === 1 ? '' : 's'}` : progress.message} />
            {progress.total > 0 && progress.phase !== 'done' ? ` · ${progress.done}/${progress.total} cells` : ''}
          </span>
        </div>
      )}
      {report && (
        <section className={`authoring-verdict ${report.verdict === 'proven_gain' ? (dropped.length > 0 ? 'gain-with-drop' : 'gain') : 'none'}`} data-testid="improve-verdict" data-verdict={report.verdict}>
          <strong>{report.verdict === 'proven_gain' ? 'Proven gain on held-out cases' : 'No proven gain'}</strong>
          <SafeText text={report.reason.replace(/^(?:no )?proven gain: /, '')} />
          {report.verdict === 'proven_gain' && dropped.length > 0 && (
            <div data-testid="improve-drops">
              <SafeText text={`Lower on some answers, within the ${report.harm_margin} harm margin: ${dropped.map((d) => `${d.model} (${d.drops.join(', ')})`).join('; ')}.`} />
            </div>
          )}
          {report.heldout && (
            <table className="authoring-table compact" data-testid="improve-heldout">
              <thead>
                <tr>
                  <th>Held-out ({report.split.heldout.length} cases)</th>
                  <th className="num">{report.best?.candidate ?? 'winner'}</th>
                  <th className="num">original</th>
                  <th className="num" title="Cases won and lost, each side by the majority of its repeats">won / lost</th>
                  <th className="num">McNemar p</th>
                  <th className="num" title="False activations on should-not cases: share of answers that activated the skill">false activations</th>
                  <th className="num" title="One-sided Wilcoxon signed-rank test of the per-case share of right answers">worse per answer p</th>
                  <th>judged</th>
                </tr>
              </thead>
              <tbody>
                {report.heldout.map((h) => {
                  const j = judgement(h);
                  return (
                    <tr key={h.model} data-testid={`improve-heldout-${h.model}`} data-judged={j.label}>
                      <td>{h.model}</td>
                      <td className="num">{pct(h.winner.accuracy)}</td>
                      <td className="num">{pct(h.original.accuracy)}</td>
                      <td className="num">
                        {h.comparison.test.aOnly} / {h.comparison.test.bOnly}
                      </td>
                      <td className="num">{h.comparison.test.pValue.toPrecision(3)}</td>
                      <td className="num">
                        {pct(h.answers.false_activation.winner)} vs {pct(h.answers.false_activation.original)}
                      </td>
                      <td className="num">{h.answers.test.p_worse.toPrecision(3)}</td>
                      <td>
                        <span className={`badge ${j.tone}`}>{j.label}</span>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
          {report.heldout?.some((h) => h.answers.harm.length > 0) && (
            <ul className="authoring-harm" data-testid="improve-harm">
              {report.heldout
                .filter((h) => h.answers.harm.length > 0)
                .map((h) => (
                  <li key={h.model}>
                    <SafeText text={`${h.model}: ${h.answers.harm.join('; ')}`} />
                  </li>
                ))}
            </ul>
          )}
          {report.heldout && (
            <details>
              <summary>Per-case comparison</summary>
              {report.heldout.map((h) => (
                <div key={h.model} className="authoring-cases">
                  <span className="muted">{h.model}</span>
                  <ul>
                    {h.comparison.cases.map((c) => {
                      const request = report.split.heldout.find((x) => x.id === c.case)?.request ?? c.case;
                      return (
                        <li key={c.case} className={c.verdict_a !== c.verdict_b ? 'differs' : ''}>
                          <span className="badge neutral">{c.expect === 'activate' ? 'should' : 'should not'}</span> <SafeText text={request} /> — winner {c.verdict_a}, original {c.verdict_b}
                        </li>
                      );
                    })}
                  </ul>
                </div>
              ))}
            </details>
          )}
          {report.winner ? (
            <div className="authoring-actions">
              <button type="button" className="btn primary" onClick={apply} disabled={applied !== undefined} data-testid="improve-apply">
                Apply to draft
              </button>
              <span className="muted">replaces the description; publishing stays a separate step</span>
            </div>
          ) : (
            <div className="muted" data-testid="improve-nothing">
              Nothing to apply: the draft is unchanged.
            </div>
          )}
          {applied && (
            <div className="inline-ok" data-testid="improve-applied">
              {applied}
            </div>
          )}
        </section>
      )}
      {run?.status === 'failed' && (
        <div className="inline-error" role="alert" data-testid="improve-failed">
          <SafeText text={run.error?.message ?? 'The optimizer failed.'} />
        </div>
      )}
      {run?.status === 'stopped' && <div className="muted">Stopped. Run again with seed {run.seed} to reuse the recorded cells.</div>}
      {mechanical && (candidates.length > 0 || report) && (
        <div className="muted authoring-mechanical" data-testid="improve-mechanical">
          <strong>Mechanical suggestions.</strong> {KEYWORDS} appends words of the missed requests by rule; it is not a language model. Read each one before applying it.
        </div>
      )}
      {(candidates.length > 0 || report) && (
        <table className="authoring-table" data-testid="improve-candidates">
          <thead>
            <tr>
              <th>Candidate</th>
              <th>Description</th>
              {modelList.map((m) => (
                <th key={m} className="num">
                  {m}
                </th>
              ))}
              <th className="num">Catalog</th>
            </tr>
          </thead>
          <tbody>
            {report && (
              <tr className="original">
                <td>original</td>
                <td className="desc">
                  <SafeText text={report.original.description} />
                </td>
                {modelList.map((m) => (
                  <td key={m} className="num">
                    {scoreOf(report.original.train, m)}
                  </td>
                ))}
                <td className="num">{report.original.catalog_tokens} tok</td>
              </tr>
            )}
            {candidates.map((c) => (
              <tr key={c.id} className={`${c.status}${report?.best?.candidate === c.id ? ' best' : ''}${report?.winner?.candidate === c.id ? ' winner' : ''}`} data-testid={`improve-candidate-${c.id}`}>
                <td>
                  {c.id}
                  {report?.winner?.candidate === c.id ? <span className="badge ok">proven</span> : report?.best?.candidate === c.id && <span className="badge neutral">best on train</span>}
                </td>
                <td className="desc">
                  {mechanical && <span className="badge neutral">mechanical</span>} <SafeText text={c.description} />
                  {c.status === 'dropped' && (
                    <div className="error-text">
                      dropped ({c.reason}): <SafeText text={c.message ?? ''} />
                    </div>
                  )}
                </td>
                {modelList.map((m) => (
                  <td key={m} className="num">
                    {c.status === 'dropped' ? '—' : scoreOf(c.train, m)}
                  </td>
                ))}
                <td className="num">
                  {c.catalog_tokens !== undefined ? `${c.catalog_tokens} tok` : '—'}
                  {c.catalog_tokens !== undefined && report ? <span className="faint"> ({c.catalog_tokens - report.original.catalog_tokens >= 0 ? '+' : ''}{c.catalog_tokens - report.original.catalog_tokens})</span> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {notes.length > 0 && (
        <ul className="authoring-notes muted" data-testid="improve-notes">
          {notes.map((n) => (
            <li key={n}>
              <SafeText text={n} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
